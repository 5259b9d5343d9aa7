// The Archive service: a workspace folder out as a tar stream, and a tar stream unpacked into one.
// Unpacking resolves every entry through WorkspacePaths, so `../`, absolute names and links that
// point out of the workspace are refused like any other path.
import { promises as fsp } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { ServerReadableStream, ServerWritableStream, sendUnaryData, ServiceError } from "@grpc/grpc-js";
import { extract as tarExtract, type Header, pack as tarPack, type Pack } from "tar-stream";
import type {
  ArchiveChunk,
  ArchiveInRequest,
  ArchiveInResponse,
  ArchiveOutRequest,
  ArchiveServer,
} from "../../../proto/gen/enclave/agent/v1/archive.js";
import { AgentError, asAgentError } from "../errors.js";
import { failStream, toServiceError } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { writeFileAtomic } from "./atomic-write.js";
import type { WorkspacePaths } from "./workspace-paths.js";

async function packTree(paths: WorkspacePaths, root: string, pack: Pack): Promise<void> {
  const add = (header: Partial<Header> & { name: string }, body?: Buffer): Promise<void> =>
    new Promise((ok, fail) => {
      const done = (err?: Error | null): void => (err ? fail(err) : ok());
      if (body) pack.entry(header, body, done);
      else pack.entry(header, done);
    });
  const walk = async (dir: string): Promise<void> => {
    for (const name of (await fsp.readdir(dir)).sort()) {
      const abs = join(dir, name);
      const st = await fsp.lstat(abs);
      const rel = paths.relative(abs);
      const common = { name: rel, mode: st.mode & 0o7777, mtime: st.mtime };
      if (st.isSymbolicLink()) {
        await add({ ...common, type: "symlink", linkname: await fsp.readlink(abs) });
      } else if (st.isDirectory()) {
        await add({ ...common, name: `${rel}/`, type: "directory" });
        await walk(abs);
      } else if (st.isFile() && st.nlink === 1) {
        // Hard-linked files are left out: one may be a file outside the workspace.
        await add({ ...common, type: "file", size: st.size }, await fsp.readFile(abs));
      }
    }
  };
  await walk(root);
}

async function unpackEntry(paths: WorkspacePaths, destination: string, header: Header, body: Buffer): Promise<boolean> {
  const name = header.name.replace(/\/+$/, "");
  if (name === "" || name === ".") return false;
  if (isAbsolute(name)) throw new AgentError("outside_workspace", `archive entry \`${header.name}\` has an absolute name; refused`);
  const { abs, rel } = paths.resolve(join(destination, name), "write");
  switch (header.type) {
    case "directory":
      await fsp.mkdir(abs, { recursive: true });
      return false;
    case "file":
    case "contiguous-file":
      if (body.length > LIMITS.archiveMaxEntryBytes) throw new AgentError("too_large", `archive entry \`${rel}\` is too large`);
      await writeFileAtomic(abs, rel, body);
      if (header.mode) await fsp.chmod(abs, header.mode & 0o777);
      return true;
    case "symlink": {
      const target = header.linkname ?? "";
      // The link must stay inside the workspace wherever it is followed from.
      paths.resolve(isAbsolute(target) ? target : resolve(dirname(abs), target), "write");
      await fsp.mkdir(dirname(abs), { recursive: true });
      await fsp.rm(abs, { force: true });
      await fsp.symlink(target, abs);
      return true;
    }
    default:
      throw new AgentError("invalid_argument", `archive entry \`${header.name}\` is a ${header.type}, which the workspace does not take`);
  }
}

export function archiveService(paths: WorkspacePaths): ArchiveServer {
  return {
    archiveOut(call: ServerWritableStream<ArchiveOutRequest, ArchiveChunk>): void {
      void (async () => {
        try {
          const { abs, rel } = paths.resolve(call.request.path, "list");
          const st = await fsp.stat(abs).catch((err: unknown) => {
            throw asAgentError(err, rel);
          });
          if (!st.isDirectory()) throw new AgentError("invalid_argument", `\`${rel}\` is not a directory`);
          const pack = tarPack();
          const packing = packTree(paths, abs, pack).then(
            () => pack.finalize(),
            (err: unknown) => pack.destroy(err as Error),
          );
          for await (const chunk of pack as AsyncIterable<Buffer>) {
            for (let at = 0; at < chunk.length; at += LIMITS.archiveChunkBytes) {
              if (!call.write({ data: chunk.subarray(at, at + LIMITS.archiveChunkBytes) })) {
                await new Promise((r) => call.once("drain", r));
              }
            }
          }
          await packing;
          call.end();
        } catch (err) {
          failStream(call, err);
        }
      })();
    },

    archiveIn(call: ServerReadableStream<ArchiveInRequest, ArchiveInResponse>, callback: sendUnaryData<ArchiveInResponse>): void {
      let destination: string | undefined;
      const extract = tarExtract();
      let written = 0;
      const unpacking = (async () => {
        for await (const entry of extract) {
          const chunks: Buffer[] = [];
          for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
          if (await unpackEntry(paths, destination ?? "", entry.header, Buffer.concat(chunks))) written++;
        }
      })();
      unpacking.catch(() => undefined);
      call.on("data", (msg: ArchiveInRequest) => {
        if (msg.message?.$case === "destination") {
          destination = msg.message.value;
          try {
            paths.resolve(destination, "write");
          } catch (err) {
            extract.destroy(err as Error);
          }
        } else if (msg.message?.$case === "data") {
          extract.write(msg.message.value);
        }
      });
      call.on("end", () => {
        extract.end(undefined);
        unpacking.then(
          () => callback(null, { filesWritten: written }),
          (err: unknown) => callback(toServiceError(err) as ServiceError, null),
        );
      });
      call.on("error", (err) => extract.destroy(err));
    },
  };
}
