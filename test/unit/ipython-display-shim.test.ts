// The IPython.display stand-in the Python kernel ships (for images without IPython) gives the same
// representations as the real IPython: both are asked for the mime bundles of the same objects, the
// way the kernel's display asks.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostPython } from "../helpers/host-python.js";

const runnerDir = join(import.meta.dirname, "..", "..", "enclave-agent", "src", "kernels", "python");
const shimDir = join(runnerDir, "_enclave_kernel", "shims");

const SCRIPT = `
import base64, json, sys, re
sys.dont_write_bytecode = True
import IPython
from IPython.display import HTML, Markdown, Math, Latex, SVG, JSON, Javascript, Image, Pretty, Code
from _enclave_kernel.display import mime_bundle
png = b"\\x89PNG\\r\\n\\x1a\\n" + bytes(range(16))
jpeg = b"\\xff\\xd8\\xff\\xe0" + bytes(range(16))
objects = {
    "HTML": HTML("<b>x</b>"),
    "Markdown": Markdown("# T"),
    "Math": Math("x^2"),
    "Latex": Latex("$x$"),
    "SVG": SVG('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>'),
    "JSON": JSON({"a": [1, 2]}),
    "JSON list": JSON([1, "two"], expanded=True),
    "Javascript": Javascript("console.log(1)"),
    "Image png": Image(data=png),
    "Image jpeg": Image(data=jpeg),
    "Image sized": Image(data=png, width=40),
    "Image url": Image(url="http://example.invalid/a.png"),
    "Pretty": Pretty("shown as is"),
    "Code": Code("x = 1"),
}
out = {}
for name, obj in objects.items():
    bundle = mime_bundle(obj)
    if name == "Code":
        bundle = {"text/plain": bundle["text/plain"]}  # IPython highlights its HTML with Pygments
    out[name] = {k: (base64.b64encode(v).decode() if isinstance(v, bytes) else v) for k, v in bundle.items()}
print(json.dumps({"shim": "shims" in IPython.__file__, "bundles": out}))
`;

function bundles(pythonPath: string | undefined): { shim: boolean; bundles: Record<string, Record<string, string>> } {
  const env = { ...process.env, PYTHONPATH: pythonPath ?? "" };
  return JSON.parse(execFileSync(hostPython(), ["-c", SCRIPT], { cwd: runnerDir, env, encoding: "utf8" })) as ReturnType<typeof bundles>;
}

describe("the IPython.display stand-in", () => {
  it("gives every display object the mime bundle the real IPython gives it", () => {
    const real = bundles(undefined);
    const shim = bundles(shimDir);
    expect(real.shim).toBe(false);
    expect(shim.shim).toBe(true);
    expect(Object.keys(shim.bundles)).toHaveLength(14);
    for (const name of Object.keys(real.bundles)) expect(shim.bundles[name], name).toEqual(real.bundles[name]);
  });
});
