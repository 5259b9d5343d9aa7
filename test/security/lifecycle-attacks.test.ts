// A hostile tenant against the lifecycle features (the idle policy, a tenant's pause, fork, the
// operator's hands), through the real API with token tenants and, where an enclosure is needed, the
// real engine: lifecycle values at the edges of int64 over the wire, widening past the maxima through
// a fork after an operator lowered them, a placement started while its tenant is paused, and the
// operator-only RPCs and the new per-conversation RPCs naming what is not the caller's.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { LABELS } from "@enclave/control-plane/model/labels.js";
import { setQuota } from "@enclave/control-plane/tenants/token-file.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { outcome } from "../helpers/call-outcome.js";
import { RawApi } from "../helpers/raw-rpc.js";
import { eventually, until } from "../helpers/wait.js";

const IDLE_MAX = 600;
let svc: TenantService<"acme" | "globex" | "ops">;

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    prefix: "enclave-lifecycle-attacks-",
    quotas: { acme: { maxIdleSeconds: IDLE_MAX, maxLifetimeSeconds: 3600 } },
    config: (c) => {
      c.lifecycle.sweepMs = 100;
    },
  });
});
afterAll(async () => svc?.close());

const client = (name: "acme" | "globex" | "ops"): ControlPlaneClient => svc.client(name);

/** Whether the engine runs the container now. */
function containerRunning(id: string): boolean {
  try {
    return execFileSync("docker", ["inspect", "--format", "{{.State.Running}}", id], { encoding: "utf8" }).trim() === "true";
  } catch {
    return false;
  }
}

/** Whether the engine has a container of the conversation (its start under way), from its labels. */
function startsUnderWay(conversationId: string): boolean {
  const out = execFileSync("docker", ["ps", "-aq", "--filter", `label=${LABELS.conversation}=${conversationId}`], { encoding: "utf8" });
  return out.trim() !== "";
}

describe("lifecycle values a tenant names", () => {
  it("at the edges of int64 over the wire are refused and change nothing", async () => {
    const c = client("acme");
    await c.createConversation("edges", "", { lifecycle: { idleTimeoutSeconds: 60 } });
    const raw = new RawApi(svc.server.address, svc.certs.ca, svc.tokens.acme);
    try {
      for (const v of [-1, IDLE_MAX + 1, Number.MAX_SAFE_INTEGER, 2 ** 62, -(2 ** 62), -(2 ** 53)]) {
        const set = await raw.call(
          "setConversationLifecycle",
          { conversationId: "edges", idleTimeoutSeconds: v, maxLifetimeSeconds: v },
          { deadlineMs: 10_000 },
        );
        expect(set.grpcCode, `idle ${v}`).not.toBe(0);
        const made = await raw.call(
          "createConversation",
          { id: `edge-${String(v).replace(/\W/g, "")}`, workspacePath: "", idleTimeoutSeconds: v, maxLifetimeSeconds: 0, egress: undefined },
          { deadlineMs: 10_000 },
        );
        expect(made.grpcCode, `create with idle ${v}`).not.toBe(0);
      }
    } finally {
      raw.close();
    }
    expect(await c.getConversation("edges")).toMatchObject({ idleTimeoutSeconds: 60 });
    expect((await c.listConversations()).map((x) => x.id).filter((id) => id.startsWith("edge-"))).toEqual([]);
  });

  it("are not widened past the tenant's maximum by a fork after an operator lowered it", async () => {
    const c = client("globex");
    await c.createConversation("wide-src", "", { lifecycle: { idleTimeoutSeconds: 3600, maxLifetimeSeconds: 7200 } });
    setQuota(svc.tokensFile, "globex", "maxIdleSeconds", 60);
    try {
      // The control plane reads the token file within a moment.
      await eventually(
        async () => (await outcome(c.createConversation("probe-61", "", { lifecycle: { idleTimeoutSeconds: 61 } }))).code === "invalid_arguments",
        "the lowered maximum in force",
      );
      const forked = await outcome(c.forkConversation("wide-src", "wide-fork"));
      if (forked.code === "ok") {
        // Forked: its values must be within the maximum as it is now.
        const fork = await c.getConversation("wide-fork");
        expect(fork.idleTimeoutSeconds, "the fork's idle timeout").toBeLessThanOrEqual(60);
      }
      expect(forked.code).toBe("invalid_arguments");
      expect(forked.message).toContain("maxIdleSeconds");
      expect((await outcome(c.getConversation("wide-fork"))).code).toBe("not_found");
      // Within the maximum the fork is made and keeps the source's values.
      await c.setConversationLifecycle("wide-src", { idleTimeoutSeconds: 60, maxLifetimeSeconds: 7200 });
      expect(await c.forkConversation("wide-src", "narrow-fork")).toMatchObject({ idleTimeoutSeconds: 60, maxLifetimeSeconds: 7200 });
    } finally {
      setQuota(svc.tokensFile, "globex", "maxIdleSeconds", 86_400);
    }
  });
});

describe("another tenant's conversations and calls through the new RPCs", () => {
  it("answer exactly as for a missing one, and the operator's hands are refused to a tenant before anything is looked up", async () => {
    const acme = client("acme");
    const globex = client("globex");
    await acme.createConversation("private");
    const named = async (id: string): Promise<string[]> => {
      const answers = [
        await outcome(globex.pauseEnclosure(id)),
        await outcome(globex.resumeEnclosure(id)),
        await outcome(globex.forkConversation(id, "stolen")),
        await outcome(globex.setConversationLifecycle(id, { idleTimeoutSeconds: 1 })),
        await outcome(globex.getConversation(id)),
      ];
      return answers.map((a) => `${a.code}: ${a.message.replaceAll(id, "ID")}`);
    };
    for (const id of ["acme.private", "private"]) expect(await named(id)).toEqual(await named(id === "private" ? "nothing-here" : "acme.nothing-here"));
    expect((await outcome(globex.getConversation("stolen"))).code).toBe("not_found");
    // A plain tenant gets permission_denied for every operator's hand, whatever it names.
    for (const p of [
      globex.listCallsInFlight(),
      globex.listCallsInFlight("acme.private"),
      globex.cancelCall("call-1"),
      globex.stopKernel("acme.private", { language: "python" }),
      globex.stopHostAgent("acme.private"),
      globex.pauseTenant("acme"),
      globex.resumeTenant("acme"),
    ]) {
      expect((await outcome(p)).code).toBe("permission_denied");
    }
  });
});

describe("racing operations on one conversation", () => {
  it("two starts of one conversation's enclosure at once leave one container, the one recorded", async () => {
    const globex = client("globex");
    await globex.createConversation("twice");
    const [a, b] = await Promise.all([
      outcome(globex.startEnclosure("twice", { runtime: "runc" })),
      outcome(globex.startEnclosure("twice", { runtime: "runc" })),
    ]);
    try {
      expect([a.code, b.code].sort()).toEqual(["already_exists", "ok"]);
      const recorded = svc.cp.getConversation("globex.twice").enclosure?.containerId;
      const containers = execFileSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `label=${LABELS.conversation}=globex.twice`], { encoding: "utf8" })
        .trim()
        .split("\n")
        .filter(Boolean);
      expect(containers).toEqual([recorded]);
    } finally {
      await svc.cp.stopEnclosure("globex.twice", { force: true }).catch(() => undefined);
      // Whatever a failing run left behind is not left running.
      for (const id of execFileSync("docker", ["ps", "-aq", "--filter", `label=${LABELS.conversation}=globex.twice`], { encoding: "utf8" })
        .trim()
        .split("\n")
        .filter(Boolean)) {
        execFileSync("docker", ["rm", "-f", id]);
      }
    }
  });
});

/** The promise's outcome, or "hung" when it does not settle within the bound. */
function within<T>(p: Promise<T>, ms: number): Promise<T | "hung"> {
  return Promise.race([p, new Promise<"hung">((r) => setTimeout(() => r("hung"), ms).unref())]);
}

describe("two sleeps of one conversation at once", () => {
  it("both answer (a runc pause falls back to a sleep), and the conversation is not stuck: an operator can still delete it", async () => {
    const globex = client("globex");
    await globex.createConversation("double-pause");
    await globex.startEnclosure("double-pause", { runtime: "runc" });
    const answers = await within(Promise.all([outcome(globex.pauseEnclosure("double-pause")), outcome(globex.pauseEnclosure("double-pause"))]), 60_000);
    expect(answers, "both pauses answered").not.toBe("hung");
    expect((await globex.getConversation("double-pause")).lifecycleState).toBe("sleeping");
    expect(await within(outcome(client("ops").deleteConversation("globex.double-pause")), 60_000)).toMatchObject({ code: "ok" });
  });
});

describe("delete racing a wake", () => {
  it("leaves no enclosure running for a conversation deleted while a call wakes it", async () => {
    const globex = client("globex");
    for (let round = 0; round < 4; round++) {
      const id = `wake-delete-${round}`;
      await globex.createConversation(id, "", { lifecycle: { idleTimeoutSeconds: 1 } });
      await globex.startEnclosure(id, { runtime: "runc" });
      const run = (await globex.openRun(id, { approvalPolicy: "never", resources: ["workspace"] })).id;
      await eventually(async () => (await globex.getConversation(id)).lifecycleState === "sleeping" || undefined, `${id} asleep`);
      // The delete first and the call that wakes it right behind, then the other way round.
      const del = (): Promise<unknown> => outcome(globex.deleteConversation(id));
      const call = (): Promise<unknown> => outcome(globex.callTool(run, "read", { path: "nothing.txt" }));
      await Promise.all(round % 2 === 0 ? [del(), call()] : [call(), del()]);
      await new Promise((r) => setTimeout(r, 3000));
      const left = execFileSync("docker", ["ps", "-aq", "--filter", `label=${LABELS.conversation}=globex.${id}`], { encoding: "utf8" }).trim();
      const record = (await outcome(globex.getConversation(id))).code;
      for (const c of left.split("\n").filter(Boolean)) execFileSync("docker", ["rm", "-f", c]);
      expect({ round, left, record }).toEqual({ round, left: "", record: "not_found" });
    }
  });
});

describe("a paused tenant", () => {
  it("keeps no enclosure running whose start was under way when the operator paused it", async () => {
    const acme = client("acme");
    const ops = client("ops");
    await acme.createConversation("starting");
    const ws = svc.cp.getConversation("acme.starting").workspacePath;
    expect(ws, "the conversation's workspace on this host").not.toBe("");
    // A dev container whose postCreateCommand waits holds the start open after its container exists,
    // so the pause lands inside the start however fast the engine is.
    writeFileSync(join(ws, ".devcontainer.json"), JSON.stringify({ image: imageTags().runtime, postCreateCommand: "sleep 5" }));
    let settled = false;
    const start = outcome(acme.startEnclosure("starting", { runtime: "runc", devcontainer: true })).finally(() => (settled = true));
    await until(() => startsUnderWay("acme.starting") || settled, "the enclosure's start under way", 60_000);
    expect(settled ? await start : undefined, "the start still under way when the tenant is paused").toBeUndefined();
    try {
      await ops.pauseTenant("acme", { reason: "the lifecycle attack test" });
      await start;
      const containerId = svc.cp.getConversation("acme.starting").enclosure?.containerId;
      // Whatever the start answered, nothing of the paused tenant runs a moment later.
      const asleep = await eventually(
        async () => {
          const conv = svc.cp.getConversation("acme.starting");
          return conv.enclosure?.state !== "running" && conv.enclosure?.state !== "starting" ? conv : undefined;
        },
        "the paused tenant's enclosure no longer running",
        15_000,
      );
      expect(asleep.lifecycle?.sleep?.reason).toBe("tenant_paused");
      // The sleep's stop is not a death: the death watch saw the container exit and left it alone.
      await new Promise((r) => setTimeout(r, 500));
      expect(svc.cp.auditHistory("acme.starting").filter((e) => e.kind === "enclosure_died")).toEqual([]);
      if (containerId) expect(containerRunning(containerId)).toBe(false);
      // Its calls are refused until an operator resumes it.
      expect((await outcome(acme.getConversation("starting"))).code).toBe("tenant_paused");
    } finally {
      await ops.resumeTenant("acme");
      await svc.cp.stopEnclosure("acme.starting").catch(() => undefined);
    }
  });
});
