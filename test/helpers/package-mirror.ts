// A tiny package mirror on the host's 127.0.0.1 standing in for a platform's own: PyPI's simple index
// for one package (a real wheel, made here with Python's zipfile), an npm registry's document for the
// same package, and a blob of any size for download timings. Only ever bound to 127.0.0.1.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const MIRROR_PACKAGE = "tinypkg";
export const MIRROR_WHEEL = "tinypkg-1.0-py3-none-any.whl";

const MAKE_WHEEL = `
import io, sys, zipfile
files = {
  "tinypkg/__init__.py": "VALUE = 1\\n",
  "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: tinypkg\\nVersion: 1.0\\n",
  "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: enclave-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
files["tinypkg-1.0.dist-info/RECORD"] = "".join(f"{n},,\\n" for n in files) + "tinypkg-1.0.dist-info/RECORD,,\\n"
out = io.BytesIO()
with zipfile.ZipFile(out, "w") as z:
  for n, t in files.items(): z.writestr(n, t)
sys.stdout.buffer.write(out.getvalue())
`;

export interface PackageMirror {
  port: number;
  /** Requests served, by path. */
  requests: string[];
  close(): Promise<void>;
}

export async function startPackageMirror(): Promise<PackageMirror> {
  const wheel = execFileSync("python3", ["-c", MAKE_WHEEL]);
  const sha = createHash("sha256").update(wheel).digest("hex");
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    if (path === `/simple/${MIRROR_PACKAGE}/`) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!DOCTYPE html><html><body><a href="/files/${MIRROR_WHEEL}#sha256=${sha}">${MIRROR_WHEEL}</a></body></html>\n`);
    } else if (path === `/files/${MIRROR_WHEEL}`) {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": wheel.length });
      res.end(wheel);
    } else if (path === `/${MIRROR_PACKAGE}`) {
      // What `npm view` reads: the package's registry document.
      const port = (server.address() as AddressInfo).port;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          name: MIRROR_PACKAGE,
          "dist-tags": { latest: "1.0.0" },
          versions: { "1.0.0": { name: MIRROR_PACKAGE, version: "1.0.0", dist: { tarball: `http://127.0.0.1:${port}/files/${MIRROR_PACKAGE}-1.0.0.tgz` } } },
        }),
      );
    } else if (/^\/blob\/\d{1,9}$/.test(path)) {
      const size = Number(path.slice("/blob/".length));
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": size });
      const chunk = Buffer.alloc(64 * 1024, 7);
      let left = size;
      const more = (): void => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    } else {
      res.writeHead(404);
      res.end("not here\n");
    }
  });
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
