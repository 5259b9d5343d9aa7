// Frames and raw output come out of KernelProcess in the order the kernel produced them, however
// the three pipes' reads interleave: here a scripted "kernel" writes output after a frame's marker
// in the same chunk, and the frame itself and the stderr marker only later.
import { describe, expect, it } from "vitest";
import { KernelProcess } from "./kernel-process.js";

const FAKE_KERNEL = String.raw`
import os, time
tok = os.environ["ENCLAVE_KERNEL_TOKEN"].encode()
def m(n): return b"\0ENCLAVE-SYNC:" + tok + b":" + str(n).encode() + b"\0"
os.write(1, m(1)); os.write(2, m(1))
os.write(3, b'{"t":"ready","seq":1,"pid":0,"interpreter":"fake"}\n')
os.read(4, 65536)
os.write(1, b"before " + m(2) + b"after ")
time.sleep(0.2)
os.write(3, b'{"t":"display","seq":2,"echo":false,"items":[{"mime":"text/plain","text":"shown"}]}\n')
time.sleep(0.2)
os.write(2, b"err " + m(2))
os.write(1, m(3)); os.write(2, m(3))
os.write(3, b'{"t":"done","seq":3,"id":"c1","status":"ok","ename":"","evalue":"","traceback":""}\n')
time.sleep(0.3)
os._exit(5)
`;

describe("KernelProcess", () => {
  it("releases each frame after the output printed before it and before the output printed after it", async () => {
    const k = await KernelProcess.start({ language: "python", argv: ["python3", "-c", FAKE_KERNEL], env: process.env, cwd: process.cwd() });
    expect(k.interpreter).toBe("fake");
    const events: string[] = [];
    const exited = new Promise<string>((resolve) =>
      k.attach({
        output: (stream, data) => events.push(`${stream}:${data.toString()}`),
        frame: (f) => events.push(`frame:${f.t}`),
        exit: resolve,
      }),
    );
    k.send({ t: "execute", id: "c1", code: "", cell: 1 });
    const fate = await exited;
    expect(events.join("|")).toBe("stdout:before |stderr:err |frame:display|stdout:after |frame:done");
    expect(fate).toBe("it exited with code 5 (for example os._exit() or process.exit() in a cell)");
  });
});
