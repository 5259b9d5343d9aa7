// make bench, egress: a 10 MiB download from a mirror on the host's 127.0.0.1 through the egress proxy
// — from a command in an enclosure (runc) whose conversation's policy allows the mirror, over the
// agent's loopback listener, the agent channel and the control plane's proxy — beside the same
// download made directly on the host by the same Python client. Each sample is one whole download,
// timed by the client itself (the exec round trip is not counted).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { resultText } from "@enclave/client/control-plane-client.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { startPackageMirror } from "../helpers/package-mirror.js";
import { type BenchRow, row } from "./measure.js";

const SAMPLES = Number(process.env.EGRESS_SAMPLES ?? 20);
const SIZE = 10 * 1024 * 1024;

/** Times whole downloads of URL: through the proxy given, or directly when none. Prints the samples (ms) as JSON. */
const CLIENT = `
import json, os, sys, time, urllib.request
url, n, proxy = sys.argv[1], int(sys.argv[2]), (sys.argv[3] if len(sys.argv) > 3 else "")
# The mirror is on 127.0.0.1: no_proxy must not send it around the proxy.
os.environ["no_proxy"] = os.environ["NO_PROXY"] = ""
opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy} if proxy else {}))
out = []
for i in range(n + 2):
    t = time.perf_counter()
    got = 0
    with opener.open(url) as r:
        while True:
            b = r.read(1 << 20)
            if not b:
                break
            got += len(b)
    if got != ${SIZE}:
        raise SystemExit(f"got {got} bytes")
    if i >= 2:
        out.append((time.perf_counter() - t) * 1000)
print(json.dumps(out))
`;

export async function egressRows(): Promise<BenchRow[]> {
  const mirror = await startPackageMirror();
  const fx = await startFixture();
  try {
    const url = `http://127.0.0.1:${mirror.port}/blob/${SIZE}`;
    const id = "egress-bench";
    const workspace = (await fx.client.createConversation(id, "", { egress: [{ cidr: "127.0.0.1/32", ports: [mirror.port] }] })).workspacePath;
    writeFileSync(join(workspace, "download.py"), CLIENT);
    await fx.client.startEnclosure(id, { runtime: "runc" });
    const run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const r = await fx.client.callTool(run, "exec", { command: `python3 download.py ${url} ${SAMPLES} "$HTTP_PROXY"`, timeout_seconds: 600 });
    if (r.isError) throw new Error(`the download in the enclosure failed: ${resultText(r)}`);
    const proxied = JSON.parse(/\[[^\]]*\]/.exec(resultText(r))?.[0] ?? "[]") as number[];
    if (proxied.length !== SAMPLES) throw new Error(`expected ${SAMPLES} samples from the enclosure: ${resultText(r)}`);
    // Not execFileSync: the mirror serves from this process's event loop.
    const direct = JSON.parse((await promisify(execFile)("python3", ["-c", CLIENT, url, String(SAMPLES)], { encoding: "utf8" })).stdout) as number[];
    return [
      row(
        "10 MiB HTTP download from the host's mirror, from an enclosure (runc) through the egress proxy",
        proxied,
        { name: "the same download on the host, direct", samples: direct },
        { digits: 1 },
      ),
    ];
  } finally {
    await fx.close();
    await mirror.close();
  }
}
