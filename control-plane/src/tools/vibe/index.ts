// The five vibe_* tools, bound to one roster.
import type { Tool } from "../tool.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";
import { vibeKillTool } from "./vibe-kill.js";
import { vibeListTool } from "./vibe-list.js";
import { vibeSendTool } from "./vibe-send.js";
import { vibeSpawnTool } from "./vibe-spawn.js";
import { vibeWaitTool } from "./vibe-wait.js";

export function vibeTools(roster: VibeRoster, workspaceOf: (conversationId: string) => string): Tool[] {
  return [vibeSpawnTool(roster, workspaceOf), vibeSendTool(roster), vibeWaitTool(roster), vibeKillTool(roster), vibeListTool(roster)];
}
