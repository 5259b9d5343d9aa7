// .gitignore rules, enough of git's semantics for deciding what a directory search skips: `#`
// comments, `!` negation (last rule wins), a leading or inner `/` anchors to the .gitignore's folder,
// a trailing `/` matches folders only, `*`, `?`, `[...]` and `**`.
export interface IgnoreRule {
  /** Folder (workspace-relative, "" for the root) the .gitignore lives in. */
  base: string;
  negate: boolean;
  dirOnly: boolean;
  regex: RegExp;
}

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        // `**/` any folders, `/**` everything below, `**` alone anything.
        if (glob[i + 2] === "/") {
          out += "(?:.*/)?";
          i += 2;
        } else {
          out += ".*";
          i += 1;
        }
      } else out += "[^/]*";
    } else if (ch === "?") out += "[^/]";
    else if (ch === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close < 0) out += "\\[";
      else {
        out += `[${glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else if (ch === "\\" && i + 1 < glob.length) {
      out += (glob[i + 1] as string).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      i++;
    } else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return out;
}

export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (!line || line.startsWith("#")) continue;
    let negate = false;
    if (line.startsWith("!")) {
      negate = true;
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/")) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    if (!line) continue;
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    const body = globToRegex(line);
    const regex = new RegExp(anchored ? `^${body}(?:/.*)?$` : `(?:^|/)${body}(?:/.*)?$`);
    rules.push({ base, negate, dirOnly, regex });
  }
  return rules;
}

/** Is this workspace-relative path ignored by the rules in force (outermost .gitignore first)? */
export function isIgnored(rules: readonly IgnoreRule[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of rules) {
    if (r.base && !(rel === r.base || rel.startsWith(`${r.base}/`))) continue;
    const local = r.base ? rel.slice(r.base.length + 1) : rel;
    if (!local) continue;
    // A dir-only rule matches a folder itself, or anything below a matching folder.
    const m = r.regex.exec(local);
    if (!m) continue;
    if (r.dirOnly && !isDir && !matchesAncestor(r, local)) continue;
    ignored = !r.negate;
  }
  return ignored;
}

function matchesAncestor(r: IgnoreRule, local: string): boolean {
  const parts = local.split("/");
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    const re = new RegExp(r.regex.source.replace(/\(\?:\/\.\*\)\?\$$/, "$"));
    if (re.test(prefix)) return true;
  }
  return false;
}
