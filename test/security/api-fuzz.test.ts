// Promise: nothing a tenant names through the API can take the service down, reach past it, or fail
// in a way a caller cannot branch on. Every RPC of the generated service definition (a new RPC without
// a fuzz entry here fails the table check) is called through the real gRPC server, over TLS with a
// plain tenant's token, with hostile values in every field: image references aimed at loopback ports,
// ids and paths that climb out or carry NUL, very long and odd unicode strings, deep and wide JSON
// arguments, numbers at and past every boundary. A fixed seed and bounded runs keep it repeatable.
// After every call: the control plane still runs, the answer is a success or a listed error code
// (never UNKNOWN, never a bare gRPC failure), and the canary listeners on 127.0.0.1 that the hostile
// references name have heard nothing — no dial from the control plane, dockerd or a build.
// The control plane runs as a child process, so a crash fails the call that caused it (and fast-check
// shrinks it to a small counterexample) instead of taking the test runner down with it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { status } from "@grpc/grpc-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { isEnclaveErrorCode } from "@enclave/control-plane/errors.js";
import { ownerId } from "@enclave/control-plane/placement/docker-driver.js";
import { RESOURCES } from "@enclave/control-plane/model/run.js";
import { addToken, setQuota } from "@enclave/control-plane/tenants/token-file.js";
import {
  AnswerCardRequest,
  type ContentPart,
  ControlPlaneService,
  EnclosureOptions,
  GetCardArgumentsRequest,
  type HarnessToolResult,
  OpenRunRequest,
  WorkerProgress,
  WorkerResult,
} from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { HostileInputs, WIDE_INT64 } from "../helpers/hostile-inputs.js";
import { type Answer, RawApi, type Rpc, type Sent } from "../helpers/raw-rpc.js";
import { makeTestCerts, type TestCerts } from "../helpers/tls-certs.js";

const exec = promisify(execFile);
const SEED = 20_291_204;
/** A call's gRPC deadline: a control plane that takes longer to answer has stalled (starts and tool calls get longer). */
const CALL_DEADLINE_MS = 5_000;
const SLOW_CALL_DEADLINE_MS = 20_000;
/** How long a stream that follows (audit, cards, hosts) is listened to before the caller leaves. */
const FOLLOW_MS = 150;
/** Real calls fast-check may make while shrinking one failure (each may restart a crashed control plane). */
const MAX_SHRINKS = 6;
/** Unanswered calls one property may make: each costs a whole deadline, and two are evidence enough. */
const MAX_STALLS = 2;

/** A call the control plane never answered within its deadline. */
class Stalled extends Error {}

let dir: string;
let dataDir: string;
let certs: TestCerts;
let env: NodeJS.ProcessEnv;
let proc: ControlPlaneProcess;
let api: RawApi;
const tokens = { fuzz: "", other: "" };
const canaries: Server[] = [];
const heard: { port: number; first: string }[] = [];
let closedPort = 0;
const crashes: string[] = [];
let calls = 0;
const codes = new Set<string>();
const fx = { plain: "", devImage: "", devDigest: "", devBuild: "", runAlways: "", runRead: "", otherConv: "", otherRun: "", tools: [] as string[] };
let hostile: HostileInputs;

function client(token: string): ControlPlaneClient {
  return new ControlPlaneClient(proc.address, { tls: { rootCerts: certs.ca }, token });
}

async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    const port = socket.localPort ?? 0;
    const entry = { port, first: "" };
    heard.push(entry);
    socket.once("data", (d: Buffer) => (entry.first = d.subarray(0, 80).toString("latin1")));
    socket.on("error", () => undefined);
    setTimeout(() => socket.destroy(), 100).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

function exited(p: ControlPlaneProcess): boolean {
  return p.child.exitCode !== null || p.child.signalCode !== null;
}

async function startServing(): Promise<void> {
  proc = await startControlPlaneProcess(dataDir, env, 60_000, undefined, "127.0.0.1:0");
  proc.client.close();
  api = new RawApi(proc.address, certs.ca, tokens.fuzz);
}

/** A control plane that died (a crash already recorded as a failure) is started again on the same data. */
async function ensureServing(): Promise<void> {
  if (!exited(proc)) return;
  api.close();
  await startServing();
}

const lastWords = (): string => proc.stderr().split("\n").filter(Boolean).slice(-14).join("\n");

/** Why an answer is not one a caller can branch on; undefined when it is. */
function unusable(a: Answer): string | undefined {
  for (const c of a.inner) {
    if (!isEnclaveErrorCode(c)) return `a result carries the unlisted code \`${c}\``;
    if (c === "failed") return "a result carries `failed`: an unexpected failure, not a refusal";
  }
  if (a.open || a.grpcCode === status.OK) return undefined;
  const name = status[a.grpcCode] ?? String(a.grpcCode);
  if (a.code === "") return `gRPC ${name} with no control-plane code: ${a.message.slice(0, 300)}`;
  if (!isEnclaveErrorCode(a.code)) return `the unlisted code \`${a.code}\` (gRPC ${name})`;
  if (a.grpcCode === status.UNKNOWN) return `gRPC UNKNOWN (\`${a.code}\`), an unexpected failure rather than a refusal: ${a.message.slice(0, 300)}`;
  return undefined;
}

/** One fuzz call and every check that follows it; throws what went wrong. */
async function fuzzCall<K extends Rpc>(rpc: K, sent: Sent<K>, entry: Pick<Entry<K>, "follow" | "slow" | "engine" | "undo">): Promise<void> {
  await ensureServing();
  const before = heard.length;
  const deadlineMs = entry.slow ? SLOW_CALL_DEADLINE_MS : CALL_DEADLINE_MS;
  const answer = await api.call(rpc, sent, { deadlineMs, ...(entry.follow ? { followMs: FOLLOW_MS } : {}) });
  calls++;
  for (const c of [answer.code, ...answer.inner]) if (c) codes.add(c);
  if (answer.grpcCode === status.OK && !answer.open && entry.undo) await entry.undo(sent);
  const dialed = heard.slice(before);
  // A crash can trail the answer that caused it (a dropped connection, a dial's failure): give it a moment.
  const dropped = answer.code === "" && [status.UNAVAILABLE, status.CANCELLED, status.DEADLINE_EXCEEDED].includes(answer.grpcCode);
  const settleMs = dropped || dialed.length > 0 ? 1_000 : entry.engine ? 200 : 0;
  if (settleMs > 0) await Promise.race([proc.exited, new Promise((r) => setTimeout(r, settleMs))]);
  // A call left unanswered can leave its connection unusable: the next call gets a connection of its own.
  if (answer.grpcCode === status.DEADLINE_EXCEEDED && answer.code === "" && !exited(proc)) {
    api.close();
    api = new RawApi(proc.address, certs.ca, tokens.fuzz);
  }
  const dials = dialed.length > 0 ? `${dialed.length} connection(s) reached the canaries ${JSON.stringify(dialed)}; ` : "";
  if (exited(proc)) {
    const why = `${rpc}: ${dials}the control plane exited (${proc.child.exitCode ?? proc.child.signalCode}); its last lines:\n${lastWords()}`;
    crashes.push(why);
    throw new Error(why);
  }
  if (dials) throw new Error(`${rpc}: ${dials}`);
  const bad = unusable(answer);
  if (bad) throw answer.grpcCode === status.DEADLINE_EXCEEDED && answer.code === "" ? new Stalled(`${rpc}: ${bad}`) : new Error(`${rpc}: ${bad}`);
}

/** Prints a request with long strings cut and non-finite numbers named, so a counterexample reads short. */
function compact<T>(sent: T): T {
  if (typeof sent !== "object" || sent === null) return sent;
  // A copy: a constant arbitrary hands out the same object every time.
  const value = (Array.isArray(sent) ? [...(sent as unknown[])] : { ...sent }) as T & object;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "string" && v.length > 120) return `${v.slice(0, 60)}…(${v.length} chars)`;
    if (typeof v === "number" && !Number.isFinite(v)) return `«${v}»`;
    if (Object.is(v, -0)) return "«-0»";
    if (v instanceof Uint8Array) return `«${v.length} bytes»`;
    return v;
  });
  Object.defineProperty(value, fc.toStringMethod, { value: () => text, enumerable: false });
  return value;
}

interface Entry<K extends Rpc> {
  runs: number;
  /** A stream that follows (stays open): listened to for FOLLOW_MS, then left. */
  follow?: boolean;
  /** May really start something (an enclosure, a host agent): the longer deadline. */
  slow?: boolean;
  /** Talks to the engine, whose failures can end the process a moment after the answer went out. */
  engine?: boolean;
  /** Undoes what a successful call made, so it neither piles up nor uses a quota later calls need. */
  undo?: (sent: Sent<K>) => Promise<void>;
  arb: (h: HostileInputs) => fc.Arbitrary<Sent<K>>;
}

const surface = (h: HostileInputs): fc.Arbitrary<string> => fc.oneof(fc.constantFrom("default", "plan", "readonly_subagent", ""), h.text);
const policy = (h: HostileInputs): fc.Arbitrary<string> => fc.oneof(fc.constantFrom("never", "write", "always", ""), h.text);
const everyConversation = (h: HostileInputs): fc.Arbitrary<string> => fc.oneof(fc.constant(""), h.conversationId);

function callToolRequest(h: HostileInputs) {
  return fc.record({ runId: h.runId, tool: h.toolName, argumentsJson: h.argumentsJson });
}

function contentPart(h: HostileInputs): fc.Arbitrary<ContentPart> {
  return fc.record({
    part: fc.oneof(
      fc.record({ $case: fc.constant("text" as const), value: h.text }),
      fc.record({
        $case: fc.constant("image" as const),
        value: fc.record({ mimeType: h.text, data: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) }),
      }),
      fc.record({ $case: fc.constant("rich" as const), value: fc.record({ mimeType: h.text, text: h.text }) }),
      fc.constant(undefined),
    ),
    repeatsStreamed: fc.boolean(),
  });
}

function harnessResult(h: HostileInputs): fc.Arbitrary<HarnessToolResult> {
  return fc.record({ callId: h.text, parts: fc.array(contentPart(h), { maxLength: 3 }), isError: fc.boolean(), errorMessage: h.text });
}

/** Enclosure options: mostly hardened ones with a hostile image (so the image is what gets looked at), else everything hostile. */
function enclosureOptions(h: HostileInputs) {
  const hardened = fc.record({
    image: h.image,
    workspaceMode: fc.constantFrom("", "bind", "copy"),
    memoryBytes: fc.constant(0),
    cpus: fc.constant(0),
    pidsLimit: fc.constant(0),
    user: fc.constant(""),
    networkMode: fc.constant(""),
    keepCapabilities: fc.constant([] as string[]),
    writableRoot: fc.constant(false),
    allowNewPrivileges: fc.constant(false),
    agentDelivery: fc.constant(""),
    diskLimitBytes: fc.constant(0),
    runtime: fc.constantFrom("", "runc", "runsc"),
    devcontainer: fc.constant(false),
  });
  const fromWorkspace = hardened.map((o) => ({ ...o, image: "", devcontainer: true }));
  const anything = fc.record({
    image: h.image,
    workspaceMode: fc.oneof(fc.constantFrom("", "bind", "copy"), h.text),
    memoryBytes: h.int64,
    cpus: h.double,
    pidsLimit: h.int64,
    user: fc.oneof(fc.constantFrom("", "1000:1000", "0:0", "root", "65534:65534", "1000:0", "-1:-1"), h.text),
    networkMode: fc.oneof(fc.constantFrom("", "none", "bridge", "host", "container:x"), h.text),
    keepCapabilities: h.texts,
    writableRoot: fc.boolean(),
    allowNewPrivileges: fc.boolean(),
    agentDelivery: fc.oneof(fc.constantFrom("", "mount", "baked"), h.text),
    diskLimitBytes: h.int64,
    runtime: fc.oneof(fc.constantFrom("", "runc", "runsc"), h.text),
    devcontainer: fc.boolean(),
  });
  return fc.oneof(
    { arbitrary: hardened, weight: 4 },
    { arbitrary: fromWorkspace, weight: 2 },
    { arbitrary: anything, weight: 3 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

const FUZZ: { [K in Rpc]: Entry<K> } = {
  createConversation: {
    runs: 30,
    arb: (h) =>
      fc.record({
        id: fc.oneof(h.text, fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/)),
        workspacePath: fc.oneof(fc.constant(""), h.path),
        idleTimeoutSeconds: h.int64,
        maxLifetimeSeconds: h.int64,
      }),
  },
  setConversationLifecycle: {
    runs: 20,
    arb: (h) => fc.record({ conversationId: h.conversationId, idleTimeoutSeconds: h.int64, maxLifetimeSeconds: h.int64 }),
  },
  // A plain tenant's token: every one is refused (permission_denied), whatever it names.
  pauseTenant: { runs: 10, arb: (h) => fc.record({ tenant: h.text, reason: h.text }) },
  resumeTenant: { runs: 10, arb: (h) => fc.record({ tenant: h.text }) },
  getConversation: { runs: 20, arb: (h) => fc.record({ conversationId: h.conversationId }) },
  listConversations: { runs: 25, arb: (h) => fc.record({ pageSize: fc.integer(), pageToken: fc.oneof(h.text, fc.base64String()) }) },
  deleteConversation: { runs: 25, arb: (h) => fc.record({ conversationId: h.notMyConversation }) },
  // Workspace only: a fork that starts an enclosure is StartEnclosure's hostile options again.
  forkConversation: {
    runs: 25,
    arb: (h) =>
      fc.record({
        sourceConversationId: h.conversationId,
        id: fc.oneof(h.text, fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/)),
        workspaceOnly: fc.constant(true),
      }),
  },
  startEnclosure: {
    runs: 90,
    slow: true,
    engine: true,
    // A start that really started (an image the engine has) is stopped at once: the tenant's one
    // enclosure slot stays free for the next hostile start to be looked at.
    undo: async (sent) => {
      await api.call("stopEnclosure", { conversationId: sent.conversationId, force: false }, { deadlineMs: SLOW_CALL_DEADLINE_MS });
    },
    arb: (h) =>
      fc.record({
        conversationId: fc.oneof(
          { arbitrary: fc.constantFrom(fx.plain, fx.devImage, fx.devDigest, fx.devBuild), weight: 5 },
          { arbitrary: h.conversationId, weight: 1 },
        ),
        options: enclosureOptions(h),
      }),
  },
  stopEnclosure: { runs: 15, arb: (h) => fc.record({ conversationId: h.conversationId, force: fc.constant(false) }) },
  pauseEnclosure: { runs: 15, arb: (h) => fc.record({ conversationId: h.conversationId }) },
  resumeEnclosure: { runs: 15, arb: (h) => fc.record({ conversationId: h.conversationId }) },
  setConversationEgress: {
    runs: 30,
    arb: (h) =>
      fc.record({
        conversationId: h.conversationId,
        egress: fc.record({
          allow: fc.array(
            fc.record({ host: h.text, cidr: fc.oneof(h.text, fc.constantFrom("10.0.0.0/8", "::/0", "1.2.3.4/99")), ports: fc.array(fc.nat({ max: 70_000 })) }),
            {
              maxLength: 80,
            },
          ),
        }),
      }),
  },
  openRun: {
    runs: 30,
    arb: (h) =>
      fc.record({
        conversationId: h.conversationId,
        surface: surface(h),
        resources: fc.array(fc.oneof(fc.constantFrom(...RESOURCES), h.text), { maxLength: 4 }),
        approvalPolicy: policy(h),
        targetSpace: everyConversation(h),
        vibeMode: fc.boolean(),
        questionTimeoutSeconds: h.int64,
        strictResolve: fc.boolean(),
      }),
  },
  closeRun: { runs: 20, arb: (h) => fc.record({ runId: h.notMyRun }) },
  // The operator's hands: a plain tenant is refused whatever it sends.
  listCallsInFlight: { runs: 10, arb: (h) => fc.record({ conversationId: everyConversation(h) }) },
  cancelCall: { runs: 15, arb: (h) => fc.record({ callId: fc.oneof(h.text, fc.stringMatching(/^[0-9]{1,20}$/)) }) },
  stopKernel: {
    runs: 15,
    arb: (h) => fc.record({ conversationId: h.conversationId, kernelId: h.text, language: fc.oneof(fc.constantFrom("", "python", "javascript"), h.text) }),
  },
  stopHostAgent: { runs: 10, arb: (h) => fc.record({ conversationId: h.conversationId }) },
  listTools: { runs: 15, arb: (h) => fc.record({ runId: h.runId }) },
  callTool: { runs: 90, slow: true, arb: (h) => callToolRequest(h) },
  callTools: {
    runs: 30,
    slow: true,
    arb: (h) =>
      fc.array(
        fc.oneof(
          { arbitrary: fc.record({ callId: h.uint32, frame: fc.record({ $case: fc.constant("call" as const), value: callToolRequest(h) }) }), weight: 4 },
          { arbitrary: fc.record({ callId: h.uint32, frame: fc.constant({ $case: "cancel" as const, value: {} }) }), weight: 1 },
          { arbitrary: fc.record({ callId: h.uint32, frame: fc.constant(undefined) }), weight: 1 },
        ),
        { minLength: 1, maxLength: 4 },
      ),
  },
  syncWrites: { runs: 20, slow: true, arb: (h) => fc.record({ runId: h.runId, paths: fc.array(h.path, { maxLength: 5 }), beforeWrite: fc.boolean() }) },
  describePlacement: { runs: 20, slow: true, arb: (h) => fc.record({ conversationId: h.conversationId }) },
  subscribeAudit: {
    runs: 20,
    follow: true,
    arb: (h) => fc.record({ conversationId: everyConversation(h), includeHistory: fc.boolean(), historyOnly: fc.boolean() }),
  },
  auditEnclosure: { runs: 20, slow: true, arb: (h) => fc.record({ conversationId: h.conversationId }) },
  subscribeCards: { runs: 15, follow: true, arb: (h) => fc.record({ conversationId: everyConversation(h) }) },
  answerCard: {
    runs: 20,
    arb: (h) =>
      fc.record({
        conversationId: h.conversationId,
        number: h.int64,
        answer: fc.option(fc.record({ selected: h.texts, freeText: h.text, skip: fc.boolean() }), { nil: undefined }),
      }),
  },
  listCards: { runs: 15, arb: (h) => fc.record({ conversationId: everyConversation(h), includeClosed: fc.boolean() }) },
  getCardArguments: { runs: 20, arb: (h) => fc.record({ conversationId: h.conversationId, number: h.int64, offset: h.int64, limit: h.int64 }) },
  setVibeMode: { runs: 15, arb: (h) => fc.record({ runId: h.runId, enabled: fc.boolean() }) },
  connectWorkerHost: {
    runs: 20,
    follow: true,
    arb: (h) => {
      const report = { conversationId: h.conversationId, workerId: h.text, attempt: h.int64 };
      return fc.array(
        fc.oneof(
          fc.record({
            message: fc.record({
              $case: fc.constant("hello" as const),
              value: fc.record({
                name: h.text,
                conversationIds: fc.array(h.conversationId, { maxLength: 3 }),
                tiers: fc.array(fc.oneof(fc.constantFrom("fast", "good"), h.text), { maxLength: 3 }),
              }),
            }),
          }),
          fc.record({ message: fc.record({ $case: fc.constant("progress" as const), value: fc.record({ ...report, text: h.text }) }) }),
          fc.record({
            message: fc.record({
              $case: fc.constant("result" as const),
              value: fc.record({ ...report, state: fc.oneof(fc.constantFrom("done", "failed"), h.text), result: h.text }),
            }),
          }),
          fc.constant({ message: undefined }),
        ),
        { minLength: 1, maxLength: 4 },
      );
    },
  },
  connectToolHost: {
    runs: 20,
    follow: true,
    arb: (h) =>
      fc.array(
        fc.oneof(
          fc.record({
            message: fc.record({
              $case: fc.constant("hello" as const),
              value: fc.record({
                runId: h.runId,
                tools: fc.array(
                  fc.record({
                    name: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/), h.toolName),
                    tier: fc.oneof(fc.constantFrom("read", "write", "exec", ""), h.text),
                    description: h.text,
                    inputSchemaJson: fc.oneof(fc.constant('{"type":"object"}'), h.argumentsJson),
                  }),
                  { maxLength: 3 },
                ),
                intercept: fc.boolean(),
              }),
            }),
          }),
          fc.record({ message: fc.record({ $case: fc.constant("result" as const), value: harnessResult(h) }) }),
          fc.record({
            message: fc.record({
              $case: fc.constant("decision" as const),
              value: fc.record({
                callId: h.text,
                verdict: fc.oneof(fc.constantFrom("allow", "deny", "answer"), h.text),
                reason: h.text,
                answer: fc.option(harnessResult(h), { nil: undefined }),
              }),
            }),
          }),
          fc.constant({ message: undefined }),
        ),
        { minLength: 1, maxLength: 4 },
      ),
  },
  attachCliRun: {
    runs: 20,
    arb: (h) => fc.record({ conversationId: h.conversationId, surface: surface(h), approvalPolicy: policy(h), vibeMode: fc.boolean(), newRun: fc.boolean() }),
  },
  listRuns: { runs: 15, arb: (h) => fc.record({ conversationId: everyConversation(h) }) },
};

interface WideField<K extends Rpc> {
  field: string;
  rpc: K;
  make: (v: number) => Sent<K>;
}
const wide = <K extends Rpc>(field: string, rpc: K, make: (v: number) => Sent<K>): WideField<Rpc> => ({ field, rpc, make }) as unknown as WideField<Rpc>;

/** Every int64 field of a request, set to a value past 2^53 (the fuzz tables keep to exact numbers). */
const WIDE: WideField<Rpc>[] = [
  wide("OpenRunRequest.question_timeout_seconds", "openRun", (v) =>
    OpenRunRequest.fromPartial({ conversationId: fx.plain, approvalPolicy: "never", questionTimeoutSeconds: v }),
  ),
  wide("EnclosureOptions.memory_bytes", "startEnclosure", (v) => ({
    conversationId: fx.plain,
    options: EnclosureOptions.fromPartial({ image: "x", memoryBytes: v }),
  })),
  wide("EnclosureOptions.pids_limit", "startEnclosure", (v) => ({
    conversationId: fx.plain,
    options: EnclosureOptions.fromPartial({ image: "x", pidsLimit: v }),
  })),
  wide("EnclosureOptions.disk_limit_bytes", "startEnclosure", (v) => ({
    conversationId: fx.plain,
    options: EnclosureOptions.fromPartial({ image: "x", workspaceMode: "copy", diskLimitBytes: v }),
  })),
  wide("AnswerCardRequest.number", "answerCard", (v) => AnswerCardRequest.fromPartial({ conversationId: fx.plain, number: v })),
  wide("GetCardArgumentsRequest.number", "getCardArguments", (v) => GetCardArgumentsRequest.fromPartial({ conversationId: fx.plain, number: v })),
  wide("GetCardArgumentsRequest.offset", "getCardArguments", (v) => GetCardArgumentsRequest.fromPartial({ conversationId: fx.plain, number: 1, offset: v })),
  wide("GetCardArgumentsRequest.limit", "getCardArguments", (v) => GetCardArgumentsRequest.fromPartial({ conversationId: fx.plain, number: 1, limit: v })),
  wide("WorkerProgress.attempt", "connectWorkerHost", (v) => [
    { message: { $case: "progress", value: WorkerProgress.fromPartial({ conversationId: fx.plain, workerId: "w", attempt: v }) } },
  ]),
  wide("WorkerResult.attempt", "connectWorkerHost", (v) => [
    { message: { $case: "result", value: WorkerResult.fromPartial({ conversationId: fx.plain, workerId: "w", attempt: v, state: "done" }) } },
  ]),
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-api-fuzz-"));
  dataDir = join(dir, "data");
  certs = makeTestCerts(dir);
  const tokensFile = join(dir, "tokens.json");
  tokens.fuzz = addToken(tokensFile, "fuzz").token;
  tokens.other = addToken(tokensFile, "other").token;
  // At most one enclosure of the fuzzing tenant runs at once, should a hostile start really start one.
  setQuota(tokensFile, "fuzz", "runningEnclosures", 1);
  for (let i = 0; i < 2; i++) {
    const c = await listen();
    canaries.push(c.server);
  }
  const closed = await listen();
  closedPort = (closed.server.address() as { port: number }).port;
  await new Promise((r) => closed.server.close(r));
  env = { ENCLAVE_TLS_CERT: certs.serverCertFile, ENCLAVE_TLS_KEY: certs.serverKeyFile, ENCLAVE_TOKENS_FILE: tokensFile, ENCLAVE_LOG_LEVEL: "warn" };
  await startServing();

  const ports = canaries.map((s) => (s.address() as { port: number }).port);
  const fuzz = client(tokens.fuzz);
  const other = client(tokens.other);
  try {
    fx.plain = (await fuzz.createConversation("plain")).id;
    fx.devImage = (await fuzz.createConversation("dev-image")).id;
    fx.devDigest = (await fuzz.createConversation("dev-digest")).id;
    fx.devBuild = (await fuzz.createConversation("dev-build")).id;
    // Dev-container files that name the canaries: the same hostile references, from a workspace file.
    const files: [string, string, string][] = [
      [fx.plain, "hello.txt", "hello\n"],
      [fx.devImage, ".devcontainer.json", JSON.stringify({ image: `x/../../127.0.0.1:${ports[0]}/y` })],
      [fx.devDigest, ".devcontainer/devcontainer.json", JSON.stringify({ image: `127.0.0.1:${ports[1]}/x@sha256:${"0123456789abcdef".repeat(4)}` })],
      [fx.devBuild, ".devcontainer/devcontainer.json", JSON.stringify({ build: { dockerfile: "Dockerfile" } })],
      [fx.devBuild, ".devcontainer/Dockerfile", `FROM 127.0.0.1:${ports[0]}/x:latest\nRUN true\n`],
    ];
    for (const [conv, path, content] of files) {
      const run = (await fuzz.openRun(conv, { approvalPolicy: "never", resources: ["workspace"] })).id;
      const w = await fuzz.callTool(run, "write", { path, content });
      expect(w.isError).toBe(false);
      await fuzz.closeRun(run);
    }
    // Nothing a run of approval `always` is asked runs (no approver is attached); a read-only run's read tools run for real.
    fx.runAlways = (await fuzz.openRun(fx.plain, { approvalPolicy: "always" })).id;
    fx.runRead = (await fuzz.openRun(fx.plain, { approvalPolicy: "write", resources: ["workspace", "ast"] })).id;
    fx.tools = (await fuzz.listTools(fx.runAlways)).tools.map((t) => t.name);
    fx.otherConv = (await other.createConversation("theirs")).id;
    fx.otherRun = (await other.openRun(fx.otherConv, { approvalPolicy: "never", resources: ["workspace"] })).id;
  } finally {
    fuzz.close();
    other.close();
  }
  hostile = new HostileInputs({
    canaryPorts: ports,
    closedPort,
    conversations: [fx.plain, fx.devImage, fx.devDigest, fx.devBuild],
    runs: [fx.runAlways, fx.runRead],
    foreignConversations: [fx.otherConv],
    foreignRuns: [fx.otherRun],
    toolNames: fx.tools,
  });
}, 120_000);

afterAll(async () => {
  console.log(`api-fuzz: ${calls} calls, ${codes.size} distinct error codes (${[...codes].sort().join(", ")})`);
  if (proc && !exited(proc)) {
    const fuzz = client(tokens.fuzz);
    try {
      for (const c of await fuzz.listConversations()) if (c.enclosure) await fuzz.stopEnclosure(c.id).catch(() => undefined);
    } catch {
      // Serving or not, the engine is cleaned below.
    }
    fuzz.close();
  }
  api?.close();
  if (proc) await stopControlPlaneProcess(proc, exited(proc) ? "SIGKILL" : "SIGTERM", 30_000).catch(() => stopControlPlaneProcess(proc, "SIGKILL"));
  // Whatever a hostile start made on the engine is this control plane's, by its owner label.
  if (dataDir) {
    const label = `label=org.enclave.owner=${ownerId(dataDir)}`;
    const ids = (await exec("docker", ["ps", "-aq", "--filter", label]).catch(() => ({ stdout: "" }))).stdout.split("\n").filter(Boolean);
    if (ids.length) await exec("docker", ["rm", "-f", ...ids]).catch(() => undefined);
    const vols = (await exec("docker", ["volume", "ls", "-q", "--filter", label]).catch(() => ({ stdout: "" }))).stdout.split("\n").filter(Boolean);
    if (vols.length) await exec("docker", ["volume", "rm", "-f", ...vols]).catch(() => undefined);
  }
  for (const s of canaries) s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe("the public API under hostile input from a plain tenant", () => {
  it("has a fuzz entry for every RPC of the service definition", () => {
    expect(Object.keys(FUZZ).sort()).toEqual(Object.keys(ControlPlaneService).sort());
  });

  const rpcs = Object.keys(FUZZ).sort() as Rpc[];
  for (const [i, rpc] of rpcs.entries()) {
    it(`${rpc}: serves on, answers a listed code, dials nothing`, async () => {
      const entry = FUZZ[rpc] as Entry<Rpc>;
      const arb = fc.limitShrink(entry.arb(hostile), MAX_SHRINKS).map(compact);
      let stalls = 0;
      const property = fc.asyncProperty(arb, async (sent) => {
        // Past the stall budget the property has failed already: shrinking stops rather than wait out more deadlines.
        if (stalls >= MAX_STALLS) return;
        await fuzzCall(rpc, sent, entry).catch((err: unknown) => {
          if (err instanceof Stalled) stalls++;
          throw err;
        });
      });
      await fc.assert(property, { seed: SEED + i, numRuns: entry.runs });
    }, 300_000);
  }

  it("every int64 field past 2^53 is refused with a listed code, like any other bad value", async () => {
    const bad: string[] = [];
    for (const { field, rpc, make } of WIDE) {
      for (const v of WIDE_INT64) {
        await fuzzCall(rpc, make(v), { follow: true }).catch((err: Error) => bad.push(`${field} = ${String(v)}: ${err.message.split("\n")[0]}`));
      }
    }
    expect(bad).toEqual([]);
  }, 120_000);

  it("after every call: no crash, no dial, still serving every tenant, the other tenant's records intact", async () => {
    await ensureServing();
    expect(crashes).toEqual([]);
    expect(heard).toEqual([]);
    const fuzz = client(tokens.fuzz);
    const other = client(tokens.other);
    try {
      const read = await fuzz.callTool(fx.runRead, "read", { path: "hello.txt" });
      expect(read.isError).toBe(false);
      expect((await other.getConversation(fx.otherConv)).tenant).toBe("other");
      expect((await other.listRuns(fx.otherConv)).map((r) => r.id)).toContain(fx.otherRun);
    } finally {
      fuzz.close();
      other.close();
    }
  });
});
