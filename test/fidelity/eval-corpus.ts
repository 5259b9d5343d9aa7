// The eval differential suite's corpus: sessions of cells an agent really writes, one file per
// session under eval-corpus/{python,javascript}/, cells separated by `# %%` (Python) or `// %%`
// (JavaScript) lines, as notebooks in the percent format are. A session's header (the comment lines
// before its first cell) may say `fidelity: quick` to put it in the bounded subset `make test` runs.
// Every session starts in a fresh kernel, in a workspace holding a copy of eval-corpus/workspace/.
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type Language = "python" | "javascript";

export interface Session {
  language: Language;
  name: string;
  cells: string[];
  quick: boolean;
}

/** The folder of the fidelity sources (compiled runs start from dist/test/fidelity). */
export function fidelityDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.replace(/\/dist\/test\/fidelity$/, "/test/fidelity");
}

const SEPARATOR: Record<Language, RegExp> = { python: /^# %%.*$/m, javascript: /^\/\/ %%.*$/m };
const EXTENSION: Record<Language, string> = { python: ".py", javascript: ".js" };

function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\n)+/, "").replace(/(?:\n[ \t]*)+$/, "");
}

export function loadSessions(language: Language): Session[] {
  const dir = join(fidelityDir(), "eval-corpus", language);
  return readdirSync(dir)
    .filter((f) => f.endsWith(EXTENSION[language]))
    .sort()
    .map((file) => {
      const [header = "", ...cells] = readFileSync(join(dir, file), "utf8").split(new RegExp(SEPARATOR[language].source + "\\n?", "m"));
      return {
        language,
        name: file.slice(0, -EXTENSION[language].length),
        cells: cells.map(trimBlankLines).filter((c) => c !== ""),
        quick: /fidelity: quick/.test(header),
      };
    });
}

/** Empties dir (keeping the folder itself) and puts a fresh copy of the corpus workspace in it,
 * writable by whoever runs the kernel (on host placement, the sandbox's own account). */
export function prepareWorkspace(dir: string): void {
  for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
  const fixtures = join(fidelityDir(), "eval-corpus", "workspace");
  if (!existsSync(fixtures)) return;
  cpSync(fixtures, dir, { recursive: true });
  const open = (path: string): void => {
    const dirLike = statSync(path).isDirectory();
    chmodSync(path, dirLike ? 0o777 : 0o666);
    if (dirLike) for (const e of readdirSync(path)) open(join(path, e));
  };
  for (const e of readdirSync(dir)) open(join(dir, e));
}
