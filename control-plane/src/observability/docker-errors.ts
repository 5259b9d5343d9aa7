// Counts failed requests to a Docker engine where every one of them passes: the engine client's
// dial (dockerode's modem), so no driver call site has to remember to. Labels are bounded: the
// request's resource (the first path segment, from a fixed list) and its HTTP status or "connection".
import type Docker from "dockerode";

const RESOURCES = new Set(["containers", "exec", "images", "volumes", "networks", "events", "info", "version", "_ping", "build", "system"]);

export function resourceOf(path: unknown): string {
  // The modem may have prefixed the API version (/v1.41/containers/…).
  const segments =
    String(path ?? "")
      .split("?")[0]
      ?.split("/")
      .filter(Boolean) ?? [];
  const first = /^v\d+\.\d+$/.test(segments[0] ?? "") ? segments[1] : segments[0];
  return first && RESOURCES.has(first) ? first : "other";
}

type Dial = (options: { path?: string }, callback: (err: unknown, data: unknown) => void) => void;

/** Wraps the engine client's dial so each failed request is reported once. */
export function countDockerErrors(docker: Docker, report: (resource: string, status: string) => void): void {
  const modem = docker.modem as unknown as { dial: Dial };
  const dial = modem.dial.bind(modem);
  modem.dial = (options, callback) =>
    dial(options, (err, data) => {
      if (err) {
        const code = (err as { statusCode?: unknown }).statusCode;
        try {
          report(resourceOf(options.path), typeof code === "number" ? String(code) : "connection");
        } catch {
          // Counting must never change what the caller gets.
        }
      }
      callback(err, data);
    });
}
