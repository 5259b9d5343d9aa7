// A dead enclosure's last log lines, demultiplexed by docker-modem as the engine sends them.
import Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { demuxedLogs } from "./docker-driver.js";

function frame(stream: 1 | 2, text: string): Buffer {
  const body = Buffer.from(text, "utf8");
  const header = Buffer.alloc(8);
  header.writeUInt8(stream, 0);
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}

describe("demuxedLogs", () => {
  // Constructing a client opens no connection; demuxing needs none.
  const modem = new Docker({ socketPath: "/nonexistent.sock" }).modem;

  it("joins stdout and stderr frames in order, without their headers", async () => {
    const logs = Buffer.concat([frame(1, "starting\n"), frame(2, "héllo: no such file\n"), frame(1, "")]);
    expect(await demuxedLogs(modem, logs)).toBe("starting\nhéllo: no such file\n");
  });

  it("passes a TTY container's unframed logs through", async () => {
    expect(await demuxedLogs(modem, Buffer.from("plain text\n"))).toBe("plain text\n");
  });

  it("gives nothing for no logs", async () => {
    expect(await demuxedLogs(modem, Buffer.alloc(0))).toBe("");
  });
});
