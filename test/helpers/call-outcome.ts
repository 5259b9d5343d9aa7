// How an API call ended, in a form tests compare across tenants: a refusal's status, code and message
// (with an id written as <ID>, so another tenant's id and a missing one read the same), or "ok".
import { status } from "@grpc/grpc-js";
import { ControlPlaneCallError } from "@enclave/client/control-plane-client.js";

export interface Outcome {
  grpcCode: number;
  code: string;
  message: string;
}

/** How a call ended: "ok", or its status, code and message with `id` written as <ID>. */
export async function outcome(p: Promise<unknown>, id = ""): Promise<Outcome> {
  try {
    await p;
    return { grpcCode: status.OK, code: "ok", message: "" };
  } catch (err) {
    if (!(err instanceof ControlPlaneCallError)) throw err;
    return { grpcCode: err.grpcCode, code: err.code ?? "", message: id ? err.message.split(id).join("<ID>") : err.message };
  }
}
