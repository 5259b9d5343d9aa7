// What a cell leaves in the transcript: its output in the order it came, interleaved with what it
// displayed (a table as markdown with its HTML kept as a rich part, a figure as an image), bounded
// (head and tail of the text, a cap on images) with a plain marker where something was cut.
import { StringDecoder } from "node:string_decoder";
import type { DisplayData } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { LIMITS } from "../../limits.js";
import type { ContentPart } from "../tool.js";

/** Text the cell streamed as it ran (its output, what it displayed) is kept apart from the notes
 * added once it ended, so the result can mark which parts repeat the stream. */
type Segment = { kind: "text"; text: string; streamed: boolean } | { kind: "part"; part: ContentPart };

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** The text/plain a notebook gives an object that has no text of its own (`<IPython.core.display.JSON object>`). */
const PLACEHOLDER = /^<[\w.]+ object>$/;

export interface RenderedDisplay {
  text: string | undefined;
  parts: ContentPart[];
  /** The text is markdown: a block that must not run into the text around it. */
  markdown?: boolean;
}

/** The parts one displayed object becomes: an image, or text with its rich form beside it. */
export function renderDisplay(d: DisplayData): RenderedDisplay {
  const by = new Map(d.items.map((i) => [i.mimeType, i.data]));
  const str = (mime: string): string | undefined => by.get(mime)?.toString("utf8");
  const image = IMAGE_TYPES.find((m) => by.has(m));
  if (image) return { text: undefined, parts: [{ type: "image", mimeType: image, data: by.get(image) as Buffer }] };
  const plain = str("text/plain");
  const markdown = str("text/markdown");
  const html = str("text/html");
  const svg = str("image/svg+xml");
  const richParts: ContentPart[] = [];
  if (html !== undefined) richParts.push({ type: "rich", mimeType: "text/html", text: html });
  if (svg !== undefined) richParts.push({ type: "rich", mimeType: "image/svg+xml", text: svg });
  if (markdown !== undefined) return { text: markdown, parts: richParts, markdown: true };
  // JSON or LaTeX says more than a placeholder: it is what a notebook renders for such an object.
  const data = plain === undefined || PLACEHOLDER.test(plain) ? (str("application/json") ?? str("text/latex")) : undefined;
  const text = data ?? plain ?? (richParts.length ? `(${d.items.map((i) => i.mimeType).join(", ")} output)` : "");
  return { text, parts: richParts };
}

export class CellTranscript {
  private readonly segments: Segment[] = [];
  private readonly decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  private images = 0;
  private droppedImages = 0;
  /** The last text was a markdown block: what follows starts after a blank line. */
  private afterBlock = false;

  output(stream: "stdout" | "stderr", data: Buffer): void {
    this.text(this.decoders[stream].write(data), true);
  }

  display(d: DisplayData): void {
    const { text, parts, markdown } = renderDisplay(d);
    if (text !== undefined && text !== "") {
      if (markdown) this.block(text);
      else this.line(text, true);
    }
    for (const part of parts) {
      if (part.type === "image") {
        if (this.images >= LIMITS.evalMaxImages) {
          this.droppedImages += 1;
          continue;
        }
        this.images += 1;
        // The stream announced the image as it was shown.
        this.segments.push({ kind: "part", part: { ...part, streamed: true } });
        continue;
      }
      this.segments.push({ kind: "part", part });
    }
  }

  /** Markdown on lines of its own with a blank line each side, so two tables stay two tables and a
   * printed line after a table is not read as one of its rows (also when a rich part sits between:
   * a harness may join the text parts). */
  private block(text: string): void {
    const last = [...this.segments].reverse().find((seg) => seg.kind === "text");
    if (last?.kind === "text" && last.text !== "" && !last.text.endsWith("\n\n")) last.text += last.text.endsWith("\n") ? "\n" : "\n\n";
    this.afterBlock = false;
    this.text(text.endsWith("\n") ? text : `${text}\n`, true);
    this.afterBlock = true;
  }

  /** Text on lines of its own (a displayed value, or a note added after the cell ended). */
  line(text: string, streamed = false): void {
    const last = this.segments[this.segments.length - 1];
    if (last?.kind === "text" && last.text !== "" && !last.text.endsWith("\n")) last.text += "\n";
    this.text(text.endsWith("\n") ? text : `${text}\n`, streamed);
  }

  private text(text: string, streamed: boolean): void {
    if (!text) return;
    if (this.afterBlock) {
      this.afterBlock = false;
      if (!text.startsWith("\n")) text = `\n${text}`;
    }
    const last = this.segments[this.segments.length - 1];
    if (last?.kind === "text" && last.streamed === streamed) last.text += text;
    else this.segments.push({ kind: "text", text, streamed });
  }

  get empty(): boolean {
    return this.segments.length === 0;
  }

  /** The result's parts, with the text cut to its head and tail when over the cap. */
  parts(): ContentPart[] {
    for (const s of ["stdout", "stderr"] as const) this.text(this.decoders[s].end(), true);
    if (this.droppedImages) this.line(`[${this.droppedImages} more image(s) not kept: a cell keeps at most ${LIMITS.evalMaxImages}]`);
    const total = this.segments.reduce((n, s) => n + (s.kind === "text" ? Buffer.byteLength(s.text) : 0), 0);
    const cap = LIMITS.evalResultTextBytes;
    let budgetHead = total > cap ? Math.floor(cap / 2) : Number.POSITIVE_INFINITY;
    let skip = total > cap ? total - cap : 0;
    const out: ContentPart[] = [];
    let marked = false;
    for (const s of this.segments) {
      if (s.kind === "part") {
        out.push(s.part);
        continue;
      }
      let text = s.text;
      if (skip > 0) {
        const buf = Buffer.from(text);
        const head = Math.min(buf.length, budgetHead);
        budgetHead -= head;
        const cut = Math.min(buf.length - head, skip);
        if (cut > 0) {
          skip -= cut;
          text = `${buf.subarray(0, head).toString("utf8")}${marked ? "" : `\n[… ${total - cap} bytes of output cut: the result keeps the first and last ${cap / 2048} KiB …]\n`}${buf.subarray(head + cut).toString("utf8")}`;
          marked = true;
        }
      }
      const prev = out[out.length - 1];
      if (prev?.type === "text" && (prev.streamed === true) === s.streamed) prev.text += text;
      else if (text) out.push(s.streamed ? { type: "text", text, streamed: true } : { type: "text", text });
    }
    // The transcript shows the cell's text, not the newline its last line ended with.
    const last = out.filter((p) => p.type === "text").at(-1);
    if (last?.type === "text") last.text = last.text.replace(/\n+$/, "");
    return out.filter((p) => p.type !== "text" || p.text !== "");
  }
}
