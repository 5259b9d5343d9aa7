"""Running one cell: rewrite idioms, parse, execute the body, echo the last expression (unless the
cell ends with `;`), send open figures, and format errors so tracebacks point at the cell."""
import ast
import linecache
import os
import traceback

from . import eventloop
from .echo import ends_with_semicolon
from .magics import SUPPORTED_CELL, SUPPORTED_LINE, MagicError
from .rewrite import MagicSyntaxError, rewrite_cell

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))
_FLAGS = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
# inspect.CO_COROUTINE, without importing inspect at start-up.
_CO_COROUTINE = 0x80


def _run(code_obj, ns):
    result = eval(code_obj, ns)
    # Only code with a top-level await compiles to a coroutine to run: a coroutine the cell's last
    # expression merely makes (`fetch(1)`) is its value, as in Jupyter.
    if code_obj.co_flags & _CO_COROUTINE:
        result = eventloop.get().run_until_complete(result)
    return result


def execute(code, cell_no, ns, echo):
    """Runs the cell in ns; calls echo(value) for a last expression that is not None."""
    filename = "<cell %d>" % cell_no
    # The user's own lines, so tracebacks quote what they typed (rewrites keep line numbers).
    linecache.cache[filename] = (len(code), None, [l + "\n" for l in code.split("\n")], filename)
    try:
        source = rewrite_cell(code, SUPPORTED_LINE, SUPPORTED_CELL)
    except MagicSyntaxError as err:
        raise CellMagicError(str(err), filename, err.line_no, code.split("\n")[err.line_no - 1]) from None
    body, last = compile_cell(source, code, filename)
    if body is not None:
        _run(body, ns)
    if last is not None:
        value = _run(last, ns)
        if value is not None:
            ns["_"] = value
            echo(value)


def compile_cell(source, code, filename):
    """The cell's statements and its last expression (None when it has none, or ends with `;`),
    compiled. A cell that does not compile raises its SyntaxError as Python reports one in a file:
    at the cell's line, with none of the runner's frames (ast.py, this module) in its traceback."""
    try:
        tree = ast.parse(source, filename, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not ends_with_semicolon(code):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, filename, "exec", flags=_FLAGS) if tree.body else None
        last = compile(last, filename, "eval", flags=_FLAGS) if last is not None else None
    except SyntaxError as err:
        raise _in_cell(err, code, source, filename).with_traceback(None) from None
    return body, last


def _in_cell(err, code, source, filename):
    """The error quoting the user's own line (compiling a tree gives no text; a rewritten line is
    not what they typed)."""
    if err.filename != filename or not err.lineno:
        return err
    lines, rewritten = code.split("\n"), source.split("\n")
    if err.lineno > len(lines):
        return err
    mine = lines[err.lineno - 1]
    if err.text is None or err.text.rstrip("\n") != mine:
        if rewritten[err.lineno - 1 : err.lineno] != [mine]:
            err.offset = None
            err.end_offset = None
        err.text = mine + "\n"
    return err


def _trim(te):
    """Drops the runner's own frames from a TracebackException and its chain."""
    seen = set()
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        frames = [f for f in te.stack if not f.filename.startswith(RUNNER_DIR) and f.filename != "<timed>"]
        # What ran the cell (asyncio's run_until_complete for a top-level await) sits before its first line.
        first = next((i for i, f in enumerate(frames) if f.filename.startswith("<cell ")), 0)
        te.stack = traceback.StackSummary.from_list(frames[first:])
        if te.__cause__ is not None:
            _trim(te.__cause__)
        te = te.__context__


class CellMagicError(MagicError):
    """A magic found while rewriting the cell, before any of it ran."""

    def __init__(self, message, filename, line_no, line):
        super().__init__(message)
        self.where = '  File "%s", line %d\n    %s\n' % (filename, line_no, line.strip())


def format_error(err):
    if isinstance(err, CellMagicError):
        return "MagicError", str(err), "%sMagicError: %s\n" % (err.where, err)
    te = traceback.TracebackException(type(err), err, err.__traceback__)
    _trim(te)
    text = "".join(te.format())
    return type(err).__name__, str(err), text
