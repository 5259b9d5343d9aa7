// What a Dockerfile would make the engine fetch: the images its FROM lines and `COPY --from=` name
// (after ARG substitution, earlier stages aside) and the URLs its ADD lines name. Read as data before
// any build, so a base that is not on the engine, or a URL, is refused before dockerd is asked.
import { EnclaveError } from "../errors.js";

export interface DockerfileFetches {
  /** Image references the build would use as a base or copy from (not stage names, not `scratch`). */
  images: string[];
  /** ADD sources that are URLs (dockerd itself would fetch them). */
  urls: string[];
}

/** Lines as the builder sees them: continuations joined, comments and blank lines dropped. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimStart();
    if (!current && (line.startsWith("#") || line === "")) continue;
    if (current && line.startsWith("#")) continue;
    if (/\\\s*$/.test(raw)) {
      current += raw.replace(/\\\s*$/, "") + " ";
      continue;
    }
    out.push((current + raw).trim());
    current = "";
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

function invalid(file: string, what: string): never {
  throw new EnclaveError("devcontainer_invalid", `${file}: ${what}`);
}

/** `$X`, `${X}`, `${X:-word}`, `${X:+word}` from the args in scope; an unknown variable is empty, as the builder makes it. */
function substitute(file: string, value: string, args: ReadonlyMap<string, string>): string {
  return value.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))|\$\{[^}]*\}?/g,
    (whole, braced?: string, op?: string, word?: string, bare?: string) => {
      const name = braced ?? bare;
      if (!name) invalid(file, `\`${whole}\` is not a variable the build can read`);
      const v = args.get(name);
      if (op === "-") return v ? v : (word ?? "");
      if (op === "+") return v ? (word ?? "") : "";
      return v ?? "";
    },
  );
}

/** The value of `--from=` in a COPY/ADD line's flags, if any. */
function fromFlag(rest: string): string | undefined {
  for (const token of rest.split(/\s+/)) {
    if (!token.startsWith("--")) break;
    const m = /^--from=(.*)$/i.exec(token);
    if (m) return m[1];
  }
  return undefined;
}

/** Sources of an ADD line (JSON or shell form), flags and destination left out. */
function addSources(rest: string): string[] {
  const body = rest.replace(/^(\s*--\S+\s+)*/, "").trim();
  let parts: string[];
  if (body.startsWith("[")) {
    try {
      parts = (JSON.parse(body) as unknown[]).map(String);
    } catch {
      parts = body.split(/\s+/);
    }
  } else parts = body.split(/\s+/);
  return parts.slice(0, -1);
}

export function dockerfileFetches(file: string, text: string, buildArgs: Readonly<Record<string, string>>): DockerfileFetches {
  // Another escape character changes where lines join; such a file is refused rather than read two ways.
  if (
    /^\s*#\s*escape\s*=/im.test(
      text
        .split(/\r?\n/)
        .filter((l) => /^\s*#/.test(l) || !l.trim())
        .join("\n"),
    )
  ) {
    invalid(file, "sets an `escape` parser directive; dev container Dockerfiles use the default `\\`");
  }
  const globalArgs = new Map<string, string>();
  // FROM finds a stage by name only (`FROM 0` is the image `0`); COPY --from by name or index.
  const stages = new Set<string>();
  const stageIndexes = new Set<string>();
  let stageCount = 0;
  let seenFrom = false;
  const images: string[] = [];
  const urls: string[] = [];
  for (const line of logicalLines(text)) {
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const instruction = (m[1] ?? "").toUpperCase();
    const rest = m[2] ?? "";
    if (instruction === "ARG" && !seenFrom) {
      // Only ARGs before the first FROM reach FROM lines; a build arg given for one overrides its default.
      for (const decl of rest.split(/\s+/).filter(Boolean)) {
        const eq = decl.indexOf("=");
        const name = eq < 0 ? decl : decl.slice(0, eq);
        const dflt = eq < 0 ? undefined : decl.slice(eq + 1).replace(/^"(.*)"$/, "$1");
        const value = Object.hasOwn(buildArgs, name) ? buildArgs[name] : dflt;
        if (value !== undefined) globalArgs.set(name, substitute(file, value, globalArgs));
      }
    } else if (instruction === "FROM") {
      seenFrom = true;
      const words = rest.split(/\s+/).filter((w) => w && !w.startsWith("--"));
      const ref = substitute(file, words[0] ?? "", globalArgs);
      if (!ref) invalid(file, `\`FROM ${rest}\` names no image`);
      if (ref.toLowerCase() !== "scratch" && !stages.has(ref.toLowerCase())) images.push(ref);
      if ((words[1] ?? "").toUpperCase() === "AS" && words[2]) stages.add(words[2].toLowerCase());
      stageIndexes.add(String(stageCount++));
    } else if (instruction === "ONBUILD") {
      // A trigger runs in a later stage FROM this one (or a later build FROM this image), where its
      // ADD or COPY --from would reach the engine unread.
      invalid(file, "uses ONBUILD; a dev container Dockerfile sets no build triggers");
    } else if (instruction === "COPY" || instruction === "ADD") {
      const from = fromFlag(rest);
      if (from !== undefined && !stages.has(from.toLowerCase()) && !stageIndexes.has(from)) images.push(from);
      if (instruction === "ADD") {
        for (const src of addSources(rest)) {
          // The builder expands a stage's ARG and ENV and undoes quotes and escapes in ADD sources: such a
          // source could become a URL that is never read here.
          if (/[$\\'"]/.test(src)) invalid(file, `\`ADD ${src.slice(0, 80)}\`: an ADD source is written literally (no variable, quote or escape)`);
          if (/^[a-z][a-z0-9+.-]*:\/\//i.test(src) || /^git@/i.test(src)) urls.push(src);
        }
      }
    }
  }
  return { images, urls };
}
