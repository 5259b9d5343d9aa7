"""display() and its companions. These bodies are what runs outside Enclave's kernel (printing, as
IPython does without a shell); inside it, the kernel replaces them with its own display."""
import os

__all__ = ["display", "clear_output", "publish_display_data", "update_display", "DisplayHandle"]


def publish_display_data(data, metadata=None, source=None, *, transient=None, **kwargs):
    print(data.get("text/plain", "") if isinstance(data, dict) else data)


def display(*objs, include=None, exclude=None, metadata=None, transient=None, display_id=None, raw=False, clear=False, **kwargs):
    if not objs:
        return None
    print(*objs)
    if display_id:
        return DisplayHandle(None if display_id is True else display_id)
    return None


def update_display(obj, *, display_id, **kwargs):
    kwargs["update"] = True
    display(obj, display_id=display_id, **kwargs)


def clear_output(wait=False):
    pass


class DisplayHandle(object):
    def __init__(self, display_id=None):
        self.display_id = display_id or os.urandom(16).hex()

    def __repr__(self):
        return "<%s display_id=%s>" % (self.__class__.__name__, self.display_id)

    def display(self, obj, **kwargs):
        display(obj, display_id=self.display_id, **kwargs)

    def update(self, obj, **kwargs):
        update_display(obj, display_id=self.display_id, **kwargs)
