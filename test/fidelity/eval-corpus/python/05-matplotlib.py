# Plotting with matplotlib: figures come back as images.

# %%
import matplotlib
import matplotlib.pyplot as plt
matplotlib.get_backend() != ""

# %%
plt.plot([1, 4, 9, 16])
plt.title("squares")
plt.show()

# %%
fig, ax = plt.subplots()
ax.bar(["a", "b", "c"], [3, 7, 5])
ax.set_ylabel("count");

# %%
plt.plot([3, 2, 1])

# %%
import pandas as pd
df = pd.read_csv("sales.csv")
ax = df.groupby("region")["units"].sum().plot(kind="bar")
print(type(ax).__name__)

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 3))
axes[0].hist(df["units"], bins=10)
axes[1].scatter(df["units"], df["unit_price"])
fig.tight_layout()
plt.show()
print("after the figure")

# %%
len(plt.get_fignums())
