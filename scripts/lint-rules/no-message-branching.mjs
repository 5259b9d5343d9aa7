// ESLint rule: no control flow on the text of an error. Failures are told apart by their code
// (EnclaveError/AgentError codes, gRPC statuses, protocol enums); a message is for people and may be
// reworded at any time. The rule flags an error's text (`x.message`, `x.details`, a session's
// `endedReason`/`deathReason`, or a variable named `message`/`details`) when it is matched
// (`/re/.test(t)`, `t.match(…)`, `t.includes(…)`, `t.startsWith(…)`, …), compared with a string
// (`t === "…"`), or switched on. Text from outside that carries no code at all (a V8 SyntaxError,
// the Docker API, zod) is allowed where it is read, with an eslint-disable comment saying why.

const TEXT_PROPERTIES = new Set(["message", "details", "endedReason", "deathReason"]);
const TEXT_NAMES = new Set(["message", "details", "msg", "errorMessage"]);
const MATCHERS = new Set(["match", "matchAll", "includes", "startsWith", "endsWith", "search", "indexOf", "lastIndexOf", "localeCompare"]);

/** The expression under casts, non-null assertions, optional chains and `a ?? b` / `a || b`. */
function unwrap(node) {
  let n = node;
  for (;;) {
    if (!n) return n;
    if (n.type === "TSAsExpression" || n.type === "TSNonNullExpression" || n.type === "TSTypeAssertion" || n.type === "TSSatisfiesExpression") n = n.expression;
    else if (n.type === "ChainExpression") n = n.expression;
    else if (n.type === "LogicalExpression") n = n.left;
    else return n;
  }
}

/** Whether the expression is an error's text (or a template or String(…) built from one). */
function isErrorText(node) {
  const n = unwrap(node);
  if (!n) return false;
  if (n.type === "MemberExpression" && !n.computed && n.property.type === "Identifier") return TEXT_PROPERTIES.has(n.property.name);
  if (n.type === "Identifier") return TEXT_NAMES.has(n.name);
  if (n.type === "TemplateLiteral") return n.expressions.some(isErrorText);
  if (n.type === "CallExpression" && n.callee.type === "Identifier" && n.callee.name === "String") return n.arguments.some(isErrorText);
  if (n.type === "CallExpression" && n.callee.type === "MemberExpression" && !n.callee.computed) {
    // t.toLowerCase(), t.trim(), … still read the text.
    const name = n.callee.property.type === "Identifier" ? n.callee.property.name : "";
    if (["toLowerCase", "toUpperCase", "trim", "trimStart", "trimEnd", "normalize"].includes(name)) return isErrorText(n.callee.object);
  }
  return false;
}

function isStringLiteral(node) {
  const n = unwrap(node);
  return (n?.type === "Literal" && typeof n.value === "string") || n?.type === "TemplateLiteral";
}

export const noMessageBranching = {
  meta: {
    type: "problem",
    docs: { description: "Tell failures apart by their code, never by the text of their message" },
    messages: {
      matched:
        "Control flow on an error's text: branch on its code (EnclaveError/AgentError code, gRPC status, a protocol enum) instead; messages may be reworded.",
    },
    schema: [],
  },
  create(context) {
    const report = (node) => context.report({ node, messageId: "matched" });
    return {
      CallExpression(node) {
        const callee = unwrap(node.callee);
        if (callee?.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier") return;
        const name = callee.property.name;
        if (MATCHERS.has(name) && isErrorText(callee.object)) report(node);
        else if ((name === "test" || name === "exec") && node.arguments.length > 0 && isErrorText(node.arguments[0])) report(node);
      },
      BinaryExpression(node) {
        if (!["===", "!==", "==", "!="].includes(node.operator)) return;
        if ((isErrorText(node.left) && isStringLiteral(node.right)) || (isErrorText(node.right) && isStringLiteral(node.left))) report(node);
      },
      SwitchStatement(node) {
        if (isErrorText(node.discriminant)) report(node);
      },
    };
  },
};

export default { rules: { "no-message-branching": noMessageBranching } };
