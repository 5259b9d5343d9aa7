// What a rename's new name must be in each language: a plain identifier of that language, not one of
// its reserved words. Servers do not all check (pyright and tsserver apply `not valid` and leave a
// syntax error in every file), so the agent refuses such a name before asking the server.

interface IdentifierRule {
  language: string;
  pattern: RegExp;
  /** What the pattern allows, for the error message. */
  shape: string;
  reserved: ReadonlySet<string>;
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

// Unicode identifiers as most modern languages define them (UAX #31).
const XID = /^[\p{XID_Start}_][\p{XID_Continue}]*$/u;

const PYTHON = words(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield",
);
const JAVASCRIPT = words(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "implements interface let package private protected public static yield await",
);
const C = words(
  "auto break case char const continue default do double else enum extern float for goto if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while " +
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local",
);
const CPP = new Set([
  ...C,
  ...words(
    "alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t class compl concept consteval constexpr constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export false friend mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public reinterpret_cast requires static_assert static_cast template this thread_local throw true try typeid typename using virtual wchar_t xor xor_eq",
  ),
]);
const GO = words(
  "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
);
const RUST = words(
  "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while abstract become box do final macro override priv typeof unsized virtual yield try",
);
const DART = words(
  "assert break case catch class const continue default do else enum extends false final finally for if in is new null rethrow return super switch this throw true try var void while with",
);
const SHELL = words("if then else elif fi case esac for select while until do done in function time");

const RULES: readonly IdentifierRule[] = [
  { language: "python", pattern: XID, shape: "a letter or _ followed by letters, digits or _", reserved: PYTHON },
  ...["typescript", "javascript", "typescriptreact", "javascriptreact"].map((language) => ({
    language,
    pattern: /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u,
    shape: "a letter, $ or _ followed by letters, digits, $ or _",
    reserved: JAVASCRIPT,
  })),
  { language: "c", pattern: XID, shape: "a letter or _ followed by letters, digits or _", reserved: C },
  { language: "cpp", pattern: XID, shape: "a letter or _ followed by letters, digits or _", reserved: CPP },
  { language: "go", pattern: /^[\p{L}_][\p{L}\p{Nd}_]*$/u, shape: "a letter or _ followed by letters, digits or _", reserved: GO },
  {
    language: "rust",
    pattern: /^(r#)?[\p{XID_Start}_][\p{XID_Continue}]*$/u,
    shape: "a letter or _ followed by letters, digits or _ (r#name for a raw identifier)",
    reserved: RUST,
  },
  { language: "dart", pattern: /^[A-Za-z_$][A-Za-z0-9_$]*$/, shape: "an ASCII letter, $ or _ followed by letters, digits, $ or _", reserved: DART },
  { language: "shellscript", pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, shape: "an ASCII letter or _ followed by letters, digits or _", reserved: SHELL },
];

const NAMES: Record<string, string> = {
  python: "Python",
  typescript: "TypeScript",
  typescriptreact: "TypeScript",
  javascript: "JavaScript",
  javascriptreact: "JavaScript",
  c: "C",
  cpp: "C++",
  go: "Go",
  rust: "Rust",
  dart: "Dart",
  shellscript: "shell",
};

/** Why `name` cannot be a new name in `languageId`, or undefined when it can. */
export function invalidIdentifier(languageId: string, name: string): string | undefined {
  const lang = NAMES[languageId] ?? languageId;
  if (!name.trim()) return "it is empty";
  const rule = RULES.find((r) => r.language === languageId);
  if (!rule) return /\s/.test(name) ? "it contains white space" : undefined;
  if (!rule.pattern.test(name)) return `it is not a ${lang} identifier (${rule.shape})`;
  const bare = name.startsWith("r#") && languageId === "rust" ? undefined : name;
  if (bare !== undefined && rule.reserved.has(bare)) return `\`${name}\` is a reserved word in ${lang}`;
  return undefined;
}
