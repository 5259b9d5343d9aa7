// Errors and stack traces.
// fidelity: quick

// %%
notDefined + 1

// %%
function thrower() {
  throw new Error("boom");
}

// %%
thrower()

// %%
const value = thrower();

// %%
null.property

// %%
const user = undefined;
user.name

// %%
class ValidationError extends Error {
  constructor(field) {
    super(`invalid field: ${field}`);
    this.name = "ValidationError";
    this.field = field;
  }
}
throw new ValidationError("email");

// %%
try {
  JSON.parse("{bad json}");
} catch (err) {
  console.log("caught:", err.name);
}

// %%
JSON.parse("{bad json}")

// %%
throw "a plain string";

// %%
throw { code: 42 };

// %%
let x = );

// %%
function broken( {

// %%
const same = 1;
const same = 2;

// %%
async function failLater() {
  await null;
  throw new TypeError("async failure");
}
await failLater()

// %%
[].reduce((a, b) => a + b)

// %%
new Array(-1)

// %%
"abc".toFixed(2)

// %%
const err = new Error("not thrown");
err.message

// %%
function level1() { return level2(); }
function level2() { return level3(); }
function level3() { throw new RangeError("too deep"); }
level1()

// %%
console.log("before");
thrower();
console.log("never");
