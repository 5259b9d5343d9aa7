import { expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { dockerfileFetches } from "./dockerfile-bases.js";

const F = "Dockerfile";

it("names every image a build would use as a base or copy from, and stages not", () => {
  const cases: Array<[string, Record<string, string>, string[]]> = [
    ["FROM debian:12\n", {}, ["debian:12"]],
    ["# comment\nFROM --platform=linux/amd64 reg.example:5000/a/b@sha256:" + "a".repeat(64) + " AS x\n", {}, ["reg.example:5000/a/b@sha256:" + "a".repeat(64)]],
    ["ARG B=one\nFROM $B\nFROM ${B}:2\nFROM ${C:-three}\nFROM x${B:+-plus}\n", {}, ["one", "one:2", "three", "x-plus"]],
    ["ARG B=one\nFROM ${B}\n", { B: "given" }, ["given"]],
    ["FROM a AS Build\nFROM build\nCOPY --from=build /x /x\nCOPY --from=0 /x /x\nCOPY --chown=1 --from=other:1 /y /y\n", {}, ["a", "other:1"]],
    ["FROM scratch\n", {}, []],
    // FROM finds a stage by name only: `FROM 0` is the image `0`; COPY --from=0 is the first stage.
    ["FROM a\nFROM 0\nCOPY --from=0 /x /x\nCOPY --from=1 /x /x\n", {}, ["a", "0"]],
    ["FROM \\\n  split:1\n", {}, ["split:1"]],
    // An ARG after the first FROM does not reach a later FROM (the builder scopes it to the stage).
    ["FROM a\nARG LATE=evil\nFROM ${LATE}b\n", {}, ["a", "b"]],
  ];
  for (const [text, args, images] of cases) expect(dockerfileFetches(F, text, args).images, text).toEqual(images);
});

it("names ADD sources that are URLs", () => {
  expect(dockerfileFetches(F, 'FROM a\nADD http://127.0.0.1:1/x /x\nADD local /y\nADD ["https://h/z", "/z"]\nADD git@github.com:a/b /b\n', {}).urls).toEqual([
    "http://127.0.0.1:1/x",
    "https://h/z",
    "git@github.com:a/b",
  ]);
});

it("refuses an escape directive and a variable it cannot read", () => {
  for (const text of [
    "# escape=`\nFROM a\n",
    "FROM ${\n",
    "FROM a AS s\nONBUILD ADD http://h/x /x\nFROM s\n",
    "FROM a\n onbuild RUN true\n",
    "FROM a\nARG U=http://h/x\nADD $U /x\n",
    "FROM a\nADD h\\ttp://h/x /x\n",
    'FROM a\nADD ["${U}", "/x"]\n',
  ]) {
    let code = "none";
    try {
      dockerfileFetches(F, text, {});
    } catch (err) {
      code = err instanceof EnclaveError ? err.code : String(err);
    }
    expect(code, text).toBe("devcontainer_invalid");
  }
});
