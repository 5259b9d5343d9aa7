# Iterating on a piece of code across cells: state, redefinition, fixing a bug.

# %%
prices = {"apple": 1.2, "pear": 0.8, "fig": 2.5}
def total(basket):
    return sum(prices[item] * qty for item, qty in basket.items())

total({"apple": 2, "fig": 1})

# %%
total({"apple": 1, "kiwi": 3})

# %%
def total(basket):
    missing = [item for item in basket if item not in prices]
    if missing:
        raise KeyError(f"no price for {', '.join(missing)}")
    return round(sum(prices[item] * qty for item, qty in basket.items()), 2)

total({"apple": 1, "kiwi": 3})

# %%
prices["kiwi"] = 0.5
total({"apple": 1, "kiwi": 3})

# %%
history = []
for basket in [{"pear": 2}, {"fig": 4, "pear": 1}]:
    history.append(total(basket))
history

# %%
counter = 0
def bump():
    global counter
    counter += 1
    return counter

bump(), bump(), counter

# %%
del prices["fig"]
"fig" in prices

# %%
prices

# %%
results = {}
for name in ["a", "b"]:
    results[name] = len(name) * 10
print(results)
results
