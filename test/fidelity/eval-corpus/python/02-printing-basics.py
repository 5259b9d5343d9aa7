# Printing, echoes of built-in values, and the last-expression rules.

# %%
x = 41
x + 1

# %%
print("hello", "world", sep=", ")
print("no newline", end="")

# %%
name = "enclave"
f"{name!r} has {len(name)} letters"

# %%
numbers = list(range(10))
numbers

# %%
squares = {n: n * n for n in range(6)}
squares

# %%
long_list = [n * 1000 for n in range(40)]
long_list

# %%
nested = {"config": {"debug": True, "level": 3, "paths": ["/tmp/a", "/tmp/b"]}, "users": [{"id": 1, "name": "ada"}, {"id": 2, "name": "grace"}]}
nested

# %%
(1, "two", 3.0, None, True)

# %%
None

# %%
print("suppressed echo below")
42;

# %%
b"bytes \x00\xff"

# %%
"multi\nline\nstring"

# %%
print("multi\nline\nstring")

# %%
_ + " again"

# %%
import sys
print("to stderr", file=sys.stderr)
print("to stdout")

# %%
{3, 1, 2}

# %%
frozenset([1, 2])

# %%
3 / 7, 2 ** 100, 1e-9, float("nan")

# %%
for i, word in enumerate(["alpha", "beta", "gamma"]):
    print(i, word.upper())

# %%
list(zip("abc", [1, 2, 3]))

# %%
sorted(["pear", "Apple", "banana"], key=str.lower)
