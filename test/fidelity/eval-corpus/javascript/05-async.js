// Promises, top-level await and timers.
// fidelity: quick

// %%
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
await sleep(20);
"awake"

// %%
const results = await Promise.all([1, 2, 3].map(async (n) => {
  await sleep(5 * n);
  return n * 10;
}));
results

// %%
await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error("nope"))])

// %%
Promise.resolve(42)

// %%
await Promise.resolve(42)

// %%
async function fetchUser(id) {
  await sleep(1);
  if (id < 0) throw new RangeError(`bad id ${id}`);
  return { id, name: `user${id}` };
}
await fetchUser(7)

// %%
await fetchUser(-1)

// %%
const order = [];
setTimeout(() => order.push("timeout"), 0);
Promise.resolve().then(() => order.push("microtask"));
order.push("sync");
await sleep(10);
order

// %%
for await (const n of (async function* () { yield 1; yield 2; })()) console.log("got", n);

// %%
const timer = setInterval(() => {}, 1000);
clearInterval(timer);
typeof timer

// %%
await Promise.race([sleep(50).then(() => "slow"), sleep(5).then(() => "fast")])

// %%
const pending = new Promise(() => {});
pending

// %%
let resolveLater;
const later = new Promise((r) => { resolveLater = r; });
resolveLater("done");
await later
