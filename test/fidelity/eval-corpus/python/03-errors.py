# Errors an agent runs into, and how their tracebacks read.
# fidelity: quick

# %%
undefined_name + 1

# %%
def divide(a, b):
    return a / b

divide(1, 0)

# %%
def outer(n):
    return middle(n)

def middle(n):
    return inner(n)

def inner(n):
    raise ValueError(f"bad value: {n}")

outer(7)

# %%
config = {"host": "localhost"}
config["port"]

# %%
print("output before the error is kept")
int("not a number")

# %%
class ValidationError(Exception):
    pass

def validate(record):
    if "id" not in record:
        raise ValidationError("record has no id: %r" % (record,))

validate({"name": "x"})

# %%
try:
    1 / 0
except ZeroDivisionError as e:
    raise RuntimeError("while computing the ratio") from e

# %%
try:
    [][0]
except IndexError:
    raise KeyError("during handling")

# %%
assert 1 + 1 == 3, "arithmetic is broken"

# %%
x = (1,
     2

# %%
def f():
return 1

# %%
for i in range(3):
        print(i)
    print("dedented wrong")

# %%
print("fine"
      "still fine")
if True
    pass

# %%
return 5

# %%
import json
json.loads('{"a": 1,}')

# %%
"abc" + 1

# %%
None.attribute

# %%
import math
math.sqrt(-1)

# %%
from helpers import safe_ratio
safe_ratio(3, 0)

# %%
eval("1 +")

# %%
import warnings
warnings.warn("this API is deprecated", DeprecationWarning)
warnings.warn("careful with this")
"after warnings"
