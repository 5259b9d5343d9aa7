"""Whether a cell echoes its last expression: not when its last code line ends with `;`, as in
IPython. Both a cell's run and %%time ask it, so it lives apart from either."""


def ends_with_semicolon(code):
    for line in reversed(code.splitlines()):
        stripped = line.split("#", 1)[0].rstrip()
        if stripped:
            return stripped.endswith(";")
    return False
