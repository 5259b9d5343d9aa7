// The reference the eval differential suite compares Enclave's JavaScript kernel with: Node's own
// REPL (node:repl with the global context, as `node -i` runs), each cell entered whole, as a cell is
// in Node's editor mode (.editor, then Ctrl+D). Run in the session's workspace folder, one process per
// session.
//
// usage: node eval-node-peer.mjs < {"cells": [CODE, ...]}
// prints {"cells": [{"before": TEXT, "text": TEXT}]}: what the REPL printed for each cell (console
// output, the echo, errors), and `before`: what was printed after the previous cell had ended.
import { readFileSync } from "node:fs";
import repl from "node:repl";
import { PassThrough, Writable } from "node:stream";

const PROMPT = "\u0001cell-done\u0001";
const CELL_TIMEOUT_MS = 60_000;
/** How long output may still come after a cell ended before the next cell starts (timers it left). */
const SETTLE_MS = 50;

let buffer = "";
const realWrite = process.stdout.write.bind(process.stdout);
const capture = (chunk, encoding, cb) => {
  buffer += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  const done = typeof encoding === "function" ? encoding : cb;
  if (done) done();
  return true;
};
// console.log and console.error both land in one stream, in the order they were written.
process.stdout.write = capture;
process.stderr.write = capture;

const output = new Writable({
  write(chunk, _encoding, cb) {
    buffer += chunk.toString("utf8");
    cb();
  },
});
const server = repl.start({ prompt: PROMPT, input: new PassThrough(), output, terminal: false, useGlobal: true });

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// The REPL writes a prompt after each cell, and also after each error from work left running (a
// timer, a promise nobody awaited): a cell ends at the first prompt after its evaluation has ended,
// and the prompts before that are the background errors' own. An evaluation ends by calling back, or
// (an error it threw, at once or after an await) by sending the error to the REPL's domain from the
// REPL's own code; a background error reaches the domain from the event loop instead.
let evaluated;
const evaluate = server.eval;
server.eval = function (code, context, file, cb) {
  return evaluate.call(this, code, context, file, (...args) => {
    evaluated = buffer.length;
    cb(...args);
  });
};
server._domain.prependListener("error", () => {
  if (/\bnode:repl:/.test(new Error().stack ?? "")) evaluated = buffer.length;
});

function withoutPrompts(text) {
  return text.split(PROMPT).join("");
}

/** Resolves with the cell's output, or marks a cell the REPL wants more input for. */
async function untilCellEnds() {
  const started = Date.now();
  for (;;) {
    if (evaluated !== undefined) {
      const at = buffer.indexOf(PROMPT, evaluated);
      if (at >= 0) {
        const text = withoutPrompts(buffer.slice(0, at));
        buffer = buffer.slice(at + PROMPT.length);
        return { text, incomplete: false };
      }
      if (/\.\.\. $/.test(buffer)) {
        const text = withoutPrompts(buffer.replace(/\.\.\. $/, ""));
        buffer = "";
        return { text, incomplete: true };
      }
    }
    if (Date.now() - started > CELL_TIMEOUT_MS) {
      const text = withoutPrompts(buffer);
      buffer = "";
      return { text: `${text}[timed out]`, incomplete: false };
    }
    await sleep(5);
  }
}

async function untilPrompt() {
  while (!buffer.includes(PROMPT)) await sleep(5);
  buffer = buffer.slice(buffer.indexOf(PROMPT) + PROMPT.length);
}

const { cells } = JSON.parse(readFileSync(0, "utf8"));
await untilPrompt();
const results = [];
for (const code of cells) {
  await sleep(SETTLE_MS);
  const before = withoutPrompts(buffer);
  buffer = "";
  evaluated = undefined;
  // Fed from a named callback: the REPL cuts a stack at its bottom-most unnamed frame, which must be
  // the cell's own (as when a user types it), not this script's.
  setImmediate(function enterCell() {
    server.emit("line", code);
  });
  const { text, incomplete } = await untilCellEnds();
  if (incomplete) {
    server.emit("line", ".break");
    await untilPrompt();
  }
  results.push({ before, text: incomplete ? `${text}[the REPL waits for more input]` : text });
}
realWrite(JSON.stringify({ cells: results }));
process.exit(0);
