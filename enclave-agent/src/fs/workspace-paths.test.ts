// The path resolver's handle walk, in process: links inside the workspace are followed by the agent
// (never by the kernel) and refused when they lead out, `..` in a link's target climbs the folders
// actually walked, a FIFO or a hard link is refused without hanging, and a write replaces the name
// in the folder it checked.
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareChanges } from "./staged-changes.js";
import { type FileChange, WorkspaceWriter } from "./workspace-writer.js";
import { WorkspacePaths } from "./workspace-paths.js";
import { AgentError } from "../errors.js";
import { rejected, thrown, TranscriptLog } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

let base: string;
let ws: string;
let outside: string;
let paths: WorkspacePaths;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "ws-paths-"));
  ws = join(base, "ws");
  outside = join(base, "outside");
  mkdirSync(join(ws, "a", "b"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, "a", "b", "f.txt"), "inside\n");
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  symlinkSync("a/b", join(ws, "rel-link")); // relative, inside
  symlinkSync(join(ws, "a"), join(ws, "abs-link")); // absolute, inside
  symlinkSync("b/../../a/b/f.txt", join(ws, "a", "dotdot-link")); // `..` that stays inside
  symlinkSync("../../outside", join(ws, "a", "up-link")); // `..` that climbs out
  symlinkSync(outside, join(ws, "out-link")); // absolute, outside
  symlinkSync("loop2", join(ws, "loop1"));
  symlinkSync("loop1", join(ws, "loop2"));
  linkSync(join(outside, "secret.txt"), join(ws, "hard.txt"));
  execFileSync("mkfifo", [join(ws, "fifo")]);
  execFileSync("python3", ["-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", join(ws, "sock")]);
  paths = new WorkspacePaths(ws);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return err instanceof AgentError ? err.code : String(err);
  }
}

describe("WorkspacePaths", () => {
  it("follows links that stay inside, relative, absolute and with `..`", async () => {
    for (const p of ["rel-link/f.txt", "abs-link/b/f.txt", "a/dotdot-link", `${ws}/rel-link/f.txt`]) {
      const r = await paths.readFile(p, "read");
      expect(r.content.toString(), p).toBe("inside\n");
      expect(r.rel, p).toBe("a/b/f.txt");
    }
    expect(paths.resolve("rel-link/f.txt", "read")).toEqual({ abs: join(ws, "a/b/f.txt"), rel: "a/b/f.txt" });
  });

  it("refuses links that lead out, and says where to", async () => {
    // Each refusal's code and where it says the link leads, recorded whole.
    const log = new TranscriptLog();
    for (const p of ["out-link/secret.txt", "a/up-link/secret.txt", "out-link"]) {
      expect(await code(paths.readFile(p, "read")), p).toBe("outside_workspace");
      log.add(`readFile ${p}`, await rejected(paths.readFile(p, "read")));
    }
    log.add(
      "openDir out-link",
      thrown(() => paths.openDir("out-link")),
    );
    log.add(
      "locate a/up-link/new.txt to create it",
      thrown(() => paths.locate("a/up-link/new.txt", { create: true })),
    );
    await log.expect("transcripts/workspace-paths/links-out.txt");
  });

  it("resolve (what every lsp query names its file with) refuses a folder swapped for a link to the outside between two calls, and a hard link", async () => {
    const log = new TranscriptLog();
    mkdirSync(join(ws, "swap"), { recursive: true });
    writeFileSync(join(ws, "swap", "secret.txt"), "inside\n");
    expect(paths.resolve("swap/secret.txt", "read")).toEqual({ abs: join(ws, "swap/secret.txt"), rel: "swap/secret.txt" });
    renameSync(join(ws, "swap"), join(ws, "swap-was"));
    symlinkSync(outside, join(ws, "swap"));
    try {
      log.add(
        "swap/ swapped for a link out",
        thrown(() => paths.resolve("swap/secret.txt", "read")),
      );
    } finally {
      unlinkSync(join(ws, "swap"));
      renameSync(join(ws, "swap-was"), join(ws, "swap"));
    }
    expect(paths.resolve("swap/secret.txt", "read").rel).toBe("swap/secret.txt");
    // The last name swapped for a link to the outside, then for a hard link to an outside file.
    renameSync(join(ws, "swap", "secret.txt"), join(ws, "swap", "was.txt"));
    symlinkSync(join(outside, "secret.txt"), join(ws, "swap", "secret.txt"));
    log.add(
      "swap/secret.txt swapped for a link out",
      thrown(() => paths.resolve("swap/secret.txt", "read")),
    );
    unlinkSync(join(ws, "swap", "secret.txt"));
    linkSync(join(outside, "secret.txt"), join(ws, "swap", "secret.txt"));
    log.add(
      "swap/secret.txt swapped for a hard link",
      thrown(() => paths.resolve("swap/secret.txt", "read")),
    );
    log.add(
      "rel-link/../hard.txt",
      thrown(() => paths.resolve("rel-link/../hard.txt", "read")),
    );
    expect(paths.resolve("swap/secret.txt", "write").rel).toBe("swap/secret.txt");
    await log.expect("transcripts/workspace-paths/swapped-and-hard-links.txt");
  });

  it("names a path the same however it is spelled (the plain relative form skips resolving it)", () => {
    const want = { abs: join(ws, "a/b/f.txt"), rel: "a/b/f.txt" };
    for (const p of ["a/b/f.txt", "./a/b/f.txt", "a//b/f.txt", "a/./b/f.txt", "a/b/../b/f.txt", `${ws}/a/b/f.txt`, "a/b/f.txt/."]) {
      expect(paths.resolve(p, "read"), p).toEqual(want);
    }
    for (const p of ["", ".", "./", "a/.."]) expect(paths.resolve(p, "read"), p).toEqual({ abs: ws, rel: "." });
    expect(paths.resolve("a/b/", "read")).toEqual({ abs: join(ws, "a/b"), rel: "a/b" });
    expect(paths.resolve("a\\b", "read")).toEqual({ abs: join(ws, "a\\b"), rel: "a\\b" });
  });

  it("refuses lexical escapes before touching anything", async () => {
    for (const p of ["../outside/secret.txt", "/etc/passwd", "a/../../outside/secret.txt"]) {
      expect(await code(paths.readFile(p, "read")), p).toBe("outside_workspace");
    }
  });

  it("stops a link loop, and refuses a FIFO, a socket and a hard link without hanging", async () => {
    const log = new TranscriptLog();
    for (const p of ["loop1", "fifo", "sock"]) log.add(`readFile ${p}`, await rejected(paths.readFile(p, "read")));
    await log.expect("transcripts/workspace-paths/loop-fifo-socket.txt");
    expect(await code(paths.readFile("hard.txt", "read"))).toBe("outside_workspace");
  });

  it("names what is not a folder, and what is missing", async () => {
    await expectTranscript(
      thrown(() => paths.openDir("a/b/f.txt")),
      "transcripts/workspace-paths/not-a-folder.txt",
    );
    expect(await code(paths.readFile("a/missing/x", "read"))).toBe("not_found");
    expect(await code(paths.readFile("a/b/f.txt/x", "read"))).toBe("invalid_argument");
    expect(await code(paths.readFile("fifo/x", "read"))).toBe("invalid_argument");
    expect(paths.resolve("a/new/deeper/x.txt", "write")).toEqual({ abs: join(ws, "a/new/deeper/x.txt"), rel: "a/new/deeper/x.txt" });
  });

  it("writes through an inside link to its target, and makes missing folders", async () => {
    const journal = join(base, "journal");
    mkdirSync(journal, { recursive: true });
    const writer = new WorkspaceWriter(paths, journal);
    const write = (changes: FileChange[]) => writer.change((commit) => commit(changes));
    await write([{ path: "rel-link/g.txt", rel: "rel-link/g.txt", content: Buffer.from("via link\n") }]);
    expect(readFileSync(join(ws, "a/b/g.txt"), "utf8")).toBe("via link\n");
    await write([{ path: "made/on/the/way.txt", rel: "made/on/the/way.txt", content: Buffer.from("x") }]);
    expect(readFileSync(join(ws, "made/on/the/way.txt"), "utf8")).toBe("x");
  });

  it("writes into the folder it checked even when that folder's path is re-pointed before the rename", async () => {
    mkdirSync(join(ws, "moving"));
    const staged = prepareChanges(paths, [{ path: "moving/x.txt", rel: "moving/x.txt", content: Buffer.from("kept inside\n") }]);
    // Between the check and the write: the folder moves away and a link to the outside takes its name.
    execFileSync("mv", [join(ws, "moving"), join(ws, "moved")]);
    symlinkSync(outside, join(ws, "moving"));
    await staged.write();
    await staged.commit();
    expect(readFileSync(join(ws, "moved/x.txt"), "utf8")).toBe("kept inside\n");
    expect(execFileSync("ls", ["-A", outside]).toString().trim().split("\n")).toEqual(["secret.txt"]);
  });

  it("replaces a link at the written name instead of writing where it points", async () => {
    symlinkSync(join(outside, "secret.txt"), join(ws, "a", "swapped.txt"));
    const loc = paths.locate("a/swapped.txt", { followFinal: false });
    try {
      const handle = await loc.dir.createFile(".tmp-swap", 0o644);
      await handle.writeFile("mine\n");
      await handle.close();
      loc.dir.rename(".tmp-swap", loc.name as string);
    } finally {
      loc.close();
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(readFileSync(join(ws, "a", "swapped.txt"), "utf8")).toBe("mine\n");
  });
});
