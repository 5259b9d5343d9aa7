// A small ES module the project ships.
export const slugify = (s) => s.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

export function parseCsv(text) {
  const [head, ...rows] = text.trim().split("\n");
  const keys = head.split(",");
  return rows.map((r) => Object.fromEntries(r.split(",").map((v, i) => [keys[i], v])));
}

export function mustBePositive(n) {
  if (n <= 0) throw new RangeError(`expected a positive number, got ${n}`);
  return n;
}

export default { version: "1.2.0" };
