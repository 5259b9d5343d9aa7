// The shape of the SBOMs the pipeline writes, as a JSON Schema of the CycloneDX 1.5 fields they use
// (the official schema's rules for those fields: required members, enums, purl and hash forms). The
// tests and `enclave images verify` check stored SBOMs against it.
import { Ajv, type ErrorObject } from "ajv";

const hash = {
  type: "object",
  required: ["alg", "content"],
  additionalProperties: false,
  properties: {
    alg: { enum: ["MD5", "SHA-1", "SHA-256", "SHA-384", "SHA-512", "SHA3-256", "SHA3-384", "SHA3-512", "BLAKE2b-256", "BLAKE2b-384", "BLAKE2b-512", "BLAKE3"] },
    content: { type: "string", pattern: "^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$" },
  },
};
const property = {
  type: "object",
  required: ["name", "value"],
  additionalProperties: false,
  properties: { name: { type: "string" }, value: { type: "string" } },
};
const component = {
  type: "object",
  required: ["type", "name"],
  additionalProperties: false,
  properties: {
    type: {
      enum: [
        "application",
        "framework",
        "library",
        "container",
        "platform",
        "operating-system",
        "device",
        "device-driver",
        "firmware",
        "file",
        "machine-learning-model",
        "data",
      ],
    },
    "bom-ref": { type: "string", minLength: 1 },
    group: { type: "string" },
    name: { type: "string", minLength: 1 },
    version: { type: "string" },
    purl: { type: "string", pattern: "^pkg:[a-z][a-z0-9.+-]*/" },
    licenses: {
      type: "array",
      items: {
        type: "object",
        required: ["license"],
        additionalProperties: false,
        properties: { license: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
      },
    },
    hashes: { type: "array", items: hash },
    properties: { type: "array", items: property },
  },
};

export const SBOM_SCHEMA = {
  type: "object",
  required: ["bomFormat", "specVersion", "serialNumber", "version", "metadata", "components"],
  additionalProperties: false,
  properties: {
    bomFormat: { const: "CycloneDX" },
    specVersion: { const: "1.5" },
    serialNumber: { type: "string", pattern: "^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$" },
    version: { type: "integer", minimum: 1 },
    metadata: {
      type: "object",
      required: ["component"],
      properties: {
        tools: { type: "object", properties: { components: { type: "array", items: component } } },
        component,
      },
    },
    components: { type: "array", items: component },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile(SBOM_SCHEMA);

/** Problems with an SBOM's shape, each as "path: what"; empty when it conforms. */
export function sbomShapeProblems(bom: unknown): string[] {
  const problems: string[] = [];
  if (!validate(bom)) problems.push(...(validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || "/"}: ${e.message ?? "invalid"}`));
  if (problems.length) return problems;
  // bom-refs must be unique within a BOM (the specification's rule, not expressible in the schema).
  const refs = new Set<string>();
  for (const c of (bom as { components: Array<{ "bom-ref"?: string }> }).components) {
    const ref = c["bom-ref"];
    if (ref === undefined) continue;
    if (refs.has(ref)) problems.push(`/components: bom-ref ${ref} appears twice`);
    refs.add(ref);
  }
  return problems;
}
