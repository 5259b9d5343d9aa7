// Operator console figure, beside its peer measured in the same run:
//   ask_user answered through the console (card pushed on the page's event stream → answer POSTed
//   with the session's CSRF token → tool result) vs the same round trip through gRPC
//   (SubscribeCards → AnswerCard).
import { request } from "node:http";
import type { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { serveConsole } from "@enclave/control-plane/console/console-server.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row, sample } from "./measure.js";

interface Page {
  cookie: string;
  csrf: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ body: string; setCookie: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ body: Buffer.concat(chunks).toString("utf8"), setCookie: (res.headers["set-cookie"]?.[0] ?? "").split(";")[0] ?? "" }));
    });
    req.on("error", reject);
    req.end();
  });
}

function post(port: number, path: string, page: Page, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: {
          Host: `127.0.0.1:${port}`,
          Origin: `http://127.0.0.1:${port}`,
          Cookie: page.cookie,
          "X-CSRF-Token": page.csrf,
          Accept: "application/json",
          "Content-Type": "application/x-www-form-urlencoded",
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A console page as a browser holds it: a session, and its event stream answering every card of one conversation. */
async function consoleAnswerer(port: number, space: string): Promise<() => void> {
  const first = await get(port, "/");
  const page: Page = { cookie: first.setCookie, csrf: /name="csrf-token" content="([^"]+)"/.exec(first.body)?.[1] ?? "" };
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/events", headers: { Host: `127.0.0.1:${port}`, Cookie: page.cookie } }, (res) => {
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith("event: cards")) resolve(() => req.destroy());
          if (!block.startsWith("event: card-opened")) continue;
          const data = JSON.parse(block.slice(block.indexOf("data: ") + 6)) as { space: string; number: number };
          if (data.space === space) void post(port, `/cards/${space}/${data.number}/answer`, page, "free_text=ok&send=1");
        }
      });
    });
    req.on("error", reject);
    req.end();
  });
}

export async function consoleRows(): Promise<BenchRow[]> {
  const fx = await startFixture();
  const web = await serveConsole(fx.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false });
  try {
    await fx.client.createConversation("bench-web");
    await fx.client.createConversation("bench-grpc");
    const stopConsole = await consoleAnswerer(web.port, "bench-web");
    const human = fx.client.subscribeCards("bench-grpc", (e) => {
      if (e.event?.$case !== "opened") return;
      const card: Card = e.event.value;
      void fx.client.answerCard("bench-grpc", card.number, { freeText: "ok" });
    });
    await human.ready;
    const viaWeb = await fx.client.openRun("bench-web", { approvalPolicy: "never", resources: ["questions"], questionTimeoutSeconds: 60 });
    const viaGrpc = await fx.client.openRun("bench-grpc", { approvalPolicy: "never", resources: ["questions"], questionTimeoutSeconds: 60 });
    const ask = (runId: string) => async () => {
      const r = await fx.client.callTool(runId, "ask_user", { question: "go?" });
      if (r.isError) throw new Error("ask_user failed");
    };
    const ours = await sample(200, ask(viaWeb.id));
    const peer = await sample(200, ask(viaGrpc.id));
    stopConsole();
    human.cancel();
    return [row("ask_user answered in the console (SSE + POST)", ours, { name: "answered over gRPC (SubscribeCards + AnswerCard)", samples: peer })];
  } finally {
    await web.close();
    await fx.close();
  }
}
