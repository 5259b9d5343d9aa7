"""Writes the Python client's per-tool types from proto/tool-schemas.json (the tool registry's own schemas):
each tool's arguments and details as TypedDicts, and a typed accessor of each tool's details
(``exec_details(result)``), into clients/python/src/enclave_client/tool_types.py, or the file given.

    usage: python3 scripts/gen-python-tool-types.py [OUT_FILE]
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "proto" / "tool-schemas.json"
DEFAULT_OUT = ROOT / "clients" / "python" / "src" / "enclave_client" / "tool_types.py"

Schema = Dict[str, Any]


def pascal(name: str) -> str:
    """`lsp_rename` → `LspRename`, `type_definition` → `TypeDefinition`."""
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", name) if w)


class Renderer:
    """Renders schemas as Python type expressions, emitting a TypedDict class for each object with properties."""

    def __init__(self) -> None:
        self.classes: List[str] = []
        self.bodies: Dict[str, str] = {}

    def emit(self, name: str, body: str) -> str:
        """Adds a class (the same body under the same name once); a different body under a taken name gets a suffix."""
        candidate, n = name, 2
        while candidate in self.bodies and self.bodies[candidate] != body.replace("@@NAME@@", candidate):
            candidate, n = f"{name}{n}", n + 1
        text = body.replace("@@NAME@@", candidate)
        if candidate not in self.bodies:
            self.bodies[candidate] = text
            self.classes.append(text)
        return candidate

    def type_of(self, s: Any, name: str, defs: Schema) -> str:
        if not isinstance(s, dict):
            return "Any"
        if "$ref" in s:
            ref = str(s["$ref"])
            key = ref.rsplit("/", 1)[-1]
            target = defs.get(key)
            return self.type_of(target, pascal(key), defs) if target is not None else "Any"
        if "const" in s:
            return f"Literal[{json.dumps(s['const'])}]" if s["const"] is not None else "None"
        if "enum" in s:
            return f"Literal[{', '.join(json.dumps(v) for v in s['enum'])}]"
        # An object's own anyOf/oneOf that only names required keys (one of query or file) constrains
        # values, not the type: the properties make the type.
        for key in ("anyOf", "oneOf"):
            if key in s and "properties" not in s:
                branches = s[key]
                typed = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
                # One branch beside null (an optional object) keeps the plain name.
                names = [name] * len(branches) if len(typed) == 1 else [self.branch_name(name, b, i) for i, b in enumerate(branches)]
                return self.union([self.type_of(b, n, defs) for b, n in zip(branches, names)])
        t = s.get("type")
        if isinstance(t, list):
            return self.union([self.type_of({**s, "type": one}, name, defs) for one in t])
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            return f"List[{self.type_of(s.get('items'), name + 'Item', defs)}]"
        if t == "object" or "properties" in s:
            props = s.get("properties")
            if isinstance(props, dict) and props:
                return self.typed_dict(name, props, set(s.get("required") or []), defs, s.get("description"))
            extra = s.get("additionalProperties")
            return f"Dict[str, {self.type_of(extra, name + 'Value', defs)}]" if isinstance(extra, dict) else "Dict[str, Any]"
        return "Any"

    @staticmethod
    def branch_name(name: str, branch: Any, i: int) -> str:
        """A union branch's class name: by the value of its discriminating const (action, op, kind…), else its index."""
        props = branch.get("properties") if isinstance(branch, dict) else None
        if isinstance(props, dict):
            for p in props.values():
                if isinstance(p, dict) and isinstance(p.get("const"), str):
                    return name + pascal(p["const"])
        return f"{name}{i + 1}"

    @staticmethod
    def union(types: List[str]) -> str:
        unique: List[str] = []
        for t in types:
            if t not in unique:
                unique.append(t)
        if len(unique) == 1:
            return unique[0]
        if "None" in unique and len(unique) == 2:
            return f"Optional[{next(u for u in unique if u != 'None')}]"
        return f"Union[{', '.join(unique)}]"

    def typed_dict(self, name: str, props: Schema, required: Set[str], defs: Schema, description: Optional[str]) -> str:
        fields: List[Tuple[str, str, bool, Optional[str]]] = []
        for key, sub in props.items():
            fields.append((key, self.type_of(sub, name + pascal(key), defs), key in required, sub.get("description") if isinstance(sub, dict) else None))
        doc = f'    """{description}"""\n' if description else ""
        functional = any(not k.isidentifier() or keyword.iskeyword(k) for k, _, _, _ in fields)
        req = [f for f in fields if f[2]]
        opt = [f for f in fields if not f[2]]

        def lines(fs: List[Tuple[str, str, bool, Optional[str]]]) -> str:
            out = ""
            for key, typ, _, desc in fs:
                if desc:
                    out += f"    #: {' '.join(desc.split())}\n"
                out += f"    {key}: {typ}\n"
            return out

        if functional:
            # Keys that are not identifiers need TypedDict's call form, which cannot mix required and
            # optional keys before Python 3.11: such a dict is total only when every key is required.
            items = ", ".join(f"{json.dumps(k)}: {t}" for k, t, _, _ in fields)
            return self.emit(name, f'@@NAME@@ = TypedDict("@@NAME@@", {{{items}}}{"" if not opt else ", total=False"})\n')
        if req and opt:
            base = self.emit(f"_{name}Required", f"class @@NAME@@(TypedDict):\n{lines(req)}")
            return self.emit(name, f"class @@NAME@@({base}, total=False):\n{doc}{lines(opt)}")
        total = "" if req else ", total=False"
        return self.emit(name, f"class @@NAME@@(TypedDict{total}):\n{doc}{lines(fields)}")


def render(schemas: Schema) -> str:
    r = Renderer()
    tools: List[Schema] = sorted(schemas["tools"], key=lambda t: str(t["name"]))
    aliases: List[str] = []
    accessors: List[str] = []
    sync_methods: List[str] = []
    async_methods: List[str] = []
    for tool in tools:
        name, base = tool["name"], pascal(tool["name"])
        for kind, schema in (("Args", tool.get("arguments")), ("Details", tool.get("details"))):
            if schema is None:
                continue
            defs = {**(schema.get("$defs") or {}), **(schema.get("definitions") or {})}
            typ = r.type_of(schema, base + kind, defs)
            if typ != base + kind:
                aliases.append(f"{base}{kind} = {typ}\n")
        if tool.get("arguments") is not None:
            sig = f"(self, args: {base}Args, *, timeout: Optional[float] = None) -> ToolResult:\n"
            call = f'self._client.call_tool(self._run_id, "{name}", args, timeout=timeout)\n'
            sync_methods.append(f"    def {name}{sig}        return {call}")
            async_methods.append(f"    async def {name}{sig}        return await {call}")
        if tool.get("details") is not None:
            accessors.append(
                f"def {name}_details(result: ToolResult) -> Optional[{base}Details]:\n"
                f'    """{name}\'s details, typed; None when the result carries none (a refusal, an older control plane)."""\n'
                f'    return cast("Optional[{base}Details]", result.details)\n'
            )
    names = "".join(f"    {json.dumps(t['name'])},\n" for t in tools).rstrip("\n")
    return (
        '"""Each tool\'s arguments and details as TypedDicts, and a typed accessor of each tool\'s details.\n\n'
        "Generated from proto/tool-schemas.json (the tool registry's own schemas) by\n"
        'scripts/gen-python-tool-types.py; do not edit. ``ToolResult.details`` is the dict these describe.\n"""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional, Protocol, Tuple, TypedDict, Union, cast\n\n"
        "if TYPE_CHECKING:\n    from .models import ToolResult\n\n"
        f"#: The tools these types describe (a control plane may offer others: custom tools, harness tools).\nTOOL_NAMES: Tuple[str, ...] = (\n{names}\n)\n\n\n"
        + "\n\n".join(r.classes)
        + ("\n\n" + "".join(aliases) if aliases else "")
        + "\n\n"
        + "\n\n".join(accessors)
        + "\n\nclass ToolCaller(Protocol):\n"
        + '    """What RunTools needs of a client (EnclaveClient is one); the types module imports no client."""\n\n'
        + "    def call_tool(self, run_id: str, tool: str, args: Any = None, *, timeout: Optional[float] = None) -> ToolResult: ...\n"
        + "\n\nclass AsyncToolCaller(Protocol):\n"
        + '    """What AsyncRunTools needs of a client (AsyncEnclaveClient is one)."""\n\n'
        + "    async def call_tool(self, run_id: str, tool: str, args: Any = None, *, timeout: Optional[float] = None) -> ToolResult: ...\n"
        + "\n\nclass RunTools:\n"
        + '    """Typed calls of one run\'s built-in tools (``client.tools(run_id).exec({"command": "ls"})``): each takes its\n'
        + '    arguments\' TypedDict and returns the result as ``call_tool`` does."""\n\n'
        + "    def __init__(self, client: ToolCaller, run_id: str) -> None:\n        self._client = client\n        self._run_id = run_id\n\n"
        + "\n".join(sync_methods)
        + "\n\nclass AsyncRunTools:\n"
        + '    """RunTools for AsyncEnclaveClient: each tool a coroutine."""\n\n'
        + "    def __init__(self, client: AsyncToolCaller, run_id: str) -> None:\n        self._client = client\n        self._run_id = run_id\n\n"
        + "\n".join(async_methods)
    )


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    text = render(json.loads(SOURCE.read_text(encoding="utf-8")))
    out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
