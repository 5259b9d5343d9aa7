# Rich displays: display(), IPython.display objects, _repr_*_ methods.
# fidelity: quick

# %%
from IPython.display import display, HTML, Markdown, JSON
display(HTML("<h3>Report</h3><p>generated</p>"))
display(Markdown("## Summary\n\n- 3 regions\n- 5 products"))

# %%
JSON({"ok": True, "items": [1, 2, 3]})

# %%
display("a string", 42, [1, 2])

# %%
class Badge:
    def __init__(self, label):
        self.label = label
    def _repr_html_(self):
        return f"<span class='badge'>{self.label}</span>"
    def __repr__(self):
        return f"Badge({self.label!r})"

Badge("new")

# %%
class Note:
    def _repr_markdown_(self):
        return "**note:** markdown repr"

display(Note())
Note()

# %%
import pandas as pd
small = pd.DataFrame({"name": ["ada", "grace"], "score": [9.5, 8.75]})
display(small)
display(small)
print("two tables above")

# %%
small.style.format({"score": "{:.1f}"}).to_html()[:60]

# %%
from IPython.display import Image
png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
Image(data=png)

# %%
from IPython.display import Math, Latex
Math(r"\int_0^1 x^2\,dx")

# %%
from IPython.display import display_markdown, display_html
display_markdown("*raw markdown*", raw=True)
display_html("<b>raw html</b>", raw=True)

# %%
h = display(Markdown("step 1"), display_id=True)
h.update(Markdown("step 2"))

# %%
from IPython.display import clear_output
print("progress 1")
clear_output(wait=True)
print("progress 2")
