// Parsed trees kept by content (grammar + hash of the text), least recently used dropped first, while
// their estimated size fits a budget. A tree lives in web-tree-sitter's WebAssembly memory, which
// never shrinks: the budget bounds how far it grows.
import type { Tree } from "web-tree-sitter";

/**
 * Bytes of WebAssembly memory a tree takes per byte of source, measured on this machine (JavaScript
 * of typescript@5.9.3: 6.3 MB of source grew the memory by about 190 MB, ~30 bytes a byte); the
 * estimate errs high so the budget holds.
 */
export const TREE_BYTES_PER_SOURCE_BYTE = 32;

export interface CachedTree {
  tree: Tree;
  source: string;
  bytes: number;
}

export class TreeCache {
  private readonly entries = new Map<string, CachedTree>();
  private total = 0;

  constructor(private readonly budgetBytes: number) {}

  get(key: string): CachedTree | undefined {
    const e = this.entries.get(key);
    if (e) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Keeps the tree if it fits the budget (dropping the least recently used, whose keys `dropped`
   * collects); returns it either way. `treeChars`: the characters a piece's tree covers (the whole
   * text by default); the rest of the text, held only for this piece, is counted at 2 bytes a char. */
  put(key: string, tree: Tree, source: string, dropped: string[] = [], treeChars = source.length): CachedTree {
    const entry = { tree, source, bytes: treeChars * TREE_BYTES_PER_SOURCE_BYTE + (source.length - treeChars) * 2 };
    if (entry.bytes > this.budgetBytes) return entry;
    for (const [k, old] of this.entries) {
      if (this.total + entry.bytes <= this.budgetBytes) break;
      this.entries.delete(k);
      this.total -= old.bytes;
      old.tree.delete();
      dropped.push(k);
    }
    this.entries.set(key, entry);
    this.total += entry.bytes;
    return entry;
  }

  drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.total -= e.bytes;
    e.tree.delete();
  }

  usage(): { trees: number; bytes: number } {
    return { trees: this.entries.size, bytes: this.total };
  }
}
