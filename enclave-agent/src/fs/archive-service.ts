// The Archive service: a workspace folder out as a tar stream, and a tar stream unpacked into one.
// Both go through WorkspacePaths' handles: packing walks open folders and never follows a link;
// unpacking resolves every entry like any other path, so `../`, absolute names and links that point
// out of the workspace are refused, and no entry lands elsewhere if the tree changes meanwhile.
import { isAbsolute, join } from "node:path";
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
import { errnoOf } from "./workspace-dir.js";
import type { WorkspaceDir, WorkspacePaths } from "./workspace-paths.js";

/** An entry that changed while the folder was being packed: left out, like one never seen. */
function changedMeanwhile(err: unknown): boolean {
  const code = errnoOf(err);
  return code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR" || (err instanceof AgentError && err.code === "outside_workspace");
}

async function packTree(top: WorkspaceDir, pack: Pack): Promise<void> {
  const add = (header: Partial<Header> & { name: string }, body?: Buffer): Promise<void> =>
    new Promise((ok, fail) => {
      const done = (err?: Error | null): void => (err ? fail(err) : ok());
      if (body) pack.entry(header, body, done);
      else pack.entry(header, done);
    });
  const walk = async (dir: WorkspaceDir): Promise<void> => {
    for (const name of (await dir.readNames()).sort()) {
      const st = await dir.lstatAsync(name);
      if (!st) continue;
      const rel = dir.relOf(name);
      const common = { name: rel, mode: st.mode & 0o7777, mtime: st.mtime };
      if (st.isSymbolicLink()) {
        let linkname: string;
        try {
          linkname = dir.readlink(name);
        } catch (err) {
          if (changedMeanwhile(err)) continue;
          throw err;
        }
        await add({ ...common, type: "symlink", linkname });
      } else if (st.isDirectory()) {
        let child: WorkspaceDir;
        try {
          child = dir.openDir(name);
        } catch (err) {
          if (changedMeanwhile(err)) continue;
          throw err;
        }
        try {
          await add({ ...common, name: `${rel}/`, type: "directory" });
          await walk(child);
        } finally {
          child.close();
        }
      } else if (st.isFile() && st.nlink === 1) {
        // Hard-linked files are left out: one may be a file outside the workspace.
        let body: Buffer;
        try {
          const f = await dir.openFile(name, "read");
          try {
            body = await f.handle.readFile();
          } finally {
            await f.handle.close();
          }
        } catch (err) {
          if (changedMeanwhile(err)) continue;
          throw err;
        }
        await add({ ...common, type: "file", size: body.length }, body);
      }
    }
  };
  await walk(top);
}

async function unpackEntry(paths: WorkspacePaths, destination: string, header: Header, body: Buffer): Promise<boolean> {
  const name = header.name.replace(/\/+$/, "");
  if (name === "" || name === ".") return false;
  if (isAbsolute(name)) throw new AgentError("outside_workspace", `archive entry \`${header.name}\` has an absolute name; refused`);
  const path = join(destination, name);
  const { rel } = paths.resolve(path, "write");
  switch (header.type) {
    case "directory":
      paths.openDir(path, { create: true }).close();
      return false;
    case "file":
    case "contiguous-file":
      if (body.length > LIMITS.archiveMaxEntryBytes) throw new AgentError("too_large", `archive entry \`${rel}\` is too large`);
      await writeFileAtomic(paths, path, rel, body, header.mode ? header.mode & 0o777 : undefined);
      return true;
    case "symlink": {
      const target = header.linkname ?? "";
      // The link itself is replaced, never followed; it must stay inside the workspace wherever it
      // is followed from.
      const loc = paths.locate(path, { create: true, followFinal: false });
      try {
        if (loc.name === null) throw new AgentError("invalid_argument", `archive entry \`${header.name}\` names a folder of the workspace`);
        paths.resolve(isAbsolute(target) ? target : join(loc.dir.absUnder(paths.root), target), "write");
        try {
          loc.dir.unlink(loc.name);
        } catch (err) {
          if (errnoOf(err) !== "ENOENT") throw asAgentError(err, rel);
        }
        loc.dir.symlink(target, loc.name);
      } finally {
        loc.close();
      }
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
          const top = paths.openDir(call.request.path);
          const pack = tarPack();
          const packing = packTree(top, pack)
            .finally(() => top.close())
            .then(
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
