// The scaffolds a pattern is parsed in, per language, tried in order: statement, expression, class
// member, declaration (and, for TypeScript, type). A bare fragment is ambiguous (Dart's `dispose(x)` at top level is a function
// signature), so the first scaffold that parses without errors decides what the pattern means. The
// last rung, for languages whose statements end in `;`, is the statement with that `;` supplied.
export type ContextName = "statement" | "expression" | "class member" | "declaration" | "type" | "statement (with `;` added)";

export interface PatternContext {
  name: ContextName;
  before: string;
  after: string;
  /** Appended to the pattern itself (and so part of it). */
  suffix?: string;
  /** Indent every pattern line by this (Python class bodies). */
  indent?: string;
}

const semicolonLanguages = new Set(["dart", "java", "c", "cpp", "rust", "javascript", "typescript", "tsx"]);

function ladder(statement: [string, string], expression: [string, string] | null, member: [string, string] | null): PatternContext[] {
  const out: PatternContext[] = [{ name: "statement", before: statement[0], after: statement[1] }];
  if (expression) out.push({ name: "expression", before: expression[0], after: expression[1] });
  if (member) out.push({ name: "class member", before: member[0], after: member[1] });
  out.push({ name: "declaration", before: "", after: "" });
  return out;
}

/** TypeScript also has types (`keyof $T`, `Array<$T>`), tried after everything else. */
const TYPE: PatternContext = { name: "type", before: "type __Ctx =\n", after: "\n;" };

const LADDERS: Record<string, PatternContext[]> = {
  javascript: ladder(["function __ctx() {\n", "\n}"], ["__ctx = (\n", "\n);"], ["class __Ctx {\n", "\n}"]),
  typescript: [...ladder(["function __ctx() {\n", "\n}"], ["__ctx = (\n", "\n);"], ["class __Ctx {\n", "\n}"]), TYPE],
  tsx: [...ladder(["function __ctx() {\n", "\n}"], ["__ctx = (\n", "\n);"], ["class __Ctx {\n", "\n}"]), TYPE],
  dart: ladder(["void __ctx() {\n", "\n}"], ["var __ctx = (\n", "\n);"], ["class __Ctx {\n", "\n}"]),
  rust: ladder(["fn __ctx() {\n", "\n}"], ["fn __ctx() { let __v = (\n", "\n); }"], ["impl __Ctx {\n", "\n}"]),
  c: ladder(["void __ctx(void) {\n", "\n}"], ["void __ctx(void) { __v = (\n", "\n); }"], ["struct __Ctx {\n", "\n};"]),
  cpp: ladder(["void __ctx() {\n", "\n}"], ["void __ctx() { __v = (\n", "\n); }"], ["class __Ctx {\n", "\n};"]),
  go: ladder(["func __ctx() {\n", "\n}"], ["var __v = (\n", "\n)"], ["type __Ctx struct {\n", "\n}"]),
  java: ladder(["class __Ctx { void __ctx() {\n", "\n} }"], ["class __Ctx { Object __v = (\n", "\n); }"], ["class __Ctx {\n", "\n}"]),
  python: [
    { name: "statement", before: "", after: "" },
    { name: "expression", before: "__ctx = (\n", after: "\n)" },
    { name: "class member", before: "class __Ctx:\n", after: "\n", indent: "    " },
  ],
  bash: [{ name: "statement", before: "", after: "" }],
  json: [
    { name: "expression", before: "", after: "" },
    { name: "class member", before: "{\n", after: "\n}" },
  ],
};

/** Keywords that begin a statement, per language: a pattern starting with one is read as a statement
 * whenever that parses (in a class body, `switch (x) { … }` would also parse, as a method). */
const STATEMENT_KEYWORDS: Record<string, string[]> = {
  javascript: ["if", "for", "while", "do", "switch", "try", "return", "throw", "break", "continue"],
  c: ["if", "for", "while", "do", "switch", "return", "goto", "break", "continue"],
  go: ["if", "for", "switch", "select", "go", "defer", "return", "break", "continue", "goto", "fallthrough"],
  java: ["if", "for", "while", "do", "switch", "try", "return", "throw", "break", "continue", "synchronized"],
  rust: ["if", "for", "while", "loop", "match", "return", "let"],
};
STATEMENT_KEYWORDS.typescript = STATEMENT_KEYWORDS.javascript as string[];
STATEMENT_KEYWORDS.tsx = STATEMENT_KEYWORDS.javascript as string[];
STATEMENT_KEYWORDS.cpp = [...(STATEMENT_KEYWORDS.c as string[]), "try", "throw"];
STATEMENT_KEYWORDS.dart = STATEMENT_KEYWORDS.java as string[];

export function startsWithStatementKeyword(language: string, pattern: string): boolean {
  const word = /^[A-Za-z_]\w*/.exec(pattern.trimStart())?.[0];
  return word !== undefined && (STATEMENT_KEYWORDS[language] ?? []).includes(word);
}

export function contextsFor(language: string): PatternContext[] {
  const base = LADDERS[language] ?? [{ name: "declaration" as const, before: "", after: "" }];
  if (!semicolonLanguages.has(language)) return base;
  const statement = base[0] as PatternContext;
  return [...base, { ...statement, name: "statement (with `;` added)", suffix: ";" }];
}
