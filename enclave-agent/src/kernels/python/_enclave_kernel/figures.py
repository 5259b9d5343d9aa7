"""matplotlib on Agg, with plt.show() showing: when matplotlib.pyplot is first imported, its show()
is replaced by one that sends every open figure back as a PNG (then closes it)."""
from .importhooks import after_import


def patch(pyplot, on_show):
    if getattr(pyplot.show, "__enclave__", False):
        return

    def show(*args, **kwargs):
        """Sends every open figure back as a PNG image part, then closes them."""
        on_show()

    show.__enclave__ = True
    pyplot.show = show


def install(on_show):
    after_import("matplotlib.pyplot", lambda pyplot: patch(pyplot, on_show))
