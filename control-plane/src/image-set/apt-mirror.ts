// The Debian mirror this machine's apt already uses, so the base image installs from the same place
// without naming a host of its own.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function hostDebianMirror(): string | undefined {
  const candidates: string[] = [];
  const dir = "/etc/apt/sources.list.d";
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith(".sources") || name.endsWith(".list")) candidates.push(join(dir, name));
    }
  }
  if (existsSync("/etc/apt/sources.list")) candidates.unshift("/etc/apt/sources.list");
  for (const file of candidates) {
    const text = readFileSync(file, "utf8");
    // deb822: "URIs: http://…/debian"; one-line format: "deb http://…/debian bookworm main".
    const deb822 = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text);
    if (deb822?.[1]) return deb822[1];
    const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+\S+/m.exec(text);
    if (oneLine?.[1]) return oneLine[1];
  }
  return undefined;
}
