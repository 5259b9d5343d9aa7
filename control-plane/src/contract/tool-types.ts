// The clients' per-tool types, rendered from the registry's own schemas so they cannot drift: each
// tool's arguments and details as TypeScript interfaces (the Node client's generated module) and the
// schemas themselves as one JSON document (the Python client's and other languages' source).
// scripts/gen-tool-types.mjs writes both; test/unit/tool-types.test.ts fails when they are stale.
import type { Tool } from "../tools/tool.js";

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  description?: string;
}

/** One tool's published schemas: what it takes and what its results' details hold. */
export interface ToolSchemas {
  name: string;
  tier: string;
  arguments: JsonSchema;
  details: JsonSchema | null;
}

export function toolSchemas(tools: readonly Tool[]): ToolSchemas[] {
  return [...tools]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => ({
      name: t.name,
      tier: t.tier,
      arguments: strip(t.inputSchema as JsonSchema),
      details: t.detailsSchema ? strip(t.detailsSchema as JsonSchema) : null,
    }));
}

/** The JSON document: stable key order, no $schema noise per tool. */
export function renderToolSchemasJson(tools: readonly Tool[]): string {
  return `${JSON.stringify({ $comment: GENERATED_NOTE, tools: toolSchemas(tools) }, null, 2)}\n`;
}

const GENERATED_NOTE = "Generated from the tool registry by scripts/gen-tool-types.mjs; do not edit.";

function strip(s: JsonSchema): JsonSchema {
  const { $schema: _drop, ...rest } = s as JsonSchema & { $schema?: string };
  return rest;
}

/** `exec` → `Exec`, `lsp_rename` → `LspRename`. */
export function typeName(tool: string): string {
  return tool
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function key(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

function doc(description: string | undefined, indent: string): string {
  return description ? `${indent}/** ${description.replace(/\*\//g, "*\\/").replace(/\s+/g, " ")} */\n` : "";
}

/** A schema as a TypeScript type expression; objects expand inline, indented. */
export function tsType(s: JsonSchema, indent = ""): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const variants = s.oneOf ?? s.anyOf;
  if (variants) return variants.map((v) => tsType(v, indent)).join(" | ");
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return types.map((t) => tsType({ ...s, type: t }, indent)).join(" | ");
  switch (types[0]) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return s.items ? `Array<${tsType(s.items, indent)}>` : "unknown[]";
    case "object":
      return objectType(s, indent);
    default:
      return "unknown";
  }
}

function objectType(s: JsonSchema, indent: string): string {
  const props = Object.entries(s.properties ?? {});
  const extra = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
  if (props.length === 0) return extra ? `Record<string, ${tsType(extra, indent)}>` : "Record<string, never>";
  const required = new Set(s.required ?? []);
  const inner = `${indent}  `;
  const lines = props.map(([name, p]) => `${doc(p.description, inner)}${inner}${key(name)}${required.has(name) ? "" : "?"}: ${tsType(p, inner)};\n`);
  return `{\n${lines.join("")}${indent}}`;
}

/** The Node client's generated module: per tool an Arguments and a Details type, and maps by name. */
export function renderToolTypesTs(tools: readonly Tool[]): string {
  const schemas = toolSchemas(tools);
  const out: string[] = [
    `// ${GENERATED_NOTE}`,
    "// Each tool's arguments and the details its results carry (ToolResult.details_json), as ListTools publishes them.",
    "",
  ];
  for (const t of schemas) {
    const n = typeName(t.name);
    out.push(`/** What \`${t.name}\` takes. */`, `export type ${n}Arguments = ${tsType(t.arguments)};`, "");
    out.push(
      `/** The details of \`${t.name}\`'s results${t.details ? "" : " (it sends none)"}. */`,
      `export type ${n}Details = ${t.details ? tsType(t.details) : "undefined"};`,
      "",
    );
  }
  out.push("/** Every built-in tool by name. */");
  out.push(`export const TOOL_NAMES = [${schemas.map((t) => JSON.stringify(t.name)).join(", ")}] as const;`, "");
  out.push("export type ToolName = (typeof TOOL_NAMES)[number];", "");
  out.push("export interface ToolArgumentsMap {");
  for (const t of schemas) out.push(`  ${key(t.name)}: ${typeName(t.name)}Arguments;`);
  out.push("}", "");
  out.push("export interface ToolDetailsMap {");
  for (const t of schemas) out.push(`  ${key(t.name)}: ${typeName(t.name)}Details;`);
  out.push("}", "");
  return out.join("\n");
}

/** Where each rendering lives, relative to the repository root. */
export function renderToolTypeFiles(tools: readonly Tool[]): Record<string, string> {
  return {
    "clients/node/src/generated/tool-types.ts": renderToolTypesTs(tools),
    "proto/tool-schemas.json": renderToolSchemasJson(tools),
  };
}
