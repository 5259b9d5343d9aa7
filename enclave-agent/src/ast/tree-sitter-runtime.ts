// web-tree-sitter, initialised once, with one Language per grammar id loaded on first use from the
// agent's grammar folder. The runtime's own wasm is shipped beside the agent bundle (or found in
// node_modules when running from sources).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Language, Parser } from "web-tree-sitter";
import { GRAMMARS, type GrammarSpec, RUNTIME_WASM } from "./grammar-registry.js";

let init: Promise<void> | undefined;

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
