"""Rich display: an object's mime bundle (as a notebook makes it), display(), DataFrames as tables
and matplotlib figures as PNG images."""
import base64
import io
import json
import re
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
        html = _html_of(obj)
        markdown = dataframe_markdown(obj, html)
        if markdown is not None:
            bundle["text/markdown"] = markdown
        _add(bundle, "text/html", html)
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


def _html_of(df):
    try:
        html = df._repr_html_()
    except Exception:
        return None
    return html if isinstance(html, str) else None


def dataframe_markdown(df, html=None):
    """A markdown table with the structure of the HTML pandas makes for the notebook (the reference):
    its header rows (a MultiIndex's column levels one row each, a spanned label once), each index
    level a column named as pandas names it, a spanned row label once, its cut and its dimensions
    line. An empty frame is a table with its header only. Without that HTML (pandas'
    notebook_repr_html off, a pandas that renders otherwise), pandas' formatted values with the
    levels joined."""
    if html is None:
        html = _html_of(df)
    if html is not None:
        try:
            table = _html_markdown(html)
            if table is not None:
                return table
        except Exception:  # HTML this reading does not know: the formatted table below
            pass
    if df.empty:
        return None
    try:
        return _formatted_markdown(df)
    except Exception:  # a pandas whose formatter moved: the values as str(), cut the same way
        return _plain_markdown(df)


class _HtmlTable:
    """The rows of pandas' HTML table: header rows and body rows, each a list of (text, is_th,
    rowspan, colspan), and the dimensions paragraph after it."""

    def __init__(self, html):
        from html.parser import HTMLParser

        self.head = []
        self.body = []
        self.footer = ""
        # "tables" counts the table's tags: 1 inside it, 2 after it (where the dimensions line is).
        state = {"section": None, "row": None, "cell": None, "p": None, "tables": 0}
        outer = self

        class Parser(HTMLParser):
            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if tag == "p" and state["tables"] >= 2:
                    state["p"] = []
                elif tag == "table":
                    state["tables"] += 1
                elif state["tables"] != 1:
                    return
                elif tag in ("thead", "tbody"):
                    state["section"] = tag
                elif tag == "tr" and state["section"]:
                    state["row"] = []
                elif tag in ("th", "td") and state["row"] is not None:
                    state["cell"] = [[], tag == "th", int(a.get("rowspan") or 1), int(a.get("colspan") or 1)]

            def handle_endtag(self, tag):
                if tag == "table":
                    state["tables"] += 1
                elif tag in ("th", "td") and state["cell"] is not None:
                    text, is_th, rowspan, colspan = state["cell"]
                    state["row"].append(("".join(text).strip(), is_th, rowspan, colspan))
                    state["cell"] = None
                elif tag == "tr" and state["row"] is not None:
                    (outer.head if state["section"] == "thead" else outer.body).append(state["row"])
                    state["row"] = None
                elif tag in ("thead", "tbody"):
                    state["section"] = None
                elif tag == "p" and state["p"] is not None:
                    outer.footer = "".join(state["p"]).strip()
                    state["p"] = None

            def handle_data(self, data):
                if state["cell"] is not None:
                    state["cell"][0].append(data)
                elif state["p"] is not None:
                    state["p"].append(data)

        parser = Parser(convert_charrefs=True)
        parser.feed(html)
        parser.close()
        if state["tables"] < 2:
            raise ValueError("not one whole table")


def _grid(rows):
    """Rows of cell texts, a spanned cell's text in its first row and column and blank in the others,
    as the rendered table shows it once."""
    out = []
    pending = {}  # column -> rows still covered by a rowspan above
    for row in rows:
        cells = []
        todo = list(row)
        while todo or any(c >= len(cells) and n > 0 for c, n in pending.items()):
            at = len(cells)
            if pending.get(at, 0) > 0:
                pending[at] -= 1
                cells.append("")
                continue
            if not todo:
                break
            text, _is_th, rowspan, colspan = todo.pop(0)
            if rowspan > 1:
                pending[at] = rowspan - 1
            cells.append(text)
            for i in range(1, colspan):
                if rowspan > 1:
                    pending[at + i] = rowspan - 1
                cells.append("")
        out.append(cells)
    return out


def _html_cell(text):
    return "…" if text == "..." else _cell_text(text)


def _html_markdown(html):
    table = _HtmlTable(html)
    if not table.head:
        return None
    index_cols = sum(1 for (_t, is_th, _r, c) in table.body[0] if is_th) if table.body else 0
    head = _grid(table.head)
    body = _grid(table.body)
    width = max(len(r) for r in head + body)
    head = [r + [""] * (width - len(r)) for r in head]
    body = [r + [""] * (width - len(r)) for r in body]
    if not index_cols:
        # No body: the index columns are those the header leaves blank before the first label.
        first = head[0]
        index_cols = next((i for i, t in enumerate(first) if t), len(first)) or 1
    # The index names' row (its labels in the index columns, nothing after them) goes into the
    # column labels' last row when that row leaves the index columns blank, as pandas' text does.
    if len(head) > 1:
        names, labels = head[-1], head[-2]
        if not any(names[index_cols:]) and any(names[:index_cols]) and not any(labels[:index_cols]):
            head = head[:-2] + [names[:index_cols] + labels[index_cols:]]
    head = [[_html_cell(t) for t in r] for r in head]
    body = [[_html_cell(t) for t in r] for r in body]
    lines = ["| " + " | ".join(head[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in head[1:] + body]
    text = "\n".join(lines)
    dims = re.match(r"^(\d+) rows × (\d+) columns$", table.footer)
    return text + "\n\n[%s rows x %s columns]" % dims.groups() if dims else text


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
