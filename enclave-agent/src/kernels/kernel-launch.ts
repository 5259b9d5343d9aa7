// How each language's kernel is started: its interpreter, our runner file (shipped beside the agent
// bundle in kernels/), and its environment.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { AgentError } from "../errors.js";
import type { LaunchSpec } from "./kernel-process.js";
import type { KernelLanguage } from "./kernel-registry.js";
import { pythonEnvironment } from "./python-environment.js";

export const RUNNER_FILES: Record<KernelLanguage, string> = {
  python: join("python", "kernel.py"),
  javascript: "js-runner.mjs",
};

/**
 * kernelDir: the runners beside the bundle; kernelsStateDir: where kernel environments are made;
 * ahead: started before any conversation needs it (a spare agent's), so it imports ahead what a first cell needs.
 */
export async function launchSpec(
  language: KernelLanguage,
  workspaceRoot: string,
  kernelDir: string,
  kernelsStateDir: string,
  ahead = false,
): Promise<LaunchSpec> {
  const runner = join(kernelDir, RUNNER_FILES[language]);
  if (!existsSync(runner)) {
    throw new AgentError("unavailable", `the ${language} kernel runner ${runner} is missing from the agent bundle; rebuild it with \`make build\``);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, MPLBACKEND: "Agg", PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" };
  if (ahead && language === "python") env.ENCLAVE_KERNEL_AHEAD = "1";
  if (language === "python") {
    const pyEnv = await pythonEnvironment(workspaceRoot, kernelsStateDir);
    if (pyEnv.venv) {
      env.VIRTUAL_ENV = pyEnv.venv;
      env.PATH = [join(pyEnv.venv, "bin"), process.env.PATH ?? ""].filter(Boolean).join(delimiter);
    }
    return { language, argv: [pyEnv.python, "-u", runner], env, cwd: workspaceRoot };
  }
  // The agent's own Node: always present where the agent runs (the pinned one in enclosures, the host's here).
  return { language, argv: [process.env.ENCLAVE_NODE || process.execPath, runner], env, cwd: workspaceRoot };
}
