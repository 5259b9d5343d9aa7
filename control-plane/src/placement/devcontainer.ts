// A workspace's dev container (.devcontainer/devcontainer.json, or .devcontainer.json) as an
// enclosure. The file is hostile input, read as data: it is JSONC (comments, trailing commas), parsed
// by Microsoft's jsonc-parser, the parser VS Code itself reads these files with, so what it accepts
// is what the file's author tested. Every field Enclave honours is checked with a clear error
// (`devcontainer_invalid`); the ones that would weaken the enclosure or run something on the host are
// not honoured and said so in the enclosure's notes. What it can do:
//   - `image`: an image already on the engine; or `build` (`dockerfile`, `context`, `args`, `target`):
//     the engine builds it from the context sent as a tar stream (links stay links; no RUN step runs
//     on this host), never pulling (its FROM bases must be on the engine, build-bases.ts), with no
//     network, within a time limit and in a cgroup of ours (build-cgroup.ts); off for a tenant
//     unless an operator turned builds on for it;
//   - `containerUser` (or `remoteUser`): looked up in the image; root is refused;
//   - `containerEnv` and `remoteEnv`: values are data put in the enclosure's environment; of the
//     variables in them only ${containerEnv:…} and ${containerWorkspaceFolder…} are filled in, never
//     anything of the host's (${localEnv:…} becomes empty, with a note);
//   - `postCreateCommand`: run inside the started enclosure, as its user, under the same hardening.
import { constants, promises as fsp } from "node:fs";
import { posix } from "node:path";
import { type Readable, Transform } from "node:stream";
import type Docker from "dockerode";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { within } from "@enclave/proto/wait.js";
import { atFd, openDirBelow, openDirNoFollow } from "../fs/fd-path.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { checkBuildFetches } from "./build-bases.js";
import { makeBuildCgroup } from "./build-cgroup.js";
import { dockerfileFetches } from "./dockerfile-bases.js";
import { engineBuild } from "./engine-build.js";
import { IN_ENCLOSURE } from "../model/enclosure.js";
import type { ImageNamedBy } from "./image-access.js";
import { checkImageReference } from "./image-reference.js";
import { engineIsLocal } from "./workspace-disk.js";
import { packFolder } from "./workspace-transfer.js";

/** Where a dev container's config is looked for, in order (paths inside the workspace). */
export const DEVCONTAINER_FILES = [".devcontainer/devcontainer.json", ".devcontainer.json"] as const;

export interface DevcontainerBuild {
  /** The context folder, as path parts below the workspace root. */
  context: string[];
  /** The Dockerfile's path inside the context (posix). */
  dockerfile: string;
  args: Record<string, string>;
  target?: string;
}

export type PostCreateStep = { name: string; argv: string[] };

export interface DevcontainerConfig {
  /** The config's path inside the workspace. */
  file: string;
  image?: string;
  build?: DevcontainerBuild;
  user?: string;
  /** KEY=VALUE with ${containerEnv:…} still to fill in from the image (see envEntries). */
  env: Array<{ key: string; value: string }>;
  postCreate: PostCreateStep[];
  notes: string[];
}

function invalid(file: string, message: string): never {
  throw new EnclaveError("devcontainer_invalid", `${file}: ${message}`);
}

/** Fields with no effect in an enclosure (editor settings, ports nobody can reach). */
const HARMLESS = new Set([
  "$schema",
  "name",
  "customizations",
  "forwardPorts",
  "portsAttributes",
  "otherPortsAttributes",
  "shutdownAction",
  "hostRequirements",
  "userEnvProbe",
  "waitFor",
  "updateRemoteUserUID",
  "overrideCommand",
]);
/** Fields that would weaken the enclosure, reach the host or need what an enclosure has not. */
const NOT_HONOURED: Record<string, string> = {
  runArgs: "extra docker run arguments could weaken the enclosure's hardening",
  privileged: "enclosures never run privileged",
  capAdd: "enclosures drop every capability",
  securityOpt: "enclosures keep their own security options",
  init: "enclosures always run an init",
  mounts: "nothing of the host is mounted into an enclosure",
  workspaceMount: "the workspace is always mounted at /workspace",
  workspaceFolder: "the workspace is always /workspace",
  appPort: "enclosures publish no ports",
  initializeCommand: "it would run on the host; nothing of a workspace runs there",
  onCreateCommand: "only postCreateCommand is run",
  updateContentCommand: "only postCreateCommand is run",
  postStartCommand: "only postCreateCommand is run",
  postAttachCommand: "only postCreateCommand is run",
  features: "features are fetched from registries this engine does not reach; put what they install in the Dockerfile",
};

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names the enclosure's agent relies on; a dev container does not set them. */
function reservedEnv(key: string): boolean {
  return key === "HOME" || key.startsWith("ENCLAVE_") || key === "NODE_OPTIONS";
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(file: string, field: string, v: unknown, maxChars = 4096): string {
  if (typeof v !== "string" || v === "") invalid(file, `\`${field}\` must be a non-empty string`);
  if (v.length > maxChars) invalid(file, `\`${field}\` is longer than ${maxChars} characters`);
  if (v.includes("\0")) invalid(file, `\`${field}\` holds a NUL character`);
  return v;
}

/** A path from the config's folder, kept inside the workspace: its parts below the workspace root. */
function insideWorkspace(file: string, field: string, configDir: string[], rel: string): string[] {
  if (posix.isAbsolute(rel)) invalid(file, `\`${field}\` (${rel}) must be relative to the folder of devcontainer.json`);
  const parts: string[] = [...configDir];
  for (const p of rel.split("/")) {
    if (p === "" || p === ".") continue;
    if (p === "..") {
      if (!parts.length) invalid(file, `\`${field}\` (${rel}) leads out of the workspace`);
      parts.pop();
    } else parts.push(p);
  }
  return parts;
}

function envSection(file: string, field: string, v: unknown, out: DevcontainerConfig["env"], notes: string[]): void {
  if (v === undefined) return;
  if (!isRecord(v)) invalid(file, `\`${field}\` must be an object of NAME: "value"`);
  for (const [key, value] of Object.entries(v)) {
    if (!ENV_KEY.test(key)) invalid(file, `\`${field}.${key}\` is not an environment variable name (letters, digits, _; not starting with a digit)`);
    if (reservedEnv(key)) invalid(file, `\`${field}.${key}\`: ${key} is the enclosure's own (its agent relies on it); remove it`);
    if (value === null) {
      notes.push(`${field}.${key}: null (unset) is not honoured; the variable keeps the image's value`);
      continue;
    }
    if (typeof value !== "string") invalid(file, `\`${field}.${key}\` must be a string`);
    if (value.length > LIMITS.devcontainerEnvValueChars) invalid(file, `\`${field}.${key}\` is longer than ${LIMITS.devcontainerEnvValueChars} characters`);
    if (value.includes("\0")) invalid(file, `\`${field}.${key}\` holds a NUL character`);
    if (/\$\{local(Env|WorkspaceFolder|WorkspaceFolderBasename)\b/.test(value)) {
      notes.push(`${field}.${key}: \${local…} variables are left empty (the host's environment and paths are not given to a workspace)`);
    }
    out.push({ key, value });
  }
  if (out.length > LIMITS.devcontainerEnvEntries) invalid(file, `more than ${LIMITS.devcontainerEnvEntries} environment entries`);
}

function postCreateSteps(file: string, v: unknown): PostCreateStep[] {
  if (v === undefined) return [];
  const argvOf = (field: string, x: unknown): string[] => {
    if (typeof x === "string") return ["/bin/sh", "-c", text(file, field, x, 64 * 1024)];
    if (Array.isArray(x) && x.length > 0)
      return x.map((a, i) => (typeof a === "string" && !a.includes("\0") ? a : invalid(file, `\`${field}[${i}]\` must be a string`)));
    return invalid(file, `\`${field}\` must be a command string, a non-empty array of strings, or an object of named commands`);
  };
  if (isRecord(v)) {
    const steps = Object.entries(v).map(([name, x]) => ({ name, argv: argvOf(`postCreateCommand.${name}`, x) }));
    if (!steps.length) invalid(file, "`postCreateCommand` is an empty object");
    return steps;
  }
  return [{ name: "postCreateCommand", argv: argvOf("postCreateCommand", v) }];
}

/** Checks a parsed devcontainer.json; `file` is its path inside the workspace. */
export function checkDevcontainer(file: string, raw: unknown): DevcontainerConfig {
  if (!isRecord(raw)) invalid(file, "must be a JSON object");
  const configDir = posix.dirname(file) === "." ? [] : posix.dirname(file).split("/");
  const notes: string[] = [];
  const cfg: DevcontainerConfig = { file, env: [], postCreate: [], notes };
  if (raw.dockerComposeFile !== undefined) invalid(file, "`dockerComposeFile` is not supported: an enclosure is one container; use `image` or `build`");
  if (raw.image !== undefined && raw.build !== undefined) invalid(file, "has both `image` and `build`; keep one");
  if (raw.image !== undefined) {
    const image = text(file, "image", raw.image, 512);
    // Refused as the same bad argument an `image` option would be, before any engine sees it.
    checkImageReference(image, `${file}: \`image\``);
    cfg.image = image;
  } else if (raw.build !== undefined) {
    const b = raw.build;
    if (!isRecord(b)) invalid(file, "`build` must be an object");
    const dockerfileRel = text(file, "build.dockerfile", b.dockerfile ?? b.dockerFile, 1024);
    const context = insideWorkspace(file, "build.context", configDir, b.context === undefined ? "." : text(file, "build.context", b.context, 1024));
    const dockerfileParts = insideWorkspace(file, "build.dockerfile", configDir, dockerfileRel);
    const inContext = dockerfileParts.slice(0, context.length).join("/") === context.join("/") && dockerfileParts.length > context.length;
    if (!inContext) invalid(file, `\`build.dockerfile\` (${dockerfileRel}) must be inside \`build.context\` (the engine sees only the context)`);
    const args: Record<string, string> = {};
    if (b.args !== undefined) {
      if (!isRecord(b.args)) invalid(file, '`build.args` must be an object of NAME: "value"');
      for (const [k, v] of Object.entries(b.args)) {
        if (!ENV_KEY.test(k)) invalid(file, `\`build.args.${k}\` is not a build argument name`);
        args[k] = typeof v === "string" && !v.includes("\0") ? v : invalid(file, `\`build.args.${k}\` must be a string`);
      }
    }
    const target = b.target === undefined ? undefined : text(file, "build.target", b.target, 128);
    for (const k of Object.keys(b)) {
      if (!["dockerfile", "dockerFile", "context", "args", "target"].includes(k)) notes.push(`build.${k} is not honoured`);
    }
    cfg.build = { context, dockerfile: dockerfileParts.slice(context.length).join("/"), args, ...(target ? { target } : {}) };
  } else {
    invalid(file, "names neither `image` nor `build.dockerfile`: say which image the enclosure starts from");
  }
  const user = raw.containerUser ?? raw.remoteUser;
  if (user !== undefined) {
    const u = text(file, raw.containerUser !== undefined ? "containerUser" : "remoteUser", user, 256);
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]*)?$/.test(u)) invalid(file, `\`containerUser\` (${u}) is not a user name or uid[:gid]`);
    cfg.user = u;
  }
  envSection(file, "containerEnv", raw.containerEnv, cfg.env, notes);
  const fromContainerEnv = cfg.env.length;
  envSection(file, "remoteEnv", raw.remoteEnv, cfg.env, notes);
  if (cfg.env.length - fromContainerEnv > LIMITS.devcontainerEnvEntries) invalid(file, `more than ${LIMITS.devcontainerEnvEntries} remoteEnv entries`);
  cfg.postCreate = postCreateSteps(file, raw.postCreateCommand);
  for (const key of Object.keys(raw)) {
    if (["image", "build", "containerUser", "remoteUser", "containerEnv", "remoteEnv", "postCreateCommand"].includes(key) || HARMLESS.has(key)) continue;
    notes.push(NOT_HONOURED[key] ? `${key} is not honoured: ${NOT_HONOURED[key]}` : `${key} is not honoured (not known to Enclave)`);
  }
  return cfg;
}

/** Parses JSONC text as VS Code does (comments and trailing commas allowed); errors name line and column. */
export function parseDevcontainerText(file: string, textIn: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(textIn, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0] as ParseError;
    const before = textIn.slice(0, e.offset);
    const line = before.split("\n").length;
    const col = e.offset - before.lastIndexOf("\n");
    invalid(file, `is not valid JSONC: ${printParseErrorCode(e.error)} at line ${line}, column ${col}`);
  }
  return value;
}

/**
 * Reads the workspace's devcontainer.json without following a link anywhere on the way (a link could
 * show the host's files in an error), at most LIMITS.devcontainerConfigBytes.
 */
export async function readDevcontainer(workspace: string): Promise<DevcontainerConfig> {
  const root = await openDirNoFollow(workspace);
  try {
    for (const file of DEVCONTAINER_FILES) {
      const parts = file.split("/");
      const name = parts.pop() as string;
      let dir;
      try {
        dir = await openDirBelow(root.fd, parts);
      } catch {
        continue;
      }
      try {
        let fh;
        try {
          fh = await fsp.open(atFd(dir.fd, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
          invalid(file, `cannot be opened (${(err as NodeJS.ErrnoException).code ?? "error"}); it must be a regular file, not a link`);
        }
        try {
          const st = await fh.stat();
          if (!st.isFile()) invalid(file, "is not a regular file");
          if (st.size > LIMITS.devcontainerConfigBytes) invalid(file, `is ${st.size} bytes; at most ${LIMITS.devcontainerConfigBytes} are read`);
          const buf = Buffer.alloc(st.size);
          const { bytesRead } = await fh.read(buf, 0, st.size, 0);
          return checkDevcontainer(file, parseDevcontainerText(file, buf.subarray(0, bytesRead).toString("utf8")));
        } finally {
          await fh.close();
        }
      } finally {
        await dir.close();
      }
    }
  } finally {
    await root.close();
  }
  throw new EnclaveError("devcontainer_invalid", `the workspace has no dev container config (looked for ${DEVCONTAINER_FILES.join(" and ")})`);
}

/** Fills in the variables a dev container's env values may use, from the image's environment. */
export function envEntries(cfg: DevcontainerConfig, imageEnv: readonly string[]): string[] {
  const imageVar = (name: string): string | undefined => imageEnv.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
  const fill = (value: string): string =>
    value.replace(/\$\{([A-Za-z]+)(?::([^}:]*))?(?::([^}]*))?\}/g, (whole, kind: string, name: string | undefined, dflt: string | undefined) => {
      if (kind === "containerEnv" && name) return imageVar(name) ?? dflt ?? "";
      if (kind === "containerWorkspaceFolder") return IN_ENCLOSURE.workspace;
      if (kind === "containerWorkspaceFolderBasename") return posix.basename(IN_ENCLOSURE.workspace);
      if (kind === "localEnv" || kind === "localWorkspaceFolder" || kind === "localWorkspaceFolderBasename") return "";
      return whole;
    });
  return cfg.env.map(({ key, value }) => `${key}=${fill(value)}`);
}

/** Counts the context's bytes on the way to the engine and stops it past the limit. */
function bounded(source: Readable, max: number, over: { hit: boolean }): Readable {
  let total = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      if (total > max) {
        over.hit = true;
        done(new Error("build context too large"));
      } else done(null, chunk);
    },
  });
  source.on("error", (err) => t.destroy(err));
  return source.pipe(t);
}

/** The build's Dockerfile, read below the context folder without following links, at most LIMITS.devcontainerConfigBytes. */
async function readDockerfile(ctxFd: number, cfg: DevcontainerConfig & { build: DevcontainerBuild }): Promise<string> {
  const parts = cfg.build.dockerfile.split("/");
  const name = parts.pop() as string;
  const what = `\`build.dockerfile\` (${cfg.build.dockerfile})`;
  const dir = await openDirBelow(ctxFd, parts).catch(() => invalid(cfg.file, `${what} is not reached without links`));
  try {
    const fh = await fsp
      .open(atFd(dir.fd, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      .catch((err: NodeJS.ErrnoException) => invalid(cfg.file, `${what} cannot be opened (${err.code ?? "error"}); it must be a regular file, not a link`));
    try {
      const st = await fh.stat();
      if (!st.isFile()) invalid(cfg.file, `${what} is not a regular file`);
      if (st.size > LIMITS.devcontainerConfigBytes) invalid(cfg.file, `${what} is ${st.size} bytes; at most ${LIMITS.devcontainerConfigBytes} are read`);
      const buf = Buffer.alloc(st.size);
      const { bytesRead } = await fh.read(buf, 0, st.size, 0);
      return buf.subarray(0, bytesRead).toString("utf8");
    } finally {
      await fh.close();
    }
  } finally {
    await dir.close();
  }
}

/**
 * Builds the dev container's image through the engine, from the context folder opened without
 * following links (so a context that is, or passes through, a link is refused rather than read).
 * The Dockerfile is read first: every base it names must be on the engine and allowed (the start's
 * image rule, as an image the workspace names), and it may ADD no URL, so the build itself fetches
 * nothing. RUN steps get no network, and run in a cgroup of ours bounding their processes and memory.
 */
export async function buildDevcontainer(
  docker: Docker,
  workspace: string,
  cfg: DevcontainerConfig & { build: DevcontainerBuild },
  opts: { tag: string; memoryBytes: number; labels: Record<string, string>; checkImage: (image: string, namedBy: ImageNamedBy) => void },
): Promise<void> {
  // The build's cgroup is made on this machine; another machine's engine would make it there, unbounded.
  if (!engineIsLocal(docker)) {
    throw new EnclaveError(
      "devcontainer_build_refused",
      `${cfg.file} builds from a Dockerfile, and a build on a remote engine cannot be bounded by this control plane: name an \`image\` on that engine instead`,
    );
  }
  const root = await openDirNoFollow(workspace);
  let ctx;
  try {
    ctx = await openDirBelow(root.fd, cfg.build.context).catch((err: NodeJS.ErrnoException) =>
      invalid(
        cfg.file,
        `\`build.context\` (${cfg.build.context.join("/") || "."}) is not a folder of the workspace reached without links (${err.code ?? err.message})`,
      ),
    );
  } finally {
    await root.close();
  }
  const over = { hit: false };
  let cgroup: Awaited<ReturnType<typeof makeBuildCgroup>> | undefined;
  try {
    const dockerfile = await readDockerfile(ctx.fd, cfg);
    await checkBuildFetches(docker, cfg.file, dockerfileFetches(cfg.file, dockerfile, cfg.build.args), opts.checkImage);
    cgroup = await makeBuildCgroup(opts.memoryBytes);
    // The engine is sent the Dockerfile just checked, not whatever the workspace holds by the time the
    // context is packed (a tenant's agent may rewrite it meanwhile).
    const checked = new Map([[cfg.build.dockerfile, Buffer.from(dockerfile, "utf8")]]);
    await engineBuild(docker, bounded(packFolder(atFd(ctx.fd), 0, 0, checked), LIMITS.devcontainerContextBytes, over), {
      tag: opts.tag,
      dockerfile: cfg.build.dockerfile,
      buildArgs: cfg.build.args,
      ...(cfg.build.target ? { target: cfg.build.target } : {}),
      labels: opts.labels,
      networkMode: "none",
      memoryBytes: opts.memoryBytes,
      cgroupParent: cgroup.parent,
      failureCode: "devcontainer_build_failed",
      timeoutMs: LIMITS.devcontainerBuildTimeoutMs,
      what: `the dev container of ${cfg.file}`,
    });
  } catch (err) {
    if (over.hit) {
      throw new EnclaveError(
        "too_large",
        `${cfg.file}: the build context is over ${LIMITS.devcontainerContextBytes} bytes; point \`build.context\` at a smaller folder`,
      );
    }
    throw err;
  } finally {
    await cgroup?.remove();
    await ctx.close();
  }
}

/** Runs postCreateCommand's steps inside the started enclosure, in order, as its user. */
export async function runPostCreate(docker: Docker, container: Docker.Container, user: string, steps: readonly PostCreateStep[]): Promise<void> {
  for (const step of steps) {
    const exec = await container.exec({ Cmd: step.argv, User: user, WorkingDir: IN_ENCLOSURE.workspace, AttachStdout: true, AttachStderr: true, Tty: false });
    const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadableStream & { destroy(): void };
    let out = "";
    const keep = (c: Buffer): void => {
      out = (out + c.toString("utf8")).slice(-LIMITS.devcontainerPostCreateOutputChars);
    };
    const sink = { write: (c: Buffer) => (keep(c), true) } as unknown as NodeJS.WritableStream;
    docker.modem.demuxStream(stream, sink, sink);
    const finished = await within(
      new Promise<boolean>((resolve) => {
        stream.on("end", () => resolve(true));
        stream.on("close", () => resolve(true));
        stream.on("error", () => resolve(true));
      }),
      LIMITS.devcontainerPostCreateTimeoutMs,
      false,
    );
    if (!finished) {
      stream.destroy();
      throw new EnclaveError(
        "devcontainer_post_create_failed",
        `${step.name} did not finish within ${LIMITS.devcontainerPostCreateTimeoutMs / 1000} s; the enclosure was removed. Last output:\n${out}`,
      );
    }
    const code = (await exec.inspect()).ExitCode;
    if (code !== 0) {
      throw new EnclaveError(
        "devcontainer_post_create_failed",
        `${step.name} exited with code ${code ?? "?"} inside the enclosure (which was removed). Last output:\n${out}`,
      );
    }
  }
}
