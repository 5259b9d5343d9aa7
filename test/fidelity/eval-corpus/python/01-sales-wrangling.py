# Loading a CSV and wrangling it with pandas, the way an agent explores a data file.
# fidelity: quick

# %%
import pandas as pd
df = pd.read_csv("sales.csv")
df.head()

# %%
df.shape

# %%
df.dtypes

# %%
df.describe()

# %%
df["revenue"] = df["units"] * df["unit_price"]
df[["units", "unit_price", "revenue"]].head(3)

# %%
by_region = df.groupby("region")["revenue"].sum().sort_values(ascending=False)
by_region

# %%
df["product"].value_counts()

# %%
print(f"total revenue: {df['revenue'].sum():.2f}")
print("rows with returns:", (df["returned"] == "yes").sum())

# %%
pivot = df.pivot_table(index="region", columns="product", values="units", aggfunc="sum", fill_value=0)
pivot

# %%
df.isna().sum()

# %%
df["date"] = pd.to_datetime(df["date"])
monthly = df.set_index("date").resample("M")["revenue"].sum()
monthly.head()

# %%
top = df.nlargest(5, "revenue")[["date", "region", "product", "revenue"]]
top

# %%
df.loc[df["region"] == "north", "units"].mean()

# %%
df["missing_column"]
