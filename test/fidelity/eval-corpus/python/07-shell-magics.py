# IPython idioms: shell escapes and magics.
# fidelity: quick

# %%
!echo hello from the shell

# %%
files = !ls
sorted(files)

# %%
name = "world"
!echo "hi {name}" and $name

# %%
%pwd

# %%
%%writefile generated.py
def answer():
    return 42

# %%
from generated import answer
answer()

# %%
%%bash
echo "from bash"
echo "to stderr" >&2

# %%
%%time
total = sum(range(100_000))
total

# %%
%time sum(range(1000))

# %%
%timeit -n 10 -r 2 sum(range(100))

# %%
%%timeit -n 5 -r 1
sorted(range(50), reverse=True)

# %%
%env FIDELITY_FLAG=on

# %%
import os
os.environ["FIDELITY_FLAG"]

# %%
!exit 3

# %%
!false
_exit_code
