// What a hostile tenant types into the API, as fast-check arbitraries: image references that aim the
// engine or the control plane at a loopback port, ids and paths that climb out or carry NUL, very
// long and odd unicode strings, JSON arguments that nest deep or hold many keys, and numbers at and
// past every boundary.
import fc from "fast-check";

export interface Targets {
  /** Ports on 127.0.0.1 that listen and count connections: nothing may ever dial them. */
  canaryPorts: number[];
  /** A port nothing listens on (a dial there is refused: the path that crashed the control plane). */
  closedPort: number;
  /** Ids the caller owns, so that calls reach past the "no such id" check. */
  conversations: string[];
  runs: string[];
  /** Ids another tenant owns. */
  foreignConversations: string[];
  foreignRuns: string[];
  toolNames: string[];
}

/**
 * int64 values past what a JavaScript number holds exactly (2^53 on), as decimal strings the wire
 * encoder takes: a field set to one of them must be refused like any other bad value.
 */
export const WIDE_INT64 = [2 ** 53, -(2 ** 53), "9007199254740993", "9223372036854775807", "-9223372036854775808"] as unknown as number[];

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;

function long(unit: string, n: number): fc.Arbitrary<string> {
  return fc.constant(unit.repeat(n));
}

const NASTY = [
  "",
  " ",
  ".",
  "..",
  "../..",
  "../../../../etc/passwd",
  "/etc/passwd",
  "/etc/shadow",
  "/proc/self/environ",
  "/proc/1/root/etc/passwd",
  "/dev/zero",
  "/workspace/../etc/passwd",
  "~root/.ssh/id_rsa",
  "file:///etc/passwd",
  "\\..\\..\\windows",
  "a\u0000b",
  "\u0000",
  "%00",
  "%2e%2e%2f%2e%2e%2f",
  "a/./b/../../..",
  "-rf",
  "--help",
  "$(id)",
  "`id`",
  "; id #",
  "\r\nX-Injected: 1",
  "\u001b[2J\u001b]0;title\u0007",
  "\u202eevil",
  "\ud800",
  "😀",
  "é",
  "𝕏𝕐",
  "<script>alert(1)</script>",
  "${HOME}",
  "__proto__",
  "constructor",
  "NaN",
  "-1",
  "9".repeat(400),
  "a/".repeat(64),
  "acme.c-0000000000",
  "local",
  "*",
  "%",
];

export class HostileInputs {
  readonly image: fc.Arbitrary<string>;
  readonly text: fc.Arbitrary<string>;
  readonly path: fc.Arbitrary<string>;
  readonly conversationId: fc.Arbitrary<string>;
  /** A conversation id that is never one the caller owns (for deletes: the fixtures must stay). */
  readonly notMyConversation: fc.Arbitrary<string>;
  readonly runId: fc.Arbitrary<string>;
  readonly notMyRun: fc.Arbitrary<string>;
  readonly toolName: fc.Arbitrary<string>;
  readonly argumentsJson: fc.Arbitrary<string>;
  /** int64 fields: integers at every boundary a JavaScript number holds exactly. */
  readonly int64: fc.Arbitrary<number>;
  /** double fields: NaN, infinities, denormals, 1e-9. */
  readonly double: fc.Arbitrary<number>;
  readonly uint32: fc.Arbitrary<number>;
  readonly texts: fc.Arbitrary<string[]>;

  constructor(t: Targets) {
    const ports = [...t.canaryPorts, t.closedPort];
    const aimed = ports.flatMap((p) => [
      `../127.0.0.1:${p}/x`,
      `../127.0.0.1:${p}/attacker/path`,
      `x/../../127.0.0.1:${p}/y`,
      `./../127.0.0.1:${p}/x`,
      `127.0.0.1:${p}/x@${DIGEST}`,
      `127.0.0.1:${p}/x:latest@${DIGEST}`,
      `127.0.0.1:${p}/x:latest`,
      `127.0.0.1:${p}/x`,
      `localhost:${p}/x@${DIGEST}`,
      `127.0.0.1:${p}/x/../../../../containers/json`,
      `http://127.0.0.1:${p}/x`,
      `..%2F..%2F127.0.0.1:${p}%2Fx`,
      `enclave-runtime:latest/../../../127.0.0.1:${p}/x`,
      `x#/../../127.0.0.1:${p}/y`,
      `x?fromImage=127.0.0.1:${p}/y`,
    ]);
    const oddImages = [
      "",
      "x",
      `x@${DIGEST}`,
      `x:latest@${DIGEST}`,
      DIGEST,
      "0123456789abcdef".repeat(4),
      "enclave-devcontainer:0123456789abcdef",
      "UPPER/Case",
      "x:",
      ":x",
      "x@",
      "x:../../y",
      "-v",
      "x\u0000y",
      "x\ny",
      "é/ü:ß",
    ];
    this.image = fc.oneof(
      { arbitrary: fc.constantFrom(...aimed), weight: 6 },
      { arbitrary: fc.constantFrom(...oddImages), weight: 2 },
      { arbitrary: long("a", 70_000), weight: 1 },
      { arbitrary: fc.string({ maxLength: 80 }), weight: 1 },
    );
    const short = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 20 }));
    const longText = fc.oneof(long("x", 4_097), long("x", 70_000), long("é", 300_000), long("a/", 5_000), long("../", 2_000));
    this.text = fc.oneof(
      { arbitrary: fc.constantFrom(...NASTY), weight: 5 },
      { arbitrary: fc.constantFrom(...aimed), weight: 2 },
      { arbitrary: short, weight: 3 },
      { arbitrary: longText, weight: 1 },
    );
    this.texts = fc.array(this.text, { maxLength: 4 });
    this.path = fc.oneof(
      { arbitrary: fc.constantFrom(...NASTY), weight: 5 },
      { arbitrary: fc.constantFrom("hello.txt", "sub/dir/file.py", ".devcontainer.json", ".devcontainer/Dockerfile", "./../x"), weight: 2 },
      { arbitrary: short, weight: 2 },
      { arbitrary: longText, weight: 1 },
    );
    const variants = (ids: string[]): string[] =>
      ids.flatMap((id) => [`${id}/..`, `../${id}`, `${id}\u0000`, `${id} `, id.toUpperCase(), `fuzz.${id}`, `${id}.`, `${id}%00`, `./${id}`]);
    const foreign = [...t.foreignConversations, ...t.foreignConversations.map((id) => `other.${id}`)];
    this.notMyConversation = fc
      .oneof({ arbitrary: fc.constantFrom(...variants(t.conversations), ...foreign), weight: 3 }, { arbitrary: this.text, weight: 3 })
      .filter((id) => !t.conversations.includes(id));
    this.conversationId = fc.oneof({ arbitrary: fc.constantFrom(...t.conversations), weight: 4 }, { arbitrary: this.notMyConversation, weight: 2 });
    this.notMyRun = fc
      .oneof({ arbitrary: fc.constantFrom(...variants(t.runs), ...t.foreignRuns, "r-000000000000"), weight: 3 }, { arbitrary: this.text, weight: 3 })
      .filter((id) => !t.runs.includes(id));
    this.runId = fc.oneof({ arbitrary: fc.constantFrom(...t.runs), weight: 4 }, { arbitrary: this.notMyRun, weight: 2 });
    this.toolName = fc.oneof({ arbitrary: fc.constantFrom(...t.toolNames), weight: 4 }, { arbitrary: this.text, weight: 1 });
    this.int64 = fc.constantFrom(0, -1, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, -(2 ** 31), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1e15);
    this.double = fc.oneof(
      fc.constantFrom(0, -0, -1, 1e-9, Number.MIN_VALUE, 0.5, 1, 2, 64, 2 ** 53, 1e6, 1e308, -1e308, NaN, Infinity, -Infinity),
      fc.double(),
    );
    this.uint32 = fc.constantFrom(0, 1, 2, 2 ** 31, 2 ** 32 - 1);
    this.argumentsJson = argumentsJson(this.text, this.path, this.int64);
  }
}

/** Tool arguments: nesting and width at and past any sane bound, non-objects, non-JSON, and records of hostile fields. */
function argumentsJson(text: fc.Arbitrary<string>, path: fc.Arbitrary<string>, int: fc.Arbitrary<number>): fc.Arbitrary<string> {
  const deep = fc
    .constantFrom(1, 64, 1_000, 10_000, 100_000)
    .chain((d) =>
      fc.constantFrom(
        "[".repeat(d) + "]".repeat(d),
        `{"path":${'{"a":'.repeat(d)}1${"}".repeat(d)}}`,
        `{"command":"x","code":${"[".repeat(d)}${"]".repeat(d)}}`,
      ),
    );
  const wide = fc.constantFrom(1_000, 20_000, 100_000).map((k) => JSON.stringify(Object.fromEntries(Array.from({ length: k }, (_, i) => [`k${i}`, i]))));
  const broken = fc.constantFrom("", "{", "nul", "\u0000", "[1,]", '{"a":1}x', "1e999", "NaN", '{"a":"\\ud800"}', '{"path":"a\u0000b"}', "\ufeff{}");
  const notObjects = fc.constantFrom("null", "1", "[]", '"s"', "true", "-0", "1e999");
  const pollution = fc.constantFrom('{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"path":"x","__proto__":null}');
  const field = fc.constantFrom(
    "path",
    "paths",
    "content",
    "pattern",
    "command",
    "code",
    "language",
    "description",
    "old_string",
    "new_string",
    "patch",
    "line",
    "column",
    "offset",
    "limit",
    "timeout_ms",
    "glob",
    "query",
    "action",
    "id",
  );
  const value = fc.oneof(
    text,
    path,
    int,
    fc.constantFrom(1e-9, 1e308, -1e308, 0.5),
    fc.boolean(),
    fc.constant(null),
    fc.array(path, { maxLength: 3 }),
    fc.json({ maxDepth: 3 }).map((j) => JSON.parse(j) as unknown),
  );
  const record = fc.dictionary(field, value, { maxKeys: 5 }).map((o) => JSON.stringify(o));
  return fc.oneof(
    { arbitrary: record, weight: 6 },
    { arbitrary: deep, weight: 2 },
    { arbitrary: wide, weight: 1 },
    { arbitrary: broken, weight: 1 },
    { arbitrary: notObjects, weight: 1 },
    { arbitrary: pollution, weight: 1 },
    { arbitrary: fc.json({ maxDepth: 4 }), weight: 1 },
  );
}
