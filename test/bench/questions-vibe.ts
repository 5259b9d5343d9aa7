// Question port and vibe roster figures, each beside a peer measured in the same run:
//   ask_user round trip (call → card on the subscriber's stream → AnswerCard → result)
//       vs two plain unary gRPC round trips to the same server (GetConversation ×2)
//   a write gated by a permission card (answered allow) vs the same write under policy never
//   vibe_spawn + vibe_wait of a trivial worker command vs spawning the same command directly
import { spawn } from "node:child_process";
import type { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row, sample } from "./measure.js";

const WORKER_COMMAND = "cat > /dev/null; echo done";

function runDirect(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", WORKER_COMMAND], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.end("brief\n");
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}

export async function questionsVibeRows(): Promise<BenchRow[]> {
  const fx = await startFixture((c) => {
    c.vibe.commands = { fast: WORKER_COMMAND, good: WORKER_COMMAND };
  });
  try {
    await fx.client.createConversation("bq");
    // The answering human: answers every question card with free text, every permission card with allow.
    const human = fx.client.subscribeCards("bq", (e) => {
      if (e.event?.$case !== "opened") return;
      const card: Card = e.event.value;
      const answer = card.kind === "permission" ? { selected: ["allow"] } : { freeText: "ok" };
      void fx.client.answerCard("bq", card.number, answer);
    });
    await human.ready;
    const rows: BenchRow[] = [];

    const asker = await fx.client.openRun("bq", { approvalPolicy: "never", resources: ["questions"] });
    const ours = await sample(200, () => fx.client.callTool(asker.id, "ask_user", { question: "go?" }));
    const peer = await sample(200, async () => {
      await fx.client.getConversation("bq");
      await fx.client.getConversation("bq");
    });
    rows.push(row("ask_user answered round trip", ours, { name: "2 unary gRPC calls", samples: peer }));

    const gated = await fx.client.openRun("bq", { resources: ["workspace"], approvalPolicy: "write" });
    const open = await fx.client.openRun("bq", { approvalPolicy: "never", resources: ["workspace"] });
    const write = (runId: string) => () => fx.client.callTool(runId, "write", { path: "bench.txt", content: "x" });
    rows.push(
      row("write behind a permission card", await sample(100, write(gated.id)), {
        name: "same write, policy never",
        samples: await sample(100, write(open.id)),
      }),
    );

    const vibe = await fx.client.openRun("bq", { approvalPolicy: "never", resources: ["vibe"], vibeMode: true });
    const spawnWait = async (): Promise<void> => {
      const spawned = await fx.client.callTool(vibe.id, "vibe_spawn", { brief: "brief", label: "bench" });
      const id = /Started worker (w\d+)/.exec(spawned.parts[0]?.part?.$case === "text" ? spawned.parts[0].part.value : "")?.[1] ?? "";
      const waited = await fx.client.callTool(vibe.id, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
      if (waited.isError) throw new Error("vibe_wait failed");
    };
    rows.push(
      row("vibe_spawn + vibe_wait, trivial command", await sample(50, spawnWait), { name: "spawn the command directly", samples: await sample(50, runDirect) }),
    );
    human.cancel();
    return rows;
  } finally {
    await fx.close();
  }
}
