// Loads custom tools from a folder: every .js/.mjs file's default export is a CustomToolFactory. Each
// definition becomes a registry Tool like the built-ins (validated arguments, a declared tier, the
// surfaces that tier allows), its handler run with the calling run's pending-action store active.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { RESOURCES } from "../../runs/run-store.js";
import { defineTool, text, type Tool, type ToolOutput } from "../tool.js";
import { createCustomToolApi, type CustomToolDefinition, type CustomToolFactory, withPendingStore } from "./custom-tool-api.js";

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const TIERS = ["read", "write", "exec"];

function toTool(def: CustomToolDefinition, file: string): Tool {
  const where = `custom tool in ${file}`;
  if (typeof def !== "object" || def === null) throw new Error(`${where}: the factory must return a tool definition (or an array of them)`);
  if (typeof def.name !== "string" || !NAME.test(def.name)) throw new Error(`${where}: name \`${String(def.name)}\` must be lower-case letters, digits and _`);
  if (!TIERS.includes(def.tier)) throw new Error(`${where} (${def.name}): tier must be one of ${TIERS.join(", ")}`);
  if (typeof def.description !== "string" || !def.description) throw new Error(`${where} (${def.name}): a description is required`);
  if (!(def.args instanceof z.ZodType)) throw new Error(`${where} (${def.name}): args must be a schema built with api.z`);
  if (typeof def.run !== "function") throw new Error(`${where} (${def.name}): run(args, ctx) is required`);
  const resource = def.resource ?? "workspace";
  if (!RESOURCES.includes(resource)) throw new Error(`${where} (${def.name}): resource must be one of ${RESOURCES.join(", ")}`);
  return defineTool({
    name: def.name,
    tier: def.tier,
    resource,
    description: def.description,
    stagesOnly: def.stagesOnly ?? false,
    args: def.args,
    async run(args, ctx): Promise<ToolOutput> {
      const out = await withPendingStore(ctx.pending, () => def.run(args as never, ctx));
      return typeof out === "string" ? text(out) : out;
    },
  });
}

export async function loadCustomTools(dir: string): Promise<Tool[]> {
  const abs = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(abs).filter((n) => /\.(m?js)$/.test(n) && statSync(join(abs, n)).isFile()).sort();
  } catch (err) {
    throw new Error(`custom tools folder ${abs} cannot be read: ${(err as Error).message}`);
  }
  const api = createCustomToolApi();
  const tools: Tool[] = [];
  for (const name of names) {
    const file = join(abs, name);
    const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    if (typeof mod.default !== "function") throw new Error(`custom tool module ${file} must default-export a factory (api) => definition`);
    const made = (mod.default as CustomToolFactory)(api);
    for (const def of Array.isArray(made) ? made : [made]) tools.push(toTool(def, file));
  }
  return tools;
}
