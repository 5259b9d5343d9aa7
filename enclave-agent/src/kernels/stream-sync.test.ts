import { describe, expect, it } from "vitest";
import { asKernelFrame } from "./kernel-frames.js";
import { FrameReader, SyncScanner } from "./stream-sync.js";

const prefix = SyncScanner.prefixFor("tok");
const marker = (n: number): Buffer => Buffer.concat([prefix, Buffer.from(`${n}\0`, "latin1")]);

function scan(chunks: Buffer[]): { data: string; reached: number } {
  let data = "";
  const s = new SyncScanner(prefix, (d) => {
    data += d.toString("latin1");
  });
  for (const c of chunks) s.feed(c);
  return { data, reached: s.reached };
}

describe("SyncScanner", () => {
  it("strips markers and records the highest one reached", () => {
    const all = Buffer.concat([Buffer.from("a\n"), marker(1), Buffer.from("b"), marker(2), Buffer.from("c")]);
    expect(scan([all])).toEqual({ data: "a\nbc", reached: 2 });
  });

  it("finds a marker split across every possible chunk boundary", () => {
    const all = Buffer.concat([Buffer.from("xy"), marker(17), Buffer.from("z")]);
    for (let cut = 0; cut <= all.length; cut++) {
      for (let cut2 = cut; cut2 <= all.length; cut2++) {
        expect(scan([all.subarray(0, cut), all.subarray(cut, cut2), all.subarray(cut2)])).toEqual({ data: "xyz", reached: 17 });
      }
    }
  });

  it("passes through NUL bytes and look-alikes that are not markers", () => {
    const other = SyncScanner.prefixFor("other");
    const all = Buffer.concat([Buffer.from("\0bin\0"), other, Buffer.from("5\0"), prefix, Buffer.from("x\0"), Buffer.from("end")]);
    const got = scan([all]);
    expect(got.reached).toBe(0);
    expect(got.data).toBe(all.toString("latin1"));
  });

  it("releases what it held back when the stream ends, and counts every marker as reached", () => {
    let data = "";
    const s = new SyncScanner(prefix, (d) => {
      data += d.toString("latin1");
    });
    s.feed(Buffer.concat([Buffer.from("tail"), prefix.subarray(0, 5)]));
    expect(data).toBe("tail");
    s.end();
    expect(data).toBe(`tail${prefix.subarray(0, 5).toString("latin1")}`);
    expect(s.reached).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("FrameReader", () => {
  it("splits JSON lines across chunks and reports unreadable ones", () => {
    const frames: unknown[] = [];
    const bad: string[] = [];
    const r = new FrameReader<unknown>(
      (f) => frames.push(f),
      (l) => bad.push(l),
    );
    r.feed(Buffer.from('{"t":"a","n":1}\n{"t":"b",'));
    r.feed(Buffer.from('"s":"é"}\nnot json\n\n'));
    expect(frames).toEqual([
      { t: "a", n: 1 },
      { t: "b", s: "é" },
    ]);
    expect(bad).toEqual(["not json"]);
  });

  it("reports a line past its limit once, without holding it, and takes nothing more", () => {
    const frames: unknown[] = [];
    const overlong: number[] = [];
    const r = new FrameReader<unknown>(
      (f) => frames.push(f),
      () => undefined,
      16,
      (n) => overlong.push(n),
    );
    r.feed(Buffer.from('{"t":"a"}\n{"t":"b",'));
    r.feed(Buffer.from('"pad":"xxxxxxxxx'));
    r.feed(Buffer.from('"}\n{"t":"c"}\n'));
    expect(frames).toEqual([{ t: "a" }]);
    expect(overlong).toEqual([25]);
  });
});

describe("asKernelFrame", () => {
  it("takes the frames runners send and nothing else", () => {
    const call = { t: "call", seq: 3, id: "b1", tool: "read", args: "{}", cell: "c2" };
    expect(asKernelFrame(call)).toEqual(call);
    expect(asKernelFrame({ ...call, cell: undefined })).toBeUndefined();
    expect(asKernelFrame({ t: "display", seq: 1, echo: false, items: [{ mime: "text/plain", text: "x" }] })).toBeDefined();
    expect(asKernelFrame({ t: "display", seq: 1, echo: false, items: null })).toBeUndefined();
    expect(asKernelFrame({ t: "display", seq: 1, echo: false, items: [{ mime: 1 }] })).toBeUndefined();
    expect(asKernelFrame({ t: "done", seq: -1, id: "c1", status: "ok", ename: "", evalue: "", traceback: "" })).toBeUndefined();
    expect(asKernelFrame({ t: "done", seq: 2, id: "c1", status: "maybe", ename: "", evalue: "", traceback: "" })).toBeUndefined();
    for (const v of [null, 5, "x", [], { t: "ready" }, { t: "other", seq: 1 }]) expect(asKernelFrame(v)).toBeUndefined();
  });
});
