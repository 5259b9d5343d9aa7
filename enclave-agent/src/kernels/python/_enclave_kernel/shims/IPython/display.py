"""from IPython.display import display, HTML, Markdown, Image, JSON, ... (Enclave's stand-in)."""
from IPython.core.display_functions import *  # noqa: F401,F403
from IPython.core.display import *  # noqa: F401,F403
from IPython.core.display import TextDisplayObject as _TextDisplayObject


class Code(_TextDisplayObject):
    """Source code shown as text (IPython highlights it in HTML with Pygments)."""

    def __init__(self, data=None, url=None, filename=None, language=None):
        self.language = language
        super().__init__(data=data, url=url, filename=filename)

    def __repr__(self):
        return self.data

    def _repr_html_(self):
        import html

        return "<pre>%s</pre>" % html.escape(self.data)


class IFrame(object):
    def __init__(self, src, width, height, extras=None, **kwargs):
        self.src, self.width, self.height, self.extras, self.params = src, width, height, extras or [], kwargs

    def _repr_html_(self):
        from urllib.parse import urlencode

        params = "?" + urlencode(self.params) if self.params else ""
        return '\n        <iframe\n            width="%s"\n            height="%s"\n            src="%s%s"\n            frameborder="0"\n            allowfullscreen\n            %s\n        ></iframe>\n        ' % (
            self.width, self.height, self.src, params, " ".join(self.extras))


class FileLink(object):
    def __init__(self, path, url_prefix="", result_html_prefix="", result_html_suffix="<br>"):
        import os

        if os.path.isdir(path):
            raise ValueError("Cannot display a directory using FileLink. Use FileLinks to display '%s'." % path)
        self.path = os.path.relpath(path)
        self.url_prefix = url_prefix
        self.result_html_prefix = result_html_prefix
        self.result_html_suffix = result_html_suffix

    def _repr_html_(self):
        import html

        return "%s<a href='%s' target='_blank'>%s</a>%s" % (
            self.result_html_prefix, html.escape(self.url_prefix + self.path), html.escape(self.path), self.result_html_suffix)

    def __repr__(self):
        import os

        return os.path.abspath(self.path)


# Where the real IPython defines them, so their default text is the same.
for _cls in (Code, IFrame, FileLink):
    _cls.__module__ = "IPython.lib.display"
