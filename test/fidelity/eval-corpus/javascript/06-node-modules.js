// Node's modules and the project's own.

// %%
const fs = require("fs");
fs.readFileSync("notes.txt", "utf8").split("\n")[0]

// %%
const path = require("path");
path.join("data", "raw", "..", "file.csv")

// %%
path.extname("archive.tar.gz"), path.basename("/a/b/c.txt", ".txt")

// %%
fs.writeFileSync("out.txt", "written by a cell\n");
fs.existsSync("out.txt")

// %%
fs.readdirSync(".").sort()

// %%
fs.readFileSync("missing.txt")

// %%
const { createHash } = require("crypto");
createHash("sha256").update("enclave").digest("hex")

// %%
Buffer.from("hello")

// %%
Buffer.from("hello").toString("base64")

// %%
const util = require("util");
util.format("%s has %d items", "cart", 3)

// %%
util.inspect({ a: { b: { c: { d: 1 } } } }, { depth: 0 })

// %%
new URL("https://example.com:8080/path?q=1#frag").searchParams.get("q")

// %%
const { EventEmitter } = require("events");
const bus = new EventEmitter();
bus.on("ping", (who) => console.log("pong to", who));
bus.emit("ping", "ada")

// %%
const { execSync } = require("child_process");
execSync("echo from a child process").toString().trim()

// %%
const lib = await import("./lib.mjs");
lib.slugify("Hello, World!")

// %%
lib.default

// %%
import { parseCsv } from "./lib.mjs";
parseCsv("a,b\n1,2\n3,4")

// %%
lib.mustBePositive(-5)

// %%
const { mean, sum } = require("./util.cjs");
[sum([1, 2, 3]), mean([2, 4])]

// %%
mean([])

// %%
require("not-a-package")

// %%
const os = require("os");
typeof os.cpus().length

// %%
process.cwd() === path.resolve(".")
