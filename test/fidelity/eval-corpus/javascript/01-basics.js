// Values, echoes and console output.

// %%
1 + 2

// %%
const greeting = "hello";
greeting.toUpperCase()

// %%
let count = 3;
count++;
count

// %%
console.log("plain log", 42, { a: 1 });

// %%
const name = "enclave";
`${name} has ${name.length} letters`

// %%
[1, 2, 3].map((n) => n * 2)

// %%
({ a: 1, b: "two", c: [3] })

// %%
count += 1;
(count * 10)

// %%
null

// %%
undefined

// %%
"multi\nline"

// %%
console.log("multi\nline");

// %%
Math.max(3, 9, 2), Math.round(2.5), Number("12px"), parseInt("12px")

// %%
typeof 1, typeof "s", typeof null, typeof undefined, typeof {}

// %%
0.1 + 0.2

// %%
[10, 1, 2].sort()

// %%
console.error("to stderr");
console.log("to stdout");

// %%
let unset;
unset

// %%
const big = 2n ** 64n;
big

// %%
Symbol("tag")

// %%
NaN === NaN, Object.is(NaN, NaN)

// %%
let last = 0;
for (const x of [1, 2, 3]) { last = x * 10; }

// %%
if (last > 10) { "big"; } else { "small"; }
