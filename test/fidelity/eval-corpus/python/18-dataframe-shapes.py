# DataFrames whose HTML has more than one header row, spanned labels, or no rows; and a Series.
# fidelity: quick

# %%
import pandas as pd
pd.DataFrame(columns=["a"])

# %%
sales = pd.DataFrame({
    "region": ["north", "north", "south", "south", "south"],
    "year": [2023, 2024, 2023, 2024, 2024],
    "units": [10, 12, 7, 9, 4],
    "price": [2.5, 2.75, 3.0, 3.25, 3.5],
})
sales.set_index(["region", "year"]).sort_index()

# %%
pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=pd.MultiIndex.from_tuples([("x", "a"), ("x", "b"), ("y", "c")]))

# %%
sales.groupby("region").agg({"units": ["sum", "mean"], "price": ["min", "max"]})

# %%
sales.groupby(["region", "year"])["units"].sum()

# %%
sales[sales.units > 100]
