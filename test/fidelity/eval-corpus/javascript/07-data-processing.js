// Processing data: parsing, grouping, formatting.

// %%
const fs = require("fs");
const rows = fs.readFileSync("sales.csv", "utf8").trim().split("\n").slice(1).map((line) => {
  const [date, region, product, units, price, returned] = line.split(",");
  return { date, region, product, units: Number(units), price: Number(price), returned: returned === "yes" };
});
rows.length

// %%
rows.slice(0, 3)

// %%
const byRegion = {};
for (const r of rows) byRegion[r.region] = (byRegion[r.region] ?? 0) + r.units * r.price;
byRegion

// %%
Object.entries(byRegion).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k.padEnd(6)} ${v.toFixed(2).padStart(9)}`).join("\n")

// %%
console.log(Object.entries(byRegion).map(([k, v]) => `${k}: ${v.toFixed(2)}`).join("\n"));

// %%
console.table(rows.slice(0, 3));

// %%
const returnedShare = rows.filter((r) => r.returned).length / rows.length;
(returnedShare * 100).toFixed(1) + "%"

// %%
new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" }).format(1234.5)

// %%
new Date(Date.UTC(2024, 1, 29, 12, 0)).toISOString()

// %%
new Date(Date.UTC(2024, 0, 1))

// %%
"2024-03-05".match(/(\d+)-(\d+)-(\d+)/)

// %%
[..."2024-03-05, 2024-04-06".matchAll(/\d{4}-(\d{2})/g)].map((m) => m[1])

// %%
const months = Object.groupBy ? "has groupBy" : "no groupBy";
months

// %%
rows.map((r) => r.product).filter((p, i, all) => all.indexOf(p) === i).sort()

// %%
Math.max(...rows.map((r) => r.units))

// %%
const fmt = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });
fmt(1234567.891)
