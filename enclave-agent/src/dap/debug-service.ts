// The Debug gRPC service: a thin shell over the supervisor.
import type { DebugServer } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { unary } from "../grpc/unary.js";
import type { DebugSupervisor } from "./debug-supervisor.js";

export function debugService(sup: DebugSupervisor): DebugServer {
  return {
    adapters: unary(async () => ({ adapters: await sup.adapters() })),
    status: unary((req) => sup.status(req.sessionKey)),
    setBreakpoints: unary((req) => sup.setBreakpoints(req.sessionKey, req.file, req.lines)),
    launch: unary((req) =>
      sup.launch(req.sessionKey, req.program, req.args, req.adapter, req.ttlMs, req.waitMs, req.stdin, req.exceptions, req.sourcePrefixes),
    ),
    attach: unary((req) => sup.attach(req.sessionKey, { port: req.port, pid: req.pid }, req.adapter, req.ttlMs, req.waitMs)),
    resume: unary((req) => sup.resume(req.sessionKey, req.kind, req.threadId, req.waitMs)),
    pause: unary((req) => sup.pause(req.sessionKey, req.threadId, req.waitMs)),
    threads: unary((req) => sup.threads(req.sessionKey)),
    stack: unary((req) => sup.stack(req.sessionKey, req.threadId, req.levels)),
    scopes: unary((req) => sup.scopes(req.sessionKey, req.frameId)),
    variables: unary((req) => sup.variables(req.sessionKey, req.reference)),
    evaluate: unary((req) => sup.evaluate(req.sessionKey, req.expression, req.frameId)),
    output: unary((req) => sup.output(req.sessionKey)),
    terminate: unary((req) => sup.terminate(req.sessionKey)),
  };
}
