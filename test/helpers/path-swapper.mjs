// The attacker of the path-race test, as a plain Node script (it runs inside an enclosure too, on
// the image's Node 18): swaps `WS/sub` between a real folder and a symbolic link to OUTSIDE as fast as
// renames go, while watching OUTSIDE for anything the agent creates or changes there.
//
//   node path-swapper.mjs WS OUTSIDE SECRET MAX_SECONDS
//
// OUTSIDE/x holds SECRET. It stops when WS/.race-stop appears or after MAX_SECONDS, leaves `sub` a
// real folder, and prints one JSON line: the swap count and what it found changed in OUTSIDE (names
// of files that appeared, contents x had instead of the secret).
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [ws, outside, secret, maxSecondsArg] = process.argv.slice(2);
if (!ws || !outside || !secret) {
  console.error("usage: node path-swapper.mjs WS OUTSIDE SECRET MAX_SECONDS");
  process.exit(2);
}
const maxMs = Number(maxSecondsArg ?? "120") * 1000;
const sub = join(ws, "sub");
const stash = join(ws, "sub.dir");
const link = join(ws, "sub.link");
const stop = join(ws, ".race-stop");

const strayNames = new Set();
const changedContents = new Set();

function setUp() {
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "x"), secret);
  for (const p of [sub, stash, link]) rmSync(p, { recursive: true, force: true });
  mkdirSync(sub);
  writeFileSync(join(sub, "x"), "inside\n");
  symlinkSync(outside, link);
}

/** Records (and undoes) any change to OUTSIDE, so later reads still meet the secret. */
function inspect() {
  let names;
  try {
    names = readdirSync(outside);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === "x") continue;
    strayNames.add(name);
    rmSync(join(outside, name), { recursive: true, force: true });
  }
  let text;
  try {
    text = readFileSync(join(outside, "x"), "utf8");
  } catch {
    text = "(missing)";
  }
  if (text !== secret) {
    changedContents.add(text);
    writeFileSync(join(outside, "x"), secret);
  }
}

function kind(p) {
  try {
    const st = lstatSync(p);
    return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "other";
  } catch {
    return "none";
  }
}

/** Back to: `sub` a folder (the agent may have made a new one in a gap), `sub.link` the link. */
function repair() {
  if (kind(sub) === "link" && kind(link) === "none") renameSync(sub, link);
  if (kind(sub) !== "dir") {
    rmSync(sub, { recursive: true, force: true });
    if (kind(stash) === "dir") renameSync(stash, sub);
    else mkdirSync(sub);
  }
  rmSync(stash, { recursive: true, force: true });
  if (kind(link) !== "link") {
    rmSync(link, { recursive: true, force: true });
    symlinkSync(outside, link);
  }
}

setUp();
const started = Date.now();
let swaps = 0;
let repairs = 0;
for (let cycle = 1; ; cycle++) {
  try {
    renameSync(sub, stash);
    renameSync(link, sub);
    swaps++;
    renameSync(sub, link);
    renameSync(stash, sub);
  } catch {
    repairs++;
    repair();
  }
  if (cycle % 16 === 0) {
    inspect();
    if (existsSync(stop) || Date.now() - started > maxMs) break;
  }
}
repair();
inspect();
console.log(JSON.stringify({ swaps, repairs, seconds: (Date.now() - started) / 1000, strayNames: [...strayNames], changedContents: [...changedContents] }));
