# Reading and writing files and JSON in the workspace.

# %%
import json
with open("people.json") as f:
    data = json.load(f)
data["version"], len(data["people"])

# %%
data["people"][0]

# %%
[p["name"] for p in data["people"] if p["age"] > 35]

# %%
from pathlib import Path
sorted(p.name for p in Path(".").iterdir())

# %%
Path("out").mkdir(exist_ok=True)
Path("out/summary.txt").write_text("lines: 3\n")

# %%
print(Path("out/summary.txt").read_text())

# %%
with open("notes.txt") as f:
    todos = [line.strip() for line in f if line.startswith("TODO")]
todos

# %%
json.dumps({"b": 2, "a": [1, 2]}, indent=2)

# %%
print(json.dumps({"b": 2, "a": [1, 2]}, indent=2, sort_keys=True))

# %%
open("does-not-exist.txt").read()

# %%
import csv
with open("sales.csv", newline="") as f:
    rows = list(csv.DictReader(f))
rows[0]

# %%
import os
os.path.getsize("notes.txt"), os.path.exists("out")

# %%
Path("people.json").suffix, Path("a/b/c.tar.gz").suffixes
