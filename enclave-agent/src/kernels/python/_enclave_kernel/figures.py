"""matplotlib on Agg, with plt.show() showing: when matplotlib.pyplot is first imported, its show()
is replaced by one that sends every open figure back as a PNG (then closes it)."""
import importlib.abc
import importlib.util
import sys


class PyplotHook(importlib.abc.MetaPathFinder):
    def __init__(self, on_show):
        self.on_show = on_show
        self.busy = False

    def find_spec(self, name, path, target=None):
        if name != "matplotlib.pyplot" or self.busy:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        on_show = self.on_show

        class Patching(importlib.abc.Loader):
            def create_module(self, s):
                return loader.create_module(s)

            def exec_module(self, module):
                loader.exec_module(module)
                patch(module, on_show)

        spec.loader = Patching()
        return spec


def patch(pyplot, on_show):
    if getattr(pyplot.show, "__enclave__", False):
        return

    def show(*args, **kwargs):
        """Sends every open figure back as a PNG image part, then closes them."""
        on_show()

    show.__enclave__ = True
    pyplot.show = show


def install(on_show):
    if "matplotlib.pyplot" in sys.modules:
        patch(sys.modules["matplotlib.pyplot"], on_show)
    else:
        sys.meta_path.insert(0, PyplotHook(on_show))
