// The Kernels service: one Eval stream per cell, opened by the control plane. The first message
// starts the cell; bridge replies and an interrupt may follow. Events flow back in order: the kernel
// the cell runs in, output and displays as they come, bridge calls, then done.
import type { ServerDuplexStream } from "@grpc/grpc-js";
import type { EvalEvent, EvalRequest, KernelsServer, StopKernelRequest } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { AgentError } from "../errors.js";
import { onCallerGone } from "@enclave/proto/caller-gone.js";
import { failStream, unary } from "../grpc/unary.js";
import { CellHandle, type KernelPool } from "./kernel-pool.js";
import { callTraceFor } from "../trace/call-trace.js";

export function kernelsService(pool: KernelPool): KernelsServer {
  return {
    listKernels: unary(async () => ({ kernels: pool.list() })),
    stopKernel: unary(async (req: StopKernelRequest) => {
      if (!req.kernelId) throw new AgentError("invalid_argument", "kernel_id is empty");
      return { info: await pool.stop(req.kernelId, req.reason || "was stopped") };
    }),
    eval(call: ServerDuplexStream<EvalRequest, EvalEvent>): void {
      const handle = new CellHandle();
      let started = false;
      let finished = false;
      // A traced call: one span for the cell's execution, returned in the call's trailers.
      const trace = callTraceFor(call.metadata);
      let cellSpan: ReturnType<NonNullable<typeof trace>["start"]> | undefined;
      const send = (event: EvalEvent["event"]): void => {
        if (!finished) call.write({ event });
      };
      const fail = (err: unknown): void => {
        if (finished) return;
        finished = true;
        cellSpan?.fail();
        cellSpan?.end();
        failStream(call, err, trace);
      };

      call.on("data", (req: EvalRequest) => {
        const msg = req.message;
        if (!msg) return;
        try {
          if (msg.$case === "start") {
            if (started) throw new AgentError("invalid_argument", "the cell has started already: one cell per stream");
            started = true;
            // The language and whether the kernel was reset: never the code.
            cellSpan = trace?.start("kernel.execute", { "kernel.language": msg.value.language.slice(0, 20), "kernel.reset": msg.value.reset });
            pool
              .eval(
                msg.value,
                {
                  kernel: (value) => send({ $case: "kernel", value }),
                  output: (stream, value) => send(stream === "stdout" ? { $case: "stdout", value } : { $case: "stderr", value }),
                  display: (value) => send({ $case: "display", value }),
                  bridgeCall: (value) => send({ $case: "bridgeCall", value }),
                },
                handle,
              )
              .then((done) => {
                send({ $case: "done", value: done });
                finished = true;
                cellSpan?.set("kernel.status", done.status.slice(0, 20));
                if (done.stateLost) cellSpan?.set("kernel.state_lost", true);
                if (done.status !== "ok") cellSpan?.fail();
                cellSpan?.end();
                call.end(trace?.trailers());
              }, fail);
          } else if (!started) {
            throw new AgentError("invalid_argument", "send start before anything else");
          } else if (msg.$case === "bridgeReply") {
            handle.reply(msg.value);
          } else if (msg.$case === "interrupt") {
            handle.interrupt("the caller interrupted the cell");
          }
        } catch (err) {
          fail(err);
        }
      });
      call.on("end", () => {
        if (!started) fail(new AgentError("invalid_argument", "the stream ended before a start message"));
      });
      // The caller went away: stop the cell (the kernel itself lives on).
      onCallerGone(
        call,
        () => finished,
        () => {
          handle.interrupt("the caller went away");
          finished = true;
        },
      );
    },
  };
}
