# More pandas: merges, wide and long frames, Series, MultiIndex.

# %%
import pandas as pd
import numpy as np
customers = pd.DataFrame({"id": [1, 2, 3, 4], "name": ["ada", "grace", "linus", "ken"]})
orders = pd.DataFrame({"order": [10, 11, 12, 13, 14], "customer_id": [1, 1, 3, 4, 9], "amount": [20.0, 35.5, 12.25, 8.0, 99.9]})
merged = orders.merge(customers, left_on="customer_id", right_on="id", how="left")
merged

# %%
merged["name"].fillna("unknown").tolist()

# %%
wide = pd.DataFrame(np.arange(3 * 30).reshape(3, 30), columns=[f"c{i}" for i in range(30)])
wide

# %%
print(wide)

# %%
long = pd.DataFrame({"n": range(100), "sq": [i * i for i in range(100)]})
long

# %%
long.tail(3)

# %%
s = pd.Series([3, 1, 2], index=["c", "a", "b"], name="counts")
s.sort_index()

# %%
s.to_dict()

# %%
sales = pd.read_csv("sales.csv")
sales.groupby(["region", "product"])["units"].sum().head(8)

# %%
agg = sales.groupby("region").agg(total_units=("units", "sum"), mean_price=("unit_price", "mean"), orders=("units", "count"))
agg.round(2)

# %%
sales.info()

# %%
sales["unit_price"].describe()

# %%
pd.DataFrame()

# %%
sales.columns.tolist()

# %%
sales.query("units > 35 and returned == 'yes'")

# %%
sales.groupby(["region", "returned"]).size().unstack()
