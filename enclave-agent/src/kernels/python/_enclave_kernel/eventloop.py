"""The kernel's one asyncio event loop, made when something first needs it rather than at start:
importing asyncio (with ssl, logging and concurrent.futures behind it) is about half of a new
kernel's start-up, and most cells never await.

A cell with a top-level await gets the loop through get(). Code that imports asyncio itself finds
the same loop set as the main thread's current one, so tasks made in one cell run when a later cell
awaits, as in Jupyter."""
import sys
import threading

from .importhooks import after_import

_loop = None


def install():
    after_import("asyncio", lambda _asyncio: _ensure_on_main_thread())


def _ensure_on_main_thread():
    # The current loop is per thread: one imported from another thread is set before the next cell.
    if threading.current_thread() is threading.main_thread():
        get()


def before_cell():
    """Sets the loop when asyncio was imported off the main thread since the last cell."""
    if _loop is None and "asyncio" in sys.modules:
        get()


def get():
    global _loop
    if _loop is None:
        import asyncio  # the first import runs install()'s hook, which may have made the loop

        if _loop is not None:
            return _loop
        _loop = asyncio.new_event_loop()
        asyncio.set_event_loop(_loop)
    return _loop
