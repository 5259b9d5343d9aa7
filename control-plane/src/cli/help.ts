// The usage text of every command.
import { DEFAULT_LISTEN } from "../config.js";
import { DEFAULT_CONSOLE_LISTEN } from "../console/console-settings.js";
import { EXIT_CODES_HELP } from "./exit-codes.js";

export const HELP: Record<string, string> = {
  main: `usage: enclave <command> [options]

commands:
  serve                          run the control plane (host placement works without Docker)
  conversations list|create|get|show|delete [ID] [--workspace DIR] [--idle S] [--lifetime S]   (get/show: with what it costs now)
  conversations lifecycle ID [--idle S] [--lifetime S]   a conversation's idle timeout and maximum lifetime
  tenants pause|resume TENANT [--reason TEXT]   (operators) refuse every call of a tenant, its placements asleep
  conversations fork SRC [NEW] [--workspace-only]   a new conversation from SRC's files (and enclosure options)
  enclosure start|stop ID        start or stop a conversation's enclosure (explicitly; nothing else does)
  enclosure pause|resume ID      pause a runsc enclosure with its memory (kernels kept), or resume it
  tools list                     the tools a run sees
  tool call NAME [JSON]          call a tool with JSON arguments (asks allow? [y/N] when a card needs it)
  runs list|close [RUN_ID]       the runs kept for the command line (and every other open run)
  placement ID                   what the conversation's placement can run (servers, adapters, kernels)
  images build [--agent]         build the enclave images that are missing (and their SBOMs)
  images push --registry HOST:PORT [NAME...]   push built images by content tag, record digests
  images inspect [NAME...]       inputs, hash, size, SBOM summary and tools of built images
  images verify [NAME...]        start images under the enclosure's hardening and check their promises
  audit ID                       the egress audit of ID's enclosure, its bridge calls and egress requests
  calls list|cancel [CALL_ID]    (operators) the tool calls in flight, and cancelling one
  kernel stop ID KERNEL          (operators) kill a conversation's kernel (by id, or python|javascript)
  host-agent stop ID             (operators) stop a conversation's host agent
  audit --log [ID] [--follow]    the audit log
  cards [ID] [--follow] [--all] [--full]  open question and permission cards (--follow stays attached)
  answer ID N [LABEL...] [--text T] [--skip]   answer card N of conversation ID
  tokens add|revoke|list|quota   tenants' bearer tokens and quotas (the token file; no server needed)
  doctor                         whether this machine has what host placement needs, and how to fix what it lacks
  config                         the configuration \`enclave serve\` would run with, and where each value came from

common options:
  --address ADDR       control plane address (default $ENCLAVE_ADDRESS or ${DEFAULT_LISTEN})
  --token TOKEN        bearer token (default $ENCLAVE_TOKEN); needed when the control plane has tokens
  --tls-ca FILE        talk TLS, trusting this CA (PEM) (default $ENCLAVE_TLS_CA)
  --tls-cert FILE, --tls-key FILE   a client certificate for a control plane that requires one
  --tls-server-name N  the name the server's certificate carries, when the address does not
  -c, --conversation   conversation id for tools/tool (default "default", created when missing)
  --surface NAME       default | plan | readonly_subagent
  --approval POLICY    never | write (the default) | always
  --new-run            a fresh CLI run instead of the one kept for the conversation and surface
  --run RUN_ID         use this open run instead of the kept one
  -y, --yes            answer allow to the permission cards of this call
  --vibe               open the run in vibe mode (the vibe_* tools)
  --json               print the answer as JSON (one line; --follow: one object per line)
  -h, --help           help for any command
  --version            the CLI's version and the agent protocol's

A command refuses an option it does not take (exit status 2); its --help lists the ones it takes.

${EXIT_CODES_HELP}`,
  serve: `usage: enclave serve [--listen ADDR] [--data-dir DIR] [--console ADDR|off] [--metrics ADDR|off]
                    [--otlp-endpoint URL] [--log-format auto|json|human]
                    [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--tokens-file FILE] [--insecure-remote]

Runs the control plane's gRPC API (default ${DEFAULT_LISTEN}; unix:///path for a socket) and the
operator console, a web page (default ${DEFAULT_CONSOLE_LISTEN}; "off" for none). A console bound to
anything but loopback asks for an access token: ENCLAVE_CONSOLE_TOKEN, or one generated and printed.
--metrics serves Prometheus metrics at http://ADDR/metrics (off by default; no access token: bind it
to loopback or a network only the scraper reaches). --otlp-endpoint exports OpenTelemetry traces over
OTLP/HTTP to URL/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT; service name OTEL_SERVICE_NAME; off by
default). Logs go to standard error: with --log-format auto (the default) as lines for a person when
it is a terminal, else as JSON lines; json or human says which.
Environment: ENCLAVE_LISTEN, ENCLAVE_METRICS_LISTEN, ENCLAVE_LOG_FORMAT, ENCLAVE_LOG_LEVEL (default info), ENCLAVE_CONSOLE_LISTEN, ENCLAVE_CONSOLE_TOKEN, ENCLAVE_DATA_DIR,
ENCLAVE_IMAGE, ENCLAVE_ENCLOSURE_MEMORY_BYTES, ENCLAVE_ENCLOSURE_CPUS, ENCLAVE_ENCLOSURE_PIDS,
ENCLAVE_ENCLOSURE_DISK_BYTES (copy mode's workspace volume), ENCLAVE_COPY_BACK_MAX_BYTES,
ENCLAVE_ENCLOSURE_RUNTIME (runc or runsc; default runc),
ENCLAVE_AUDIT_RETENTION_DAYS (default 90), ENCLAVE_AUDIT_MAX_MIB (default 1024; 0 turns a limit off),
ENCLAVE_HOST_UID_BASE, ENCLAVE_HOST_UID_COUNT (host sandboxes' uids), ENCLAVE_ENCLOSURE_UID_BASE, ENCLAVE_ENCLOSURE_UID_COUNT (enclosures' uids), ENCLAVE_HOST_PIDS, ENCLAVE_HOST_MEMORY_BYTES,
ENCLAVE_HOST_CPU_SHARES, ENCLAVE_HOST_CGROUPS (default on), ENCLAVE_HOST_NETWORK (default off),
ENCLAVE_HOST_PYTHON_ROOTS (where a workspace venv's base Python may be shown from; default /usr:/opt).

The API serves TLS given --tls-cert and --tls-key (ENCLAVE_TLS_CERT, ENCLAVE_TLS_KEY) and requires
client certificates signed by --tls-client-ca (ENCLAVE_TLS_CLIENT_CA). With a token file
(--tokens-file, ENCLAVE_TOKENS_FILE, or DATA_DIR/tokens.json when it exists) every call needs a
bearer token and sees only its tenant's conversations. A listen address other than loopback or a
unix socket is refused without both, unless --insecure-remote (ENCLAVE_INSECURE_REMOTE=on).`,
  tokens: `usage: enclave tokens add TENANT [--operator] [--label TEXT]   prints a new token once
       enclave tokens revoke TOKEN_ID | --all TENANT           the id is the 8 hex digits after enc_
       enclave tokens list
       enclave tokens quota TENANT NAME N|default               NAME: runningEnclosures, concurrentCalls, kernels,
                                                                hostAgents, maxMemoryBytes, maxPids, maxCpus, maxDiskBytes,
                                                                devcontainerBuilds, maxIdleSeconds, maxLifetimeSeconds
       enclave tokens egress TENANT DESTINATION... | none       the operator's egress maximum (default none)

DESTINATION is HOST[:PORTS], *.DOMAIN[:PORTS] (its subdomains) or CIDR[:PORTS], PORTS comma-separated
(none: any port), an IPv6 range in brackets before ports: a conversation of the tenant may allow
these through the egress proxy and no more (\`enclave conversations egress\`).

Edits the token file (--tokens-file, ENCLAVE_TOKENS_FILE, else DATA_DIR/tokens.json); a running
control plane picks changes up within a second. The file keeps SHA-256 digests, never tokens.`,
  conversations: `usage: enclave conversations list | create [ID] [--workspace DIR] [--idle SECONDS] [--lifetime SECONDS]
       enclave conversations get|show ID | delete ID | lifecycle ID [--idle SECONDS] [--lifetime SECONDS]  [--json]
       enclave conversations egress ID DESTINATION... | none
       enclave conversations fork SRC [NEW] [--workspace-only] [--json]

get and show (the same) add what the conversation costs now: CPU time and memory (now and peak) from
its placement's cgroup, an enclosure's figures from the Docker engine, and its workspace's size on
disk (a bounded walk, kept for 15 s; "capped" when it stopped at a bound). A figure that could not be
measured says why; -1 is a figure this kernel does not offer.

A conversation's placement (its host agent or enclosure) is put to sleep after --idle seconds with no
call in flight, no cell running, no debug session stopped and no card open, and --lifetime seconds
after it started or woke; the next call wakes it and its result says what was lost (kernels, language
servers, debug sessions; never the workspace). 0 or absent: the server's defaults
(ENCLAVE_IDLE_TIMEOUT_SECONDS, default 3600; ENCLAVE_MAX_LIFETIME_SECONDS, default 86400). A value past
the tenant's maxIdleSeconds or maxLifetimeSeconds (\`enclave tokens quota\`) is refused.

egress sets where the conversation's code may reach through the egress proxy (HOST[:PORTS],
*.DOMAIN[:PORTS] or CIDR[:PORTS]), within the tenant's operator maximum; none (the default) is no
network at all. A name resolving to a private, loopback or link-local address is refused unless a
CIDR lists it. Each request is in the audit log (kind egress) and in \`enclave audit ID\`.

fork makes conversation NEW (generated when not given) in SRC's tenant from a copy of SRC's workspace:
files and folders, links that stay inside it; links leading out of it and special files (FIFOs,
sockets, devices) are not copied and are listed; hard links become separate files. Files are cloned
(reflinks) where the data folder's filesystem can, copied otherwise. A running enclosure is paused
while its workspace is read. When SRC has an enclosure, NEW gets its own, started with the same image
and options (within the tenant's limits now), unless --workspace-only. The two share no writable
path. Memory is not forked: NEW's kernels, language servers and debug sessions start fresh. A
workspace larger than the tenant's maxDiskBytes quota is not forked.`,
  tenants: `usage: enclave tenants pause TENANT [--reason TEXT] | resume TENANT  [--json]

Operators only (a plain tenant's token is refused with permission_denied). pause refuses every call of
TENANT with tenant_paused until resume, and puts its conversations' placements to sleep now (calls in
flight are cut, open cards withdrawn; workspaces stay). The pause is kept across restarts of the
control plane, and both are recorded in the audit log with the operator tenant that did it.`,
  doctor: `usage: enclave doctor [--json]

Checks, without installing anything, what \`make run\` installs for host placement: bubblewrap and its
seccomp filter, root for the sandboxes' own uids, cgroup v1's pids, memory and cpu controllers,
python3 with the data stack, the language servers, the debug adapters and the static C compiler. Each
missing part comes with its fix (the make target, the apt-get line). Exit status 0 when everything is
there, else 1.`,
  config: `usage: enclave config [--listen ADDR] [--data-dir DIR] [--tls-cert FILE] [--tls-key FILE] [--tls-client-ca FILE]
                     [--tokens-file FILE] [--insecure-remote] [--otlp-endpoint URL] [--address ADDR] [--token TOKEN] [--json]

The configuration \`enclave serve\` would run with given the same flags and this environment, each
value with where it came from: a flag, an environment variable, or the default; then the command
line's own address. Tokens are never printed, only whether one is set.`,
  enclosure: `usage: enclave enclosure start ID [--workspace-mode bind|copy] [--memory BYTES] [--cpus N] [--pids N] [--disk BYTES]
                                 [--runtime runc|runsc] [--image IMAGE | --devcontainer]
       enclave enclosure stop ID [--force]
       enclave enclosure pause|resume ID
--json prints the conversation as JSON.
--image starts from an image on the engine (built or loaded there; nothing is pulled); an image without
  the agent's Node gets it injected read-only. A tenant may name Enclave's own images, the operator's
  ENCLAVE_ALLOWED_IMAGES and its own dev-container builds; any other answers as a missing image. --devcontainer starts from the workspace's
  .devcontainer/devcontainer.json (its image or Dockerfile, containerUser, remoteEnv, postCreateCommand).
--disk sizes copy mode's workspace volume (writes past it fail with ENOSPC inside); bind mode has none.
--runtime runsc runs the enclosure under gVisor (registered with the engine by \`make docker\`).
--memory, --cpus, --pids and --disk are bounded by the tenant's maxima (\`enclave tokens quota\`).
stop --force (operators) removes the enclosure without copying copy mode's /workspace back (audited as an
operator_action event, force_stop_enclosure, naming who).
pause checkpoints a runsc enclosure with its memory (kernels with their variables, language servers) to
  the engine's disk, at most its memory limit, and stops it; resume restores it (a tool call to a paused
  enclosure resumes it first). A debug session ends at a pause; an open TCP connection inside refuses
  it (checkpoint_failed), and so does a call in flight (failed_precondition). Under runc: checkpoint_unsupported. A failed resume keeps it paused with its
  checkpoint (resume_failed); stop removes a paused enclosure and its checkpoint.`,
  tools: `usage: enclave tools list [-c ID] [--surface NAME] [--json] [--new-run | --run RUN_ID]`,
  tool: `usage: enclave tool call NAME ['{"json":"args"}'] [-c ID] [--surface NAME] [--approval POLICY] [--yes] [--new-run | --run RUN_ID] [--json]

The call runs in the run the control plane keeps for the command line, one per conversation and
surface, so a change one call stages (ast_edit) is resolved by the next (\`tool call resolve\`).
--new-run opens a fresh one (the old one stays open until closed or idle); \`enclave runs\` lists
and closes them. Under approval policy write (the default) or always, write and exec tools raise a
permission card: this command attaches as the human, shows the card and asks \`allow? [y/N]\` on
the terminal; --yes answers allow, --approval never raises no card.
--json prints nothing as it streams, then the result as one object: isError, errorCode ("" when
none), parts (text, image as base64, rich), durationMs, details (the result as data, shaped by the
tool's details schema; null when it has none). Exit status 1 when the tool answered an error.`,
  runs: `usage: enclave runs list [-c ID] [--json]
       enclave runs close [RUN_ID] [-c ID] [--surface NAME] [--json]

list: the open runs (every conversation's without -c): the command line's kept runs with their
staged changes and when they close if unused, and the runs harnesses opened.
close: closes RUN_ID, or without one the run kept for the conversation and surface; its staged
changes are dropped. A kept run also closes after ENCLAVE_CLI_RUN_IDLE_SECONDS (default 1800) with no call.`,
  placement: `usage: enclave placement ID [--json]`,
  calls: `usage: enclave calls list [-c ID] [--json]
       enclave calls cancel CALL_ID [--json]

An operator's (a plain tenant's token is refused with permission_denied; a tenant cancels its own
calls by ending them in its harness). list: every tool call in flight now (one conversation's with
-c; another tenant's conversation is named TENANT.ID): its id, tool, conversation, tenant, run,
origin (model or bridge) and how long it has run. cancel: cancels one; what it started is stopped
(exec's command and everything it started are killed) and its caller gets a result with error code
\`cancelled\` naming who cancelled it. Audited as an operator_action event (cancel_call) with the
operator's tenant and token id.`,
  kernel: `usage: enclave kernel stop ID KERNEL [--json]

An operator's (refused to a plain tenant's token with permission_denied; a tenant resets its own
kernel with eval's reset). Kills the kernel KERNEL (its id, as eval's details give it, or python or
javascript for the conversation's kernel of that language) of conversation ID's running agent;
nothing is started to do it. Its variables are lost: the next eval of its language runs in a fresh
kernel and says the previous one was stopped by an operator. Audited as an operator_action event
(stop_kernel).`,
  "host-agent": `usage: enclave host-agent stop ID [--json]

An operator's (refused to a plain tenant's token with permission_denied). Stops conversation ID's
host agent: its kernels, language servers and debug sessions end (the workspace stays). The next
call starts a new agent and its result begins with host_agent_lost, saying an operator stopped the
previous one. Refused (failed_precondition) when an enclosure serves ID or no host agent runs.
Audited as an operator_action event (stop_host_agent).`,
  images: `usage: enclave images build [--agent]
       enclave images push --registry HOST:PORT [NAME...]
       enclave images inspect [NAME...] [--json]
       enclave images verify [NAME...] [--json]

build    builds the images that are missing (tags are content hashes of their inputs) and writes
         each one's record and CycloneDX SBOM under .enclave/images/NAME/TAG/
push     pushes each built image (all, or NAME: enclave-base, enclave-runtime, or NAME:TAG) to the
         registry under its content tag, then its SBOM as NAME:TAG.sbom; the manifest digests go
         into the record. ENCLAVE_IMAGE_REGISTRY=HOST:PORT makes the control plane run the runtime
         image as HOST:PORT/NAME@sha256:… and pull it by that digest where it is missing.
inspect  what the tag hashes, image id, size, SBOM package counts by ecosystem, the language
         servers, debug adapters, Node and Python the image carries, and where it was pushed
verify   starts each image (default: the ones enclosures run) under the enclosure's hardening and
         checks: non-root user, no setuid/setgid programs, every language server answers
         initialize, every debug adapter answers initialize, Python's data stack imports, Node runs
         the agent. Exit status 3 when a check fails.`,
  audit: `usage: enclave audit ID [--json]                the egress audit: each hardening promise of the enclosure
                                                   checked from outside and inside, and the bridge calls
       enclave audit --log [ID] [--follow] [--json]  the audit log (every conversation without ID)
The egress audit states the conversation's egress policy and, with one, wants exactly the proxy's
loopback listener and a probe through it refused; it lists each request through the egress proxy.
Exit status 3 when a check of the egress audit fails. --json prints the egress audit as one object,
the log as one event object per line.`,
  cards: `usage: enclave cards [ID] [--follow] [--all] [--full] [--json]

Shows the open cards of conversation ID (every conversation without one). --all adds recently
closed cards; --follow stays attached and prints cards as they open and close: while it runs, a
human counts as attached, so ask_user and permission cards are raised instead of failing at once.
A permission card lists the files the call touches and a preview of its arguments that says when
it is shortened; --full prints the complete arguments of open permission cards. --json prints the
cards as one array; with --follow, one {event, value} object per line.
Control characters an agent wrote are shown escaped (\\x1b, \\u009b), never sent to the terminal.`,
  answer: `usage: enclave answer ID N [LABEL...] [--text TEXT] [--skip] [--json]

Answers card N of conversation ID with the chosen option labels and/or free text, or with --skip
dismisses it without an answer (the console's Dismiss): a permission card's call is then refused, as
with deny; a question's agent proceeds on an assumption it states. Permission cards take \`allow\` or \`deny\`. An answer the card does not accept is refused here and
the card stays open.`,
};
