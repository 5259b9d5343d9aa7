// Turns schema failures into one line per problem that names the field, as a person would say it.
import type { z } from "zod";

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return "arguments";
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
    .join(".")
    .replace(/\.\[/g, "[");
}

/** Says why a missing field is needed (a tool whose rules depend on another field); undefined for the generic line. */
export type MissingFieldHint = (field: string) => string | undefined;

export function formatArgumentErrors(tool: string, error: z.ZodError, missingHint?: MissingFieldHint): string {
  const lines = error.issues.map((issue) => {
    const field = `\`${fieldName(issue.path)}\``;
    switch (issue.code) {
      case "invalid_type": {
        // zod says "Invalid input: expected string, received number"; only its text names the received type.
        // eslint-disable-next-line enclave/no-message-branching -- zod's wording, reworded here for people
        const received = /received (\w+)/.exec(issue.message)?.[1];
        if (!received || received === "undefined") return missingHint?.(fieldName(issue.path)) ?? `${field} is required (${issue.expected})`;
        return `${field} must be ${issue.expected}, not ${received}`;
      }
      case "unrecognized_keys":
        return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `\`${k}\``).join(", ")}${issue.path.length ? ` in ${field}` : ""}`;
      default:
        return `${field}: ${issue.message}`;
    }
  });
  return `invalid arguments for \`${tool}\`: ${lines.join("; ")}`;
}
