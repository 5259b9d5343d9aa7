// The command line's options, parsed once; every command reads the ones it needs.
import { parseArgs } from "node:util";

export function parseCommandLine(args: string[] = process.argv.slice(2)) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      address: { type: "string" },
      listen: { type: "string" },
      console: { type: "string" },
      "data-dir": { type: "string" },
      conversation: { type: "string", short: "c" },
      surface: { type: "string" },
      approval: { type: "string" },
      workspace: { type: "string" },
      "workspace-mode": { type: "string" },
      memory: { type: "string" },
      cpus: { type: "string" },
      pids: { type: "string" },
      disk: { type: "string" },
      runtime: { type: "string" },
      registry: { type: "string" },
      agent: { type: "boolean" },
      follow: { type: "boolean" },
      log: { type: "boolean" },
      all: { type: "boolean" },
      full: { type: "boolean" },
      text: { type: "string" },
      skip: { type: "boolean" },
      vibe: { type: "boolean" },
      json: { type: "boolean" },
      "new-run": { type: "boolean" },
      run: { type: "string" },
      yes: { type: "boolean", short: "y" },
      help: { type: "boolean", short: "h" },
    },
  });
}

export type CliOptions = ReturnType<typeof parseCommandLine>["values"];
