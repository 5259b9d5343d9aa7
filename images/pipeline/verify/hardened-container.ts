// testcontainers' GenericContainer started with the enclosure's own container options (from
// hardenedSpec, i.e. the docker driver's resolveSettings + containerSpec): the builder's fields are
// filled from that spec rather than re-stated one by one, so verification runs the image exactly as
// an enclosure would. The reaper (ryuk) is not used: its image comes from Docker Hub, which may be
// unreachable; callers stop what they start.
import type { ContainerCreateOptions } from "dockerode";
import { GenericContainer } from "testcontainers";

export class HardenedContainer extends GenericContainer {
  constructor(spec: ContainerCreateOptions & { Image: string }) {
    super(spec.Image);
    const { HostConfig, ...create } = spec;
    this.createOpts = { ...this.createOpts, ...create };
    this.hostConfig = { ...this.hostConfig, ...HostConfig };
    // GenericContainer sets the network mode from its own field when it starts.
    if (HostConfig?.NetworkMode) this.withNetworkMode(HostConfig.NetworkMode);
    this.withAutoCleanup(false);
  }
}
