// The Archive service: a workspace folder out as a tar stream, and a tar stream unpacked into one.
// Packing walks open folders through WorkspacePaths' handles and never follows a link. Unpacking goes
// through the one careful unpacker (archive-unpack.ts) into a private folder, and the result is moved
// into place only when nothing was refused: `../`, absolute names, links that lead out of the
// workspace and special files fail the whole call, and nothing is written.
import { promises as fsp } from "node:fs";
import { basename, join } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import type { ServerReadableStream, ServerWritableStream, sendUnaryData, ServiceError } from "@grpc/grpc-js";
import { type Header, pack as tarPack, type Pack } from "tar-stream";
import type {
  ArchiveChunk,
  ArchiveInRequest,
  ArchiveInResponse,
  ArchiveOutRequest,
  ArchiveServer,
} from "../../../proto/gen/enclave/agent/v1/archive.js";
import { AgentError } from "../errors.js";
import { failStream, toServiceError } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { ArchiveLimitError, type UnpackReport, unpackTar } from "./archive-unpack.js";
import { moveTreeInto } from "./tree-move.js";
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

/** Refuses the whole archive when the unpacker left anything out: ArchiveIn is all or nothing. */
function refuseSkipped(report: UnpackReport): void {
  const first = report.skipped[0];
  if (!first) return;
  const more = report.skippedTotal > 1 ? ` (and ${report.skippedTotal - 1} more)` : "";
  const code = first.kind === "link_outside" || first.kind === "bad_name" ? "outside_workspace" : "invalid_argument";
  throw new AgentError(code, `archive entry \`${first.path}\` was refused: ${first.why}${more}; nothing was written`);
}

/** Unpacks into a private folder inside the destination, then moves the result into place. */
async function unpackInto(paths: WorkspacePaths, destination: string, archive: Readable): Promise<number> {
  const { abs, rel } = paths.resolve(destination, "write");
  await fsp.mkdir(abs, { recursive: true });
  const staging = await fsp.mkdtemp(join(abs, ".enclave-unpack-"));
  try {
    const report = await unpackTar(archive, staging, {
      depthBelowRoot: rel === "." ? 0 : rel.split("/").length,
      maxBytes: LIMITS.archiveMaxBytes,
      maxEntries: LIMITS.archiveMaxEntries,
    }).catch((err: unknown) => {
      if (err instanceof ArchiveLimitError) throw new AgentError("too_large", `${err.message}; nothing was written`);
      throw err;
    });
    refuseSkipped(report);
    await moveTreeInto(staging, abs, { mirror: false, keep: new Set([basename(staging)]) });
    return report.files + report.symlinks + report.hardLinks;
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
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
      // The destination comes first; the tar bytes that follow stream straight to the unpacker.
      const body = new PassThrough();
      let unpacking: Promise<number> | undefined;
      let failed = false;
      const begin = (destination: string): Promise<number> => {
        const p = unpackInto(paths, destination, body);
        // Once the unpacker gave up, the rest of the upload is read and dropped so the call can end.
        p.catch(() => {
          failed = true;
          call.resume();
        });
        return p;
      };
      call.on("data", (msg: ArchiveInRequest) => {
        if (msg.message?.$case === "destination" && !unpacking) {
          unpacking = begin(msg.message.value);
        } else if (msg.message?.$case === "data") {
          unpacking ??= begin("");
          if (failed || body.destroyed) return;
          if (!body.write(msg.message.value)) {
            call.pause();
            body.once("drain", () => call.resume());
          }
        }
      });
      call.on("end", () => {
        if (!body.destroyed) body.end();
        (unpacking ?? Promise.resolve(0)).then(
          (filesWritten) => callback(null, { filesWritten }),
          (err: unknown) => callback(toServiceError(err) as ServiceError, null),
        );
      });
      call.on("error", (err) => body.destroy(err));
    },
  };
}
