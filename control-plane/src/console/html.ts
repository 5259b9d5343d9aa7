// HTML built from strings safely: every interpolated value is escaped unless it is already SafeHtml
// (made by this module). Card text and audit details come from agents, so nothing reaches a page
// any other way.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

/** Markup that is already safe: only html`` and join() make it. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolated = SafeHtml | string | number | boolean | null | undefined | readonly Interpolated[];

function render(v: Interpolated): string {
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join("");
  if (v === null || v === undefined || v === false) return "";
  return escapeHtml(v);
}

/** A template whose literal parts are markup and whose values are escaped (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? "");
  });
  return new SafeHtml(out);
}

export function join(parts: readonly Interpolated[], separator: SafeHtml | string = ""): SafeHtml {
  return new SafeHtml(parts.map(render).join(render(separator)));
}

/** JSON for a <script type="application/json"> block or a data attribute: no '<' can close a tag. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}
