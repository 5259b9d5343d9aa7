"""What rewritten IPython idioms call: the `__enclave_ipy__` object in the user namespace."""
import importlib
import os
import runpy
import shlex
import site
import sys
import time
import timeit as timeit_mod

from . import shell
from .echo import ends_with_semicolon
from .shell import SList

SUPPORTED_LINE = ("pip", "cd", "pwd", "env", "time", "timeit", "run", "matplotlib")
SUPPORTED_CELL = ("bash", "sh", "time", "timeit", "writefile", "html", "markdown")


class MagicError(Exception):
    """Raised into the cell for a magic this kernel does not provide or cannot run."""


MagicError.__module__ = "builtins"


class IPythonIdioms:
    def __init__(self, display):
        self.display = display
        self.previous_dir = None

    # -- shell -------------------------------------------------------------------------------
    def system(self, command, g, l):
        code, _ = shell.run([shell.shell(), "-c", shell.expand(command, g, l)])
        g["_exit_code"] = code

    def getoutput(self, command, g, l):
        code, out = shell.run([shell.shell(), "-c", shell.expand(command, g, l)], capture=True)
        g["_exit_code"] = code
        return SList(out.splitlines())

    def help(self, name, detail, g, l):
        try:
            obj = eval(name, g, l)
        except Exception as err:
            raise MagicError("`%s?` cannot show help: %s: %s" % (name, type(err).__name__, err)) from None
        if detail > 1:
            import inspect

            try:
                print(inspect.getsource(obj))
                return
            except (TypeError, OSError):
                pass
        import pydoc

        print(pydoc.render_doc(obj, title="%s", renderer=pydoc.plaintext))

    # -- line magics -------------------------------------------------------------------------
    def line_magic(self, name, args, g, l):
        fn = getattr(self, "line_" + name, None)
        if fn is None:
            raise MagicError(
                "`%%%s` is an IPython magic this kernel does not provide. Line magics here: %s; cell magics: %s. "
                "Write plain Python instead (subprocess, os, importlib)."
                % (name, ", ".join("%" + m for m in SUPPORTED_LINE), ", ".join("%%" + m for m in SUPPORTED_CELL))
            )
        return fn(args, g, l)

    def line_pip(self, args, g, l):
        return pip(shell.expand(args, g, l))

    def line_cd(self, args, g, l):
        target = shell.expand(args, g, l).strip().strip("'\"")
        if target == "-":
            if self.previous_dir is None:
                raise MagicError("%cd -: there is no previous directory")
            target = self.previous_dir
        target = os.path.expanduser(target or "~")
        here = os.getcwd()
        os.chdir(target)
        self.previous_dir = here
        print(os.getcwd())

    def line_pwd(self, args, g, l):
        return os.getcwd()

    def line_env(self, args, g, l):
        args = shell.expand(args, g, l).strip()
        if not args:
            return dict(os.environ)
        if "=" in args or " " in args:
            key, _, value = args.partition("=") if "=" in args else args.partition(" ")
            os.environ[key.strip()] = value.strip()
            print("env: %s=%s" % (key.strip(), value.strip()))
            return None
        return os.environ.get(args)

    def line_matplotlib(self, args, g, l):
        # Figures always come back as PNG images: `%matplotlib inline` typed by reflex is fine.
        return None

    def line_run(self, args, g, l):
        argv = shlex.split(shell.expand(args, g, l))
        if not argv:
            raise MagicError("%run needs a script path")
        saved = sys.argv
        sys.argv = argv
        try:
            g.update(runpy.run_path(argv[0], run_name="__main__"))
        finally:
            sys.argv = saved

    def line_time(self, args, g, l):
        filename, line = _caller_cell()
        return timed(args, g, l, filename=filename, first_line=line)

    def line_timeit(self, args, g, l):
        return timeit_magic(args, None, g, l)

    # -- cell magics -------------------------------------------------------------------------
    def cell_magic(self, name, args, body, g, l):
        fn = getattr(self, "cell_" + name, None)
        if fn is None:
            raise MagicError(
                "`%%%%%s` is an IPython cell magic this kernel does not provide. Cell magics here: %s; line magics: %s."
                % (name, ", ".join("%%" + m for m in SUPPORTED_CELL), ", ".join("%" + m for m in SUPPORTED_LINE))
            )
        return fn(args, body, g, l)

    def cell_bash(self, args, body, g, l):
        return _script([shell.shell()] + shlex.split(args), body)

    def cell_sh(self, args, body, g, l):
        return _script(["/bin/sh"] + shlex.split(args), body)

    def cell_time(self, args, body, g, l):
        from .rewrite import rewrite_cell

        filename, line = _caller_cell()
        return timed(rewrite_cell(body, SUPPORTED_LINE, SUPPORTED_CELL), g, l, cell=True, filename=filename, first_line=line + 1)

    def cell_timeit(self, args, body, g, l):
        return timeit_magic(args, body, g, l)

    def cell_writefile(self, args, body, g, l):
        argv = shlex.split(shell.expand(args, g, l))
        append = "-a" in argv or "--append" in argv
        paths = [a for a in argv if not a.startswith("-")]
        if len(paths) != 1:
            raise MagicError("%%writefile needs exactly one file name: %%writefile [-a] PATH")
        path = paths[0]
        exists = os.path.exists(path)
        with open(path, "a" if append else "w", encoding="utf-8") as f:
            f.write(body if body.endswith("\n") else body + "\n")
        print("%s %s" % ("Appending to" if append else "Overwriting" if exists else "Writing", path))

    def cell_html(self, args, body, g, l):
        from .display import RawBundle

        self.display.send(RawBundle({"text/html": body, "text/plain": body}))

    def cell_markdown(self, args, body, g, l):
        from .display import RawBundle

        self.display.send(RawBundle({"text/markdown": body}))


def _script(argv, body):
    import subprocess

    # Two pipes, as IPython's script magics: stderr stays stderr (its order against stdout is
    # the order the pipes are read in, as in Jupyter); only !cmd merges the streams.
    code, _ = shell.run(argv, merge_stderr=False, stdin_text=body)
    if code != 0:
        raise subprocess.CalledProcessError(code, " ".join(argv))


# -- %pip --------------------------------------------------------------------------------------
def _distributions():
    import importlib.metadata  # only %pip needs it, and it costs a new kernel's start 20 ms

    seen = {}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata.get("Name") or "").lower().replace("_", "-")
        if name and name not in seen:
            seen[name] = dist
    return seen


def _top_level_names(dist):
    names = set()
    try:
        text = dist.read_text("top_level.txt")
    except Exception:
        text = None
    if text:
        names.update(n.strip() for n in text.split() if n.strip())
    for f in dist.files or []:
        parts = f.parts
        if not parts or parts[0] in ("..", "__pycache__") or parts[0].endswith((".dist-info", ".egg-info", ".pth")):
            continue
        top = parts[0]
        if len(parts) == 1:
            if not top.endswith((".py", ".so", ".pyd")):
                continue
            top = top.split(".")[0]
        names.add(top)
    return names


def _fingerprint(dist):
    return (dist.version, str(getattr(dist, "_path", "")))


def pip(args):
    """Runs pip for this interpreter, then evicts the modules of every distribution it changed from
    sys.modules, so the next import sees what was just installed."""
    argv = shlex.split(args)
    before = _distributions()
    code, _ = shell.run([sys.executable, "-m", "pip"] + argv)
    importlib.invalidate_caches()
    for d in site.getsitepackages() + [site.getusersitepackages()]:
        if os.path.isdir(d) and d not in sys.path:
            site.addsitedir(d)
    after = _distributions()
    changed = [after[n] for n in after if n not in before or _fingerprint(after[n]) != _fingerprint(before[n])]
    changed += [before[n] for n in before if n not in after]
    tops = set()
    for dist in changed:
        tops |= _top_level_names(dist)
    evicted = sorted(m for m in list(sys.modules) if m.split(".")[0] in tops)
    for m in evicted:
        del sys.modules[m]
    if evicted:
        shown = ", ".join(evicted[:10]) + (" …" if len(evicted) > 10 else "")
        print("[evicted from sys.modules: %s; the next import loads what pip installed]" % shown)
    if code != 0:
        raise MagicError("pip exited with code %d (its output is above)" % code)


# -- %time and %timeit -------------------------------------------------------------------------
def _fmt(seconds, precision=3):
    for unit, scale in (("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if seconds >= 1.0 / scale or unit == "ns":
            return "%.*g %s" % (precision, seconds * scale, unit)


def _caller_cell():
    """The cell file and line of the magic being run (the rewritten call sits on the magic's line)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<cell "):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<timed>", 1


def timed(code, g, l, cell=False, filename="<timed>", first_line=1):
    """%time / %%time: runs the code, prints CPU and wall times, returns the value of a last
    expression (the cell's echo, as in IPython), unless the code ends with `;`. Errors point at the
    cell's own lines; a failed run prints no times, as in IPython."""
    import ast

    try:
        tree = ast.parse(code, filename, "exec")
    except SyntaxError as err:
        if err.lineno:
            err.lineno += first_line - 1
        raise err.with_traceback(None) from None
    ast.increment_lineno(tree, first_line - 1)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not (cell and ends_with_semicolon(code)):
        last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
    body = compile(tree, filename, "exec") if tree.body else None
    t0 = os.times()
    w0 = time.perf_counter()
    result = None
    if body is not None:
        exec(body, g, l)
    if last is not None:
        result = eval(last, g, l)
    w1 = time.perf_counter()
    t1 = os.times()
    user, system = t1.user - t0.user, t1.system - t0.system
    print("CPU times: user %s, sys: %s, total: %s\nWall time: %s" % (_fmt(user), _fmt(system), _fmt(user + system), _fmt(w1 - w0)))
    return result


class TimeitResult:
    def __init__(self, loops, repeat, timings):
        self.loops = loops
        self.repeat = repeat
        self.timings = timings
        self.all_runs = [t * loops for t in timings]
        self.best = min(timings)
        self.worst = max(timings)
        self.average = sum(timings) / len(timings)
        self.stdev = (sum((t - self.average) ** 2 for t in timings) / len(timings)) ** 0.5

    def __repr__(self):
        return "%s ± %s per loop (mean ± std. dev. of %d run%s, %s loop%s each)" % (
            _fmt(self.average),
            _fmt(self.stdev),
            self.repeat,
            "" if self.repeat == 1 else "s",
            "{:,}".format(self.loops),
            "" if self.loops == 1 else "s",
        )


def timeit_magic(args, body, g, l):
    """%timeit STMT / %%timeit [SETUP]: -n loops, -r runs, -q quiet, -o return the result."""
    argv = shlex.split(args) if body is not None else None
    opts = {"n": 0, "r": 7, "q": False, "o": False}
    if body is None:
        # Options lead; the statement is the rest of the line, kept as written.
        rest = args.strip()
        while rest.startswith("-"):
            flag, _, rest = rest.partition(" ")
            rest = rest.strip()
            if flag in ("-n", "-r"):
                value, _, rest = rest.partition(" ")
                opts[flag[1]] = int(value)
                rest = rest.strip()
            elif flag in ("-q", "-o"):
                opts[flag[1]] = True
            else:
                raise MagicError("%%timeit: unknown option %s (use -n, -r, -q, -o)" % flag)
        stmt, setup = rest, "pass"
    else:
        setup_parts = []
        it = iter(argv)
        for a in it:
            if a in ("-n", "-r"):
                opts[a[1]] = int(next(it))
            elif a in ("-q", "-o"):
                opts[a[1]] = True
            else:
                setup_parts.append(a)
        stmt, setup = body, " ".join(setup_parts) or "pass"
    if not stmt.strip():
        raise MagicError("%timeit needs a statement to time")
    namespace = dict(g)
    if l is not None and l is not g:
        namespace.update(l)
    timer = timeit_mod.Timer(stmt, setup, globals=namespace)
    number = opts["n"]
    if number <= 0:
        number, _ = timer.autorange()
    timings = [t / number for t in timer.repeat(repeat=max(1, opts["r"]), number=number)]
    result = TimeitResult(number, max(1, opts["r"]), timings)
    if not opts["q"]:
        print(result)
    return result if opts["o"] else None
