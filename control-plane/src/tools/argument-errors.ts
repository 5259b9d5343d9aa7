// Turns schema failures into one line per problem that names the field, as a person would say it.
import type { z } from "zod";

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return "arguments";
  return path.map((p) => (typeof p === "number" ? `[${p}]` : String(p))).join(".").replace(/\.\[/g, "[");
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : typeof v;
}

export function formatArgumentErrors(tool: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const field = `\`${fieldName(issue.path)}\``;
    switch (issue.code) {
      case "invalid_type":
        if ((issue as { input?: unknown }).input === undefined) return `${field} is required (${issue.expected})`;
        return `${field} must be ${issue.expected}, not ${describeValue((issue as { input?: unknown }).input)}`;
      case "unrecognized_keys":
        return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `\`${k}\``).join(", ")}${issue.path.length ? ` in ${field}` : ""}`;
      default:
        return `${field}: ${issue.message}`;
    }
  });
  return `invalid arguments for \`${tool}\`: ${lines.join("; ")}`;
}
