// ast_edit's staged change as the state database keeps it across a restart: each file's path, the
// hash its bytes had when the rewrite was computed, the new content and its replacement count. That
// is all resolve needs to apply it again; the agent still checks every hash before writing anything.
import { z } from "zod";
import type { AstFileEdit } from "@enclave/proto/gen/enclave/agent/v1/ast.js";
import type { RestorableChange } from "../../pending/pending-action-table.js";

export type StagedFile = Pick<AstFileEdit, "path" | "sha256" | "newContent" | "replacements">;

export const STAGED_EDIT_KIND = "ast_edit";

const storedFiles = z.object({
  files: z
    .array(
      z.object({
        path: z.string().min(1),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        contentBase64: z.string(),
        replacements: z.number().int().nonnegative(),
      }),
    )
    .min(1),
});

export function stagedEditChange(files: readonly StagedFile[]): RestorableChange {
  return {
    kind: STAGED_EDIT_KIND,
    data: { files: files.map((f) => ({ path: f.path, sha256: f.sha256, contentBase64: f.newContent.toString("base64"), replacements: f.replacements })) },
  };
}

/** The files of a stored change, or undefined when it is not one (another kind, or a record this version cannot read). */
export function stagedFilesOf(change: RestorableChange): StagedFile[] | undefined {
  if (change.kind !== STAGED_EDIT_KIND) return undefined;
  const parsed = storedFiles.safeParse(change.data);
  if (!parsed.success) return undefined;
  return parsed.data.files.map((f) => ({ path: f.path, sha256: f.sha256, newContent: Buffer.from(f.contentBase64, "base64"), replacements: f.replacements }));
}
