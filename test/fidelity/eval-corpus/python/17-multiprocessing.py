# multiprocessing in a cell: a pool, a queue under a lock, shared memory (POSIX semaphores and
# shared memory live in /dev/shm).

# %%
from multiprocessing import Pool

def f(x):
    return x * x

with Pool(2) as pool:
    squares = pool.map(f, range(5))
squares

# %%
from multiprocessing import Lock, Process, Queue

q, lock = Queue(), Lock()

def put(i):
    with lock:
        q.put(i * 10)

ps = [Process(target=put, args=(i,)) for i in range(3)]
for p in ps:
    p.start()
for p in ps:
    p.join()
sorted(q.get(timeout=30) for _ in ps)

# %%
from multiprocessing import shared_memory

shm = shared_memory.SharedMemory(create=True, size=16)
shm.buf[:5] = b"hello"
seen = bytes(shm.buf[:5])
shm.close()
shm.unlink()
seen
