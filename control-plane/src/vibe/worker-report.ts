// How workers read to the agent: one line per worker in vibe_list, a full report from vibe_wait.
import { elapsedMs, formatDuration, type Worker } from "./worker.js";
import { clipLine } from "../text/wording.js";

export function workerLine(w: Worker): string {
  const last =
    w.state === "running" ? (w.result ? ` · previous result: ${clipLine(w.result, 160)}` : "") : w.result ? ` · result: ${clipLine(w.result, 160)}` : "";
  return `${w.id}  ${w.tier}  ${w.state}  ${formatDuration(elapsedMs(w))}  "${w.label}"  (attempt ${w.attempt}, host ${w.host.name})${last}`;
}

export function workerReport(w: Worker): string {
  const head = `${w.id} "${w.label}" (${w.tier}, attempt ${w.attempt})`;
  const took = formatDuration(elapsedMs(w));
  switch (w.state) {
    case "done":
      return `${head} is done after ${took}.\nResult:\n${w.result || "(no output)"}`;
    case "failed":
      return `${head} failed after ${took}.\nResult:\n${w.result || "(no output)"}`;
    case "killed":
      return `${head} was killed after ${took}.${w.result ? `\nLast result before it was killed:\n${w.result}` : ""}`;
    case "running":
      return `${head} is still running (${took} so far).${w.outputTail ? `\nRecent output:\n${w.outputTail.trimEnd()}` : ""}`;
  }
}
