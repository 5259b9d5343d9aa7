// Loads custom tools from a folder: every .js/.mjs/.ts/.mts file's default export is a
// CustomToolFactory (custom-tool-types.ts), the form the README's custom-tools section shows. Each tool becomes a
// registry Tool like the built-ins: its TypeBox/JSON Schema `parameters` shown as given and enforced
// by a JSON Schema validator, a tier (default "exec"), its `execute` run with the calling run's
// pending-action store active. A module that fails to load or returns an invalid tool is skipped and
// reported by file name with the reason; the others still load.
import { randomUUID } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { repoRoot } from "../../repo-paths.js";
import { RESOURCES, type ResourceKind } from "../../model/run.js";
import type { Tool, ToolContext, ToolOutput } from "../tool.js";
import { resultParts } from "./agent-tool-result.js";
import { type ArgumentCheck, compileArgumentSchema } from "./argument-schema.js";
import { createCustomToolApi, withPendingStore } from "./custom-tool-api.js";
import type { AnyCustomTool, CustomToolAPI, Tier } from "./custom-tool-types.js";

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const TIERS: readonly Tier[] = ["read", "write", "exec"];
const MODULE = /\.(m?js|m?ts)$/;
/** The tier of a tool that declares none: the most cautious one. */
export const DEFAULT_CUSTOM_TOOL_TIER: Tier = "exec";

export interface CustomToolLoadFailure {
  /** The module's file name within the folder. */
  file: string;
  reason: string;
}

export interface LoadedCustomTools {
  tools: Tool[];
  failures: CustomToolLoadFailure[];
}

function toTool(def: AnyCustomTool): Tool {
  if (typeof def !== "object" || def === null)
    throw new Error("the factory must return a tool ({ name, label, description, parameters, execute }) or an array of them");
  const d = def as unknown as Record<string, unknown>;
  if (typeof d.name !== "string" || !NAME.test(d.name))
    throw new Error(`name \`${String(d.name)}\` must be lower-case letters, digits and _, starting with a letter`);
  const name = d.name;
  const bad = (why: string): never => {
    throw new Error(`tool \`${name}\`: ${why}`);
  };
  if (typeof d.label !== "string" || !d.label.trim()) bad("`label` (a human name) is required");
  if (typeof d.description !== "string" || !d.description.trim()) bad("`description` is required");
  if (typeof d.execute !== "function") bad("`execute(toolCallId, params, signal, onUpdate)` is required");
  const tier = (d.tier ?? DEFAULT_CUSTOM_TOOL_TIER) as Tier;
  if (!TIERS.includes(tier)) bad(`tier must be one of ${TIERS.join(", ")} (default ${DEFAULT_CUSTOM_TOOL_TIER})`);
  const resource = (d.resource ?? "workspace") as ResourceKind;
  if (!RESOURCES.includes(resource)) bad(`resource must be one of ${RESOURCES.join(", ")}`);
  if (d.stagesOnly !== undefined && typeof d.stagesOnly !== "boolean") bad("`stagesOnly`, when given, must be true or false");
  const params = d.parameters as Record<string, unknown> | undefined;
  if (typeof params !== "object" || params === null || params.type !== "object")
    bad('`parameters` must be an object schema (pi.typebox.Type.Object({...}) or JSON Schema with type "object")');
  // What ListTools shows: the schema as given, as JSON (TypeBox's symbol-keyed markers drop out).
  const inputSchema = JSON.parse(JSON.stringify(params)) as Record<string, unknown>;
  let check: ArgumentCheck;
  try {
    check = compileArgumentSchema(name, inputSchema);
  } catch (err) {
    return bad(`\`parameters\` is not a valid JSON Schema: ${(err as Error).message}`);
  }
  const execute = def.execute.bind(def);
  return {
    name,
    tier,
    resource,
    description: def.description,
    parallelSafe: tier === "read",
    inputSchema,
    stagesOnly: def.stagesOnly ?? false,
    validate: check,
    async invoke(args: unknown, ctx: ToolContext): Promise<ToolOutput> {
      let done = false;
      const onUpdate = (partial: unknown): void => {
        // After the answer the call's stream is closed: a late update has nowhere to go.
        if (done || ctx.signal.aborted) return;
        try {
          const text = resultParts(partial, `${name}'s onUpdate`)
            .map((p) => (p.type === "text" ? p.text : `[${p.mimeType}]`))
            .join("\n");
          if (text) ctx.emit({ kind: "progress", text });
        } catch {
          // A malformed partial result is dropped: only the final result is the call's answer.
        }
      };
      try {
        const out = await withPendingStore(ctx.pending, () =>
          execute(`call_${randomUUID()}`, args, ctx.signal, onUpdate, { runId: ctx.run.id, conversationId: ctx.run.conversationId, agent: ctx.agent }),
        );
        return { parts: resultParts(out, `custom tool \`${name}\`'s execute()`) };
      } finally {
        done = true;
      }
    },
  };
}

/**
 * A module's namespace. TypeScript modules are compiled with esbuild first (types stripped, their
 * own imports bundled in; Node 20 cannot run TypeScript), then imported from memory.
 */
async function importModule(file: string): Promise<{ default?: unknown }> {
  if (!/\.m?ts$/.test(file)) return (await import(pathToFileURL(file).href)) as { default?: unknown };
  const out = await build({
    entryPoints: [file],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent",
    // A tool may import what Enclave has (TypeBox) without its own node_modules.
    nodePaths: [join(repoRoot, "node_modules")],
    // CommonJS dependencies call require(); give the in-memory module one, rooted at the source file.
    banner: {
      js: `import { createRequire as __customToolRequire } from "node:module"; const require = __customToolRequire(${JSON.stringify(pathToFileURL(file).href)});`,
    },
  });
  const code = out.outputFiles[0]?.text ?? "";
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)) as { default?: unknown };
}

async function loadModule(file: string, api: CustomToolAPI, taken: (name: string) => boolean): Promise<Tool[]> {
  let mod: { default?: unknown };
  try {
    mod = await importModule(file);
  } catch (err) {
    const e = err as Error & { errors?: { text: string; location?: { line: number } | null }[] };
    const first = e.errors?.[0];
    throw new Error(`cannot be loaded: ${first ? `${first.text}${first.location ? ` (line ${first.location.line})` : ""}` : e.message}`);
  }
  if (typeof mod.default !== "function") throw new Error("must default-export a factory: pi => ({ name, label, description, parameters, execute })");
  const made = (await (mod.default as (pi: CustomToolAPI) => unknown)(api)) as AnyCustomTool | AnyCustomTool[];
  const tools = (Array.isArray(made) ? made : [made]).map(toTool);
  const names = tools.map((t) => t.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`tool \`${twice}\` is defined twice`);
  const clash = names.find(taken);
  if (clash) throw new Error(`tool \`${clash}\` has the name of a tool already registered`);
  return tools;
}

/** Every module's tools, in file-name order; a module with any problem is skipped whole and reported. */
export async function loadCustomTools(dir: string, opts: { api?: CustomToolAPI; taken?: (name: string) => boolean } = {}): Promise<LoadedCustomTools> {
  const api = opts.api ?? createCustomToolApi();
  const taken = opts.taken ?? (() => false);
  const abs = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(abs)
      .filter((n) => MODULE.test(n) && !n.endsWith(".d.ts") && statSync(join(abs, n)).isFile())
      .sort();
  } catch (err) {
    throw new Error(`custom tools folder ${abs} cannot be read: ${(err as Error).message}`);
  }
  const loaded: LoadedCustomTools = { tools: [], failures: [] };
  for (const name of names) {
    try {
      const tools = await loadModule(join(abs, name), api, (n) => taken(n) || loaded.tools.some((t) => t.name === n));
      loaded.tools.push(...tools);
    } catch (err) {
      loaded.failures.push({ file: name, reason: (err as Error).message || String(err) });
    }
  }
  return loaded;
}
