// Promise: many conversations calling at once never see each other's answers. 20 conversations
// (16 on host placement, 4 in enclosures) each make 5 concurrent mixed calls, all 100 in flight
// together; every answer must carry its own call's token and no other.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const HOST = 16;
const ENCLOSED = 4;
let fx: Fixture;
const convs: { id: string; run: string; workspace: string }[] = [];

beforeAll(async () => {
  fx = await startFixture();
  for (let i = 0; i < HOST + ENCLOSED; i++) {
    const id = `xt${i}`;
    const workspace = (await fx.client.createConversation(id)).workspacePath;
    writeFileSync(join(workspace, "own.txt"), `belongs to ${id}\n`);
    if (i >= HOST) await fx.client.startEnclosure(id);
    convs.push({ id, workspace, run: (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "shell"] })).id });
  }
}, 300_000);
afterAll(async () => fx?.close());

describe("20 conversations × 5 concurrent mixed calls", () => {
  it("answers every call with its own result", async () => {
    const calls = convs.flatMap(({ id, run }) => {
      const token = (k: string): string => `${id}-${k}-${Math.random().toString(36).slice(2, 10)}`;
      const w = token("write");
      const e = token("exec");
      const ed = token("edit");
      return [
        { id, check: `belongs to ${id}`, call: () => fx.client.callTool(run, "read", { path: "own.txt" }) },
        { id, check: e, call: () => fx.client.callTool(run, "exec", { command: `sleep 0.$((RANDOM % 5)) 2>/dev/null; echo ${e}; cat own.txt` }) },
        { id, check: `${w}.txt`, call: () => fx.client.callTool(run, "write", { path: `${w}.txt`, content: w }) },
        { id, check: "own.txt", call: () => fx.client.callTool(run, "list", {}) },
        {
          id,
          check: ed,
          call: async () => {
            await fx.client.callTool(run, "write", { path: "edit-me.txt", content: "before\n" });
            await fx.client.callTool(run, "edit", { path: "edit-me.txt", old_text: "before", new_text: ed });
            return fx.client.callTool(run, "read", { path: "edit-me.txt" });
          },
        },
      ];
    });
    const results = await Promise.all(calls.map((c) => c.call()));
    results.forEach((r, i) => {
      const { id, check } = calls[i]!;
      const out = resultText(r);
      expect(r.isError, `${id}: ${out}`).toBe(false);
      expect(out, `${id} got someone else's answer`).toContain(check);
      for (const other of convs) if (other.id !== id) expect(out).not.toContain(`belongs to ${other.id}\n`);
    });
    // And the files landed in their own workspaces only.
    for (const { id, workspace } of convs) {
      expect(readFileSync(join(workspace, "edit-me.txt"), "utf8")).toMatch(new RegExp(`^${id}-edit-`));
    }
  }, 300_000);
});
