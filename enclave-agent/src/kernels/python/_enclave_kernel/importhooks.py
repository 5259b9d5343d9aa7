"""Code to run right after a module is first imported (before the importer sees it): how the kernel
adjusts a library the cell imports (pyplot's show, pandas' display options, IPython's display)."""
import importlib.util
import sys

# The finder and loader below are plain classes with the protocol's methods, not subclasses of
# importlib.abc's: importing importlib.abc (and the importlib.resources it loads) would cost a new
# kernel's start-up about 20 ms.

_after = {}


class _AfterImport:
    def __init__(self):
        self.busy = set()

    def find_spec(self, name, path, target=None):
        if name not in _after or name in self.busy:
            return None
        self.busy.add(name)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader

        class Patching:
            def create_module(self, s):
                return loader.create_module(s)

            def exec_module(self, module):
                loader.exec_module(module)
                for fn in _after.get(name, ()):
                    fn(module)

        spec.loader = Patching()
        return spec


_finder = _AfterImport()


def after_import(name, fn):
    """Calls fn(module) once `name` is imported (at once if it already is)."""
    _after.setdefault(name, []).append(fn)
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if name in sys.modules:
        fn(sys.modules[name])
