# Top-level await and asyncio in cells.

# %%
import asyncio
await asyncio.sleep(0.01)
"slept"

# %%
async def fetch(n):
    await asyncio.sleep(0.01 * n)
    return n * 10

await fetch(2)

# %%
results = await asyncio.gather(*(fetch(i) for i in range(4)))
results

# %%
async def failing():
    await asyncio.sleep(0)
    raise TimeoutError("upstream did not answer")

await failing()

# %%
async def ticker(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i

[i async for i in ticker(3)]

# %%
fetch(1)
