# Classes, dataclasses, and how objects echo.
# fidelity: quick

# %%
from dataclasses import dataclass, field

@dataclass
class Point:
    x: float
    y: float = 0.0
    tags: list = field(default_factory=list)

p = Point(1.5)
p

# %%
class Plain:
    def __init__(self, v):
        self.v = v

Plain(3)

# %%
[Point(1, 2), Point(3, 4)]

# %%
class Temperature:
    def __init__(self, celsius):
        self._c = celsius
    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32
    def __repr__(self):
        return f"Temperature({self._c}°C)"
    def __str__(self):
        return f"{self._c} degrees"

t = Temperature(21)
print(t)
t

# %%
t.fahrenheit

# %%
from enum import Enum
class Color(Enum):
    RED = 1
    GREEN = 2
Color.RED, list(Color)

# %%
from collections import namedtuple, Counter, defaultdict, OrderedDict
Row = namedtuple("Row", "id name")
Row(1, "ada")

# %%
Counter("mississippi")

# %%
dd = defaultdict(list)
dd["a"].append(1)
dd

# %%
def greet(name, punctuation="!"):
    return f"hello {name}{punctuation}"

greet

# %%
Point

# %%
len

# %%
(n * n for n in range(3))

# %%
class Base:
    def describe(self):
        return f"I am {type(self).__name__}"

class Child(Base):
    pass

Child().describe(), isinstance(Child(), Base), Child.__mro__

# %%
p.x = "changed"
p
