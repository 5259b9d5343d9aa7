"""A stand-in for IPython where it is not installed: the display objects a notebook user imports
(`from IPython.display import display, HTML, Markdown, Image, JSON`), shipped with Enclave's Python
kernel and found only when no real IPython is (it is last on sys.path). The kernel makes display()
publish through its own display. There is no interactive shell: get_ipython() returns None, as the
real IPython's does outside one."""

__version__ = "0+enclave.shim"
version_info = (0, 0, 0, "enclave-shim")


def get_ipython():
    return None
