// The console's two static files (script and stylesheet), read once from the source tree and served
// with an ETag so a reload revalidates instead of downloading again.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../repo-paths.js";

export interface Asset {
  type: string;
  body: Buffer;
  etag: string;
}

const FILES: Record<string, string> = {
  "console.js": "text/javascript; charset=utf-8",
  "console.css": "text/css; charset=utf-8",
};

export const ASSETS_DIR = join(repoRoot, "control-plane", "src", "console", "assets");

export function loadAssets(dir = ASSETS_DIR): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(join(dir, name));
    out.set(`/assets/${name}`, { type, body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` });
  }
  return out;
}
