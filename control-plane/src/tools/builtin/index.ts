// The tools the control plane itself provides.
import type { Tool } from "../tool.js";
import { applyPatchTool } from "./apply-patch.js";
import { editTool } from "./edit.js";
import { execTool } from "./exec.js";
import { listTool } from "./list.js";
import { readTool } from "./read.js";
import { writeTool } from "./write.js";
import { evalTool } from "../eval/eval-tool.js";

export const BUILTIN_TOOLS: readonly Tool[] = [readTool, listTool, writeTool, editTool, applyPatchTool, execTool];
export const EVAL_TOOLS: readonly Tool[] = [evalTool];
