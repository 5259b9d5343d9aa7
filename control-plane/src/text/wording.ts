// The control plane's few ways of shortening and counting in what it tells a model or a person, so
// every tool cuts and counts the same way.
import { LIMITS } from "../limits.js";

// How a result's text parts join is the protocol's (the Node client joins them the same way).
export { joinLines } from "@enclave/proto/result-text.js";

/** "1 file", "3 files"; `many` for words whose plural is not the word plus s. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** At most `max` characters, keeping the start and the end (where errors and summaries are) and
 * saying how much of the middle was cut. */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - max} characters cut …]\n${text.slice(text.length - half)}`;
}

/** The same for raw output, counted in bytes (a cut may split a character: it shows as U+FFFD). */
export function clipMiddleBytes(buf: Buffer, max: number): string {
  if (buf.length <= max) return buf.toString("utf8");
  const half = Math.floor(max / 2);
  return `${buf.subarray(0, half).toString("utf8")}\n[… ${buf.length - max} bytes cut …]\n${buf.subarray(buf.length - half).toString("utf8")}`;
}

/** One line of at most `max` characters (whitespace runs become one space), for a list or a status. */
export function clipLine(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, max)}…`;
}

/**
 * A caller's string as an error message quotes it, in backticks: at most LIMITS.errorQuoteMaxChars
 * characters (a pair of surrogates is never split), a longer one cut with an ellipsis and its length.
 */
export function quoted(text: string, max: number = LIMITS.errorQuoteMaxChars): string {
  if (text.length <= max) return `\`${text}\``;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? "") ? max - 1 : max;
  return `\`${text.slice(0, end)}…\` (${text.length} characters)`;
}
