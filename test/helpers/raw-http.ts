// A plain HTTP request with exactly the headers given (no browser adds Origin, cookies or
// Sec-Fetch-* behind the test's back); an event stream is read up to its first bytes only.
import { request as httpRequest } from "node:http";

export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export function rawRequest(opts: { port: number; path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: opts.port, path: opts.path, method: opts.method ?? "GET", headers: opts.headers, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        // An event stream never ends: read its first bytes only.
        res.on("data", (c: Buffer) => {
          chunks.push(c);
          if ((res.headers["content-type"] ?? "").startsWith("text/event-stream")) res.destroy();
        });
        res.on("close", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.end(opts.body);
  });
}
