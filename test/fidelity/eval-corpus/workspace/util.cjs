// A CommonJS helper.
function sum(xs) {
  return xs.reduce((a, b) => a + b, 0);
}
function mean(xs) {
  if (xs.length === 0) throw new Error("mean of an empty list");
  return sum(xs) / xs.length;
}
module.exports = { sum, mean };
