// Work a cell leaves running: timers, promises nobody awaits, errors that surface later.

// %%
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
setTimeout(() => console.log("printed by a timer"), 10);
"scheduled"

// %%
await sleep(100);
"waited"

// %%
setTimeout(() => { throw new Error("late failure"); }, 10);
"scheduled a failure"

// %%
await sleep(100);
"still alive"

// %%
Promise.reject(new Error("nobody awaited this"));
"rejected in the background"

// %%
await sleep(100);
"still alive again"

// %%
async function background() {
  await sleep(5);
  throw new TypeError("background task failed");
}
background();
await sleep(100);
"after the background task"

// %%
let ticks = 0;
const interval = setInterval(() => { ticks++; }, 5);
await sleep(60);
clearInterval(interval);
ticks > 3
