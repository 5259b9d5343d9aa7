// The probe `images verify` runs inside an image (with `node -e`, on the image's own Node): it
// starts one language server or debug adapter, sends `initialize` in the protocol's framing
// (Content-Length headers, the same for LSP and DAP) over stdio, or over the loopback port a TCP
// adapter prints, and prints one JSON line: {ok, summary} or {ok: false, why}. It kills what it
// started. Plain CommonJS for Node 18; its arguments: mode (lsp | dap), a JSON list of candidate
// argv (the first whose program is on PATH is used), the transport (stdio | tcp), a timeout in ms.
export const PROBE_SCRIPT = String.raw`
const { spawn } = require("child_process");
const fs = require("fs");
const net = require("net");
const path = require("path");
const [mode, candidatesJson, transport, timeoutText] = process.argv.slice(1);
const candidates = JSON.parse(candidatesJson);
const onPath = (bin) => bin.includes("/") ? fs.existsSync(bin) : (process.env.PATH || "").split(":").some((d) => d && fs.existsSync(path.join(d, bin)));
const argv = candidates.find((a) => onPath(a[0]));
let child;
let stderr = "";
let finished = false;
function done(result) {
  if (finished) return;
  finished = true;
  process.stdout.write(JSON.stringify(result) + "\n");
  try { if (child) process.kill(-child.pid, "SIGKILL"); } catch (e) {}
  process.exit(0);
}
if (!argv) done({ ok: false, why: "none of " + candidates.map((a) => a[0]).join(", ") + " is on PATH" });
setTimeout(() => done({ ok: false, why: "no answer to initialize within " + timeoutText + " ms", stderr: stderr.slice(-1000) }), Number(timeoutText));
child = spawn(argv[0], argv.slice(1), { cwd: "/workspace", detached: true, stdio: ["pipe", "pipe", "pipe"] });
child.on("error", (e) => done({ ok: false, why: "could not start " + argv.join(" ") + ": " + e.message }));
child.on("exit", (code, signal) => setTimeout(() => done({ ok: false, why: argv.join(" ") + " exited (" + (signal || code) + ") before answering initialize", stderr: stderr.slice(-1000) }), 300));
child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
// A server that exits at once closes its stdin: the exit handler says so, not an EPIPE.
child.stdin.on("error", () => {});
const request = mode === "lsp"
  ? { jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: "file:///workspace", workspaceFolders: [{ uri: "file:///workspace", name: "workspace" }], capabilities: {} } }
  : { seq: 1, type: "request", command: "initialize", arguments: { clientID: "enclave-images-verify", adapterID: "verify", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" } };
function talk(readable, writable) {
  const body = Buffer.from(JSON.stringify(request));
  writable.write("Content-Length: " + body.length + "\r\n\r\n");
  writable.write(body);
  let buf = Buffer.alloc(0);
  readable.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const m = /Content-Length: *(\d+)/i.exec(buf.subarray(0, end).toString());
      if (!m) return done({ ok: false, why: "a message without Content-Length: " + buf.subarray(0, 200).toString() });
      const n = Number(m[1]);
      if (buf.length < end + 4 + n) return;
      let msg;
      try { msg = JSON.parse(buf.subarray(end + 4, end + 4 + n).toString()); } catch (e) { return done({ ok: false, why: "an answer that is not JSON" }); }
      buf = buf.subarray(end + 4 + n);
      if (mode === "lsp" && msg.id === 1) {
        if (msg.result && msg.result.capabilities) {
          const info = msg.result.serverInfo || {};
          return done({ ok: true, summary: [info.name, info.version].filter(Boolean).join(" ") || argv[0], capabilities: Object.keys(msg.result.capabilities).length });
        }
        return done({ ok: false, why: "initialize failed: " + JSON.stringify(msg.error || msg).slice(0, 500) });
      }
      if (mode === "dap" && msg.type === "response" && msg.request_seq === 1) {
        if (msg.success) return done({ ok: true, summary: argv[0], capabilities: Object.keys(msg.body || {}).filter((k) => msg.body[k] === true).length });
        return done({ ok: false, why: "initialize failed: " + String(msg.message || "").slice(0, 500) });
      }
    }
  });
}
if (transport === "tcp") {
  let seen = "";
  child.stdout.on("data", function onData(d) {
    seen += d;
    const m = /DAP server listening at:\s*\[?([0-9a-fA-F.:]+?)\]?:(\d+)/.exec(seen);
    if (!m) return;
    child.stdout.off("data", onData);
    const sock = net.connect(Number(m[2]), m[1], () => talk(sock, sock));
    sock.on("error", (e) => done({ ok: false, why: "could not connect to " + m[1] + ":" + m[2] + ": " + e.message }));
  });
} else {
  talk(child.stdout, child.stdin);
}
`;
