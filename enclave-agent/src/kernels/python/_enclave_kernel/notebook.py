"""What a library sees differently in a notebook, made so here: pandas' display options as Jupyter
has them, and IPython's display machinery (the real one when installed, else the shim shipped with
the runner) publishing through this kernel's display()."""
import os
import sys

from .importhooks import after_import

# pandas picks 0 ("fit the terminal") when it finds no IPython kernel, and a notebook's 20 otherwise.
_PANDAS_NOTEBOOK = {"display.max_columns": 20, "display.max_rows": 60, "display.min_rows": 10, "display.width": 80}

SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims")


def _pandas(pd):
    for key, value in _PANDAS_NOTEBOOK.items():
        try:
            pd.set_option(key, value)
        except Exception:  # an option a future pandas renamed: the rest still apply
            pass


def _ipython_display(display):
    def patch(module):
        # Only what the module defines itself (IPython.core.display forwards old names lazily).
        names = module.__dict__
        if "display" in names:
            module.display = display.display
        if "publish_display_data" in names:
            module.publish_display_data = display.publish
        if "update_display" in names:
            module.update_display = display.update_display
        if "clear_output" in names:
            module.clear_output = display.clear_output

    return patch


def install(display):
    after_import("pandas", _pandas)
    patch = _ipython_display(display)
    for name in ("IPython.core.display_functions", "IPython.core.display", "IPython.display"):
        after_import(name, patch)
    # Last on the path: a real IPython, wherever it is installed, is found first.
    if SHIM_DIR not in sys.path:
        sys.path.append(SHIM_DIR)
