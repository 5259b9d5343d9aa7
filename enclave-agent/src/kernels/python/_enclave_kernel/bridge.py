"""tool(name, args): calling the run's own tools from a cell. The call rides the kernel's pipe to the
agent, which forwards it on the control plane's Eval stream; the control plane runs it like any
model-issued call (surface, approval, wrappers, audit) and the result comes back the same way."""
import json

from .channel import FrameTooLarge


class ToolError(Exception):
    """A bridge call that failed: unknown tool, not on the surface, refused approval, or the tool's
    own error. `.code` is the control plane's stable error code."""

    def __init__(self, tool, code, message):
        super().__init__("tool `%s` failed (%s): %s" % (tool, code, message))
        self.tool = tool
        self.code = code
        self.message = message


# Shown as `ToolError: …` in tracebacks, not under the runner's module path.
ToolError.__module__ = "builtins"


def make_tool(channel):
    def tool(name, args=None, /, **kwargs):
        """Calls one of this run's tools and returns its text result: tool("read", {"path": "a.txt"}).
        Raises ToolError when the call fails or is refused."""
        if not isinstance(name, str) or not name:
            raise TypeError("tool() needs the tool's name as a string, for example tool(\"read\", {\"path\": \"README.md\"})")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise TypeError("tool() arguments must be a dict (or keyword arguments), not %s" % type(args).__name__)
        merged = dict(args, **kwargs)
        try:
            payload = json.dumps(merged)
        except (TypeError, ValueError) as err:
            raise TypeError("tool() arguments must be JSON-serialisable: %s" % err) from None
        try:
            reply = channel.call(name, payload)
        except FrameTooLarge as err:
            raise ToolError(name, "too_large", str(err)) from None
        if not reply.get("ok"):
            raise ToolError(name, reply.get("code") or "failed", reply.get("text") or "")
        return reply.get("text", "")

    tool.Error = ToolError
    return tool


# The bridge call tools() makes; the control plane answers it itself (no tool has this name).
LIST_TOOLS_CALL = "@tools"


def make_tools(channel):
    def tools():
        """What this cell may call with tool(): a list of dicts with name, tier, description and
        input_schema (JSON Schema), Enclave's tools and the harness's, as this cell's surface allows."""
        reply = channel.call(LIST_TOOLS_CALL, "{}")
        if not reply.get("ok"):
            raise ToolError("tools", reply.get("code") or "failed", reply.get("text") or "")
        return json.loads(reply.get("text") or "[]")

    return tools
