"""The kernel's main loop: announce readiness, then run cells one at a time as they come."""
import builtins
import os
import signal
import sys
import types

from . import cells, cellscope, eventloop, figures, notebook
from .bridge import ToolError, make_tool, make_tools
from .channel import Channel, Interrupts
from .display import Display
from .magics import IPythonIdioms


def _no_input(prompt=""):
    raise RuntimeError(
        "input() cannot read in an eval cell: nothing is attached to standard input. "
        "Put the value in the code, or ask the user with the ask_user tool."
    )


def _sacrifice_first():
    # Under memory pressure the kernel, not the agent, is the process to kill.
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


_KERNEL_PID = os.getpid()


def main():
    token = os.environ.pop("ENCLAVE_KERNEL_TOKEN", "")
    max_frame_bytes = int(os.environ.pop("ENCLAVE_KERNEL_FRAME_BYTES", "") or 64 * 1024 * 1024)
    ahead = os.environ.pop("ENCLAVE_KERNEL_AHEAD", "") == "1"
    interrupts = Interrupts()
    signal.signal(signal.SIGINT, interrupts.on_sigint)
    _sacrifice_first()
    cellscope.install()
    channel = Channel(token, interrupts, max_frame_bytes)
    display = Display(channel)
    figures.install(display.flush_figures)
    notebook.install(display)

    main_module = types.ModuleType("__main__")
    main_module.__builtins__ = builtins
    sys.modules["__main__"] = main_module  # so pickle finds classes defined in cells
    ns = main_module.__dict__
    ns.update(
        display=display.display,
        tool=make_tool(channel),
        tools=make_tools(channel),
        ToolError=ToolError,
        input=_no_input,
        __enclave_ipy__=IPythonIdioms(display),
    )
    eventloop.install()

    channel.start()
    channel.send(
        {
            "t": "ready",
            "pid": os.getpid(),
            "interpreter": "%s %s (%s)" % (sys.implementation.name, sys.version.split()[0], sys.executable),
        }
    )
    if ahead:
        _import_ahead()
    while True:
        try:
            frame = channel.next_cell()
            run_cell(frame, ns, channel, display, interrupts)
        except KeyboardInterrupt:
            # An interrupt that landed between cells: nothing to stop.
            interrupts.executing = False


def _import_ahead():
    """A kernel started before its conversation is known (a spare agent's) has time to wait: it
    imports now what a first cell would (the echo's pretty printer, with ast and inspect: about
    50 ms), which a kernel started for a waiting cell leaves until a cell needs it."""
    try:
        from . import pretty, rewrite  # noqa: F401
    except KeyboardInterrupt:
        pass


def run_cell(frame, ns, channel, display, interrupts):
    status, name, value, tb = "ok", "", "", ""
    interrupts.pending = False
    interrupts.executing = True
    scope = cellscope.enter(frame.get("id", ""))
    eventloop.before_cell()
    try:
        try:
            cells.execute(frame["code"], frame.get("cell", 0), ns, lambda v: display.send(v, echo=True))
        finally:
            display.flush_figures()
    except BaseException as err:  # SystemExit and KeyboardInterrupt end the cell, not the kernel
        interrupts.executing = False
        status = "error"
        name, value, tb = cells.format_error(err)
    finally:
        interrupts.executing = False
        cellscope.leave(scope)
    if os.getpid() != _KERNEL_PID:
        # A process the cell forked (os.fork, not multiprocessing's own exit) ran off the end of the
        # cell: it must not become a second kernel reading and writing the agent's frames.
        os._exit(0 if status == "ok" else 1)
    channel.send({"t": "done", "id": frame.get("id"), "status": status, "ename": name, "evalue": value, "traceback": tb})
