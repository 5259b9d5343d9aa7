"""Shell commands for !cmd, x = !cmd and %%bash: output streamed through sys.stdout/sys.stderr so it
keeps its place with the cell's other output, and the whole command stopped on interrupt."""
import os
import re
import shutil
import subprocess
import sys
import threading

_EXPAND = re.compile(r"\$\$|\{\{|\}\}|\{([^{}]*)\}|\$([A-Za-z_]\w*)")


def expand(command, g, l):
    """IPython's variable expansion: {expr} and $name from the namespace; $NAME unknown to Python
    stays for the shell; if any {expr} fails, the command is used exactly as written."""
    if "{" not in command and "$" not in command:
        return command

    def sub(m):
        token = m.group(0)
        if token == "$$":
            return "$"
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        if m.group(1) is not None:
            return str(eval(m.group(1), g, l))
        name = m.group(2)
        if l is not None and name in l:
            return str(l[name])
        if name in g:
            return str(g[name])
        return token

    try:
        return _EXPAND.sub(sub, command)
    except Exception:
        return command


def shell():
    return shutil.which("bash") or "/bin/sh"


def _pump(src, dest):
    try:
        while True:
            chunk = os.read(src.fileno(), 65536)
            if not chunk:
                break
            dest.write(chunk.decode("utf-8", "replace"))
            dest.flush()
    except (OSError, ValueError):
        pass


def run(argv, merge_stderr=True, capture=False, stdin_text=None):
    """Runs argv with its output streamed to sys.stdout (and sys.stderr); returns (code, captured)."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr and not capture else subprocess.PIPE,
    )
    captured = []
    pumps = []
    if capture:
        pumps.append(threading.Thread(target=lambda: captured.append(proc.stdout.read()), daemon=True))
    else:
        pumps.append(threading.Thread(target=_pump, args=(proc.stdout, sys.stdout), daemon=True))
    if proc.stderr is not None:
        pumps.append(threading.Thread(target=_pump, args=(proc.stderr, sys.stderr), daemon=True))
    for t in pumps:
        t.start()
    try:
        if stdin_text is not None:
            try:
                proc.stdin.write(stdin_text.encode("utf-8"))
                proc.stdin.close()
            except BrokenPipeError:
                pass
        code = proc.wait()
        for t in pumps:
            t.join()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    out = b"".join(captured).decode("utf-8", "replace") if capture else ""
    return code, out


class SList(list):
    """x = !cmd gives the output's lines, with IPython's .s (spaced), .n (newlines) and .l views."""

    @property
    def s(self):
        return " ".join(self)

    @property
    def n(self):
        return "\n".join(self)

    nlstr = n

    @property
    def l(self):
        return list(self)

    def grep(self, pattern):
        return SList(x for x in self if re.search(pattern, x))
