// The types a custom tool module is written against (`import type { CustomToolFactory } from ...`).
export type {
  AgentToolResult,
  AgentToolUpdateCallback,
  CustomTool,
  CustomToolAPI,
  CustomToolCallContext,
  CustomToolFactory,
  CustomToolPendingAction,
  ImageContent,
  PendingActionStore,
  StagedPendingAction,
  TextContent,
  Tier,
} from "./tools/custom/custom-tool-types.js";
