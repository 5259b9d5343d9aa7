// The classes the differential suites give a difference an enclosure is expected to make: the eval
// suite's interpreter-version and install-path rewrites (against host placement's output of the same
// cell), the lsp suite's image install prefix and the debug suite's C library without debug
// information. Each explains its own difference and nothing more.
import { describe, expect, it } from "vitest";
import { classifyStop, type Stop } from "../fidelity/dap-differential.js";
import type { Part } from "../fidelity/eval-compare.js";
import { placementDifference } from "../fidelity/eval-placement.js";
import { classify } from "../fidelity/lsp-differential.js";

const text = (t: string): Part[] => [{ kind: "text", text: t }];
const node = { enclave: "v24.22.3", reference: "v20.20.2" };
const python = { enclave: "3.12.7", reference: "3.11.2" };

describe("eval: what an enclosure changes against host placement", () => {
  it("classes Node's own frames, its newer messages and an API probe of a newer Node", () => {
    const enclosure =
      "Error: ENOENT\n    at Object.openSync (node:fs:621:18)\n    at Object.readFileSync (node:fs:487:35)\n    at <cell 6>:1:4 {\n  errno: -2\n}";
    const host = "Error: ENOENT\n    at Object.openSync (node:fs:573:18)\n    at Object.readFileSync (node:fs:452:35)\n    at <cell 6>:1:4 {\n  errno: -2\n}";
    expect(placementDifference("javascript", "fs.readFileSync('x')", text(enclosure), text(host), node)).toEqual(["node-internals"]);
    expect(
      placementDifference(
        "javascript",
        'JSON.parse("{bad}")',
        text("SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
        text("SyntaxError: Expected property name or '}' in JSON at position 1"),
        node,
      ),
    ).toEqual(["node-messages"]);
    const probe = 'Object.groupBy ? "has groupBy" : "no groupBy"';
    expect(placementDifference("javascript", probe, text("'has groupBy'"), text("'no groupBy'"), node)).toEqual(["node-api"]);
    // The same probe between two Nodes that both have it is a real difference.
    expect(placementDifference("javascript", probe, text("'has groupBy'"), text("'no groupBy'"), { enclave: "v24.1.0", reference: "v22.1.0" })).toBeUndefined();
  });

  it("classes the interpreter's version and where its packages are, and leaves any other difference unknown", () => {
    expect(placementDifference("python", "import sys; sys.version", text("'3.12.7'"), text("'3.11.2'"), python)).toEqual(["interpreter-version"]);
    expect(
      placementDifference(
        "python",
        "import pandas; pandas.__file__",
        text("'/usr/local/lib/python3.12/site-packages/pandas/__init__.py'"),
        text("'/usr/lib/python3/dist-packages/pandas/__init__.py'"),
        python,
      ),
    ).toEqual(["interpreter-version", "install-paths"]);
    expect(placementDifference("python", "1 + 1", text("2"), text("3"), python)).toBeUndefined();
    expect(placementDifference("javascript", "[1, 2]", text("[ 1, 2 ]"), text("[ 1, 3 ]"), node)).toBeUndefined();
  });
});

describe("lsp and debug: what an enclosure changes against a direct client on the host", () => {
  it("classes a location under the runtime image's tools prefix as the host tools' same file", () => {
    const at = (l: string[]) => ({ kind: "locations" as const, total: l.length, locations: l });
    const direct = at(["py/a.py:1:1", "<host-tools>/node_modules/pyright/dist/typeshed-fallback/stdlib/builtins.pyi:1467:7"]);
    expect(classify(at(["py/a.py:1:1", "/opt/enclave/node-tools/node_modules/pyright/dist/typeshed-fallback/stdlib/builtins.pyi:1467:7"]), direct)).toBe(
      "image-path",
    );
    expect(
      classify(at(["py/a.py:1:1", "/opt/enclave/node-tools/node_modules/pyright/dist/typeshed-fallback/stdlib/builtins.pyi:99:7"]), direct),
    ).toBeUndefined();
  });

  it("classes two clangds that each list another guarded typedef of the same system type as the header's view", () => {
    const at = (l: string[]) => ({ kind: "locations" as const, total: l.length, locations: l });
    const ours = at(["c/linux_syscall.c:42:22", "/usr/include/grp.h:37:17", "/usr/include/unistd.h:232:17"]);
    const theirs = at(["c/linux_syscall.c:42:22", "/usr/include/grp.h:37:17", "/usr/include/x86_64-linux-gnu/sys/types.h:64:17"]);
    expect(classify(ours, theirs)).toBe("header-view");
    expect(classify(at(["c/linux_syscall.c:43:22", ...ours.locations.slice(1)]), theirs)).toBeUndefined();
  });

  it("classes C library frames without debug information, the program's own frames the same", () => {
    const stop = (frames: string[], locals = ["n (int) = 4"]): Stop => ({ where: "dbg/c/prog.c:6 in area", frames, locals, cut: [] });
    const direct = stop([
      "area at dbg/c/prog.c:6",
      "main at dbg/c/prog.c:18",
      "__libc_start_call_main at sysdeps/nptl/libc_start_call_main.h:58",
      "_start at no source:12",
    ]);
    const image = ["area at dbg/c/prog.c:6", "main at dbg/c/prog.c:18", "___lldb_unnamed_symbol3157 at no source:24", "_start at no source:12"];
    expect(classifyStop(stop(image), direct)).toBe("system-frames");
    expect(classifyStop(stop(image, ["n (int) = 5"]), direct)).toBeUndefined();
    expect(classifyStop(stop(["area at dbg/c/prog.c:7", ...image.slice(1)]), direct)).toBeUndefined();
  });
});
