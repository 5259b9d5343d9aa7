// The CycloneDX 1.5 JSON SBOM of a built image, from its inventory: one component per Debian package
// (dpkg) and per npm package of its tool folders, each with a package URL. It carries no timestamp
// and its serial number derives from the image id, so the same image always gives the same bytes.
import { createHash } from "node:crypto";
import type { Inventory, NpmPackage } from "./inventory.js";

export interface CycloneDxComponent {
  type: "library" | "application" | "container";
  "bom-ref": string;
  name: string;
  version: string;
  purl?: string;
  group?: string;
  licenses?: Array<{ license: { name: string } }>;
  hashes?: Array<{ alg: "SHA-256" | "SHA-512"; content: string }>;
  properties?: Array<{ name: string; value: string }>;
}

export interface CycloneDxBom {
  bomFormat: "CycloneDX";
  specVersion: "1.5";
  serialNumber: string;
  version: number;
  metadata: {
    tools: { components: Array<{ type: "application"; name: string; version: string }> };
    component: CycloneDxComponent;
  };
  components: CycloneDxComponent[];
}

export interface SbomSubject {
  name: string;
  tag: string;
  /** sha256:… image id. */
  imageId: string;
}

export const ECOSYSTEM_PROPERTY = "org.enclave.ecosystem";

/** A UUID (version 5 style) from a name: stable for the same image. */
function nameUuid(name: string): string {
  const h = createHash("sha1").update(`enclave-sbom:${name}`).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** purl segments are percent-encoded (an npm scope's @ becomes %40). */
function purlPart(s: string): string {
  return encodeURIComponent(s);
}

function npmComponent(p: NpmPackage): CycloneDxComponent {
  const scoped = /^(@[^/]+)\/(.+)$/.exec(p.name);
  const purl = scoped
    ? `pkg:npm/${purlPart(scoped[1] ?? "")}/${purlPart(scoped[2] ?? "")}@${purlPart(p.version)}`
    : `pkg:npm/${purlPart(p.name)}@${purlPart(p.version)}`;
  const hashes: CycloneDxComponent["hashes"] = [];
  const sri = /^sha512-([A-Za-z0-9+/=]+)$/.exec(p.integrity ?? "");
  if (sri?.[1]) hashes.push({ alg: "SHA-512", content: Buffer.from(sri[1], "base64").toString("hex") });
  return {
    type: "library",
    "bom-ref": purl,
    ...(scoped ? { group: scoped[1] ?? "", name: scoped[2] ?? "" } : { name: p.name }),
    version: p.version,
    purl,
    ...(p.license ? { licenses: [{ license: { name: p.license } }] } : {}),
    ...(hashes.length ? { hashes } : {}),
    properties: [
      { name: ECOSYSTEM_PROPERTY, value: "npm" },
      { name: "org.enclave.location", value: p.location },
    ],
  };
}

export function buildSbom(subject: SbomSubject, inv: Inventory, toolVersion: string): CycloneDxBom {
  const byRef = new Map<string, CycloneDxComponent>();
  for (const d of inv.debs) {
    const qualifiers = [d.arch ? `arch=${purlPart(d.arch)}` : "", "distro=debian"].filter(Boolean).join("&");
    const purl = `pkg:deb/debian/${purlPart(d.name)}@${purlPart(d.version)}?${qualifiers}`;
    byRef.set(purl, {
      type: "library",
      "bom-ref": purl,
      name: d.name,
      version: d.version,
      purl,
      properties: [
        { name: ECOSYSTEM_PROPERTY, value: "deb" },
        ...(d.source !== d.name || d.sourceVersion !== d.version ? [{ name: "org.enclave.deb.source", value: `${d.source} ${d.sourceVersion}` }] : []),
      ],
    });
  }
  for (const p of inv.npm) {
    const c = npmComponent(p);
    // The same package and version at two paths is one component; the first path found is named.
    if (!byRef.has(c["bom-ref"])) byRef.set(c["bom-ref"], c);
  }
  const components = [...byRef.values()].sort((a, b) => (a["bom-ref"] < b["bom-ref"] ? -1 : a["bom-ref"] > b["bom-ref"] ? 1 : 0));
  const idHex = subject.imageId.replace(/^sha256:/, "");
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    serialNumber: `urn:uuid:${nameUuid(subject.imageId)}`,
    version: 1,
    metadata: {
      tools: { components: [{ type: "application", name: "enclave images", version: toolVersion }] },
      component: {
        type: "container",
        "bom-ref": `${subject.name}:${subject.tag}`,
        name: subject.name,
        version: subject.tag,
        hashes: [{ alg: "SHA-256", content: idHex }],
        properties: [{ name: "org.enclave.image.id", value: subject.imageId }],
      },
    },
    components,
  };
}

/** Component counts by ecosystem (deb, npm), for inspect. */
export function sbomSummary(bom: CycloneDxBom): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of bom.components) {
    const eco = c.properties?.find((p) => p.name === ECOSYSTEM_PROPERTY)?.value ?? "other";
    counts[eco] = (counts[eco] ?? 0) + 1;
  }
  return counts;
}
