// A control plane killed without a chance to clean up (SIGKILL, a crash, the machine losing power)
// leaves its unix socket file behind, and the next start could not listen on it. A socket file that
// nothing answers on is removed before listening; one something answers on is left, and the listen
// fails as before (another control plane serves there). Only a socket is ever removed, never a file
// or a link of another kind.
import { lstatSync, unlinkSync } from "node:fs";
import { connect } from "node:net";

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    // ECONNREFUSED: a socket file with no listener.
    s.once("error", () => resolve(false));
  });
}

/** For a `unix:PATH` listen address, removes PATH when it is a socket nothing listens on. Returns whether it did. */
export async function removeStaleSocket(listen: string): Promise<boolean> {
  if (!listen.startsWith("unix:")) return false;
  const path = listen.replace(/^unix:(\/\/)?/, "");
  let isSocket = false;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return false;
  }
  if (!isSocket || (await answers(path))) return false;
  unlinkSync(path);
  return true;
}
