// A unified diff of two texts (line-based, Myers' O(ND) algorithm), for previews of staged edits.
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = diffLines(a, b);
  const hunks: string[] = [];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]?.op === "=") {
      i++;
      continue;
    }
    // A hunk: back up `context` lines, run until `context*2` equal lines in a row or the end.
    let start = i;
    let back = 0;
    while (start > 0 && back < context && ops[start - 1]?.op === "=") {
      start--;
      back++;
    }
    let end = i;
    let equalRun = 0;
    while (end < ops.length) {
      if (ops[end]?.op === "=") {
        equalRun++;
        if (equalRun > context * 2) break;
      } else equalRun = 0;
      end++;
    }
    // Trim trailing context to `context` lines.
    let trail = 0;
    while (end > start && ops[end - 1]?.op === "=" && trail < equalRun) {
      trail++;
      end--;
    }
    end += Math.min(trail, context);
    const slice = ops.slice(start, end);
    const aStart = (slice[0]?.ai ?? 0) + 1;
    const bStart = (slice[0]?.bi ?? 0) + 1;
    const aLen = slice.filter((o) => o.op !== "+").length;
    const bLen = slice.filter((o) => o.op !== "-").length;
    hunks.push(`@@ -${aLen === 0 ? aStart - 1 : aStart},${aLen} +${bLen === 0 ? bStart - 1 : bStart},${bLen} @@`);
    for (const o of slice) hunks.push(`${o.op === "=" ? " " : o.op}${o.line}`);
    i = end;
  }
  if (hunks.length === 0) return "";
  return [`--- a/${path}`, `+++ b/${path}`, ...hunks].join("\n") + "\n";
}

interface Op {
  op: "=" | "-" | "+";
  line: string;
  ai: number;
  bi: number;
}

function splitLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function diffLines(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Map<number, number>[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v.get(k - 1) ?? 0) < (v.get(k + 1) ?? 0)) ? (v.get(k + 1) ?? 0) : (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) break outer;
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Map<number, number>;
    const k = x - y;
    const prevK = k === -d || (k !== d && (vd.get(k - 1) ?? 0) < (vd.get(k + 1) ?? 0)) ? k + 1 : k - 1;
    const prevX = vd.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ op: "=", line: a[x] as string, ai: x, bi: y });
    }
    if (d > 0) {
      if (x === prevX) {
        y--;
        ops.push({ op: "+", line: b[y] as string, ai: x, bi: y });
      } else {
        x--;
        ops.push({ op: "-", line: a[x] as string, ai: x, bi: y });
      }
    }
  }
  return ops.reverse();
}
