"""The display objects of IPython.core.display, with the representations (mime types, text/plain)
the real ones give: HTML, Markdown, Latex, Math, SVG, JSON, Javascript, Pretty, Image."""
import base64
import html
import json
import os
import warnings
from copy import deepcopy
from pathlib import PurePath

from . import display_functions

__all__ = [
    "display_pretty", "display_html", "display_markdown", "display_svg", "display_png", "display_jpeg",
    "display_latex", "display_json", "display_javascript", "display_pdf", "DisplayObject",
    "TextDisplayObject", "Pretty", "HTML", "Markdown", "Math", "Latex", "SVG", "JSON", "Javascript", "Image",
]


def _display_mimetype(mimetype, objs, raw=False, metadata=None):
    if metadata:
        metadata = {mimetype: metadata}
    if raw:
        objs = [{mimetype: obj} for obj in objs]
    display_functions.display(*objs, raw=raw, metadata=metadata, include=[mimetype])


def display_pretty(*objs, **kwargs):
    _display_mimetype("text/plain", objs, **kwargs)


def display_html(*objs, **kwargs):
    _display_mimetype("text/html", objs, **kwargs)


def display_markdown(*objs, **kwargs):
    _display_mimetype("text/markdown", objs, **kwargs)


def display_svg(*objs, **kwargs):
    _display_mimetype("image/svg+xml", objs, **kwargs)


def display_png(*objs, **kwargs):
    _display_mimetype("image/png", objs, **kwargs)


def display_jpeg(*objs, **kwargs):
    _display_mimetype("image/jpeg", objs, **kwargs)


def display_latex(*objs, **kwargs):
    _display_mimetype("text/latex", objs, **kwargs)


def display_json(*objs, **kwargs):
    _display_mimetype("application/json", objs, **kwargs)


def display_javascript(*objs, **kwargs):
    _display_mimetype("application/javascript", objs, **kwargs)


def display_pdf(*objs, **kwargs):
    _display_mimetype("application/pdf", objs, **kwargs)


def _safe_exists(path):
    try:
        return os.path.exists(path)
    except Exception:
        return False


class DisplayObject(object):
    """An object that wraps data to be displayed."""

    _read_flags = "r"
    _show_mem_addr = False
    metadata = None

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        if isinstance(data, PurePath):
            data = str(data)
        if data is not None and isinstance(data, str):
            if data.startswith("http") and url is None:
                url, filename, data = data, None, None
            elif _safe_exists(data) and filename is None:
                url, filename, data = None, data, None
        self.url = url
        self.filename = filename
        self.data = data
        if metadata is not None:
            self.metadata = metadata
        elif self.metadata is None:
            self.metadata = {}
        self.reload()
        self._check_data()

    def __repr__(self):
        if not self._show_mem_addr:
            cls = self.__class__
            return "<%s.%s object>" % (cls.__module__, cls.__name__)
        return super().__repr__()

    def _check_data(self):
        pass

    def _data_and_metadata(self):
        if self.metadata:
            return self.data, deepcopy(self.metadata)
        return self.data

    def reload(self):
        if self.filename is not None:
            encoding = None if "b" in self._read_flags else "utf-8"
            with open(self.filename, self._read_flags, encoding=encoding) as f:
                self.data = f.read()
        elif self.url is not None:
            from urllib.request import urlopen

            response = urlopen(self.url)
            data = response.read()
            encoding = None
            for sub in response.headers.get("content-type", "").split(";"):
                sub = sub.strip()
                if sub.startswith("charset"):
                    encoding = sub.split("=")[-1].strip()
            self.data = data.decode(encoding, "replace") if encoding else data


class TextDisplayObject(DisplayObject):
    def _check_data(self):
        if self.data is not None and not isinstance(self.data, str):
            raise TypeError("%s expects text, not %r" % (self.__class__.__name__, self.data))


class Pretty(TextDisplayObject):
    def _repr_pretty_(self, pp, cycle):
        return pp.text(self.data)


class HTML(TextDisplayObject):
    def _repr_html_(self):
        return self._data_and_metadata()

    def __html__(self):
        return self._repr_html_()


class Markdown(TextDisplayObject):
    def _repr_markdown_(self):
        return self._data_and_metadata()


class Math(TextDisplayObject):
    def _repr_latex_(self):
        s = r"$\displaystyle %s$" % self.data.strip("$")
        return (s, deepcopy(self.metadata)) if self.metadata else s


class Latex(TextDisplayObject):
    def _repr_latex_(self):
        return self._data_and_metadata()


class SVG(DisplayObject):
    _read_flags = "rb"
    _data = None

    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, svg):
        if svg is None:
            self._data = None
            return
        from xml.dom import minidom

        found = minidom.parseString(svg).getElementsByTagName("svg")
        if found:
            svg = found[0].toxml()
        self._data = svg.decode("utf-8", "replace") if isinstance(svg, bytes) else svg

    def _repr_svg_(self):
        return self._data_and_metadata()


class JSON(DisplayObject):
    _data = None

    def __init__(self, data=None, url=None, filename=None, expanded=False, metadata=None, root="root", **kwargs):
        self.metadata = {"expanded": expanded, "root": root}
        if metadata:
            self.metadata.update(metadata)
        if kwargs:
            self.metadata.update(kwargs)
        super().__init__(data=data, url=url, filename=filename)

    def _check_data(self):
        if self.data is not None and not isinstance(self.data, (dict, list)):
            raise TypeError("%s expects JSONable dict or list, not %r" % (self.__class__.__name__, self.data))

    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, data):
        if isinstance(data, PurePath):
            data = str(data)
        if isinstance(data, str):
            if self.filename is None and self.url is None:
                warnings.warn("JSON expects JSONable dict or list, not JSON strings")
            data = json.loads(data)
        self._data = data

    def _data_and_metadata(self):
        return self.data, self.metadata

    def _repr_json_(self):
        return self._data_and_metadata()


class Javascript(TextDisplayObject):
    def __init__(self, data=None, url=None, filename=None, lib=None, css=None):
        self.lib = [lib] if isinstance(lib, str) else (lib or [])
        self.css = [css] if isinstance(css, str) else (css or [])
        super().__init__(data=data, url=url, filename=filename)

    def _repr_javascript_(self):
        return self.data


_MIMETYPES = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif"}


class Image(DisplayObject):
    _read_flags = "rb"

    def __init__(self, data=None, url=None, filename=None, format=None, embed=None, width=None, height=None,
                 retina=False, unconfined=False, metadata=None, alt=None):
        if isinstance(data, PurePath):
            data = str(data)
        if filename is not None:
            ext = self._find_ext(filename)
        elif url is not None:
            ext = self._find_ext(url)
        elif data is None:
            raise ValueError("No image data found. Expecting filename, url, or data.")
        elif isinstance(data, str) and (data.startswith("http") or _safe_exists(data)):
            ext = self._find_ext(data)
        else:
            ext = None
        if format is None:
            if ext is not None:
                format = {"jpg": "jpeg"}.get(ext, ext.lower())
            elif isinstance(data, bytes) and data[:2] == b"\xff\xd8":
                format = "jpeg"
        if format is None:
            format = "png"
        self.format = "jpeg" if format.lower() == "jpg" else format.lower()
        self.embed = embed if embed is not None else (url is None)
        if self.embed and self.format not in _MIMETYPES:
            raise ValueError("Cannot embed the '%s' image format" % (self.format))
        if self.embed:
            self._mimetype = _MIMETYPES.get(self.format)
        self.width = width
        self.height = height
        self.retina = retina
        self.unconfined = unconfined
        self.alt = alt
        super().__init__(data=data, url=url, filename=filename, metadata=metadata)

    def reload(self):
        if self.embed:
            super().reload()

    def _repr_html_(self):
        if not self.embed:
            width = ' width="%d"' % self.width if self.width else ""
            height = ' height="%d"' % self.height if self.height else ""
            klass = ' class="unconfined"' if self.unconfined else ""
            alt = ' alt="%s"' % html.escape(self.alt) if self.alt else ""
            return '<img src="%s"%s%s%s%s/>' % (self.url, width, height, klass, alt)

    def _repr_mimebundle_(self, include=None, exclude=None):
        if self.embed:
            data, metadata = self._data_and_metadata(always_both=True)
            return {self._mimetype: data}, ({self._mimetype: metadata} if metadata else metadata)
        return {"text/html": self._repr_html_()}

    def _data_and_metadata(self, always_both=False):
        try:
            b64 = base64.b64encode(self.data).decode("ascii")
        except TypeError as e:
            raise FileNotFoundError("No such file or directory: '%s'" % (self.data)) from e
        md = dict(self.metadata or {})
        for key in ("width", "height", "unconfined", "alt"):
            if getattr(self, key):
                md[key] = getattr(self, key)
        return (b64, md) if md or always_both else b64

    def _repr_png_(self):
        if self.embed and self.format == "png":
            return self._data_and_metadata()

    def _repr_jpeg_(self):
        if self.embed and self.format == "jpeg":
            return self._data_and_metadata()

    @staticmethod
    def _find_ext(s):
        base, ext = os.path.splitext(s)
        return ext[1:].lower() if ext else base
