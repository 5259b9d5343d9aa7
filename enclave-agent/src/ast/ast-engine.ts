// Structural search and rewrite over workspace files: resolves the path and language, compiles the
// pattern (cached), parses each file with the language's grammar and runs the matcher.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { LIMITS } from "../limits.js";
import { GRAMMARS, grammarById, grammarForPath, type GrammarSpec } from "./grammar-registry.js";
import { type Bindings, type Match, Matcher } from "./matcher.js";
import { type CompiledPattern, compilePattern } from "./pattern-compiler.js";
import { fillTemplate, indentAt, templateNames } from "./rewrite-template.js";
import { type SourceFile, walkSources, type WalkResult } from "./source-walker.js";
import { firstSyntaxProblem, type SyntaxProblem } from "./syntax-check.js";
import { parseSource, TreeSitterRuntime } from "./tree-sitter-runtime.js";
import { ParsePool, treeBudgetBytes } from "./parse-pool.js";
import { diffFromEdits, type TextEdit } from "./line-diff.js";

export interface Target {
  grammar: GrammarSpec;
  files: SourceFile[];
  skipped: WalkResult["skipped"];
}

export interface FoundMatch {
  path: string;
  match: Match;
  text: string;
}

export interface SearchOutcome {
  language: string;
  context: string;
  fillers: string[];
  matches: FoundMatch[];
  truncated: boolean;
  filesSearched: number;
  skipped: WalkResult["skipped"];
}

export interface FileRewrite {
  path: string;
  abs: string;
  sha256: string;
  before: string;
  after: string;
  replacements: number;
  edits: TextEdit[];
  /** The first syntax error of `after`, when `before` had none. */
  parseError?: SyntaxProblem;
}

export interface RewriteOutcome {
  language: string;
  context: string;
  fillers: string[];
  files: FileRewrite[];
  filesSearched: number;
}

/** The parse cache as a component of the agent's description (what `placement` shows). */
export function astCacheComponent(u: { workers: number; trees: number; bytes: number; budgetBytes: number; splitSearches?: number }): {
  kind: string;
  id: string;
  usable: boolean;
  detail: string;
} {
  const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;
  const split = u.splitSearches
    ? `; ${u.splitSearches} search${u.splitSearches === 1 ? "" : "es"} of a large file answered from pieces parsed in parallel`
    : "";
  const detail = u.workers
    ? `${u.trees} parsed tree${u.trees === 1 ? "" : "s"} kept by ${u.workers} structural-search worker${u.workers === 1 ? "" : "s"}: ~${mib(u.bytes)} of the ${mib(u.budgetBytes)} budget (estimated)${split}`
    : `no structural-search workers running (none kept); budget ${mib(u.budgetBytes)}`;
  return { kind: "cache", id: "ast-trees", usable: true, detail };
}

export function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

const languageList = GRAMMARS.map((g) => g.id).join(", ");

export class AstEngine {
  readonly runtime: TreeSitterRuntime;
  private readonly patterns = new Map<string, CompiledPattern>();
  /** Parses and matches across the cores, keeping trees; unavailable when running from sources. */
  readonly pool: ParsePool;
  /** The cache key each file's tree was last asked for under, so a write can drop the old tree. */
  private readonly keyOf = new Map<string, string>();

  constructor(
    private readonly paths: WorkspacePaths,
    grammarDir: string,
    opts: { workers?: boolean; workerEntry?: string; splitMinChars?: number } = {},
  ) {
    this.runtime = new TreeSitterRuntime(grammarDir, (message) => new AgentError("unavailable", message));
    this.pool = new ParsePool(grammarDir, opts.workerEntry, { splitMinChars: opts.splitMinChars });
    this.useWorkers = (opts.workers ?? true) && this.pool.available;
  }

  private readonly useWorkers: boolean;

  /** The agent wrote these files: their kept trees describe text that is gone. */
  forget(rels: readonly string[]): void {
    const keys: string[] = [];
    for (const rel of rels) {
      const k = this.keyOf.get(rel);
      if (k) keys.push(k);
      this.keyOf.delete(rel);
    }
    this.pool.forget(keys);
  }

  /** What the kept trees take (for placement), and how often large files were parsed in pieces. */
  cacheUsage(): { workers: number; trees: number; bytes: number; budgetBytes: number; splitSearches: number; splitFallbacks: number } {
    return { ...this.pool.usage(), budgetBytes: treeBudgetBytes() };
  }

  close(): void {
    this.pool.stop();
  }

  private grammar(language: string, path: string, isFile: boolean): GrammarSpec {
    if (language) {
      const g = grammarById(language.toLowerCase());
      if (!g) throw new AgentError("invalid_argument", `unknown language \`${language}\`; bundled grammars: ${languageList}`);
      return g;
    }
    if (!isFile)
      throw new AgentError("invalid_argument", `\`${path || "."}\` is a folder: give \`language\` (one of ${languageList}) to say which files to search`);
    const g = grammarForPath(path);
    if (!g) throw new AgentError("invalid_argument", `cannot tell the language of \`${path}\` from its extension; give \`language\` (one of ${languageList})`);
    return g;
  }

  /** `onGrammar` hears the grammar as soon as it is known, before the folder is walked. */
  async targets(path: string, language: string, onGrammar?: (g: GrammarSpec) => void): Promise<Target> {
    const { st, rel } = this.paths.stat(path, "read");
    const abs = rel === "." ? this.paths.root : join(this.paths.root, rel);
    if (st.isFile()) {
      const grammar = this.grammar(language, rel, true);
      onGrammar?.(grammar);
      if (st.size > LIMITS.astMaxFileBytes)
        throw new AgentError("too_large", `\`${rel}\` is ${st.size} bytes, over the ${LIMITS.astMaxFileBytes}-byte limit for structural search`);
      return { grammar, files: [{ abs, rel, size: st.size }], skipped: { vendored: 0, ignored: 0, binary: 0, tooLarge: 0, hardLinked: 0 } };
    }
    if (!st.isDirectory()) throw new AgentError("invalid_argument", `\`${rel}\` is neither a file nor a folder`);
    const grammar = this.grammar(language, rel, false);
    onGrammar?.(grammar);
    const walked = await walkSources(this.paths, rel, grammar.extensions);
    return { grammar, files: walked.files, skipped: walked.skipped };
  }

  async compile(grammar: GrammarSpec, pattern: string): Promise<CompiledPattern> {
    const key = `${grammar.id}\0${pattern}`;
    let compiled = this.patterns.get(key);
    if (!compiled) {
      compiled = compilePattern(await this.runtime.parser(grammar), grammar.id, pattern);
      if (this.patterns.size > 256) this.patterns.clear();
      this.patterns.set(key, compiled);
    }
    return compiled;
  }

  /** Parses one file and returns its matches (source order), at most `limit`, and whether the file
   * has syntax errors. */
  private async matchFile(grammar: GrammarSpec, compiled: CompiledPattern, source: string, limit: number): Promise<{ matches: Match[]; hasError: boolean }> {
    // A file without one of the pattern's words cannot match: skip parsing it.
    if (!compiled.requiredWords.every((w) => source.includes(w))) return { matches: [], hasError: false };
    const parser = await this.runtime.parser(grammar);
    const tree = parseSource(parser, source);
    if (!tree) return { matches: [], hasError: false };
    try {
      return { matches: new Matcher(compiled, source).findAll(tree, limit), hasError: tree.rootNode.hasError };
    } finally {
      tree.delete();
    }
  }

  /** One file's matches (at most `limit`), through a worker when there are workers. */
  private async searchFile(
    grammar: GrammarSpec,
    compiled: CompiledPattern,
    rel: string,
    limit: number,
  ): Promise<{ rel: string; source: string; matches: Match[] }> {
    const source = (await this.paths.readFile(rel, "read")).content.toString("utf8");
    if (!this.useWorkers) return { rel, source, matches: (await this.matchFile(grammar, compiled, source, limit)).matches };
    // The prefilter runs here, before anything is hashed or sent: a file without one of the
    // pattern's words cannot match.
    if (!compiled.requiredWords.every((w) => source.includes(w))) return { rel, source, matches: [] };
    const hash = createHash("sha256").update(source).digest("base64");
    const key = `${grammar.id}\0${hash}`;
    const before = this.keyOf.get(rel);
    if (before && before !== key) this.pool.forget([before]);
    this.keyOf.set(rel, key);
    const { matches } = await this.pool.match(grammar.id, hash, source, compiled, limit);
    return { rel, source, matches };
  }

  /** The first syntax error in `source` under the grammar, or undefined when it parses cleanly. */
  async syntaxProblem(grammar: GrammarSpec, source: string): Promise<SyntaxProblem | undefined> {
    const parser = await this.runtime.parser(grammar);
    const tree = parser.parse(source);
    if (!tree) return undefined;
    try {
      return firstSyntaxProblem(tree.rootNode, source, grammar.id);
    } finally {
      tree.delete();
    }
  }

  async search(req: { pattern: string; path: string; language: string; maxResults: number }): Promise<SearchOutcome> {
    // The workers start and load the grammar while the folder is walked and the pattern compiled.
    const target = await this.targets(req.path, req.language, (g) => {
      if (this.useWorkers) this.pool.prepare(g.id);
    });
    const compiled = await this.compile(target.grammar, req.pattern);
    const max = Math.min(req.maxResults > 0 ? req.maxResults : LIMITS.astDefaultMaxResults, LIMITS.astMaxResults);
    const out: SearchOutcome = {
      language: target.grammar.id,
      context: compiled.context,
      fillers: compiled.fillers,
      matches: [],
      truncated: false,
      filesSearched: 0,
      skipped: target.skipped,
    };
    // Files are read and matched ahead across the workers, and taken in order, so the matches come
    // in file order and the cap cuts the same list a one-by-one search would. What runs ahead is
    // bounded by the files being worked on, not by the first one not yet taken: a large file does
    // not stop the others from going to an idle worker meanwhile. Files done and not yet taken are
    // bounded too (by count and bytes), as their text is held until then.
    const running = this.useWorkers ? 2 * Math.max(1, this.pool.usage().workers || LIMITS.astWorkers) + 2 : 1;
    const heldFiles = 4 * running;
    const files = target.files;
    type Done = { rel: string; source: string; matches: Match[] };
    const launched = new Map<number, Promise<Done>>();
    let next = 0;
    let busy = 0;
    let heldBytes = 0;
    const launch = (): void => {
      while (next < files.length && busy < running && launched.size < heldFiles) {
        const f = files[next] as SourceFile;
        if (launched.size > 0 && heldBytes + f.size > LIMITS.astHeldBytes) break;
        const i = next++;
        busy++;
        heldBytes += f.size;
        // One more than the cap, to know whether the cap cut the list.
        const p = this.searchFile(target.grammar, compiled, f.rel, max + 1);
        launched.set(i, p);
        // Registered before anyone awaits p, so it has run by the time the loop below takes p.
        const settled = (): void => {
          busy--;
          launch();
        };
        p.then(settled, settled);
      }
    };
    launch();
    for (let i = 0; i < files.length; i++) {
      const p = launched.get(i);
      if (!p) throw new Error(`structural search: file ${i} was not started before its turn`);
      const done = await p;
      launched.delete(i);
      heldBytes -= (files[i] as SourceFile).size;
      launch();
      out.filesSearched++;
      for (const m of done.matches) out.matches.push({ path: done.rel, match: m, text: done.source.slice(m.start, m.end) });
      if (out.matches.length > max) {
        out.matches.length = max;
        out.truncated = true;
        break;
      }
    }
    return out;
  }

  async rewrite(req: { pattern: string; rewrite: string; path: string; language: string }): Promise<RewriteOutcome> {
    const target = await this.targets(req.path, req.language);
    const compiled = await this.compile(target.grammar, req.pattern);
    const unknown = templateNames(req.rewrite).filter((n) => !compiled.metaNames.includes(n));
    if (unknown.length) {
      throw new AgentError(
        "invalid_argument",
        `the rewrite uses ${unknown.map((n) => `$${n}`).join(", ")}, which the pattern does not bind (it binds ${compiled.metaNames.map((n) => `$${n}`).join(", ") || "nothing"})`,
      );
    }
    const out: RewriteOutcome = { language: target.grammar.id, context: compiled.context, fillers: compiled.fillers, files: [], filesSearched: 0 };
    for (const f of target.files) {
      const raw = (await this.paths.readFile(f.rel, "read")).content;
      const source = raw.toString("utf8");
      out.filesSearched++;
      const found = await this.matchFile(target.grammar, compiled, source, Infinity);
      const matches = outermost(found.matches);
      if (matches.length === 0) continue;
      if (!Buffer.from(source, "utf8").equals(raw)) {
        throw new AgentError(
          "failed_precondition",
          `\`${f.rel}\` is not valid UTF-8, so it cannot be rewritten without changing other bytes; narrow \`path\` to leave it out`,
        );
      }
      const edits = matches.map((m) => ({
        start: m.start,
        end: m.end,
        text: fillTemplate(req.rewrite, m.bindings as Bindings, source, indentAt(source, m.start)),
      }));
      let after = "";
      let at = 0;
      for (const e of edits) {
        after += source.slice(at, e.start) + e.text;
        at = e.end;
      }
      after += source.slice(at);
      // Matches whose rewrite is the text already there change nothing.
      if (after === source) continue;
      if (Buffer.byteLength(after) > LIMITS.writeMaxBytes)
        throw new AgentError("too_large", `the rewritten \`${f.rel}\` would be over ${LIMITS.writeMaxBytes} bytes`);
      // A rewrite must not leave code that no longer parses: say so before anyone applies it.
      const parsedBefore = !found.hasError && (await this.syntaxProblem(target.grammar, source)) === undefined;
      const parseError = parsedBefore ? await this.syntaxProblem(target.grammar, after) : undefined;
      out.files.push({
        path: f.rel,
        abs: f.abs,
        sha256: sha256(raw),
        before: source,
        after,
        replacements: matches.length,
        edits,
        ...(parseError ? { parseError } : {}),
      });
    }
    return out;
  }

  diff(f: FileRewrite): string {
    return diffFromEdits(f.path, f.before, f.edits);
  }
}

/** Nested matches cannot both be replaced: keep the outer (earlier-starting) one. */
function outermost(matches: Match[]): Match[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Match[] = [];
  let end = -1;
  for (const m of sorted) {
    if (m.start < end) continue;
    out.push(m);
    end = m.end;
  }
  return out;
}
