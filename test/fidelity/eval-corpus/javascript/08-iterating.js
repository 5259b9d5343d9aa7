// Iterating on code across cells: redefinitions, fixing errors, state.
// fidelity: quick

// %%
const prices = { apple: 1.2, pear: 0.8 };
function total(basket) {
  return Object.entries(basket).reduce((sum, [item, qty]) => sum + prices[item] * qty, 0);
}
total({ apple: 2 })

// %%
total({ kiwi: 1 })

// %%
function total(basket) {
  for (const item of Object.keys(basket)) if (!(item in prices)) throw new Error(`no price for ${item}`);
  return Object.entries(basket).reduce((sum, [item, qty]) => sum + prices[item] * qty, 0);
}
total({ kiwi: 1 })

// %%
prices.kiwi = 0.5;
total({ kiwi: 1, apple: 1 })

// %%
let attempts = 0;
attempts++;
attempts

// %%
let attempts = 10;
attempts

// %%
var legacy = "var";
legacy

// %%
globalThis.legacy

// %%
const config = { retries: 3 };
config.retries = 5;
config

// %%
let late = (() => { throw new Error("init failed"); })();

// %%
let late = "fine now";
late

// %%
const items = [];
for (let i = 0; i < 3; i++) items.push(i * i);
items

// %%
if (items.length > 2) {
  console.log("long enough");
}
