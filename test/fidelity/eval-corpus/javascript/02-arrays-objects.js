// Arrays and objects, the shapes agents build and inspect.
// fidelity: quick

// %%
const people = [
  { name: "Ada", age: 36, city: "London" },
  { name: "Grace", age: 45, city: "Arlington" },
  { name: "Linus", age: 28, city: "Helsinki" },
];
people.length

// %%
people

// %%
people.filter((p) => p.age > 30).map((p) => p.name)

// %%
const byCity = Object.fromEntries(people.map((p) => [p.city, p.name]));
byCity

// %%
const { name, ...rest } = people[0];
rest

// %%
const total = people.reduce((sum, p) => sum + p.age, 0);
total / people.length

// %%
Object.entries(byCity)

// %%
const long = Array.from({ length: 150 }, (_, i) => i);
long

// %%
const deep = { level1: { level2: { level3: { level4: { level5: "deep" } } } } };
deep

// %%
[...new Set([3, 1, 3, 2, 1])]

// %%
new Map([["a", 1], ["b", 2]])

// %%
new Set(["x", "y"])

// %%
people.find((p) => p.name === "Nobody")

// %%
people[0]?.address?.street ?? "no street"

// %%
JSON.stringify(people[1])

// %%
JSON.stringify({ nested: { list: [1, 2] } }, null, 2)

// %%
console.log(JSON.stringify({ nested: { list: [1, 2] } }, null, 2));

// %%
const matrix = [[1, 2, 3], [4, 5, 6]];
matrix.map((row) => row.reduce((a, b) => a + b))

// %%
Array(3).fill(0)

// %%
[1, [2, [3, [4]]]].flat(Infinity)

// %%
Object.keys({ z: 1, a: 2, 10: "x", 2: "y" })

// %%
const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, i]));
wide
