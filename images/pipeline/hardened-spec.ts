// The container options the pipeline starts a built image with: the enclosure's own, as the docker
// driver builds them (resolveSettings + containerSpec, so the same defaults and the same
// configuration apply), with the command swapped for the pipeline's. Nothing here relaxes them.
import type { ContainerCreateOptions } from "dockerode";
import { loadConfig } from "@enclave/control-plane/config.js";
import { containerSpec, resolveSettings } from "@enclave/control-plane/placement/enclosure-settings.js";

export const PIPELINE_LABEL = "org.enclave.pipeline";

export interface HardenedRun {
  image: string;
  /** Entrypoint and arguments; undefined keeps the enclosure's (the agent under supervise.sh). */
  command?: string[];
  /** A host folder for /workspace (owned by the enclosure's uid); none mounts nothing there. */
  workspace?: string;
  /** Mount an empty volume at the agent's folder for the bundle to be copied into before start. */
  agentVolume?: boolean;
  labels?: Record<string, string>;
}

export function hardenedSpec(run: HardenedRun): ContainerCreateOptions & { Image: string; HostConfig: NonNullable<ContainerCreateOptions["HostConfig"]> } {
  const defaults = loadConfig().enclosure;
  const settings = resolveSettings({ agentDelivery: run.agentVolume ? "mount" : "baked", workspaceMode: "bind" }, defaults, run.image);
  const spec = containerSpec(settings, { workspace: run.workspace ?? "" }, { [PIPELINE_LABEL]: "true", ...run.labels });
  const hostConfig = spec.HostConfig ?? {};
  if (!run.workspace) hostConfig.Binds = [];
  const out = { ...spec, Image: run.image, HostConfig: hostConfig };
  if (run.command) {
    out.Entrypoint = run.command.slice(0, 1);
    out.Cmd = run.command.slice(1);
  }
  return out;
}
