// enclave: the command line a person uses to run and try the control plane.
import { createInterface, type Interface } from "node:readline";
import { parseArgs } from "node:util";
import { status } from "@grpc/grpc-js";
import { ControlPlaneCallError, ControlPlaneClient, resultText } from "../client/control-plane-client.js";
import { DEFAULT_LISTEN, loadConfig } from "../config.js";
import { ControlPlane } from "../control-plane.js";
import type { Card, Conversation, Run } from "../../../proto/gen/enclave/control/v1/control.js";
import { serveControlPlane } from "../server/serve.js";
import { DEFAULT_CONSOLE_LISTEN, resolveConsoleSettings } from "../console/console-settings.js";
import { serveConsole } from "../console/console-server.js";
import { SafeStream, say, sayError } from "./terminal-text.js";

const HELP: Record<string, string> = {
  main: `usage: enclave <command> [options]

commands:
  serve                          run the control plane (host placement works without Docker)
  conversations list|create|get|delete [ID] [--workspace DIR]
  enclosure start|stop ID        start or stop a conversation's enclosure (explicitly; nothing else does)
  tools list                     the tools a run sees
  tool call NAME [JSON]          call a tool with JSON arguments (asks allow? [y/N] when a card needs it)
  runs list|close [RUN_ID]       the runs kept for the command line (and every other open run)
  placement ID                   what the conversation's placement can run (servers, adapters, kernels)
  images build [--agent]         build the enclave images that are missing
  audit ID                       the egress audit of ID's enclosure, and its bridge calls
  audit --log [ID] [--follow]    the audit log
  cards [ID] [--follow] [--all] [--full]  open question and permission cards (--follow stays attached)
  answer ID N [LABEL...] [--text T] [--skip]   answer card N of conversation ID

common options:
  --address ADDR       control plane address (default $ENCLAVE_ADDRESS or ${DEFAULT_LISTEN})
  -c, --conversation   conversation id for tools/tool (default "default", created when missing)
  --surface NAME       default | plan | readonly_subagent
  --approval POLICY    never | write (the default) | always
  --new-run            a fresh CLI run instead of the one kept for the conversation and surface
  --run RUN_ID         use this open run instead of the kept one
  -y, --yes            answer allow to the permission cards of this call
  --vibe               open the run in vibe mode (the vibe_* tools)
  -h, --help           help for any command`,
  serve: `usage: enclave serve [--listen ADDR] [--data-dir DIR] [--console ADDR|off]

Runs the control plane's gRPC API (default ${DEFAULT_LISTEN}; unix:///path for a socket) and the
operator console, a web page (default ${DEFAULT_CONSOLE_LISTEN}; "off" for none). A console bound to
anything but loopback asks for an access token: ENCLAVE_CONSOLE_TOKEN, or one generated and printed.
Environment: ENCLAVE_LISTEN, ENCLAVE_CONSOLE_LISTEN, ENCLAVE_CONSOLE_TOKEN, ENCLAVE_DATA_DIR,
ENCLAVE_IMAGE, ENCLAVE_ENCLOSURE_MEMORY_BYTES, ENCLAVE_ENCLOSURE_CPUS, ENCLAVE_ENCLOSURE_PIDS,
ENCLAVE_ENCLOSURE_DISK_BYTES (copy mode's workspace volume), ENCLAVE_COPY_BACK_MAX_BYTES,
ENCLAVE_ENCLOSURE_RUNTIME (runc or runsc; default runc),
ENCLAVE_AUDIT_RETENTION_DAYS (default 90), ENCLAVE_AUDIT_MAX_MIB (default 1024; 0 turns a limit off),
ENCLAVE_HOST_USER (default enclave-sandbox), ENCLAVE_HOST_NETWORK (default off).`,
  conversations: `usage: enclave conversations list | create [ID] [--workspace DIR] | get ID | delete ID`,
  enclosure: `usage: enclave enclosure start ID [--workspace-mode bind|copy] [--memory BYTES] [--cpus N] [--pids N] [--disk BYTES]
                                 [--runtime runc|runsc]
       enclave enclosure stop ID
--disk sizes copy mode's workspace volume (writes past it fail with ENOSPC inside); bind mode has none.
--runtime runsc runs the enclosure under gVisor (registered with the engine by \`make docker\`).`,
  tools: `usage: enclave tools list [-c ID] [--surface NAME] [--json] [--new-run | --run RUN_ID]`,
  tool: `usage: enclave tool call NAME ['{"json":"args"}'] [-c ID] [--surface NAME] [--approval POLICY] [--yes] [--new-run | --run RUN_ID]

The call runs in the run the control plane keeps for the command line, one per conversation and
surface, so a change one call stages (ast_edit) is resolved by the next (\`tool call resolve\`).
--new-run opens a fresh one (the old one stays open until closed or idle); \`enclave runs\` lists
and closes them. Under approval policy write (the default) or always, write and exec tools raise a
permission card: this command attaches as the human, shows the card and asks \`allow? [y/N]\` on
the terminal; --yes answers allow, --approval never raises no card.`,
  runs: `usage: enclave runs list [-c ID]
       enclave runs close [RUN_ID] [-c ID] [--surface NAME]

list: the open runs (every conversation's without -c): the command line's kept runs with their
staged changes and when they close if unused, and the runs harnesses opened.
close: closes RUN_ID, or without one the run kept for the conversation and surface; its staged
changes are dropped. A kept run also closes after ENCLAVE_CLI_RUN_IDLE_SECONDS (default 1800) with no call.`,
  placement: `usage: enclave placement ID`,
  images: `usage: enclave images build [--agent]`,
  audit: `usage: enclave audit ID                     the egress audit: each hardening promise of the enclosure
                                            checked from outside and inside, and the bridge calls
       enclave audit --log [ID] [--follow]  the audit log (every conversation without ID)
Exit status 3 when a check of the egress audit fails.`,
  cards: `usage: enclave cards [ID] [--follow] [--all] [--full]

Shows the open cards of conversation ID (every conversation without one). --all adds recently
closed cards; --follow stays attached and prints cards as they open and close: while it runs, a
human counts as attached, so ask_user and permission cards are raised instead of failing at once.
A permission card lists the files the call touches and a preview of its arguments that says when
it is shortened; --full prints the complete arguments of open permission cards.
Control characters an agent wrote are shown escaped (\\x1b, \\u009b), never sent to the terminal.`,
  answer: `usage: enclave answer ID N [LABEL...] [--text TEXT] [--skip]

Answers card N of conversation ID with the chosen option labels and/or free text, or skips it.
Permission cards take \`allow\` or \`deny\`. An answer the card does not accept is refused here and
the card stays open.`,
};

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    address: { type: "string" },
    listen: { type: "string" },
    console: { type: "string" },
    "data-dir": { type: "string" },
    conversation: { type: "string", short: "c" },
    surface: { type: "string" },
    approval: { type: "string" },
    workspace: { type: "string" },
    "workspace-mode": { type: "string" },
    memory: { type: "string" },
    cpus: { type: "string" },
    pids: { type: "string" },
    disk: { type: "string" },
    runtime: { type: "string" },
    agent: { type: "boolean" },
    follow: { type: "boolean" },
    log: { type: "boolean" },
    all: { type: "boolean" },
    full: { type: "boolean" },
    text: { type: "string" },
    skip: { type: "boolean" },
    vibe: { type: "boolean" },
    json: { type: "boolean" },
    "new-run": { type: "boolean" },
    run: { type: "string" },
    yes: { type: "boolean", short: "y" },
    help: { type: "boolean", short: "h" },
  },
});

const [command = "", sub = "", ...rest] = positionals;
const address = opts.address ?? process.env.ENCLAVE_ADDRESS ?? DEFAULT_LISTEN;

function fail(message: string): never {
  sayError(`enclave: ${message}`);
  process.exit(1);
}

function showConversation(c: Conversation): string {
  const e = c.enclosure;
  const where = e
    ? `enclosure ${e.containerId.slice(0, 12)} (${e.state}${e.detail ? `: ${e.detail}` : ""}; image ${e.image}; ${e.runtime || "runc"}; ${e.workspaceMode}; ` +
      `${(e.limits?.memoryBytes ?? 0) / 1024 ** 2} MiB, ${e.limits?.cpus} CPU, ${e.limits?.pids} pids` +
      `${e.limits?.diskBytes ? `, disk ${e.limits.diskBytes / 1024 ** 2} MiB` : ""}` +
      `${e.relaxations.length ? `; relaxed: ${e.relaxations.join(", ")}` : ""})`
    : "host";
  return `${c.id}  ${where}  ${c.workspacePath}`;
}

/** Every line of an agent's text under the same prefix, so no line of it can pass for a line of ours. */
function prefixed(prefix: string, text: string, rest = prefix): string[] {
  return text.split("\n").map((l, i) => `${i === 0 ? prefix : rest}${l}`);
}

function showCard(c: Card): string {
  const head = `#${c.number} ${c.conversationId} ${c.kind} ${c.state}${c.state === "open" ? ` (expires ${new Date(c.expiresAtMs).toISOString()})` : ""}`;
  const lines = [head, ...prefixed("  ", c.question, "  > ")];
  if (c.context) lines.push(...prefixed("  | ", c.context));
  if (c.options.length) {
    lines.push(`  options (${c.multiSelect ? "choose any" : "choose one"}):`);
    for (const o of c.options) lines.push(...prefixed("    - ", `${o.label}${o.description ? ` — ${o.description}` : ""}`, "      "));
  }
  if (c.allowFreeText) lines.push("  free text allowed (--text)");
  if (c.answer) lines.push(...prefixed("  answer: ", c.answer.skip ? "skipped" : [...c.answer.selected, c.answer.freeText].filter(Boolean).join(", "), "  answer> "));
  return lines.join("\n");
}

/** The complete arguments of an open permission card, pretty-printed, for --full. */
async function fullArguments(client: ControlPlaneClient, c: Card): Promise<string> {
  if (c.kind !== "permission") return "";
  if (c.state !== "open") return "  complete arguments: kept only while the card is open";
  let text: string;
  try {
    text = await client.cardArgumentsText(c.conversationId, c.number);
  } catch (err) {
    return `  complete arguments: could not be read (${(err as Error).message})`;
  }
  let pretty = text;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Shown as stored when it is not JSON.
  }
  return [`  complete arguments (${text.length} characters):`, ...pretty.split("\n").map((l) => `    ${l}`)].join("\n");
}

async function showCardFull(client: ControlPlaneClient, c: Card): Promise<string> {
  const full = opts.full ? await fullArguments(client, c) : "";
  return full ? `${showCard(c)}\n${full}` : showCard(c);
}

async function ensureConversation(client: ControlPlaneClient, id: string): Promise<void> {
  try {
    await client.getConversation(id);
  } catch (err) {
    if (!(err instanceof ControlPlaneCallError && err.grpcCode === status.NOT_FOUND)) throw err;
    await client.createConversation(id);
  }
}

/** The run a command uses: the one named by --run, else the one the control plane keeps for the CLI. */
async function cliRun(client: ControlPlaneClient): Promise<Run> {
  if (opts.run) {
    const run = (await client.listRuns()).find((r) => r.id === opts.run);
    if (!run) fail(`no open run \`${opts.run}\`; \`enclave runs list\` shows the open ones`);
    return run;
  }
  const conversation = opts.conversation ?? "default";
  await ensureConversation(client, conversation);
  return client.attachCliRun(conversation, { surface: opts.surface, approvalPolicy: opts.approval, vibeMode: opts.vibe, newRun: opts["new-run"] });
}

function showRun(r: Run, now: number): string {
  const flags = [r.cli ? (r.cliCurrent ? "cli (kept)" : "cli (replaced)") : "api", `approval ${r.approvalPolicy}`];
  if (r.vibeMode) flags.push("vibe");
  if (r.pendingActions) flags.push(`${r.pendingActions} staged change${r.pendingActions === 1 ? "" : "s"} awaiting resolve`);
  if (r.callsInFlight) flags.push(`${r.callsInFlight} call${r.callsInFlight === 1 ? "" : "s"} in flight`);
  else if (r.idleExpiresAtMs) flags.push(`closes if unused in ${Math.max(0, Math.round((r.idleExpiresAtMs - now) / 1000))} s`);
  return `${r.id}  ${r.conversationId}  ${r.surface}  ${flags.join(", ")}`;
}

/**
 * Attaches as the human to the run's cards while its call runs: each permission card this run raises
 * after attaching (the call's own, and those of the bridge calls its cell makes) is shown with its
 * complete arguments and asked about on the terminal, one at a time (answered allow with --yes).
 * Other runs' cards are left to whoever else is attached. A card closed meanwhile (answered elsewhere,
 * timed out) is no longer asked about. Returns the detach.
 */
async function attachAsHuman(client: ControlPlaneClient, run: Run, tool: string): Promise<() => void> {
  if (run.approvalPolicy === "never") return () => undefined;
  // Attached only when this call can raise a card: while attached, other runs' cards in the
  // conversation wait for an answer instead of failing at once.
  if (run.approvalPolicy === "write") {
    // A tool not listed (resolve is hidden while nothing is pending) may still be gated: attach.
    const tier = (await client.listTools(run.id)).tools.find((t) => t.name === tool)?.tier;
    if (tier === "read") return () => undefined;
  }
  let attached = false;
  let detached = false;
  let reader: Interface | undefined;
  let stdinEnded = false;
  /** The answer typed, "" at the end of input, undefined when the card closed first. */
  const askLine = (prompt: string, closed: AbortSignal): Promise<string | undefined> =>
    new Promise((resolve) => {
      if (stdinEnded) {
        process.stderr.write(`${prompt}(no input: deny)\n`);
        resolve("");
        return;
      }
      if (!reader) {
        reader = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
        reader.on("close", () => (stdinEnded = true));
      }
      const r = reader;
      const onEnd = (): void => resolve("");
      const onClosed = (): void => {
        r.off("close", onEnd);
        process.stderr.write("\n");
        resolve(undefined);
      };
      r.once("close", onEnd);
      closed.addEventListener("abort", onClosed, { once: true });
      r.question(prompt, { signal: closed }, (answer) => {
        r.off("close", onEnd);
        closed.removeEventListener("abort", onClosed);
        resolve(answer);
      });
    });
  const open = new Map<number, AbortController>();
  const ask = async (c: Card): Promise<void> => {
    const closed = open.get(c.number);
    if (detached || !closed || closed.signal.aborted) return;
    sayError(await showCardWithArguments(client, c));
    let allow: boolean;
    if (opts.yes) {
      sayError("allow? [y/N] y (--yes)");
      allow = true;
    } else {
      const answer = await askLine("allow? [y/N] ", closed.signal);
      if (answer === undefined) {
        sayError(`card #${c.number} closed before it was answered here`);
        return;
      }
      allow = /^\s*y(es)?\s*$/i.test(answer);
    }
    if (detached) return;
    await client
      .answerCard(c.conversationId, c.number, { selected: [allow ? "allow" : "deny"] })
      .catch((err: unknown) => sayError(`card #${c.number} could not be answered (${(err as Error).message})`));
  };
  let asking = Promise.resolve();
  const watch = client.subscribeCards(run.targetSpace, (e) => {
    const ev = e.event;
    if (ev?.$case === "subscribed") attached = true;
    if (ev?.$case === "closed") open.get(ev.value.number)?.abort();
    // Cards open before this call attached belong to other calls.
    if (!attached || ev?.$case !== "opened") return;
    const c = ev.value;
    if (c.kind !== "permission" || c.runId !== run.id || c.state !== "open" || open.has(c.number)) return;
    open.set(c.number, new AbortController());
    asking = asking.then(() => ask(c));
  });
  await watch.ready;
  return () => {
    detached = true;
    watch.cancel();
    for (const c of open.values()) c.abort();
    reader?.close();
  };
}

/** A card and, for a permission card, its complete arguments, so nobody allows what they could not see. */
async function showCardWithArguments(client: ControlPlaneClient, c: Card): Promise<string> {
  if (!c.argumentsTruncated) return showCard(c);
  return `${showCard(c)}\n${await fullArguments(client, c)}`;
}

async function serve(): Promise<void> {
  const config = loadConfig({ dataDir: opts["data-dir"], listen: opts.listen });
  const cp = await ControlPlane.start(config);
  const server = await serveControlPlane(cp, config.listen);
  const consoleSettings = resolveConsoleSettings(opts.console ?? process.env.ENCLAVE_CONSOLE_LISTEN, process.env.ENCLAVE_CONSOLE_TOKEN);
  const web = consoleSettings ? await serveConsole(cp, consoleSettings) : undefined;
  const docker = await cp.dockerDriver().then(
    () => "available: `enclave enclosure start ID` runs a conversation in an enclosure",
    () => "not available: conversations run on host placement (`make docker` installs an engine)",
  );
  say(`Enclave control plane listening on ${server.address} (data: ${config.dataDir})
Docker engine: ${docker}
Operator console: ${web ? `${web.url}${web.tokenRequired ? ` (access token required${consoleSettings?.tokenGenerated ? ", generated for this run" : ", from ENCLAVE_CONSOLE_TOKEN"}; bound to ${web.host}:${web.port})` : ""}` : "off"}
Try it from another terminal:
  ./bin/enclave tools list
  ./bin/enclave tool call write '{"path":"hello.txt","content":"hello\\n"}'
  ./bin/enclave tool call read '{"path":"hello.txt"}'`);
  const stop = (): void => {
    void Promise.all([server.close(), web?.close()])
      .then(() => cp.close())
      .then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function main(): Promise<void> {
  if (opts.help || command === "" || command === "help") {
    say(HELP[command === "help" ? sub : command] ?? HELP.main ?? "");
    return;
  }
  if (command === "serve") return serve();
  if (command === "images") {
    if (sub !== "build") fail(HELP.images ?? "");
    const { connectDocker } = await import("../placement/docker-connection.js");
    const { ensureImages } = await import("../../../images/pipeline/image-set.js");
    const { consoleProgress } = await import("../../../images/pipeline/progress.js");
    const r = await ensureImages(await connectDocker(), { agent: opts.agent ?? false, progress: consoleProgress() });
    say(r.built.length ? `built ${r.built.join(", ")}` : `up to date: ${[r.base, r.runtime, r.agent].filter(Boolean).join(", ")}`);
    return;
  }
  if (!HELP[command]) fail(`unknown command \`${command}\`\n\n${HELP.main}`);

  const client = new ControlPlaneClient(address);
  try {
    switch (command) {
      case "conversations": {
        if (sub === "list" || sub === "") {
          const list = await client.listConversations();
          say(list.length ? list.map(showConversation).join("\n") : "no conversations");
        } else if (sub === "create") say(showConversation(await client.createConversation(rest[0] ?? "", opts.workspace ?? "")));
        else if (sub === "get") say(showConversation(await client.getConversation(rest[0] ?? fail("give a conversation id"))));
        else if (sub === "delete") {
          await client.deleteConversation(rest[0] ?? fail("give a conversation id"));
          say(`deleted ${rest[0]}`);
        } else fail(HELP.conversations ?? "");
        break;
      }
      case "enclosure": {
        const id = rest[0] ?? fail(HELP.enclosure ?? "");
        if (sub === "start") {
          sayError("starting enclosure …");
          const c = await client.startEnclosure(id, {
            workspaceMode: opts["workspace-mode"] ?? "",
            memoryBytes: Number(opts.memory ?? 0),
            cpus: Number(opts.cpus ?? 0),
            pidsLimit: Number(opts.pids ?? 0),
            diskLimitBytes: Number(opts.disk ?? 0),
            runtime: opts.runtime ?? "",
          });
          say(showConversation(c));
        } else if (sub === "stop") {
          const c = await client.stopEnclosure(id);
          say(showConversation(c));
          for (const line of c.notCopiedBack) say(`  not copied back: ${line}`);
        }
        else fail(HELP.enclosure ?? "");
        break;
      }
      case "tools": {
        if (sub !== "list" && sub !== "") fail(HELP.tools ?? "");
        const run = await cliRun(client);
        const res = await client.listTools(run.id);
        if (opts.json) say(JSON.stringify(res.tools.map((t) => ({ ...t, inputSchema: JSON.parse(t.inputSchemaJson) as unknown })), null, 2));
        else for (const t of res.tools) say(`${t.name.padEnd(12)} ${t.tier.padEnd(6)} ${t.description}`);
        for (const f of res.customToolFailures) sayError(`custom tool module ${f.file} skipped: ${f.reason}`);
        break;
      }
      case "tool": {
        if (sub !== "call" || !rest[0]) fail(HELP.tool ?? "");
        const streamed: Buffer[] = [];
        const out = { stdout: new SafeStream(process.stdout), stderr: new SafeStream(process.stderr) };
        const run = await cliRun(client);
        const detach = await attachAsHuman(client, run, rest[0] ?? "");
        const result = await client
          .callTool(run.id, rest[0] ?? "", rest[1] ?? "{}", (e) => {
            if (e.event?.$case === "output") {
              streamed.push(e.event.value.data);
              out[e.event.value.stream === "stderr" ? "stderr" : "stdout"].write(e.event.value.data);
            } else if (e.event?.$case === "progress") sayError(e.event.value);
          })
          .finally(detach);
        out.stdout.end();
        out.stderr.end();
        let body = resultText(result);
        // The result repeats the output already shown as it streamed: print only what it adds.
        const shown = Buffer.concat(streamed).toString("utf8");
        if (shown && body.startsWith(shown)) body = body.slice(shown.length);
        else if (shown && body.startsWith(shown.trimEnd())) body = body.slice(shown.trimEnd().length);
        body = body.replace(/^\n+/, "");
        if (result.isError) fail(`${result.errorCode}: ${body}`);
        if (body) say(body);
        break;
      }
      case "runs": {
        if (sub === "list" || sub === "") {
          const runs = await client.listRuns(opts.conversation ?? "");
          const now = Date.now();
          say(runs.length ? runs.map((r) => showRun(r, now)).join("\n") : "no open runs");
        } else if (sub === "close") {
          let id = rest[0];
          if (!id) {
            const conversation = opts.conversation ?? "default";
            const surface = opts.surface || "default";
            const kept = (await client.listRuns()).find((r) => r.cliCurrent && r.conversationId === conversation && r.surface === surface);
            if (!kept) {
              say(`no run kept for conversation ${conversation}, surface ${surface}`);
              break;
            }
            id = kept.id;
          }
          await client.closeRun(id);
          say(`closed ${id}`);
        } else fail(HELP.runs ?? "");
        break;
      }
      case "placement": {
        const d = await client.describePlacement(sub || (opts.conversation ?? "default"));
        say(`placement: ${d.placement} (agent ${d.agentVersion}, workspace ${d.workspaceRoot})`);
        for (const c of d.components) say(`  ${c.kind.padEnd(16)} ${c.id.padEnd(14)} ${c.usable ? "usable " : "missing"}  ${c.detail}`);
        break;
      }
      case "cards": {
        const id = sub;
        if (!opts.follow) {
          const cards = await client.listCards(id, opts.all ?? false);
          const shown: string[] = [];
          for (const c of cards) shown.push(await showCardFull(client, c));
          say(shown.length ? shown.join("\n\n") : `no ${opts.all ? "" : "open "}cards${id ? ` in ${id}` : ""}`);
          break;
        }
        // One at a time, in the order they came: a card's complete arguments are read before the next event prints.
        let printing = Promise.resolve();
        const watch = client.subscribeCards(id, (e) => {
          const ev = e.event;
          printing = printing.then(async () => {
            if (ev?.$case === "opened") say(`${await showCardFull(client, ev.value)}\n`);
            else if (ev?.$case === "closed") say(`#${ev.value.number} ${ev.value.conversationId} closed: ${ev.value.state}\n`);
          });
        });
        await watch.ready;
        sayError(`attached to ${id ? `conversation ${id}` : "every conversation"}; answer with \`enclave answer ID N ...\` (Ctrl-C to detach)`);
        await watch.done;
        await printing;
        break;
      }
      case "answer": {
        const [n, ...labels] = rest;
        const number = Number(n);
        if (!sub || !Number.isInteger(number) || number < 1) fail(HELP.answer ?? "");
        const card = await client.answerCard(sub, number, { selected: labels, freeText: opts.text ?? "", skip: opts.skip ?? false });
        say(`card #${card.number} ${card.state}`);
        break;
      }
      case "audit": {
        if (sub && !opts.log && !opts.follow) {
          const report = await client.auditEnclosure(sub);
          say(report.text);
          if (report.checks.length > 0 && !report.passed) process.exitCode = 3;
          break;
        }
        const id = sub || undefined;
        const sub2 = client.subscribeAudit({ conversationId: id, includeHistory: true, historyOnly: !opts.follow }, (e) => {
          const when = new Date(e.timeMs).toISOString();
          say(`${when} #${e.seq} ${e.conversationId} ${e.kind}${e.tool ? ` ${e.tool} (${e.tier}, ${e.origin})` : ""}${e.outcome ? ` ${e.outcome}` : ""}${e.durationMs ? ` ${e.durationMs} ms` : ""}${e.placement ? ` @ ${e.placement}` : ""}${e.detail ? ` — ${e.detail}` : ""}`);
        });
        await sub2.done;
        break;
      }
    }
  } finally {
    client.close();
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
