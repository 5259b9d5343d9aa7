// Progress for long image steps: a line when a step starts, a heartbeat while it runs, the elapsed
// time when it ends, and the tail of its output when it fails.
export interface Progress {
  step(label: string): void;
  detail(line: string): void;
  done(summary: string): void;
  fail(summary: string): void;
}

export function consoleProgress(write: (line: string) => void = (l) => process.stderr.write(l + "\n")): Progress {
  let started = Date.now();
  let current = "";
  let tail: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const seconds = (): string => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  const stopTimer = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    step(label) {
      stopTimer();
      started = Date.now();
      current = label;
      tail = [];
      write(`==> ${label}`);
      timer = setInterval(() => write(`    … ${current} (${seconds()})`), 15_000);
      timer.unref();
    },
    detail(line) {
      const trimmed = line.replace(/\s+$/, "");
      if (!trimmed) return;
      tail.push(trimmed);
      if (tail.length > 40) tail.shift();
      if (
        /^Step \d+\/\d+/.test(trimmed) ||
        /^#\d+ \[/.test(trimmed) ||
        /^I: (Retrieving|Validating|Extracting|Installing|Configuring) (Release|base)/.test(trimmed)
      ) {
        write(`    ${trimmed.slice(0, 160)}`);
      }
    },
    done(summary) {
      stopTimer();
      write(`    ${summary} (${seconds()})`);
    },
    fail(summary) {
      stopTimer();
      for (const l of tail) write(`    | ${l}`);
      write(`    FAILED: ${summary} (${seconds()})`);
    },
  };
}

export const silentProgress: Progress = { step() {}, detail() {}, done() {}, fail() {} };
