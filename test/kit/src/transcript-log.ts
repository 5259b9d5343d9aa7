// A scenario's answers gathered in order, one section per call under a header line naming the call,
// then compared whole as one recorded transcript (the sequence is what a user of the tool reads).
import { expectTranscript, type Mask } from "./transcript.js";

export class TranscriptLog {
  private readonly sections: string[] = [];

  /** Records `answer` under `call` and hands it back, so a test can still read values out of it. */
  add(call: string, answer: string): string {
    this.sections.push(`── ${call}\n${answer}`);
    return answer;
  }

  get text(): string {
    return `${this.sections.join("\n\n")}\n`;
  }

  /** Compares the gathered text with `file` (relative to the running test file), `extra` masks applied after the common ones. */
  async expect(file: string, extra: readonly Mask[] = []): Promise<void> {
    await expectTranscript(this.text, file, extra);
  }
}

/** A refusal as a transcript section's text: its code when it has one, then its message. */
function refusalText(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return `${typeof code === "string" ? `[${code}] ` : ""}${err instanceof Error ? err.message : String(err)}`;
}

/** What `fn` threw (code and message), for a transcript; fails when it throws nothing. */
export function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return refusalText(err);
  }
  throw new Error("expected a throw, and nothing was thrown");
}

/** What `p` rejected with (code and message), for a transcript; fails when it resolves. */
export async function rejected(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => {
      throw new Error("expected a rejection, and it resolved");
    },
    (err: unknown) => refusalText(err),
  );
}
