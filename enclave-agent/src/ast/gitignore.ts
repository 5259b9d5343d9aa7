// .gitignore rules for deciding what a directory search skips, as git reads them: the `ignore`
// package implements git's pattern semantics (negation, anchoring, `**`, folder-only rules, escapes);
// what is ours is only which file's rules apply where — each .gitignore speaks for its own folder
// and below, and a deeper file overrides an outer one, as in git.
import ignore, { type Ignore } from "ignore";

export interface IgnoreRule {
  /** Folder (workspace-relative, "" for the root) the .gitignore lives in. */
  base: string;
  matcher: Ignore;
}

export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const matcher = ignore().add(text);
  return [{ base, matcher }];
}

/** Is this workspace-relative path ignored by the rules in force (outermost .gitignore first)? */
export function isIgnored(rules: readonly IgnoreRule[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of rules) {
    if (r.base && !(rel === r.base || rel.startsWith(`${r.base}/`))) continue;
    const local = r.base ? rel.slice(r.base.length + 1) : rel;
    if (!local) continue;
    // A trailing slash tells the matcher it is a folder, for folder-only rules (`build/`).
    const verdict = r.matcher.test(isDir ? `${local}/` : local);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
