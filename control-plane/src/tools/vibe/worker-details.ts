// The vibe tools' details: a worker as data, as vibe_list and vibe_wait describe it.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { elapsedMs, VIBE_TIERS, type Worker } from "../../vibe/worker.js";

export const WORKER_DETAILS = z.object({
  worker_id: z.string().describe("what vibe_wait, vibe_send and vibe_kill take"),
  label: z.string(),
  tier: z.enum(VIBE_TIERS),
  state: z.enum(["running", "done", "failed", "killed"]),
  attempt: z.number().int().describe("1, then one more for each vibe_send"),
  host: z.string().describe("the worker host running it"),
  elapsed_ms: z.number().int().describe("the current attempt's running time, to when it settled"),
  result: z
    .string()
    .nullable()
    .describe(`the last settled attempt's result (its last ${LIMITS.vibeResultChars} characters); null before any attempt settled with one`),
  detail: z.string().describe("why it failed or was killed, in a few words; empty otherwise"),
});
export type WorkerDetails = z.infer<typeof WORKER_DETAILS>;

export function workerDetails(w: Worker): WorkerDetails {
  return {
    worker_id: w.id,
    label: w.label,
    tier: w.tier,
    state: w.state,
    attempt: w.attempt,
    host: w.host.name,
    elapsed_ms: elapsedMs(w),
    result: w.result || null,
    detail: w.detail,
  };
}
