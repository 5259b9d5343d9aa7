// Page markup kept as HTML files (assets/pages/NAME.html) with {{slot}} placeholders, read once. The
// file's text is markup, as an html`` literal is; a slot is filled the way html`` fills a value:
// SafeHtml as it is, anything else escaped. A slot the file names that the caller does not fill, or
// the reverse, is a programming error and throws.
import { readFileSync } from "node:fs";
import { join as joinPath } from "node:path";
import { join, SafeHtml } from "./html.js";
import { ASSETS_DIR } from "./static-assets.js";

export type SlotValue = Parameters<typeof join>[0][number];

const SLOT = /\{\{([a-z_]+)\}\}/g;
const cache = new Map<string, string>();

function source(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(joinPath(ASSETS_DIR, "pages", `${name}.html`), "utf8").replace(/\n$/, "");
    cache.set(name, text);
  }
  return text;
}

export function fillPage(name: string, slots: Record<string, SlotValue>): SafeHtml {
  const text = source(name);
  const used = new Set<string>();
  const parts: SlotValue[] = [];
  let last = 0;
  for (const m of text.matchAll(SLOT)) {
    const slot = m[1] as string;
    if (!Object.hasOwn(slots, slot)) throw new Error(`page ${name}: slot {{${slot}}} is not filled`);
    used.add(slot);
    parts.push(new SafeHtml(text.slice(last, m.index)), slots[slot]);
    last = m.index + m[0].length;
  }
  const unused = Object.keys(slots).filter((s) => !used.has(s));
  if (unused.length) throw new Error(`page ${name}: no slot for ${unused.join(", ")}`);
  parts.push(new SafeHtml(text.slice(last)));
  return join(parts);
}
