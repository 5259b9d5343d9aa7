// Regenerates proto/gen from proto/*.proto with buf + ts-proto. `--check` regenerates into a temp
// folder and exits 1 when the committed output differs (the staleness test uses it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const protoDir = join(root, "proto");
const committed = join(protoDir, "gen");
const buf = join(root, "node_modules", ".bin", "buf");

function generate(outDir) {
  execFileSync(buf, ["generate", "--output", outDir], { cwd: protoDir, stdio: ["ignore", "inherit", "inherit"] });
  return join(outDir, "gen");
}

function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

const check = process.argv.includes("--check");
const tmp = mkdtempSync(join(tmpdir(), "enclave-gen-"));
try {
  const fresh = generate(tmp);
  if (check) {
    const a = listFiles(fresh);
    let b = [];
    try {
      b = listFiles(committed);
    } catch {
      /* missing counts as stale */
    }
    const stale = a.length !== b.length || a.some((f, i) => f !== b[i] || readFileSync(join(fresh, f), "utf8") !== readFileSync(join(committed, f), "utf8"));
    if (stale) {
      console.error("proto/gen is stale: run `npm run gen` and commit the result");
      process.exit(1);
    }
    console.log("proto/gen is up to date");
  } else {
    rmSync(committed, { recursive: true, force: true });
    cpSync(fresh, committed, { recursive: true });
    console.log(`generated ${listFiles(committed).length} files in proto/gen`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
