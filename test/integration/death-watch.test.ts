// The watch on enclosure deaths survives a broken Docker events stream: after the stream fails, the
// control plane subscribes again to the real engine, and a container killed from outside is still
// recorded dead (an enclosure_died audit event, with no call made) and reported on the next call.
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { until } from "../helpers/wait.js";

let fx: Fixture;
const docker = new Docker();

beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

const died = (conversationId: string): boolean => fx.cp.audit.history(conversationId).some((e) => e.kind === "enclosure_died");

describe("the Docker events stream failing", () => {
  it("is subscribed again, and a death after the failure is still reported", async () => {
    await fx.client.createConversation("death-watch");
    await fx.client.startEnclosure("death-watch");
    const run = (await fx.client.openRun("death-watch", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const watch = await until(() => fx.cp.placements.deathWatch, "the death watch to exist");
    await until(() => watch.subscribed >= 1, "the first subscription to the events stream");

    // Twice: the second failure comes after a successful re-subscription, so a watch that recovers
    // only once fails here too.
    for (let n = 1; n <= 2; n++) {
      watch.interrupt("connection reset by the test");
      await until(() => watch.subscribed >= n + 1, `re-subscription ${n} to the events stream`);
    }
    expect(died("death-watch")).toBe(false);

    const id = (await fx.client.getConversation("death-watch")).enclosure?.containerId ?? "";
    await docker.getContainer(id).kill();
    // No call is made: only the events stream can bring this.
    await until(() => died("death-watch"), "an enclosure_died event for the killed container");
    expect((await fx.client.getConversation("death-watch")).enclosure?.state).toBe("dead");
    const r = await fx.client.callTool(run, "exec", { command: "true" });
    expect(r.errorCode, resultText(r)).toBe("enclosure_dead");
  });

  it("delivers a death that happened while the stream was down", async () => {
    await fx.client.createConversation("death-gap");
    await fx.client.startEnclosure("death-gap");
    const watch = await until(() => fx.cp.placements.deathWatch, "the death watch to exist");
    const before = watch.subscribed;
    const id = (await fx.client.getConversation("death-gap")).enclosure?.containerId ?? "";
    // The kill is sent while the stream is down (the first retry waits a quarter second).
    watch.interrupt("connection reset by the test");
    await docker.getContainer(id).kill();
    await until(() => watch.subscribed > before, "re-subscription to the events stream");
    await until(() => died("death-gap"), "an enclosure_died event for the container killed during the gap");
  });
});
