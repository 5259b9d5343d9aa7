"""Small helpers a project keeps next to its notebooks."""


def normalize_name(name):
    return " ".join(part.capitalize() for part in name.strip().split())


def safe_ratio(a, b):
    if b == 0:
        raise ValueError("denominator is zero for %r / %r" % (a, b))
    return a / b


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, qty):
        self.items[name] = self.items.get(name, 0) + qty
        return self

    def total(self):
        return sum(self.items.values())
