// Image tags are content hashes of everything that goes into the image, so an unchanged image is
// never rebuilt and a changed input always is.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function hashParts(parts: ReadonlyArray<string | Buffer>): string {
  const h = createHash("sha256");
  for (const part of parts) {
    const buf = typeof part === "string" ? Buffer.from(part) : part;
    h.update(String(buf.length)).update(":").update(buf);
  }
  return h.digest("hex").slice(0, 16);
}

/** Every file below dir, sorted, as [relative path, content] pairs. */
export function readTree(dir: string): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push([relative(dir, p), readFileSync(p)]);
    }
  };
  walk(dir);
  return out;
}

export function hashTree(dir: string): string {
  return hashParts(readTree(dir).flatMap(([path, content]) => [path, content]));
}
