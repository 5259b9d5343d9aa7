// Which Docker engine a driver drives: its recorded name, and whether it is reached over TCP.

/** What a driver knows of the engine it drives. */
export interface EngineIdentity {
  name: string;
  /** Reached over TCP: no shared filesystem, no view of its machine's kernel. */
  remote: boolean;
}

export const DEFAULT_ENGINE = "default";
export const LOCAL_ENGINE: EngineIdentity = { name: DEFAULT_ENGINE, remote: false };
