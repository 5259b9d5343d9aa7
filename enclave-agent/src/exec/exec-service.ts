// The Process service: one command per stream, in its own process group so a timeout, a signal or a
// cancelled call reaches everything it started. Output is streamed as it comes, up to a cap.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants } from "node:os";
import type { ServerDuplexStream } from "@grpc/grpc-js";
import type { ExecEvent, ExecRequest, ExecStart, ProcessServer } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { onCallerGone } from "@enclave/proto/caller-gone.js";
import { failStream } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { killPids, killProcessTree, markedProcesses, signalGroup, signalTree } from "../process/process-tree.js";
import { callTraceFor } from "../trace/call-trace.js";

/** The environment variable that marks every process a command started. */
const EXEC_MARK = "ENCLAVE_EXEC_ID";

function checkStart(start: ExecStart): string[] {
  if (start.argv.length > 0 && start.shellCommand) throw new AgentError("invalid_argument", "give either argv or shell_command, not both");
  if (start.argv.length > 0) return start.argv;
  if (start.shellCommand) return ["/bin/sh", "-c", start.shellCommand];
  throw new AgentError("invalid_argument", "nothing to run: give argv or shell_command");
}

export function processService(paths: WorkspacePaths): ProcessServer {
  return {
    exec(call: ServerDuplexStream<ExecRequest, ExecEvent>): void {
      let child: ChildProcess | undefined;
      let finished = false;
      // A traced call: one span for the command's run, returned in the call's trailers.
      const trace = callTraceFor(call.metadata);
      let runSpan: ReturnType<NonNullable<typeof trace>["start"]> | undefined;
      const fail = (err: unknown): void => {
        if (finished) return;
        finished = true;
        runSpan?.fail();
        runSpan?.end();
        failStream(call, err, trace);
      };
      const send = (event: ExecEvent): void => {
        if (!finished) call.write(event);
      };

      const begin = (start: ExecStart): void => {
        const argv = checkStart(start);
        // Never the command line or its environment: they are the caller's (and may hold secrets).
        runSpan = trace?.start("process.run", { "process.shell": start.argv.length === 0 });
        const cwd = paths.resolve(start.cwd, "list").abs;
        const timeoutMs = Math.min(start.timeoutMs > 0 ? start.timeoutMs : LIMITS.execDefaultTimeoutMs, LIMITS.execMaxTimeoutMs);
        const startedAt = Date.now();
        const mark = randomUUID();
        const proc = spawn(argv[0] ?? "", argv.slice(1), {
          cwd,
          // The mark finds what the command started even after it left the command's process group.
          env: { ...process.env, ...start.env, [EXEC_MARK]: mark },
          detached: true,
          stdio: ["pipe", "pipe", "pipe"],
        });
        child = proc;
        let outputBytes = 0;
        let truncated = false;
        let timedOut = false;
        const forward = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
          if (outputBytes >= LIMITS.execOutputCapBytes) {
            truncated = true;
            return;
          }
          const room = LIMITS.execOutputCapBytes - outputBytes;
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          if (part.length < chunk.length) truncated = true;
          outputBytes += part.length;
          send({ event: stream === "stdout" ? { $case: "stdout", value: part } : { $case: "stderr", value: part } });
        };
        proc.stdout?.on("data", forward("stdout"));
        proc.stderr?.on("data", forward("stderr"));
        proc.stdin?.on("error", () => undefined); // a command that exits without reading stdin
        const timer = setTimeout(() => {
          timedOut = true;
          const asked = signalTree(proc.pid, "SIGTERM");
          setTimeout(() => {
            killProcessTree(proc.pid, asked);
            killPids(markedProcesses(EXEC_MARK, mark, { holdingOutput: true }));
          }, LIMITS.execKillGraceMs).unref();
        }, timeoutMs);
        let closed = false;
        proc.on("spawn", () => send({ event: { $case: "started", value: { pid: proc.pid ?? 0 } } }));
        proc.on("exit", () => {
          // The command is done: what it left running in its group goes, after a grace long enough for
          // a `setsid -f` child detaching on purpose to leave the group on a loaded machine.
          setTimeout(() => signalGroup(proc.pid, "SIGKILL"), LIMITS.execGroupKillAfterExitMs).unref();
          // Output still open a moment later keeps the call open: its holders go now, in the group
          // or out of it (found by their mark).
          setTimeout(() => {
            if (closed) return;
            signalGroup(proc.pid, "SIGKILL");
            killPids(markedProcesses(EXEC_MARK, mark, { holdingOutput: true }));
            // Still open (a holder we could not see or kill): stop reading, so the call ends.
            setTimeout(() => {
              if (closed) return;
              proc.stdout?.destroy();
              proc.stderr?.destroy();
            }, LIMITS.execDrainAfterExitMs).unref();
          }, LIMITS.execDrainAfterExitMs).unref();
        });
        proc.on("error", (err: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          if (err.code === "ENOENT") fail(new AgentError("not_found", `command \`${argv[0]}\` was not found (PATH=${process.env.PATH ?? ""})`));
          else if (err.code === "EACCES") fail(new AgentError("failed_precondition", `command \`${argv[0]}\` is not executable`));
          else fail(err);
        });
        proc.on("close", (code, signal) => {
          closed = true;
          clearTimeout(timer);
          runSpan?.set("process.exit_code", code ?? -1);
          if (signal) runSpan?.set("process.signal", signal);
          if (timedOut) runSpan?.set("process.timed_out", true);
          if (truncated) runSpan?.set("process.output_truncated", true);
          if (code !== 0) runSpan?.fail();
          runSpan?.end();
          send({
            event: {
              $case: "exit",
              value: {
                code: code ?? -1,
                signal: signal ?? "",
                timedOut,
                durationMs: Date.now() - startedAt,
                outputTruncated: truncated,
              },
            },
          });
          if (!finished) {
            finished = true;
            call.end(trace?.trailers());
          }
        });
      };

      call.on("data", (req: ExecRequest) => {
        try {
          const msg = req.message;
          if (!msg) return;
          if (msg.$case === "start") {
            if (child) throw new AgentError("invalid_argument", "the command has started already");
            begin(msg.value);
            return;
          }
          if (!child) throw new AgentError("invalid_argument", "send start before anything else");
          if (msg.$case === "stdin") child.stdin?.write(msg.value);
          else if (msg.$case === "closeStdin") child.stdin?.end();
          else if (msg.$case === "signal") {
            const name = msg.value.toUpperCase();
            if (!(name in constants.signals)) throw new AgentError("invalid_argument", `unknown signal \`${msg.value}\``);
            signalGroup(child.pid, name as NodeJS.Signals);
          }
        } catch (err) {
          killProcessTree(child?.pid);
          fail(err);
        }
      });
      call.on("end", () => {
        if (!child) fail(new AgentError("invalid_argument", "the stream ended before a start message"));
      });
      // The caller went away: nothing should outlive the call.
      onCallerGone(
        call,
        () => finished,
        () => {
          finished = true;
          killProcessTree(child?.pid);
        },
      );
    },
  };
}
