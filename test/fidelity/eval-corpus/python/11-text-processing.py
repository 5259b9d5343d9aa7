# Text processing: regex, string methods, counting words.

# %%
text = open("notes.txt").read()
print(text)

# %%
import re
re.findall(r"^(TODO|FIXME|note): (.*)$", text, flags=re.M)

# %%
words = re.findall(r"[a-z]+", text.lower())
len(words), words[:5]

# %%
from collections import Counter
Counter(words).most_common(3)

# %%
"  padded  ".strip(), "snake_case_name".split("_"), "-".join(["a", "b"])

# %%
pattern = re.compile(r"(\d+)-(\d+)")
pattern

# %%
m = pattern.search("range 10-20 here")
m.groups(), m.span()

# %%
m

# %%
import textwrap
print(textwrap.fill("The quick brown fox jumps over the lazy dog. " * 3, width=40))

# %%
"{:>10}|{:<6}|{:^7}|".format("right", "left", "mid")

# %%
for line in text.splitlines():
    tag, _, rest = line.partition(":")
    print(f"{tag:6} -> {rest.strip()}")

# %%
"ünïcödé".encode("utf-8")

# %%
"€uro".upper(), len("€uro".encode())
