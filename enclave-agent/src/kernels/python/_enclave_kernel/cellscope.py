"""Which cell a piece of running code belongs to, so that a bridge call can say which cell made it.

The main thread belongs to the cell it is running; an asyncio task to the cell that created it
(tasks copy the context); a thread to the cell whose code started it; work handed to a thread pool
to the cell that submitted it (a pool made in one cell and reused in a later one serves the later
one). The agent refuses a call whose cell is not the one running now: a thread left behind by a
finished cell cannot act with a later cell's tools.
"""
import contextvars
import functools
import threading

from .importhooks import after_import

_cell = contextvars.ContextVar("enclave_cell", default=None)


def owner():
    """The id of the cell the calling code belongs to, or "" when it cannot be told."""
    cell = _cell.get()
    if cell is not None:
        return cell
    return getattr(threading.current_thread(), "_enclave_cell", "")


def enter(cell_id):
    """Marks the main thread as running cell_id; returns what leave() needs."""
    return _cell.set(cell_id)


def leave(token):
    _cell.reset(token)


def install():
    thread_start = threading.Thread.start

    def start(self, *args, **kwargs):
        # Recorded on the thread object: a new thread's context starts empty.
        self._enclave_cell = owner()
        return thread_start(self, *args, **kwargs)

    functools.update_wrapper(start, thread_start)
    threading.Thread.start = start

    # The pool's module (and the logging it imports) is loaded only when something uses it.
    after_import("concurrent.futures.thread", _patch_pool)


def _patch_pool(module):
    ThreadPoolExecutor = module.ThreadPoolExecutor
    pool_submit = ThreadPoolExecutor.submit

    def submit(self, fn, /, *args, **kwargs):
        cell = owner()

        @functools.wraps(fn)
        def in_cell(*a, **kw):
            token = _cell.set(cell)
            try:
                return fn(*a, **kw)
            finally:
                _cell.reset(token)

        return pool_submit(self, in_cell, *args, **kwargs)

    functools.update_wrapper(submit, pool_submit)
    ThreadPoolExecutor.submit = submit
