// exec (tier exec): the harness's generic shell tool, run by the agent where the conversation's
// code is (its enclosure, or the host). Output streams as it comes; the result keeps head and tail.
import type { ExecEvent } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import { type ServiceError, status as grpcStatus } from "@grpc/grpc-js";
import { z } from "zod";
import { AgentOutputBudget } from "../../agent-client/output-budget.js";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import { clipMiddleBytes } from "../../text/wording.js";

export const execTool = defineTool({
  name: "exec",
  tier: "exec",
  resource: "shell",
  description: "Run a shell command (sh -c) in the workspace, where the conversation's code runs. Returns its output and exit status.",
  parallelSafe: false,
  args: z.strictObject({
    command: z.string().min(1).describe("the command line, run by /bin/sh -c"),
    cwd: z.string().optional().describe("working folder relative to the workspace root"),
    timeout_seconds: z.number().int().min(1).max(LIMITS.execMaxTimeoutSeconds).optional(),
    stdin: z.string().optional().describe("text given to the command on standard input"),
    env: z.record(z.string(), z.string()).optional().describe("extra environment variables"),
  }),
  details: z.object({
    exit_code: z.number().int().nullable().describe("the command's exit status; null when a signal or the timeout ended it"),
    signal: z.string().nullable().describe("the signal that killed it (SIGKILL…), or null"),
    timed_out: z.boolean().describe("the command ran past timeout_seconds and was killed"),
    duration_ms: z.number().int(),
    stdout: z.string().describe("standard output as UTF-8, clipped to head and tail when long"),
    stderr: z.string().describe("standard error as UTF-8, clipped to head and tail when long"),
    stdout_clipped: z.boolean(),
    stderr_clipped: z.boolean(),
    output_truncated: z.boolean().describe("output beyond the agent's cap was dropped before it reached the control plane"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const timeoutSeconds = args.timeout_seconds ?? LIMITS.execDefaultTimeoutSeconds;
    const call = client.exec((timeoutSeconds + 30) * 1000);
    const onAbort = (): void => call.cancel();
    ctx.signal.addEventListener("abort", onAbort);
    const output: Buffer[] = [];
    const streams: Record<"stdout" | "stderr", Buffer[]> = { stdout: [], stderr: [] };
    try {
      const exit = await new Promise<Extract<ExecEvent["event"], { $case: "exit" }>["value"]>((resolve, reject) => {
        let result: Extract<ExecEvent["event"], { $case: "exit" }>["value"] | undefined;
        const budget = new AgentOutputBudget("command");
        let stopped = false;
        call.on("data", (ev: ExecEvent) => {
          const e = ev.event;
          if (stopped) return;
          if (e?.$case === "stdout" || e?.$case === "stderr") {
            try {
              budget.take(e.value.length);
            } catch (err) {
              stopped = true;
              call.cancel();
              reject(err as EnclaveError);
              return;
            }
            output.push(e.value);
            streams[e.$case].push(e.value);
            ctx.emit({ kind: "output", stream: e.$case, data: e.value });
          } else if (e?.$case === "exit") result = e.value;
        });
        call.on("error", (err: ServiceError) =>
          // Cancelled by this side (the caller aborted or left): the agent stopped the command, it was not lost.
          reject(
            err.code === grpcStatus.CANCELLED && ctx.signal.aborted
              ? new EnclaveError("cancelled", "the command was cancelled by its caller and stopped")
              : client.translate(err),
          ),
        );
        call.on("end", () => (result ? resolve(result) : reject(new EnclaveError("agent_lost", "the command's stream ended without an exit status"))));
        call.write({
          message: {
            $case: "start",
            value: { argv: [], shellCommand: args.command, cwd: args.cwd ?? "", env: args.env ?? {}, timeoutMs: timeoutSeconds * 1000 },
          },
        });
        if (args.stdin !== undefined) call.write({ message: { $case: "stdin", value: Buffer.from(args.stdin, "utf8") } });
        call.write({ message: { $case: "closeStdin", value: true } });
      });
      const status = exit.timedOut ? `timed out after ${timeoutSeconds} s and was killed` : exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
      // The output (clipped to head and tail) is one part and how the command ended another, so a
      // viewer that watched the output stream shows only the ending.
      const clipped = clipMiddleBytes(Buffer.concat(output), LIMITS.execResultBytes);
      const body = clipped && !clipped.endsWith("\n") ? `${clipped}\n` : clipped;
      const notes = exit.outputTruncated ? "[output beyond the agent's cap was dropped]\n" : "";
      const ending = { type: "text" as const, text: `${notes}[${status}, ${exit.durationMs} ms]` };
      const stdout = Buffer.concat(streams.stdout);
      const stderr = Buffer.concat(streams.stderr);
      const stdoutText = clipMiddleBytes(stdout, LIMITS.execResultBytes);
      const stderrText = clipMiddleBytes(stderr, LIMITS.execResultBytes);
      return {
        parts: body ? [{ type: "text", text: body, streamed: true }, ending] : [ending],
        // How the command ended is what an auditor asks after; its output never goes into the log.
        audit: { detail: status },
        details: {
          exit_code: exit.timedOut || exit.signal ? null : exit.code,
          signal: exit.signal || null,
          timed_out: exit.timedOut,
          duration_ms: Number(exit.durationMs),
          stdout: stdoutText,
          stderr: stderrText,
          stdout_clipped: stdout.length > LIMITS.execResultBytes,
          stderr_clipped: stderr.length > LIMITS.execResultBytes,
          output_truncated: exit.outputTruncated,
        },
      };
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
      call.end();
    }
  },
});
