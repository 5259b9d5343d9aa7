# The Python kernel Enclave's agent runs: a long-lived interpreter that takes cells as frames on
# fd 4 and answers with frames on fd 3, leaving fds 1 and 2 to the user's own output (raw, streamed).
# Run as `python3 kernel.py`; the agent gives the sync token in ENCLAVE_KERNEL_TOKEN.
import os
import sys

# The runner's folder (the agent bundle) is taken off the import path before anything else is
# imported: the kernel's own package is loaded from it by path, and every other module resolves as in
# a plain interpreter, so no file beside the runner can stand in for a standard module (a json.py).
_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if not p or os.path.realpath(p) != _here]

# Our modules must not leave __pycache__ in the (read-only, in an enclosure) agent folder.
_bytecode = sys.dont_write_bytecode
sys.dont_write_bytecode = True
import importlib.util  # noqa: E402

_package = os.path.join(_here, "_enclave_kernel")
_spec = importlib.util.spec_from_file_location("_enclave_kernel", os.path.join(_package, "__init__.py"), submodule_search_locations=[_package])
if _spec is None or _spec.loader is None:
    raise ImportError(f"the kernel package is missing from {_here}")
sys.modules["_enclave_kernel"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sys.modules["_enclave_kernel"])
from _enclave_kernel.main import main  # noqa: E402

sys.dont_write_bytecode = _bytecode
# A notebook imports from its working directory, not from the runner's folder.
sys.path.insert(0, "")

if __name__ == "__main__":
    main()
