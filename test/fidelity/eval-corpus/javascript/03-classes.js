// Classes, prototypes and functions.

// %%
class Counter {
  #count = 0;
  static created = 0;
  constructor(label) {
    this.label = label;
    Counter.created++;
  }
  increment() {
    this.#count++;
    return this;
  }
  get value() {
    return this.#count;
  }
}
const c = new Counter("clicks");
c.increment().increment().value

// %%
c

// %%
Counter.created

// %%
class Shape {
  area() {
    return 0;
  }
  toString() {
    return `${this.constructor.name}(${this.area()})`;
  }
}
class Square extends Shape {
  constructor(side) {
    super();
    this.side = side;
  }
  area() {
    return this.side ** 2;
  }
}
const sq = new Square(3);
String(sq)

// %%
sq instanceof Shape, Object.getPrototypeOf(sq) === Square.prototype

// %%
sq

// %%
function add(a, b = 1) {
  return a + b;
}
add

// %%
add(2)

// %%
const arrow = (x) => x * x;
arrow

// %%
Square

// %%
function* numbers() {
  yield 1;
  yield 2;
}
[...numbers()]

// %%
numbers()

// %%
const obj = {
  first: "Ada",
  last: "Lovelace",
  get full() {
    return `${this.first} ${this.last}`;
  },
};
obj.full

// %%
obj

// %%
class Counter {
  constructor() {
    this.redefined = true;
  }
}
new Counter()
