# numpy arrays and their echoes.

# %%
import numpy as np
a = np.arange(12).reshape(3, 4)
a

# %%
a.T @ a

# %%
a.mean(axis=0), a.dtype, a.shape

# %%
np.linspace(0, 1, 5)

# %%
big = np.arange(2000)
big

# %%
rng = np.random.default_rng(42)
sample = rng.normal(size=5)
sample.round(3)

# %%
np.array([1.5, np.nan, 3.0])

# %%
np.zeros((2, 3), dtype=int)

# %%
a[a % 2 == 0]

# %%
np.array(["a", "bb"])

# %%
a.reshape(5, 3)

# %%
print(a)
