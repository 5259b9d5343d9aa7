# Dates, decimals, hashing, and other standard library helpers.

# %%
from datetime import date, datetime, timedelta
d = date(2024, 2, 28)
d + timedelta(days=2)

# %%
datetime(2024, 5, 17, 13, 45).isoformat(), datetime(2024, 5, 17).strftime("%A %d %B %Y")

# %%
from decimal import Decimal
Decimal("0.1") + Decimal("0.2"), 0.1 + 0.2

# %%
from fractions import Fraction
Fraction(3, 9) + Fraction(1, 6)

# %%
import hashlib
hashlib.sha256(b"enclave").hexdigest()

# %%
import uuid
uuid.UUID("12345678-1234-5678-1234-567812345678")

# %%
import base64
base64.b64encode(b"hello").decode()

# %%
from pathlib import PurePosixPath
PurePosixPath("/data/raw/file.csv").parent

# %%
import operator
sorted([("b", 2), ("a", 3), ("c", 1)], key=operator.itemgetter(1))

# %%
import string
string.ascii_lowercase[:10]

# %%
range(0, 10, 2)

# %%
divmod(17, 5), round(2.675, 2), abs(-3), max([3, 9, 2]), min("hello")

# %%
type(3), type("s"), type(None)

# %%
complex(1, 2) * 2
