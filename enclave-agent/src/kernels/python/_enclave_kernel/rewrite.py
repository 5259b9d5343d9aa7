"""IPython idioms rewritten into plain Python before the cell is parsed.

Each rewritten line stays one line, so line numbers in tracebacks are the user's own:
  !cmd            -> __enclave_ipy__.system('cmd', globals(), locals())
  x = !cmd        -> x = __enclave_ipy__.getoutput('cmd', globals(), locals())
  %magic args     -> __enclave_ipy__.line_magic('magic', 'args', globals(), locals())
  x = %magic args -> x = __enclave_ipy__.line_magic(...)
  obj?  obj??     -> __enclave_ipy__.help(...)
  %%magic args    (first line) -> the whole cell becomes one cell_magic(...) call
Lines inside strings, brackets or backslash continuations are never touched.
"""
import re

HELPER = "__enclave_ipy__"

_ESCAPED = re.compile(r"^(?P<indent>\s*)(?:(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*)?(?P<kind>!!?|%)(?P<rest>.*)$")
_HELP = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z_][\w.]*)\s*(?P<marks>\?\??)\s*$")
_PREFIX_HELP = re.compile(r"^(?P<indent>\s*)(?P<marks>\?\??)(?P<name>[A-Za-z_][\w.]*)\s*$")


class MagicSyntaxError(Exception):
    """A magic the kernel cannot rewrite; the message says what to write instead."""

    def __init__(self, message, line_no):
        super().__init__(message)
        self.line_no = line_no


class _Scanner:
    """Tracks whether the next physical line starts inside a string, brackets or a continuation."""

    def __init__(self):
        self.string = None  # the open triple quote, or a single quote continued with a backslash
        self.depth = 0
        self.continued = False

    @property
    def at_statement_start(self):
        return self.string is None and self.depth == 0 and not self.continued

    def feed(self, line):
        i, n = 0, len(line)
        self.continued = False
        while i < n:
            if self.string:
                q = self.string
                if line[i] == "\\":
                    i += 2
                    continue
                if line.startswith(q, i):
                    self.string = None
                    i += len(q)
                    continue
                i += 1
                continue
            c = line[i]
            if c == "#":
                break
            if c in "'\"":
                triple = line[i:i + 3]
                if triple in ("'''", '"""'):
                    self.string = triple
                    i += 3
                    continue
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                if j >= n:
                    # A single-quoted string running on with a trailing backslash.
                    if line.rstrip("\n").endswith("\\"):
                        self.string = c
                    return
                i = j + 1
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            elif c == "\\" and line[i + 1:].strip() == "":
                self.continued = True
            i += 1
        if self.string in ("'", '"') and not line.rstrip("\n").endswith("\\"):
            self.string = None


def _call(name, *args):
    return "%s.%s(%s)" % (HELPER, name, ", ".join(list(map(repr, args)) + ["globals()", "locals()"]))


def rewrite_cell(code, line_magics=None, cell_magics=None):
    """Returns plain Python for the cell, line for line. Raises MagicSyntaxError for a misplaced cell
    magic, or for a magic not in line_magics / cell_magics (when given), before anything runs."""
    lines = code.split("\n")
    first = next((i for i, l in enumerate(lines) if l.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%") and lines[first] == lines[first].lstrip():
        head = lines[first][2:]
        name, _, args = head.partition(" ")
        if cell_magics is not None and name.strip() not in cell_magics:
            raise MagicSyntaxError(_unknown("%%" + name.strip(), line_magics, cell_magics), first + 1)
        body = "\n".join(lines[first + 1:])
        call = _call("cell_magic", name.strip(), args.strip(), body)
        # Keep the line count so the cell's numbering stays the user's.
        return "\n".join(lines[:first] + [call] + [""] * (len(lines) - first - 1))

    out = []
    scanner = _Scanner()
    for no, line in enumerate(lines, start=1):
        if scanner.at_statement_start:
            rewritten = _rewrite_line(line, no, line_magics, cell_magics)
            if rewritten is not None:
                out.append(rewritten)
                continue
        scanner.feed(line)
        out.append(line)
    return "\n".join(out)


def _unknown(shown, line_magics, cell_magics):
    return (
        "`%s` is an IPython magic this kernel does not provide. Line magics here: %s; cell magics: %s. "
        "Write plain Python instead (subprocess, os, importlib)."
        % (shown, ", ".join("%" + m for m in line_magics or ()), ", ".join("%%" + m for m in cell_magics or ()))
    )


def _rewrite_line(line, no, line_magics=None, cell_magics=None):
    m = _ESCAPED.match(line)
    if m:
        indent, target, kind, rest = m.group("indent"), m.group("target"), m.group("kind"), m.group("rest")
        if kind == "%" and rest.startswith("%"):
            raise MagicSyntaxError(
                "cell magic `%%%%%s` must be the first line of the cell (nothing but blank lines before it)" % rest[1:].split(" ")[0],
                no,
            )
        if kind == "!" and rest.startswith("="):
            return None  # not an idiom: `x != y` cannot start a line anyway, leave it to the parser
        assign = "%s = " % target if target else ""
        if kind.startswith("!"):
            fn = "getoutput" if target or kind == "!!" else "system"
            return indent + assign + _call(fn, rest.strip())
        name, _, args = rest.partition(" ")
        if not re.match(r"^[A-Za-z_]\w*$", name):
            raise MagicSyntaxError("`%%%s` is not a magic: a magic is `%%name arguments`" % rest.strip(), no)
        if line_magics is not None and name not in line_magics:
            raise MagicSyntaxError(_unknown("%" + name, line_magics, cell_magics), no)
        return indent + assign + _call("line_magic", name, args.strip())
    m = _HELP.match(line) or _PREFIX_HELP.match(line)
    if m:
        return m.group("indent") + _call("help", m.group("name"), len(m.group("marks")))
    return None
