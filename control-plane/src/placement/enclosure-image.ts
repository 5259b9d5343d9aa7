// What an enclosure starts from: Enclave's own image, an image the caller names, or the workspace's
// dev container. Decides the image (building a dev container's through the engine), the user it runs
// as, what is injected (agent-injection.ts) and what runs after it starts (postCreateCommand). The
// hardening itself is resolveSettings' and containerSpec's, the same for every image.
import { createHash } from "node:crypto";
import type Docker from "dockerode";
import type { ConversationRecord } from "../model/conversation.js";
import { EnclaveError } from "../errors.js";
import { imageFacts, type Injection, isEnclaveImage, nodeInjection } from "./agent-injection.js";
import { ownImageAgentNode } from "./agent-node.js";
import { buildDevcontainer, type DevcontainerBuild, envEntries, type PostCreateStep, readDevcontainer } from "./devcontainer.js";
import type { EnclosureRequest, EnclosureSettings } from "../model/enclosure.js";
import type { ImageNamedBy } from "./image-access.js";
import { DEFAULT_USER, readIdFiles, resolveUserSpec } from "./image-user.js";

export interface EnclosureImagePlan {
  settings: EnclosureSettings;
  /** Mounts and environment added to the container spec (none for Enclave's own image). */
  injection: Pick<Injection, "env" | "mounts" | "noHealthcheck">;
  postCreate: PostCreateStep[];
  /** What was decided that the caller should see: injected Node, dev container fields not honoured. */
  notes: string[];
  /** The image's VOLUME paths, each given a bounded tmpfs instead of an anonymous volume (containerSpec). */
  imageVolumes: string[];
  /** The user came from the request, the dev container or the image's USER (not the default): its group is kept. */
  userNamed: boolean;
}

export const DEVCONTAINER_IMAGE_LABEL = "org.enclave.devcontainer";

/** The tag a conversation's dev container is built under (rebuilt, from the engine's cache, at each start). */
export function devcontainerTag(conversationId: string): string {
  return `enclave-devcontainer:${createHash("sha256").update(conversationId).digest("hex").slice(0, 16)}`;
}

export async function planEnclosureImage(
  docker: Docker,
  conv: ConversationRecord,
  req: EnclosureRequest,
  resolve: (req: EnclosureRequest) => EnclosureSettings,
  log: (line: string) => void,
  /** Refuses, as a missing image, one the start may not name (image-access.ts); asked before the engine is. */
  checkImage: (image: string, namedBy: ImageNamedBy) => void,
): Promise<EnclosureImagePlan> {
  const notes: string[] = [];
  let request: EnclosureRequest = req;
  let devEnv: ((imageEnv: readonly string[]) => string[]) | undefined;
  let wantedUser: { spec: string; from: string } | undefined;
  let postCreate: PostCreateStep[] = [];
  if (req.devcontainer) {
    if (req.image) throw new EnclaveError("invalid_arguments", "give either an image or devcontainer, not both: the dev container names its own image");
    const cfg = await readDevcontainer(conv.workspacePath);
    notes.push(...cfg.notes.map((n) => `devcontainer: ${n}`));
    // Validated first (network, memory) with the caller's options, so a bad request builds nothing.
    const first = resolve({ ...req, image: cfg.image ?? devcontainerTag(conv.id) });
    if (cfg.build) {
      if (req.buildsAllowed === false) {
        throw new EnclaveError(
          "devcontainer_build_refused",
          `${cfg.file} builds its image from a Dockerfile, and builds are off for this tenant (a build's disk use is unbounded on this engine): name an \`image\` on the engine instead, or an operator turns builds on (\`enclave tokens quota TENANT devcontainerBuilds 1\`)`,
        );
      }
      await buildDevcontainer(docker, conv.workspacePath, cfg as typeof cfg & { build: DevcontainerBuild }, {
        tag: devcontainerTag(conv.id),
        memoryBytes: first.memoryBytes,
        labels: { [DEVCONTAINER_IMAGE_LABEL]: conv.id },
        checkImage,
      });
    }
    request = { ...req, image: first.image };
    devEnv = (imageEnv) => envEntries(cfg, imageEnv);
    if (cfg.user) wantedUser = { spec: cfg.user, from: `${cfg.file}'s containerUser` };
    postCreate = cfg.postCreate;
  }
  let settings = resolve(request);
  checkImage(settings.image, req.devcontainer ? "workspace" : "caller");
  const facts = await imageFacts(docker, settings.image);
  const own = await isEnclaveImage(docker, facts.id);
  if (!own && settings.agentDelivery === "baked") {
    throw new EnclaveError(
      "invalid_arguments",
      `agent_delivery baked needs Enclave's own agent image; image ${settings.image} gets the agent injected (agent_delivery mount)`,
    );
  }
  // The user: the caller's when given; else the dev container's, or a non-root USER of the image.
  let userNamed = Boolean(req.user);
  if (!req.user) {
    const spec = wantedUser?.spec ?? (own ? "" : facts.user);
    if (spec && !/^(0|root)(:.*)?$/.test(spec)) {
      const answer = resolveUserSpec(spec, await readIdFiles(docker, settings.image));
      if ("unknown" in answer) {
        if (wantedUser) throw new EnclaveError("devcontainer_invalid", `${wantedUser.from} \`${spec}\`: ${answer.unknown}`);
        notes.push(`the image's USER ${spec} is not in its /etc/passwd (${answer.unknown}); running as ${DEFAULT_USER.uid}:${DEFAULT_USER.gid}`);
      } else if (answer.uid === 0 || answer.gid === 0) {
        if (wantedUser)
          throw new EnclaveError(
            "devcontainer_invalid",
            `${wantedUser.from} \`${spec}\` is root (uid or gid 0): an enclosure never runs as root; name a non-root user`,
          );
        notes.push(`the image's USER ${spec} is uid or gid 0; enclosures never run as root, so it runs as ${DEFAULT_USER.uid}:${DEFAULT_USER.gid}`);
      } else {
        settings = resolve({ ...request, user: `${answer.uid}:${answer.gid}` });
        userNamed = true;
      }
    } else if (spec && wantedUser) {
      throw new EnclaveError("devcontainer_invalid", `${wantedUser.from} \`${spec}\` is root: an enclosure never runs as root; name a non-root user`);
    } else if (spec) {
      notes.push(`the image's USER is ${spec}; enclosures never run as root, so it runs as ${DEFAULT_USER.uid}:${DEFAULT_USER.gid}`);
    }
  }
  const injection: EnclosureImagePlan["injection"] = { env: [], mounts: [] };
  if (!own) {
    const node = await nodeInjection(docker, facts, log);
    injection.env.push(...node.env);
    injection.mounts.push(...node.mounts);
    injection.noHealthcheck = node.noHealthcheck;
    notes.push(node.summary);
  } else {
    const node = await ownImageAgentNode(docker, log);
    injection.env.push(...(node?.env ?? []));
    injection.mounts.push(...(node?.mounts ?? []));
  }
  if (devEnv) injection.env.push(...devEnv(facts.env));
  return { settings, injection, postCreate, notes, imageVolumes: facts.volumes, userNamed };
}
