"""Rich display: an object's mime bundle (as a notebook makes it), display(), DataFrames as tables
and matplotlib figures as PNG images."""
import base64
import io
import json
import sys

# The order a notebook asks an object for its representations.
_REPR_METHODS = (
    ("_repr_html_", "text/html"),
    ("_repr_markdown_", "text/markdown"),
    ("_repr_svg_", "image/svg+xml"),
    ("_repr_png_", "image/png"),
    ("_repr_jpeg_", "image/jpeg"),
    ("_repr_latex_", "text/latex"),
    ("_repr_json_", "application/json"),
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
    """The text/plain Jupyter shows: IPython's pretty printer (vendored), 79 columns wide."""
    from . import pretty

    try:
        stream = io.StringIO()
        printer = pretty.RepresentationPrinter(stream, False, 79, "\n", max_seq_length=pretty.MAX_SEQ_LENGTH)
        printer.pretty(obj)
        printer.flush()
        return stream.getvalue()
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
        if mime == "application/json" or mime.endswith("+json"):
            # JSON data comes as the object itself, as a notebook's display message carries it.
            try:
                value = json.dumps(value, indent=2, ensure_ascii=False, default=str)
            except (TypeError, ValueError):
                return
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
        markdown = dataframe_markdown(obj)
        if markdown is not None:
            bundle["text/markdown"] = markdown
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
    """A markdown table of what pandas shows: its own formatting of values (display.precision, dates,
    NaN) and its cut (display.max_rows / min_rows / max_columns), each index level a column. None
    for an empty frame, whose text says more."""
    if df.empty:
        return None
    try:
        return _formatted_markdown(df)
    except Exception:  # a pandas whose formatter moved: the values as str(), cut the same way
        return _plain_markdown(df)


def _table(header, rows, footer):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines)
    return text + "\n\n" + footer if footer else text


def _label(value):
    if isinstance(value, tuple):
        return _cell_text(" / ".join(map(str, value)))
    return _cell_text(value)


def _formatted_markdown(df):
    import pandas as pd
    from pandas.io.formats.format import DataFrameFormatter

    fmt = DataFrameFormatter(
        df,
        max_rows=pd.get_option("display.max_rows"),
        min_rows=pd.get_option("display.min_rows"),
        max_cols=pd.get_option("display.max_columns"),
        show_dimensions=pd.get_option("display.show_dimensions"),
    )
    frame = fmt.tr_frame
    columns = [[_cell_text(v.strip()) for v in fmt.format_col(i)] for i in range(len(frame.columns))]
    labels = [_label(c) for c in frame.columns]
    if fmt.is_truncated_horizontally:
        at = fmt.tr_col_num
        columns.insert(at, ["…"] * len(frame))
        labels.insert(at, "…")
    index = frame.index
    if index.nlevels > 1:
        levels = [[_cell_text(v.strip()) for v in index.get_level_values(i).format()] for i in range(index.nlevels)]
    else:
        levels = [[_cell_text(v.strip()) for v in index.format()]]
    names = [_cell_text(n if n is not None else "") for n in index.names]
    rows = [[lv[r] for lv in levels] + [col[r] for col in columns] for r in range(len(frame))]
    if fmt.is_truncated_vertically:
        rows.insert(fmt.tr_row_num, ["…"] * (len(levels) + len(columns)))
    footer = "[%d rows x %d columns]" % df.shape if (fmt.is_truncated_horizontally or fmt.is_truncated_vertically) else ""
    return _table(names + labels, rows, footer)


def _plain_markdown(df):
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
    index_name = ", ".join(str(n) for n in df.index.names if n is not None)
    header = [_cell_text(index_name)] + ["…" if c is None else _label(df.columns[c]) for c in shown_cols]
    body = []
    for r in shown_rows:
        if r is None:
            body.append(["…"] * len(header))
            continue
        body.append([_label(df.index[r])] + ["…" if c is None else _cell_text(df.iat[r, c]) for c in shown_cols])
    return _table(header, body, "[%d rows x %d columns]" % (rows, cols) if row_cut or col_cut else "")


def figure_png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


class Display:
    """display() for the user namespace, and the echo of a cell's last expression."""

    def __init__(self, channel):
        self.channel = channel

    def send(self, obj, echo=False):
        if not isinstance(obj, RawBundle) and _method(obj, "_ipython_display_") is not None:
            # The object displays itself (through display() or publish_display_data()).
            obj._ipython_display_()
            return
        bundle = obj if isinstance(obj, RawBundle) else mime_bundle(obj)
        items = []
        for mime, value in bundle.items():
            if isinstance(value, bytes):
                items.append({"mime": mime, "b64": base64.b64encode(value).decode("ascii")})
            else:
                items.append({"mime": mime, "text": value})
        self.channel.send({"t": "display", "echo": echo, "items": items})

    def display(self, *objs, raw=False, display_id=None, **_ignored):
        """Shows each object now, in order with printed output, as a notebook's display() does.
        With display_id, returns a handle whose update() shows the new value (after the old one:
        a transcript is not redrawn)."""
        for obj in objs:
            if raw and isinstance(obj, dict):
                self.send(RawBundle(_raw(obj)))
            else:
                self.send(obj)
        if display_id:
            return DisplayHandle(self, None if display_id is True else display_id)
        return None

    def publish(self, data, metadata=None, *args, **kwargs):
        """IPython's publish_display_data: a bundle given as is."""
        if isinstance(data, dict):
            self.send(RawBundle(_raw(data)))

    def update_display(self, obj, *, display_id=None, **kwargs):
        self.display(obj, **kwargs)

    def clear_output(self, wait=False):
        """A transcript is not redrawn: what was shown stays."""

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


def _raw(data):
    bundle = {}
    for mime, value in data.items():
        _add(bundle, mime, value)
    if not bundle and data:
        bundle["text/plain"] = plain(data)
    return bundle


class DisplayHandle:
    """What display(obj, display_id=True) returns, as in IPython."""

    def __init__(self, display, display_id=None):
        import os

        self._display = display
        self.display_id = display_id or os.urandom(16).hex()

    def __repr__(self):
        return "<DisplayHandle display_id=%s>" % self.display_id

    def display(self, obj, **kwargs):
        self._display.display(obj, **kwargs)

    def update(self, obj, **kwargs):
        self._display.display(obj, **kwargs)
