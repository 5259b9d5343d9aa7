"""A Jupyter kernelspec for the interpreter running this script, for the peers the benches and the
eval differential suite drive (the system kernelspec's `python3` may be another Python)."""
import json
import os
import sys
import tempfile


def use_this_python(name):
    """Registers kernel NAME as this interpreter's ipykernel, for jupyter_client in this process."""
    spec_root = tempfile.mkdtemp(prefix="enclave-%s-jupyter-" % name)
    os.makedirs(os.path.join(spec_root, "kernels", name))
    with open(os.path.join(spec_root, "kernels", name, "kernel.json"), "w") as f:
        json.dump({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": name, "language": "python"}, f)
    os.environ["JUPYTER_PATH"] = spec_root
    os.environ.setdefault("JUPYTER_RUNTIME_DIR", os.path.join(spec_root, "runtime"))
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger warnings are noise here
    return name
