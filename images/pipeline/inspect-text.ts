// What `enclave images inspect` prints for one image: its inputs (what the content tag hashes), id
// and size, the SBOM's package counts by ecosystem, the tools it carries, and where it was pushed.
import type { Described } from "./image-describe.js";
import { sbomPath } from "@enclave/control-plane/image-set/image-records.js";
import { sbomSummary } from "./sbom.js";

function size(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let n = bytes;
  let u = 0;
  while (n >= 1000 && u < units.length - 1) {
    n /= 1000;
    u++;
  }
  return `${n.toFixed(u === 0 ? 0 : 2)} ${units[u]}`;
}

export function inspectText({ record, sbom }: Described, root?: string): string {
  const ref = `${record.name}:${record.tag}`;
  const lines = [
    ref,
    `  image id   ${record.imageId}`,
    `  size       ${size(record.sizeBytes)} (${record.sizeBytes} bytes)`,
    "  inputs     (the tag is a hash of these)",
  ];
  const width = Math.max(...record.inputs.map((i) => i.name.length));
  for (const input of record.inputs) lines.push(`    ${input.name.padEnd(width)}  ${input.value}`);
  const counts = sbomSummary(sbom);
  const countText = Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([eco, n]) => `${n} ${eco}`)
    .join(", ");
  lines.push(`  SBOM       CycloneDX ${sbom.specVersion}: ${countText || "no packages"} (${sbom.components.length} components)`);
  lines.push(`             ${sbomPath(ref, root)}`);
  const t = record.tools;
  lines.push(`  tools      node ${t.node ?? "(none)"}, python ${t.python ?? "(none)"}`);
  const servers = Object.entries(t.languageServers).map(([id, path]) => `${id} (${path})`);
  const adapters = Object.entries(t.debugAdapters).map(([id, argv]) => `${id} (${argv})`);
  lines.push(`    language servers  ${servers.join(", ") || "none"}`);
  lines.push(`    debug adapters    ${adapters.join(", ") || "none"}`);
  const pushed = Object.entries(record.pushed);
  if (!pushed.length) lines.push("  pushed     nowhere yet (enclave images push --registry HOST:PORT)");
  for (const [registry, p] of pushed) {
    lines.push(`  pushed     ${registry}: ${p.reference.replace(/:[^:/]+$/, "")}@${p.digest}`);
    lines.push(`             SBOM ${p.sbomReference} (${p.sbomDigest})`);
  }
  return lines.join("\n");
}
