// web-tree-sitter, initialised once, with one Language per grammar id loaded on first use from the
// agent's grammar folder. The runtime's own wasm is shipped beside the agent bundle (or found in
// node_modules when running from sources).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Language, Parser, type Range, type Tree } from "web-tree-sitter";
import { GRAMMARS, type GrammarSpec, RUNTIME_WASM } from "./grammar-registry.js";

let init: Promise<void> | undefined;

/** Bytes of (UTF-16) input a parse slice covers. */
const PARSE_SLICE_BYTES = 128 * 1024;

/**
 * Parses `source` in slices: the parse is cancelled every PARSE_SLICE_BYTES of input and resumed
 * where it stopped (tree-sitter keeps a cancelled parse's state for the next call), giving the same
 * tree. Why: V8 runs each call of a WebAssembly function in the tier it started in, so the parser's
 * loop, entered once in the quick baseline code, would stay there for a whole large file; each slice
 * is a new call, which takes the optimised code once V8 has compiled it. Measured on a 6.2 MB file,
 * the first parse in a fresh thread: median ~1.84 s CPU -> ~1.49 s (a later parse: ~1.3 s).
 * `range`: parse only that part of the text (one piece of a file cut by chunk-plan.ts); its nodes
 * keep their positions in the whole text.
 */
export function parseSource(parser: Parser, source: string, range?: Range): Tree | null {
  let stop = -1;
  let cancelled = false;
  const progressCallback = (state: { currentOffset: number }): boolean => {
    if (stop < 0) stop = state.currentOffset + PARSE_SLICE_BYTES;
    cancelled = state.currentOffset > stop;
    return cancelled;
  };
  for (;;) {
    stop = -1;
    cancelled = false;
    const tree = parser.parse(source, null, range ? { progressCallback, includedRanges: [range] } : { progressCallback });
    if (tree || !cancelled) return tree;
  }
}

function runtimeWasm(grammarDir: string): string {
  const beside = join(dirname(grammarDir), RUNTIME_WASM);
  if (existsSync(beside)) return beside;
  try {
    return join(dirname(createRequire(import.meta.url).resolve("web-tree-sitter")), RUNTIME_WASM);
  } catch {
    return beside;
  }
}

export class TreeSitterRuntime {
  private readonly languages = new Map<string, Promise<Language>>();
  private readonly parsers = new Map<string, Parser>();

  /** `unavailable` makes the error for a runtime or grammar that cannot load: the engine's is an
   * AgentError; a worker thread's is a plain Error (its message crosses to the engine), which keeps
   * the gRPC modules AgentError needs out of the worker's bundle and its start-up. */
  constructor(
    readonly grammarDir: string,
    private readonly unavailable: (message: string) => Error,
  ) {}

  private ready(): Promise<void> {
    const wasm = runtimeWasm(this.grammarDir);
    const unavailable = this.unavailable;
    init ??= Parser.init({ locateFile: () => wasm }).catch((err: unknown) => {
      init = undefined;
      throw unavailable(`the tree-sitter runtime (${wasm}) failed to load: ${(err as Error).message}; run \`make build\``);
    });
    return init;
  }

  language(g: GrammarSpec): Promise<Language> {
    let loaded = this.languages.get(g.id);
    if (!loaded) {
      const file = join(this.grammarDir, g.wasm);
      loaded = this.ready().then(async () => {
        if (!existsSync(file)) {
          throw this.unavailable(`the ${g.id} grammar (${g.wasm}) is not in ${this.grammarDir}; grammars are built by \`make build\``);
        }
        try {
          return await Language.load(file);
        } catch (err) {
          throw this.unavailable(`the ${g.id} grammar (${file}) failed to load: ${(err as Error).message}`);
        }
      });
      loaded.catch(() => this.languages.delete(g.id));
      this.languages.set(g.id, loaded);
    }
    return loaded;
  }

  /** A parser for the language; one per language, reused (calls on it are synchronous). */
  async parser(g: GrammarSpec): Promise<Parser> {
    const lang = await this.language(g);
    let p = this.parsers.get(g.id);
    if (!p) {
      p = new Parser();
      p.setLanguage(lang);
      this.parsers.set(g.id, p);
    }
    return p;
  }

  static languageIds(): string[] {
    return GRAMMARS.map((g) => g.id);
  }
}
