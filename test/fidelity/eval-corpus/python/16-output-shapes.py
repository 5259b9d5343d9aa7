# Output shapes agents produce: long prints, long lists, grouped frames, figures as values.

# %%
for i in range(40):
    print(f"line {i:03d}: " + "x" * (i % 7))

# %%
list(range(1500))

# %%
{f"key_{i}": {"value": i, "square": i * i, "label": "item %d" % i} for i in range(8)}

# %%
import pandas as pd
import numpy as np
sales = pd.read_csv("sales.csv")
grouped = sales.groupby(["region", "product"]).agg(units=("units", "sum"), orders=("units", "count"))
grouped.head(7)

# %%
sales.describe(include="all").T

# %%
with_gaps = pd.DataFrame({"a": [1.0, None, 3.5], "b": ["x", None, "a much longer text value in this column"], "when": pd.to_datetime(["2024-01-01", None, "2024-03-01"])})
with_gaps

# %%
pd.Series([0.123456789, 1e-10, 12345678.9])

# %%
sales["region"].unique()

# %%
%matplotlib inline
import matplotlib.pyplot as plt
fig = plt.figure(figsize=(3, 2))
plt.plot([1, 2])
fig

# %%
np.float64(1.5), np.int64(3), np.array([True, False])

# %%
print(sales.head(3).to_string(index=False))

# %%
sales.head(3).to_dict(orient="records")

# %%
import sys
print("stdout first")
print("then stderr", file=sys.stderr)
"and the echo"
