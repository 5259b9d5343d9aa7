// The structural-search tools (resource "ast"): ast_grep, ast_edit and resolve.
import type { Tool } from "../tool.js";
import { astEditTool } from "./ast-edit.js";
import { astGrepTool } from "./ast-grep.js";
import { resolveTool } from "./resolve.js";

export const AST_TOOLS: readonly Tool[] = [astGrepTool, astEditTool, resolveTool];
