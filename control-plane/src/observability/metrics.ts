// What an operator's Prometheus scrapes (prom-client, on the control plane's own registry). Counters
// move from the audit log's feed, the one place every tool call (model or bridge) and every agent
// restart is recorded; gauges are read at scrape time from the control plane's own state. Docker
// errors are counted where every engine request passes (docker-errors.ts).
// Label values are bounded: a tool is a registered tool's name or "other" (a harness's own tools,
// a name that matched nothing), an outcome is "ok" or one of Enclave's error codes (else
// "other_error"); no conversation id, run id, argument or message is ever a label value.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { AuditEvent } from "../audit/audit-log.js";
import type { CallFeedEvent } from "../tools/call-feed.js";
import { isEnclaveErrorCode } from "../errors.js";
import { PLACEMENT_LABELS, type TenantUsage } from "../usage/tenant-usage.js";

/** What the gauges read when scraped. */
export interface MetricsSources {
  isEnclaveTool(name: string): boolean;
  /** Enclosure records by state (starting, running, paused, dead). */
  enclosureStates(): string[];
  /** Conversations by lifecycle state (active, sleeping). */
  lifecycleStates(): string[];
  openCards(): number;
  /** Kernels and running language servers in the agents that run now (asks only running agents). */
  agentResources(): Promise<{ kernels: number; languageServers: number }>;
  /** Conversations' CPU, memory and disk summed per tenant (bounded tenant labels: usage/tenant-usage.ts). */
  tenantUsage(): Promise<TenantUsage[]>;
}

export const ORIGINS = ["model", "bridge"] as const;
export const ENCLOSURE_STATES = ["starting", "running", "paused", "dead"] as const;
export const LIFECYCLE_STATES = ["active", "sleeping"] as const;
const OTHER_TOOL = "other";
/** How old the kernel and language server counts may be. */
const RESOURCES_MAX_AGE_MS = 5000;
/** How old the per-tenant usage may be: each read visits every running placement's cgroup. */
const USAGE_MAX_AGE_MS = 10_000;

/** Seconds: most calls take milliseconds, a cell or a test run may take minutes. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** "ok" or the error code of an audited outcome ("error:CODE", "refused:CODE"), bounded to Enclave's codes. */
export function outcomeLabel(outcome: string): string {
  if (outcome === "ok") return "ok";
  const code = outcome.slice(outcome.indexOf(":") + 1);
  return isEnclaveErrorCode(code) ? code : "other_error";
}

function placementLabel(where: string): string {
  return where.startsWith("enclosure") ? "enclosure" : where === "" ? "unknown" : "host";
}

export class EnclaveMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<"tool" | "origin" | "outcome">;
  private readonly duration: Histogram<"tool">;
  private readonly bridgeCalls: Counter<"outcome">;
  private readonly agentRestarts: Counter<"placement">;
  private readonly dockerErrors: Counter<"resource" | "status">;
  private readonly inFlight: Gauge<"tool">;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: "enclave_tool_calls_total",
      help: "Tool calls finished, by tool, origin (model: the harness for its model; bridge: a kernel cell's tool()) and outcome (ok or the error code).",
      labelNames: ["tool", "origin", "outcome"],
      registers,
    });
    this.duration = new Histogram({
      name: "enclave_tool_call_duration_seconds",
      help: "How long tool calls took, from the dispatcher's start to the result, by tool.",
      labelNames: ["tool"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.bridgeCalls = new Counter({
      name: "enclave_bridge_calls_total",
      help: "Tool calls made by kernel cells through the bridge (tool() in a cell), by outcome.",
      labelNames: ["outcome"],
      registers,
    });
    this.agentRestarts = new Counter({
      name: "enclave_agent_restarts_total",
      help: "Agents found replaced by another (their kernels, language servers and debug sessions started over), by placement.",
      labelNames: ["placement"],
      registers,
    });
    this.dockerErrors = new Counter({
      name: "enclave_docker_errors_total",
      help: "Docker engine requests that failed, by resource (containers, exec, volumes, images, …) and HTTP status (or connection).",
      labelNames: ["resource", "status"],
      registers,
    });
    this.inFlight = new Gauge({
      name: "enclave_tool_calls_in_flight",
      help: "Tool calls started and not finished yet, by tool.",
      labelNames: ["tool"],
      registers,
    });
    new Gauge({
      name: "enclave_enclosures",
      help: "Enclosure records by state.",
      labelNames: ["state"],
      registers,
      collect() {
        const counts = new Map<string, number>(ENCLOSURE_STATES.map((s) => [s, 0]));
        for (const s of sources.enclosureStates()) if (counts.has(s)) counts.set(s, (counts.get(s) ?? 0) + 1);
        for (const [state, n] of counts) this.set({ state }, n);
      },
    });
    new Gauge({
      name: "enclave_conversations",
      help: "Conversations by lifecycle state: active, or sleeping (the idle policy's, a lifetime's end, a paused tenant's).",
      labelNames: ["state"],
      registers,
      collect() {
        const counts = new Map<string, number>(LIFECYCLE_STATES.map((s) => [s, 0]));
        for (const s of sources.lifecycleStates()) if (counts.has(s)) counts.set(s, (counts.get(s) ?? 0) + 1);
        for (const [state, n] of counts) this.set({ state }, n);
      },
    });
    new Gauge({
      name: "enclave_open_cards",
      help: "Question and permission cards waiting for an answer.",
      registers,
      collect() {
        this.set(sources.openCards());
      },
    });
    const resources = (): Promise<{ kernels: number; languageServers: number }> => {
      if (!this.reading || Date.now() - this.reading.atMs > RESOURCES_MAX_AGE_MS) this.reading = { atMs: Date.now(), value: sources.agentResources() };
      return this.reading.value;
    };
    new Gauge({
      name: "enclave_kernels",
      help: "Kernels alive in the agents running now.",
      registers,
      async collect() {
        this.set((await resources()).kernels);
      },
    });
    const usage = (): Promise<TenantUsage[]> => this.tenantUsage();
    const perTenant = (name: string, help: string, figure: (u: TenantUsage) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ["tenant"],
        registers,
        async collect() {
          const all = await usage();
          // A tenant whose last conversation went leaves no stale series behind.
          this.reset();
          for (const u of all) this.set({ tenant: u.tenant }, figure(u));
        },
      });
    };
    perTenant(
      "enclave_tenant_cpu_seconds",
      "CPU time (user and system) counted by the cgroups of the tenant's placements running now, summed; a placement that stops or restarts takes its count with it.",
      (u) => u.cpuSeconds,
    );
    perTenant(
      "enclave_tenant_memory_bytes",
      "Memory charged now to the cgroups of the tenant's placements running now (page cache included), summed.",
      (u) => u.memoryBytes,
    );
    perTenant(
      "enclave_tenant_workspace_bytes",
      "Disk allocated to the tenant's workspaces, summed from each one's last measure (bounded walks: a capped walk counts what it saw).",
      (u) => u.workspaceBytes,
    );
    new Gauge({
      name: "enclave_tenant_conversations",
      help: "The tenant's conversations by placement (host or enclosure).",
      labelNames: ["tenant", "placement"],
      registers,
      async collect() {
        const all = await usage();
        this.reset();
        for (const u of all) for (const placement of PLACEMENT_LABELS) this.set({ tenant: u.tenant, placement }, u.conversations[placement]);
      },
    });
    new Gauge({
      name: "enclave_language_servers",
      help: "Language servers running in the agents running now.",
      registers,
      async collect() {
        this.set((await resources()).languageServers);
      },
    });
  }

  private usageReading: { atMs: number; value: Promise<TenantUsage[]> } | undefined;

  private tenantUsage(): Promise<TenantUsage[]> {
    if (!this.usageReading || Date.now() - this.usageReading.atMs > USAGE_MAX_AGE_MS) {
      const value = this.sources.tenantUsage().catch((): TenantUsage[] => []);
      this.usageReading = { atMs: Date.now(), value };
    }
    return this.usageReading.value;
  }

  /**
   * One read of the agents serves both gauges of a scrape, and scrapes in quick succession (an
   * unauthenticated endpoint must not make every agent answer as often as someone asks). A tool
   * call may start a kernel or a server, so the next scrape reads again after one.
   */
  private reading: { atMs: number; value: Promise<{ kernels: number; languageServers: number }> } | undefined;

  /** The process's own metrics (CPU, memory, event loop lag), once per process: the serving one's. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry, prefix: "enclave_" });
  }

  /** The audit log's feed: called inside the audit log's record(), so it never throws. */
  observe(e: AuditEvent): void {
    try {
      if (e.kind === "tool_call") {
        const tool = this.sources.isEnclaveTool(e.tool) ? e.tool : OTHER_TOOL;
        const origin = (ORIGINS as readonly string[]).includes(e.origin) ? e.origin : "other";
        const outcome = outcomeLabel(e.outcome);
        this.calls.inc({ tool, origin, outcome });
        this.duration.observe({ tool }, Math.max(0, e.durationMs) / 1000);
        if (origin === "bridge") this.bridgeCalls.inc({ outcome });
        this.reading = undefined;
      } else if (e.kind === "agent_restarted") {
        this.agentRestarts.inc({ placement: placementLabel(e.placement) });
      }
    } catch {
      // A metric must never fail the call it counts.
    }
  }

  /** The dispatcher's feed: calls in flight. Never throws (called inside the call). */
  observeCall(e: CallFeedEvent): void {
    try {
      const tool = this.sources.isEnclaveTool(e.call.tool) ? e.call.tool : OTHER_TOOL;
      if (e.type === "started") this.inFlight.inc({ tool });
      else this.inFlight.dec({ tool });
    } catch {
      // A metric must never fail the call it counts.
    }
  }

  /** A failed request to a Docker engine (see docker-errors.ts). */
  dockerError(resource: string, status: string): void {
    this.dockerErrors.inc({ resource, status });
  }

  /** The exposition text for a scrape. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
