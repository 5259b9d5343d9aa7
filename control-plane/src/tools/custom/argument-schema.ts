// Arguments checked against a JSON Schema given by someone outside Enclave's own code (a custom tool
// module's TypeBox schema, a harness tool host's declaration): one validator, one error wording.
import { Ajv, type ErrorObject } from "ajv";

// strict: false — authors' schemas may carry keywords ajv does not know (TypeBox's own options);
// they are kept and shown, not refused.
const ajv = new Ajv({ allErrors: true, strict: false });

function fieldName(instancePath: string): string {
  if (!instancePath) return "arguments";
  return instancePath
    .slice(1)
    .split("/")
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : p.replace(/~1/g, "/").replace(/~0/g, "~")))
    .join(".")
    .replace(/\.\[/g, "[");
}

function formatSchemaErrors(tool: string, errors: ErrorObject[]): string {
  const lines = errors.map((e) => {
    const at = e.instancePath;
    if (e.keyword === "required") return `\`${fieldName(`${at}/${String((e.params as { missingProperty: string }).missingProperty)}`)}\` is required`;
    if (e.keyword === "additionalProperties")
      return `unknown field \`${String((e.params as { additionalProperty: string }).additionalProperty)}\`${at ? ` in \`${fieldName(at)}\`` : ""}`;
    return `\`${fieldName(at)}\` ${e.message ?? "is invalid"}`;
  });
  return `invalid arguments for \`${tool}\`: ${[...new Set(lines)].join("; ")}`;
}

export type ArgumentCheck = (raw: unknown) => { ok: true; args: unknown } | { ok: false; error: string };

/**
 * A Tool's validate() for this schema. Throws (with ajv's reason) when the schema itself is not a
 * valid JSON Schema; the caller says whose schema it was.
 */
export function compileArgumentSchema(tool: string, schema: Record<string, unknown>): ArgumentCheck {
  const check = ajv.compile(schema);
  return (raw) => (check(raw) ? { ok: true, args: raw } : { ok: false, error: formatSchemaErrors(tool, check.errors ?? []) });
}
