// enclave images build: the enclosure images, built where missing or stale.
import { fail, type CommandContext } from "../context.js";
import { HELP } from "../help.js";
import { say } from "../terminal-text.js";

export async function imagesCommand({ sub, opts }: Pick<CommandContext, "sub" | "opts">): Promise<void> {
  if (sub !== "build") fail(HELP.images ?? "");
  const { connectDocker } = await import("../../placement/docker-connection.js");
  const { ensureImages } = await import("../../../../images/pipeline/image-set.js");
  const { consoleProgress } = await import("../../../../images/pipeline/progress.js");
  const r = await ensureImages(await connectDocker(), { agent: opts.agent ?? false, progress: consoleProgress() });
  say(r.built.length ? `built ${r.built.join(", ")}` : `up to date: ${[r.base, r.runtime, r.agent].filter(Boolean).join(", ")}`);
}
