"""Rich display: an object's mime bundle (as a notebook makes it), display(), DataFrames as tables
and matplotlib figures as PNG images."""
import base64
import io
import pprint
import sys

# The order a notebook asks an object for its representations.
_REPR_METHODS = (
    ("_repr_html_", "text/html"),
    ("_repr_markdown_", "text/markdown"),
    ("_repr_png_", "image/png"),
    ("_repr_jpeg_", "image/jpeg"),
    ("_repr_svg_", "image/svg+xml"),
)
_BINARY = ("image/png", "image/jpeg")


def _method(obj, name):
    # Looked up on the type, as IPython does: a class is not asked for its instances' reprs, and an
    # object answering every attribute (a mock, a proxy) does not fake representations.
    if isinstance(obj, type):
        return None
    fn = getattr(type(obj), name, None)
    if fn is None or not callable(fn):
        return None
    return getattr(obj, name)


def _is_dataframe(obj):
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def _is_figure(obj):
    fig_mod = sys.modules.get("matplotlib.figure")
    return fig_mod is not None and isinstance(obj, fig_mod.Figure)


def plain(obj):
    if isinstance(obj, str):
        return repr(obj)
    try:
        if type(obj) in (dict, list, tuple, set, frozenset):
            return pprint.pformat(obj, width=100, sort_dicts=False)
        return repr(obj)
    except Exception as err:  # a broken __repr__ must not break the cell
        return "<%s object (repr failed: %s: %s)>" % (type(obj).__name__, type(err).__name__, err)


def _add(bundle, mime, value):
    if value is None or mime in bundle:
        return
    if mime in _BINARY:
        if isinstance(value, str):
            value = base64.b64decode(value)
        if not isinstance(value, (bytes, bytearray)):
            return
        bundle[mime] = bytes(value)
    else:
        if isinstance(value, (bytes, bytearray)):
            value = bytes(value).decode("utf-8", "replace")
        if not isinstance(value, str):
            return
        bundle[mime] = value


def mime_bundle(obj):
    """Every representation of obj: _repr_mimebundle_, _repr_html_, _repr_markdown_, _repr_png_, …, repr."""
    bundle = {}
    if _is_figure(obj):
        bundle["image/png"] = figure_png(obj)
    elif _is_dataframe(obj):
        bundle["text/markdown"] = dataframe_markdown(obj)
    fn = _method(obj, "_repr_mimebundle_")
    if fn is not None:
        try:
            got = fn()
            if isinstance(got, tuple):
                got = got[0]
            if isinstance(got, dict):
                for mime, value in got.items():
                    _add(bundle, mime, value)
        except Exception:
            pass
    for name, mime in _REPR_METHODS:
        fn = _method(obj, name)
        if fn is None:
            continue
        try:
            value = fn()
        except Exception:
            continue
        if isinstance(value, tuple):
            value = value[0]
        _add(bundle, mime, value)
    if "text/plain" not in bundle:
        bundle["text/plain"] = plain(obj)
    return bundle


def _cell_text(value):
    text = str(value).replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= 200 else text[:199] + "…"


def dataframe_markdown(df):
    """A markdown table, cut like pandas cuts its own repr (display.max_rows / min_rows / max_columns)."""
    import pandas as pd

    max_rows = pd.get_option("display.max_rows") or len(df)
    min_rows = pd.get_option("display.min_rows") or max_rows
    max_cols = pd.get_option("display.max_columns") or len(df.columns)
    rows, cols = df.shape
    row_cut = rows > max_rows
    col_cut = cols > max_cols
    if row_cut:
        half = max(1, min(min_rows, max_rows) // 2)
        shown_rows = list(range(half)) + [None] + list(range(rows - half, rows))
    else:
        shown_rows = list(range(rows))
    if col_cut:
        half = max(1, max_cols // 2)
        shown_cols = list(range(half)) + [None] + list(range(cols - half, cols))
    else:
        shown_cols = list(range(cols))

    def label(value):
        if isinstance(value, tuple):
            return _cell_text(" / ".join(map(str, value)))
        return _cell_text(value)

    index_name = ", ".join(str(n) for n in df.index.names if n is not None)
    header = [_cell_text(index_name)] + ["…" if c is None else label(df.columns[c]) for c in shown_cols]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for r in shown_rows:
        if r is None:
            lines.append("| " + " | ".join(["…"] * len(header)) + " |")
            continue
        cells = [label(df.index[r])]
        for c in shown_cols:
            cells.append("…" if c is None else _cell_text(df.iat[r, c]))
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if row_cut or col_cut:
        text += "\n\n[%d rows x %d columns]" % (rows, cols)
    return text


def figure_png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


class Display:
    """display() for the user namespace, and the echo of a cell's last expression."""

    def __init__(self, channel):
        self.channel = channel

    def send(self, obj, echo=False):
        bundle = obj if isinstance(obj, RawBundle) else mime_bundle(obj)
        items = []
        for mime, value in bundle.items():
            if isinstance(value, bytes):
                items.append({"mime": mime, "b64": base64.b64encode(value).decode("ascii")})
            else:
                items.append({"mime": mime, "text": value})
        self.channel.send({"t": "display", "echo": echo, "items": items})

    def display(self, *objs, raw=False, **_ignored):
        """Shows each object now, in order with printed output, as a notebook's display() does."""
        for obj in objs:
            if raw and isinstance(obj, dict):
                self.send(RawBundle(obj))
            else:
                self.send(obj)

    def flush_figures(self):
        """Every figure pyplot holds open comes back as a PNG, then is closed."""
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None:
            return
        for num in list(plt.get_fignums()):
            fig = plt.figure(num)
            try:
                png = figure_png(fig)
                self.send(RawBundle({"image/png": png, "text/plain": repr(fig)}))
            finally:
                plt.close(fig)


class RawBundle(dict):
    """A mime bundle given as is."""
