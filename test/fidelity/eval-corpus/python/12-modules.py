# Importing project modules and the standard library.

# %%
import helpers
helpers.normalize_name("  ada   LOVELACE ")

# %%
inv = helpers.Inventory().add("bolt", 3).add("nut", 5).add("bolt", 2)
inv.items, inv.total()

# %%
helpers.Inventory()

# %%
from helpers import safe_ratio
safe_ratio(1, 4)

# %%
with open("helpers.py", "a") as f:
    f.write("\n\ndef shout(s):\n    return s.upper() + '!'\n")
import importlib
importlib.reload(helpers)
helpers.shout("reloaded")

# %%
import not_a_real_module

# %%
from helpers import does_not_exist

# %%
import math, statistics
statistics.mean([1, 2, 3, 4]), math.pi, statistics.stdev([2, 4, 4, 4, 5, 5, 7, 9])

# %%
import itertools
list(itertools.islice(itertools.cycle("ab"), 5)), list(itertools.combinations([1, 2, 3], 2))

# %%
import functools

@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

fib(80)

# %%
fib.cache_info()

# %%
helpers
