// Debian's Chromium (installed by test/browser/ensure-chromium.sh; never a downloaded browser) driven
// by playwright-core, headless, with a fresh profile folder and the flags this machine's closed
// network needs (no background connections that would be refused).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

export const CHROMIUM = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash test/browser/ensure-chromium.sh\` (make test does)`);
  const profile = mkdtempSync(join(tmpdir(), "enclave-chromium-"));
  // playwright passes the profile as --user-data-dir: a fresh one per launch.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    timeout: 60_000,
  });
  context.setDefaultTimeout(30_000);
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      return page;
    },
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const ARTIFACTS = join(repoRoot, "test", "artifacts", "console");

/** A full-page screenshot kept as a test artifact (test/artifacts/console/NAME.png, gitignored). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
