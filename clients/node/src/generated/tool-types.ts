// Generated from the tool registry by scripts/gen-tool-types.mjs; do not edit.
// Each tool's arguments and the details its results carry (ToolResult.details_json), as ListTools publishes them.

/** What `apply_patch` takes. */
export type ApplyPatchArguments = {
  /** the unified diff: `--- a/path`, `+++ b/path`, `@@` hunks; /dev/null to add or delete a file */
  patch: string;
};

/** The details of `apply_patch`'s results. */
export type ApplyPatchDetails = {
  /** every file the patch changed; a rename is its old path deleted and its new path added */
  files: Array<{
    /** workspace-relative */
    path: string;
    /** added: the file is new; deleted: it is gone */
    change: "added" | "modified" | "deleted";
    hunks: number;
  }>;
  /** what the language servers found in the written files (runs wired with lsp) */
  diagnostics?: {
    /** every file the write changed that was synced with the language servers */
    files: Array<{
      /** workspace-relative */
      path: string;
      /** fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail */
      state: "fresh" | "late" | "no_server" | "deleted" | "failed";
      /** the language servers that checked it */
      servers: Array<string>;
      /** why it is late or failed; "" otherwise */
      detail: string;
      /** diagnostics new to the run in this file (fresh files), before the cap */
      new_count: number;
      /** its diagnostics before the change were not known in time, so some new ones may predate it */
      earlier_unknown: boolean;
    }>;
    /** the errors and warnings the write newly introduced, at most 100 per file */
    new: Array<{
      /** workspace-relative */
      path: string;
      /** 1-based */
      line: number;
      /** 1-based */
      column: number;
      /** information and hints are left out */
      severity: "error" | "warning";
      /** the checker that reported it (the server's "source"), or "" */
      source: string;
      /** its rule or error code, or "" */
      code: string;
      message: string;
    }>;
    /** a file had more new diagnostics than listed (see its new_count) */
    truncated: boolean;
  };
};

/** What `ask_user` takes. */
export type AskUserArguments = {
  /** the question, as the operator will read it */
  question: string;
  /** why you ask, and what depends on the answer */
  context?: string;
  /** choices to offer; omit for a free-text question */
  options?: Array<{
    /** what the operator picks; returned as the answer */
    label: string;
    /** what choosing it means */
    description?: string;
  }>;
  /** whether the operator may write an answer (default: true without options, false with) */
  allow_free_text?: boolean;
  /** whether several options may be chosen (default false) */
  multi_select?: boolean;
};

/** The details of `ask_user`'s results. */
export type AskUserDetails = {
  /** the card's number in the conversation */
  card: number;
  /** skipped: the operator declined to answer; timed_out: nobody answered in time (an error result) */
  outcome: "answered" | "skipped" | "timed_out";
  /** the labels of the options chosen, in the operator's order; empty unless answered */
  selected: Array<string>;
  /** what the operator wrote; null when nothing */
  free_text: string | null;
};

/** What `ast_edit` takes. */
export type AstEditArguments = {
  /** code with $METAVARIABLES */
  pattern: string;
  /** replacement with the pattern's $METAVARIABLES */
  rewrite: string;
  /** file or folder relative to the workspace root (default: the whole workspace) */
  path?: string;
  /** grammar id; required for a folder, inferred for a file */
  language?: string;
};

/** The details of `ast_edit`'s results. */
export type AstEditDetails = {
  /** the staged change's id, for resolve's edit_id; null when nothing matched and nothing was staged */
  edit_id: string | null;
  /** the grammar searched */
  language: string;
  files_searched: number;
  /** every file the staged change would write */
  files: Array<{
    /** workspace-relative */
    path: string;
    replacements: number;
    /** where the rewritten file no longer parses (it parsed before); null when it does */
    parse_error: {
      /** 1-based */
      line: number;
      /** 1-based */
      column: number;
      message: string;
    } | null;
  }>;
  /** replacements in all files */
  replacements: number;
};

/** What `ast_grep` takes. */
export type AstGrepArguments = {
  /** code with $METAVARIABLES, e.g. `foo($$$ARGS)` */
  pattern: string;
  /** file or folder relative to the workspace root (default: the whole workspace) */
  path?: string;
  /** grammar id; required for a folder, inferred for a file */
  language?: string;
  /** default 50 */
  max_results?: number;
};

/** The details of `ast_grep`'s results. */
export type AstGrepDetails = {
  /** the grammar searched */
  language: string;
  /** the context the pattern parsed in: "statement", "expression", … */
  read_as: string;
  /** what was supplied so the pattern parses in that context; empty when read as written */
  fillers: Array<string>;
  /** at most max_results */
  matches: Array<{
    /** workspace-relative */
    path: string;
    /** 1-based */
    line: number;
    /** 1-based, in characters */
    column: number;
    /** 1-based, inclusive */
    end_line: number;
    /** 1-based, in characters, exclusive */
    end_column: number;
    /** the matched source */
    text: string;
    /** each metavariable's name (without $) and the text it matched */
    bindings: Record<string, string>;
  }>;
  /** matches listed */
  total: number;
  /** files with a match */
  files: number;
  /** max_results cut the list: more matches exist */
  truncated: boolean;
  files_searched: number;
  /** what the search left out */
  skipped: {
    /** vendored folders */
    vendored: number;
    /** .gitignored files */
    ignored: number;
    binary: number;
    /** files over the size limit */
    too_large: number;
    /** files with more than one name */
    hard_linked: number;
  };
};

/** What `debug` takes. */
export type DebugArguments = {
  op: "adapters";
} | {
  op: "status";
} | {
  op: "breakpoints";
  /** source file relative to the workspace root */
  file: string;
  /** 1-based lines; an empty list clears the file */
  lines: Array<number>;
} | {
  op: "launch";
  /** workspace-relative program: a .py script, a Go package folder or .go file, a compiled executable */
  program: string;
  /** command-line arguments of the program */
  args?: Array<string>;
  /** an adapter id from the adapters op; picked from the program when omitted */
  adapter?: string;
  /** text for the program's standard input, then end-of-file; without it stdin is not connected (a read gets end-of-file at once) */
  stdin?: string;
  /** which exceptions stop the program: uncaught (default), raised (every raise, even one caught later), none */
  exceptions?: "uncaught" | "raised" | "none";
} | {
  op: "attach";
  /** the port an adapter's DAP server listens on, on 127.0.0.1 where the conversation's code runs (the adapters op marks which attach by port) */
  port?: number;
  /** the pid of the running program, as exec reports it, for an adapter that attaches by pid (lldb) */
  pid?: number;
  /** an adapter id from the adapters op; default debugpy with a port, lldb with a pid */
  adapter?: string;
} | {
  op: "continue";
  /** thread to resume; default the one that stopped */
  thread_id?: number;
  /** how long to wait for the next stop before answering that it runs (default 60) */
  wait_seconds?: number;
} | {
  op: "pause";
  /** thread to pause; default the first */
  thread_id?: number;
} | {
  op: "step_over";
  /** thread to resume; default the one that stopped */
  thread_id?: number;
  /** how long to wait for the next stop before answering that it runs (default 60) */
  wait_seconds?: number;
} | {
  op: "step_in";
  /** thread to resume; default the one that stopped */
  thread_id?: number;
  /** how long to wait for the next stop before answering that it runs (default 60) */
  wait_seconds?: number;
} | {
  op: "step_out";
  /** thread to resume; default the one that stopped */
  thread_id?: number;
  /** how long to wait for the next stop before answering that it runs (default 60) */
  wait_seconds?: number;
} | {
  op: "threads";
} | {
  op: "stack";
  /** default the thread that stopped */
  thread_id?: number;
} | {
  op: "scopes";
  /** a frame_id from stack (valid until the program resumes) */
  frame_id: number;
} | {
  op: "variables";
  /** a reference from scopes, variables or evaluate (valid until the program resumes) */
  reference: number;
} | {
  op: "evaluate";
  expression: string;
  /** a frame_id from stack; default the top frame where it stopped */
  frame_id?: number;
} | {
  op: "output";
} | {
  op: "terminate";
};

/** The details of `debug`'s results. */
export type DebugDetails = {
  op: "status" | "launch" | "attach" | "pause" | "continue" | "step_over" | "step_in" | "step_out" | "terminate";
  session: {
    /** null when no debug session has run in this conversation */
    session_id: string | null;
    adapter: string;
    /** workspace-relative program, or "127.0.0.1:PORT" for an attach by port */
    program: string;
    /** a session exists and has not ended */
    active: boolean;
    /** "starting", "running", "stopped", "exited" or "terminated"; empty when there never was a session */
    state: string;
    /** where it is stopped; null unless state is stopped */
    stopped: {
      /** breakpoint, step, exception, pause… as the adapter says */
      reason: string;
      description: string;
      text: string;
      thread_id: number;
      /** workspace-relative source file; null when it is outside the workspace or the frame has no source */
      path: string | null;
      /** 1-based line */
      line: number;
      function: string;
    } | null;
    /** the exception it is stopped on, if any */
    exception: {
      /** its type (ValueError, panic, signal SIGSEGV…) */
      type: string;
      message: string;
      /** "always" (a raised-exception stop), "unhandled"… as the adapter says; may be empty */
      break_mode: string;
      /** the program's own frames, innermost first, at most 30 */
      frames: Array<{
        function: string;
        /** workspace-relative source file; null when it is outside the workspace or the frame has no source */
        path: string | null;
        /** 1-based line */
        line: number;
      }>;
    } | null;
    /** the program's exit status, once known */
    exit_code: number | null;
    /** why the session ended; null while it runs */
    ended_kind: "program_ended" | "terminated" | "ttl_expired" | "adapter_closed" | "start_failed" | "agent_stopped" | null;
    /** the same in words */
    ended_reason: string | null;
    /** when the session's hard TTL ends it (Unix ms); null once ended */
    expires_at_ms: number | null;
    breakpoints: Array<{
      /** workspace-relative source file */
      file: string;
      /** a running session received them; false while they wait for the next launch or attach */
      applied: boolean;
      breakpoints: Array<{
        /** 1-based line asked for */
        requested_line: number;
        /** 1-based line where the adapter put it; null when not known yet */
        line: number | null;
        verified: boolean;
        /** why it is not verified, as the adapter says, or empty */
        message: string;
      }>;
    }>;
    notes: Array<string>;
  };
} | {
  op: "adapters";
  adapters: Array<{
    /** what launch and attach take as `adapter` */
    id: string;
    state: "usable" | "missing_marker" | "missing_binary" | "unknown";
    /** workspace-relative root markers found */
    markers: Array<string>;
    /** it can attach by port to a program already listening */
    attach: boolean;
    /** program file extensions that pick it when launch names no adapter */
    extensions: Array<string>;
  }>;
} | {
  /** workspace-relative source file */
  file: string;
  /** a running session received them; false while they wait for the next launch or attach */
  applied: boolean;
  breakpoints: Array<{
    /** 1-based line asked for */
    requested_line: number;
    /** 1-based line where the adapter put it; null when not known yet */
    line: number | null;
    verified: boolean;
    /** why it is not verified, as the adapter says, or empty */
    message: string;
  }>;
  op: "breakpoints";
} | {
  op: "threads";
  threads: Array<{
    id: number;
    name: string;
  }>;
} | {
  op: "stack";
  /** innermost first, at most 30 */
  frames: Array<{
    /** the frame_id scopes and evaluate take (valid until the program resumes) */
    id: number;
    /** the function */
    name: string;
    /** workspace-relative source file; null when outside the workspace or without source */
    path: string | null;
    /** 1-based line */
    line: number;
  }>;
  /** frames the thread has, as the adapter counts them (at least the frames listed) */
  total: number;
  /** the thread has more frames than listed (capped at 30) */
  truncated: boolean;
  /** the exception it is stopped on, if any */
  exception: {
    /** its type (ValueError, panic, signal SIGSEGV…) */
    type: string;
    message: string;
    /** "always" (a raised-exception stop), "unhandled"… as the adapter says; may be empty */
    break_mode: string;
    /** the program's own frames, innermost first, at most 30 */
    frames: Array<{
      function: string;
      /** workspace-relative source file; null when it is outside the workspace or the frame has no source */
      path: string | null;
      /** 1-based line */
      line: number;
    }>;
  } | null;
} | {
  op: "scopes";
  scopes: Array<{
    /** Locals, Globals, Registers… */
    name: string;
    /** what variables takes; 0 when it has no children */
    reference: number;
    expensive: boolean;
  }>;
} | {
  op: "variables";
  /** at most 50, in the adapter's order */
  variables: Array<{
    name: string;
    /** its type as the adapter says, or empty */
    type: string;
    /** cut at 400 characters */
    value: string;
    value_cut: boolean;
    /** its children's reference for variables; 0 when it has none */
    reference: number;
  }>;
  /** children the reference has */
  total: number;
  /** more children than listed (capped at 50) */
  truncated: boolean;
} | {
  op: "evaluate";
  /** cut at 400 characters */
  value: string;
  value_cut: boolean;
  /** its type as the adapter says, or empty */
  type: string;
  /** what variables takes for its children; 0 when it has none (valid until the program resumes) */
  reference: number;
} | {
  op: "output";
  session_id: string;
  /** the program's stdout and stderr as they came, the newest kept */
  text: string;
  /** earlier bytes the bounded buffer dropped */
  dropped_bytes: number;
  /** bytes the program wrote in all */
  total_bytes: number;
};

/** What `edit` takes. */
export type EditArguments = {
  /** file path relative to the workspace root */
  path: string;
  /** the exact text to replace */
  old_text: string;
  /** the replacement */
  new_text: string;
  /** replace every occurrence instead of requiring exactly one */
  replace_all?: boolean;
};

/** The details of `edit`'s results. */
export type EditDetails = {
  /** the one file edited */
  files: Array<{
    /** workspace-relative */
    path: string;
    /** added: the file is new; deleted: it is gone */
    change: "added" | "modified" | "deleted";
    /** occurrences of old_text replaced in it */
    replacements: number;
  }>;
  /** occurrences replaced in all */
  replacements: number;
  /** what the language servers found in the written files (runs wired with lsp) */
  diagnostics?: {
    /** every file the write changed that was synced with the language servers */
    files: Array<{
      /** workspace-relative */
      path: string;
      /** fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail */
      state: "fresh" | "late" | "no_server" | "deleted" | "failed";
      /** the language servers that checked it */
      servers: Array<string>;
      /** why it is late or failed; "" otherwise */
      detail: string;
      /** diagnostics new to the run in this file (fresh files), before the cap */
      new_count: number;
      /** its diagnostics before the change were not known in time, so some new ones may predate it */
      earlier_unknown: boolean;
    }>;
    /** the errors and warnings the write newly introduced, at most 100 per file */
    new: Array<{
      /** workspace-relative */
      path: string;
      /** 1-based */
      line: number;
      /** 1-based */
      column: number;
      /** information and hints are left out */
      severity: "error" | "warning";
      /** the checker that reported it (the server's "source"), or "" */
      source: string;
      /** its rule or error code, or "" */
      code: string;
      message: string;
    }>;
    /** a file had more new diagnostics than listed (see its new_count) */
    truncated: boolean;
  };
};

/** What `eval` takes. */
export type EvalArguments = {
  /** the cell: Python (IPython idioms such as %pip, !cmd, %%bash work) or JavaScript (top-level await works) */
  code: string;
  /** 5 to 10 words saying what the cell does, shown in the transcript */
  description: string;
  /** python (default) or javascript */
  language?: "python" | "javascript";
  /** discard the kernel and everything in it, and start clean before running the code */
  reset?: boolean;
  /** idle budget: seconds the cell may run, not counting time waiting for its tool() calls (default 300) */
  timeout_seconds?: number;
  /** limit the tools the cell may call with tool() to a narrower surface than the run's (for example `plan`: read tools only); later cells in the same kernel stay limited to it until the kernel is reset */
  bridge_surface?: "default" | "plan" | "readonly_subagent";
};

/** The details of `eval`'s results. */
export type EvalDetails = {
  /** ok; error: the cell raised; interrupted: stopped by its time budget or the caller (the kernel and its state are kept); killed: it did not stop after the interrupt and was killed; died: the kernel exited during the cell */
  status: "ok" | "error" | "interrupted" | "killed" | "died";
  /** what the cell printed to standard output (UTF-8), clipped to head and tail at 65536 bytes */
  stdout: string;
  /** what it printed to standard error, clipped the same way */
  stderr: string;
  stdout_clipped: boolean;
  stderr_clipped: boolean;
  /** what the cell displayed, in order; bundles carrying an image past the 20th are left out, as in the text, and so are bundles past 4194304 bytes in all */
  outputs: Array<{
    /** the object in every representation the kernel made, by MIME type: text types as text, images (image/png…) as base64 */
    data: Record<string, string>;
    /** the cell's echoed last expression; false for display() and figures */
    echo: boolean;
  }>;
  /** bundles the cell displayed */
  outputs_total: number;
  /** some bundles were left out (outputs_total says how many there were) */
  outputs_truncated: boolean;
  /** what the cell raised (also on interrupt: the interrupt's own exception); null when it raised nothing */
  error: {
    /** the exception's type (ZeroDivisionError, TypeError, KeyboardInterrupt…) */
    name: string;
    /** its message */
    value: string;
    /** the traceback's lines, pointing at the cell's own lines */
    traceback: Array<string>;
  } | null;
  /** the cell's time budget ran out (status interrupted or killed); false when the caller interrupted it */
  timed_out: boolean;
  duration_ms: number;
  /** running time charged to the budget (time in tool() calls excluded) */
  budget_used_ms: number;
  /** output beyond the kernel's per-cell cap was dropped before it reached the control plane */
  output_truncated: boolean;
  /** tool() calls the cell made */
  bridge_calls: number;
  /** the kernel the cell ran in; null when the agent never named one */
  kernel: {
    /** new for every kernel process: a restart makes a new id */
    id: string;
    language: "python" | "javascript";
    /** the interpreter and its version ("cpython 3.12.3", "node v22.12.0") */
    interpreter: string;
    /** the kernel was started for this cell (first use, reset, or after the previous one was lost) */
    fresh: boolean;
    /** why the previous kernel is gone, when it died between cells and its state was lost; null otherwise */
    previous_fate: string | null;
  } | null;
  /** this cell's end lost the kernel's state (killed, or the kernel died) */
  state_lost: boolean;
};

/** What `exec` takes. */
export type ExecArguments = {
  /** the command line, run by /bin/sh -c */
  command: string;
  /** working folder relative to the workspace root */
  cwd?: string;
  timeout_seconds?: number;
  /** text given to the command on standard input */
  stdin?: string;
  /** extra environment variables */
  env?: Record<string, string>;
};

/** The details of `exec`'s results. */
export type ExecDetails = {
  /** the command's exit status; null when a signal or the timeout ended it */
  exit_code: number | null;
  /** the signal that killed it (SIGKILL…), or null */
  signal: string | null;
  /** the command ran past timeout_seconds and was killed */
  timed_out: boolean;
  duration_ms: number;
  /** standard output as UTF-8, clipped to head and tail when long */
  stdout: string;
  /** standard error as UTF-8, clipped to head and tail when long */
  stderr: string;
  stdout_clipped: boolean;
  stderr_clipped: boolean;
  /** output beyond the agent's cap was dropped before it reached the control plane */
  output_truncated: boolean;
};

/** What `list` takes. */
export type ListArguments = {
  /** folder relative to the workspace root */
  path?: string;
  recursive?: boolean;
  max_entries?: number;
};

/** The details of `list`'s results. */
export type ListDetails = {
  /** the folder listed, workspace-relative ("" for the root) */
  path: string;
  /** at most max_entries */
  entries: Array<{
    /** workspace-relative */
    path: string;
    type: "file" | "directory" | "symlink" | "other";
    /** bytes, for a file; null otherwise */
    size: number | null;
  }>;
  /** the folder has more entries than listed (max_entries cut the list) */
  truncated: boolean;
};

/** What `lsp` takes. */
export type LspArguments = {
  action: "diagnostics";
  /** workspace-relative file, or "*" to run the project's own checker */
  file: string;
} | {
  action: "definition";
  /** workspace-relative file the symbol is in */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
} | {
  action: "type_definition";
  /** workspace-relative file the symbol is in */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
} | {
  action: "implementation";
  /** workspace-relative file the symbol is in */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
} | {
  action: "references";
  /** workspace-relative file the symbol is in */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
} | {
  action: "hover";
  /** workspace-relative file the symbol is in */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
} | unknown | unknown | {
  action: "code_actions";
  /** workspace-relative file the symbol is in */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
} | {
  action: "status";
} | {
  action: "reload";
  /** a file whose root to reload; without it every running server */
  file?: string;
};

/** The details of `lsp`'s results. */
export type LspDetails = {
  action: "diagnostics";
  /** the file asked about, or "*" */
  file: string;
  /** the language server that answered; null for "*" */
  server: string | null;
  /** errors and warnings, at most 100; empty for "*" */
  diagnostics: Array<{
    /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
    path: string | null;
    /** 1-based line */
    line: number;
    /** 1-based column, in characters */
    column: number;
    /** "error" or "warning" (information and hints are left out, as in the text) */
    severity: string;
    /** the server's code for it (reportAssignmentType, 2451…), or empty */
    code: string;
    message: string;
    /** the tool that reported it, as the server says (Pyright, ts…), or empty */
    source: string;
    /** the text of `line`, or empty */
    line_text: string;
  }>;
  /** how many there were before the cap */
  total: number;
  /** the list was cut at the cap (total says how many there were) */
  truncated: boolean;
  /** the server did not report fresh diagnostics in time: these may be stale */
  stale: boolean;
  indexing: boolean;
  /** for "*": the project's checker and what it printed; null otherwise */
  checker: {
    /** the command line run ("tsc --noEmit -p ."…); null when no checker fits the project */
    command: string | null;
    /** the workspace-relative folder it ran in */
    cwd: string;
    /** why no checker ran, when command is null */
    detail: string;
    /** its exit status; null when it did not run or timed out */
    exit_code: number | null;
    timed_out: boolean;
    /** its output, clipped to head and tail at 65536 characters */
    output: string;
    output_clipped: boolean;
    /** output beyond the agent's cap was dropped before it reached the control plane */
    output_truncated: boolean;
  } | null;
} | {
  action: "definition" | "type_definition" | "implementation" | "references";
  /** the language server that answered */
  server: string;
  /** where the line and symbol resolved to */
  target: {
    /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
    path: string | null;
    /** 1-based line */
    line: number;
    /** 1-based column, in characters */
    column: number;
    /** 1-based line where the range ends */
    end_line: number;
    /** 1-based column where the range ends (exclusive), in characters */
    end_column: number;
    /** the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable */
    line_text: string;
  } | null;
  /** the server was still indexing: the answer may be incomplete */
  indexing: boolean;
  /** in the server's order, at most 50 references or 50 of the others */
  locations: Array<{
    /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
    path: string | null;
    /** 1-based line */
    line: number;
    /** 1-based column, in characters */
    column: number;
    /** 1-based line where the range ends */
    end_line: number;
    /** 1-based column where the range ends (exclusive), in characters */
    end_column: number;
    /** the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable */
    line_text: string;
  }>;
  /** how many there were before the cap */
  total: number;
  /** the list was cut at the cap (total says how many there were) */
  truncated: boolean;
} | {
  action: "hover";
  /** the language server that answered */
  server: string;
  /** where the line and symbol resolved to */
  target: {
    /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
    path: string | null;
    /** 1-based line */
    line: number;
    /** 1-based column, in characters */
    column: number;
    /** 1-based line where the range ends */
    end_line: number;
    /** 1-based column where the range ends (exclusive), in characters */
    end_column: number;
    /** the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable */
    line_text: string;
  } | null;
  /** the server was still indexing: the answer may be incomplete */
  indexing: boolean;
  /** the server's hover text (markdown as the server wrote it), cut at 4000 characters; null when it has none */
  contents: string | null;
  /** contents were cut */
  truncated: boolean;
} | {
  action: "symbols";
  server: string;
  /** the workspace search text; null for a file's outline */
  query: string | null;
  /** the file outlined (or whose server searched) */
  file: string | null;
  /** at most 100 for a search, 200 for an outline */
  symbols: Array<{
    name: string;
    /** function, class, variable… */
    kind: string;
    /** what it is declared in (workspace search), or empty */
    container: string;
    /** its signature or type as the server gives it (outline), or empty */
    detail: string;
    /** nesting in the outline, 0 at top level */
    depth: number;
    location: {
      /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
      path: string | null;
      /** 1-based line */
      line: number;
      /** 1-based column, in characters */
      column: number;
      /** 1-based line where the range ends */
      end_line: number;
      /** 1-based column where the range ends (exclusive), in characters */
      end_column: number;
      /** the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable */
      line_text: string;
    } | null;
  }>;
  /** how many there were before the cap */
  total: number;
  /** the list was cut at the cap (total says how many there were) */
  truncated: boolean;
  indexing: boolean;
} | {
  action: "code_actions";
  /** the language server that answered */
  server: string;
  /** where the line and symbol resolved to */
  target: {
    /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
    path: string | null;
    /** 1-based line */
    line: number;
    /** 1-based column, in characters */
    column: number;
    /** 1-based line where the range ends */
    end_line: number;
    /** 1-based column where the range ends (exclusive), in characters */
    end_column: number;
    /** the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable */
    line_text: string;
  } | null;
  /** the server was still indexing: the answer may be incomplete */
  indexing: boolean;
  /** at most 30; listed, not applied */
  code_actions: Array<{
    title: string;
    /** quickfix, refactor.extract…, or empty */
    kind: string;
    preferred: boolean;
    edits: Array<{
      /** workspace-relative file; null outside the workspace */
      path: string | null;
      edits: number;
    }>;
    /** the command it runs instead of (or after) its edits, or empty */
    command: string;
    /** its first few edits, as `path:line:col → "new text"` (1-based) */
    preview: Array<string>;
  }>;
  /** how many there were before the cap */
  total: number;
  /** the list was cut at the cap (total says how many there were) */
  truncated: boolean;
} | {
  action: "status";
  servers: Array<{
    id: string;
    languages: Array<string>;
    /** broken: it kept crashing and is not restarted until a reload; unknown: a state this control plane does not know */
    state: "running" | "available" | "missing_marker" | "missing_binary" | "broken" | "unknown";
    /** workspace-relative roots: the running ones when running, else those with a root marker */
    roots: Array<string>;
    root_markers: Array<string>;
  }>;
} | {
  action: "reload";
  /** "server@root" of each server stopped (each starts again on its next call) */
  stopped: Array<string>;
  /** servers forgiven for earlier crashes */
  unbroken: Array<string>;
};

/** What `lsp_rename` takes. */
export type LspRenameArguments = {
  /** workspace-relative file */
  file: string;
  /** 1-based line of the symbol */
  line: number;
  /** the symbol as written on that line; `name#N` for its Nth occurrence */
  symbol: string;
  /** the new name: an identifier of the file's language */
  new_name: string;
};

/** The details of `lsp_rename`'s results. */
export type LspRenameDetails = {
  /** the language server that renamed */
  server: string;
  /** where the line and symbol resolved to */
  target: {
    /** workspace-relative file; null for a file outside the workspace (a library's), whose path is not given */
    path: string | null;
    /** 1-based line */
    line: number;
    /** 1-based column, in characters */
    column: number;
    /** 1-based line where the range ends */
    end_line: number;
    /** 1-based column where the range ends (exclusive), in characters */
    end_column: number;
    /** the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable */
    line_text: string;
  } | null;
  /** the symbol as asked (`name#N` as given) */
  old_name: string;
  new_name: string;
  /** every file changed, in the server's order */
  files: Array<{
    /** workspace-relative file */
    path: string | null;
    edits: number;
  }>;
  files_changed: number;
  /** edits across all files */
  edits: number;
  /** the server was still indexing: files it had not indexed may still use the old name */
  indexing: boolean;
  /** what the language servers found in the renamed files: the diagnostics the rename introduced, as a write's */
  diagnostics: {
    /** every file the write changed that was synced with the language servers */
    files: Array<{
      /** workspace-relative */
      path: string;
      /** fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail */
      state: "fresh" | "late" | "no_server" | "deleted" | "failed";
      /** the language servers that checked it */
      servers: Array<string>;
      /** why it is late or failed; "" otherwise */
      detail: string;
      /** diagnostics new to the run in this file (fresh files), before the cap */
      new_count: number;
      /** its diagnostics before the change were not known in time, so some new ones may predate it */
      earlier_unknown: boolean;
    }>;
    /** the errors and warnings the write newly introduced, at most 100 per file */
    new: Array<{
      /** workspace-relative */
      path: string;
      /** 1-based */
      line: number;
      /** 1-based */
      column: number;
      /** information and hints are left out */
      severity: "error" | "warning";
      /** the checker that reported it (the server's "source"), or "" */
      source: string;
      /** its rule or error code, or "" */
      code: string;
      message: string;
    }>;
    /** a file had more new diagnostics than listed (see its new_count) */
    truncated: boolean;
  };
};

/** What `read` takes. */
export type ReadArguments = {
  /** file path relative to the workspace root */
  path: string;
  /** first line to return, 1-based */
  offset?: number;
  /** how many lines to return */
  limit?: number;
};

/** The details of `read`'s results. */
export type ReadDetails = {
  /** the file, workspace-relative */
  path: string;
  /** the lines returned, as UTF-8 (without the truncation note the text adds) */
  content: string;
  /** the file's size on disk */
  size_bytes: number;
  /** the file is longer than the bytes read: only its head was read (see bytes_read) */
  truncated: boolean;
  bytes_read: number;
  /** the file's line count; null when truncated (not all of it was read) */
  total_lines: number | null;
  /** 1-based first line returned */
  start_line: number;
  /** 1-based last line returned, inclusive; start_line - 1 when no line was returned */
  end_line: number;
};

/** What `resolve` takes. */
export type ResolveArguments = {
  /** the id a staging tool gave, e.g. "edit_1" (default: the most recent) */
  edit_id?: string;
  action: "apply" | "accept" | "discard";
  /** why (informational; passed to the action as given, "" when absent) */
  reason?: string;
};

/** The details of `resolve`'s results. */
export type ResolveDetails = {
  outcome: "applied" | "discarded";
  /** the staged change resolved */
  edit_id: string;
  /** what the staged change was, as its tool labelled it */
  label: string;
  /** the tool that staged it */
  source_tool: string;
  /** workspace-relative files the change names: written when applied, left alone when discarded */
  files: Array<string>;
  /** ids of the changes still staged, most recent first (resolve without edit_id takes the first) */
  still_pending: Array<string>;
  /** what the language servers found in the written files (runs wired with lsp) */
  diagnostics?: {
    /** every file the write changed that was synced with the language servers */
    files: Array<{
      /** workspace-relative */
      path: string;
      /** fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail */
      state: "fresh" | "late" | "no_server" | "deleted" | "failed";
      /** the language servers that checked it */
      servers: Array<string>;
      /** why it is late or failed; "" otherwise */
      detail: string;
      /** diagnostics new to the run in this file (fresh files), before the cap */
      new_count: number;
      /** its diagnostics before the change were not known in time, so some new ones may predate it */
      earlier_unknown: boolean;
    }>;
    /** the errors and warnings the write newly introduced, at most 100 per file */
    new: Array<{
      /** workspace-relative */
      path: string;
      /** 1-based */
      line: number;
      /** 1-based */
      column: number;
      /** information and hints are left out */
      severity: "error" | "warning";
      /** the checker that reported it (the server's "source"), or "" */
      source: string;
      /** its rule or error code, or "" */
      code: string;
      message: string;
    }>;
    /** a file had more new diagnostics than listed (see its new_count) */
    truncated: boolean;
  };
};

/** What `vibe_kill` takes. */
export type VibeKillArguments = {
  /** the id vibe_spawn returned, e.g. w1 */
  worker_id: string;
};

/** The details of `vibe_kill`'s results. */
export type VibeKillDetails = {
  worker: {
    /** what vibe_wait, vibe_send and vibe_kill take */
    worker_id: string;
    label: string;
    tier: "fast" | "good";
    state: "running" | "done" | "failed" | "killed";
    /** 1, then one more for each vibe_send */
    attempt: number;
    /** the worker host running it */
    host: string;
    /** the current attempt's running time, to when it settled */
    elapsed_ms: number;
    /** the last settled attempt's result (its last 32768 characters); null before any attempt settled with one */
    result: string | null;
    /** why it failed or was killed, in a few words; empty otherwise */
    detail: string;
  };
  /** it was running and is now killed; false when it had already settled */
  was_running: boolean;
};

/** What `vibe_list` takes. */
export type VibeListArguments = Record<string, never>;

/** The details of `vibe_list`'s results. */
export type VibeListDetails = {
  /** every worker the conversation keeps, oldest first */
  workers: Array<{
    /** what vibe_wait, vibe_send and vibe_kill take */
    worker_id: string;
    label: string;
    tier: "fast" | "good";
    state: "running" | "done" | "failed" | "killed";
    /** 1, then one more for each vibe_send */
    attempt: number;
    /** the worker host running it */
    host: string;
    /** the current attempt's running time, to when it settled */
    elapsed_ms: number;
    /** the last settled attempt's result (its last 32768 characters); null before any attempt settled with one */
    result: string | null;
    /** why it failed or was killed, in a few words; empty otherwise */
    detail: string;
  }>;
  /** the worker hosts this conversation may use */
  hosts: Array<string>;
};

/** What `vibe_send` takes. */
export type VibeSendArguments = {
  /** the id vibe_spawn returned, e.g. w1 */
  worker_id: string;
  /** what to add to the brief */
  message: string;
};

/** The details of `vibe_send`'s results. */
export type VibeSendDetails = {
  /** the worker, re-running its new attempt */
  worker: {
    /** what vibe_wait, vibe_send and vibe_kill take */
    worker_id: string;
    label: string;
    tier: "fast" | "good";
    state: "running" | "done" | "failed" | "killed";
    /** 1, then one more for each vibe_send */
    attempt: number;
    /** the worker host running it */
    host: string;
    /** the current attempt's running time, to when it settled */
    elapsed_ms: number;
    /** the last settled attempt's result (its last 32768 characters); null before any attempt settled with one */
    result: string | null;
    /** why it failed or was killed, in a few words; empty otherwise */
    detail: string;
  };
  /** messages appended to its brief so far */
  messages: number;
};

/** What `vibe_spawn` takes. */
export type VibeSpawnArguments = {
  /** everything the worker needs to know: goal, files, constraints, what to report */
  brief: string;
  /** a few words naming the job, shown in vibe_list */
  label: string;
  /** fast (default) or good */
  tier?: "fast" | "good";
};

/** The details of `vibe_spawn`'s results. */
export type VibeSpawnDetails = {
  /** the worker started, running */
  worker: {
    /** what vibe_wait, vibe_send and vibe_kill take */
    worker_id: string;
    label: string;
    tier: "fast" | "good";
    state: "running" | "done" | "failed" | "killed";
    /** 1, then one more for each vibe_send */
    attempt: number;
    /** the worker host running it */
    host: string;
    /** the current attempt's running time, to when it settled */
    elapsed_ms: number;
    /** the last settled attempt's result (its last 32768 characters); null before any attempt settled with one */
    result: string | null;
    /** why it failed or was killed, in a few words; empty otherwise */
    detail: string;
  };
};

/** What `vibe_wait` takes. */
export type VibeWaitArguments = {
  /** the id vibe_spawn returned, e.g. w1 */
  worker_id: string;
  /** how long to wait at most; omit to wait until the worker settles */
  timeout_seconds?: number;
};

/** The details of `vibe_wait`'s results. */
export type VibeWaitDetails = {
  worker: {
    /** what vibe_wait, vibe_send and vibe_kill take */
    worker_id: string;
    label: string;
    tier: "fast" | "good";
    state: "running" | "done" | "failed" | "killed";
    /** 1, then one more for each vibe_send */
    attempt: number;
    /** the worker host running it */
    host: string;
    /** the current attempt's running time, to when it settled */
    elapsed_ms: number;
    /** the last settled attempt's result (its last 32768 characters); null before any attempt settled with one */
    result: string | null;
    /** why it failed or was killed, in a few words; empty otherwise */
    detail: string;
  };
  /** it settled (done, failed, killed); false when timeout_seconds passed first and it keeps running */
  settled: boolean;
  /** while it runs: its most recent output (at most 4096 characters); null once settled */
  output_tail: string | null;
};

/** What `write` takes. */
export type WriteArguments = {
  /** file path relative to the workspace root */
  path: string;
  /** the file's complete new content */
  content: string;
};

/** The details of `write`'s results. */
export type WriteDetails = {
  /** the one file written */
  files: Array<{
    /** workspace-relative */
    path: string;
    /** added: the file is new; deleted: it is gone */
    change: "added" | "modified" | "deleted";
    /** bytes written */
    bytes: number;
  }>;
  /** what the language servers found in the written files (runs wired with lsp) */
  diagnostics?: {
    /** every file the write changed that was synced with the language servers */
    files: Array<{
      /** workspace-relative */
      path: string;
      /** fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail */
      state: "fresh" | "late" | "no_server" | "deleted" | "failed";
      /** the language servers that checked it */
      servers: Array<string>;
      /** why it is late or failed; "" otherwise */
      detail: string;
      /** diagnostics new to the run in this file (fresh files), before the cap */
      new_count: number;
      /** its diagnostics before the change were not known in time, so some new ones may predate it */
      earlier_unknown: boolean;
    }>;
    /** the errors and warnings the write newly introduced, at most 100 per file */
    new: Array<{
      /** workspace-relative */
      path: string;
      /** 1-based */
      line: number;
      /** 1-based */
      column: number;
      /** information and hints are left out */
      severity: "error" | "warning";
      /** the checker that reported it (the server's "source"), or "" */
      source: string;
      /** its rule or error code, or "" */
      code: string;
      message: string;
    }>;
    /** a file had more new diagnostics than listed (see its new_count) */
    truncated: boolean;
  };
};

/** Every built-in tool by name. */
export const TOOL_NAMES = ["apply_patch", "ask_user", "ast_edit", "ast_grep", "debug", "edit", "eval", "exec", "list", "lsp", "lsp_rename", "read", "resolve", "vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait", "write"] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolArgumentsMap {
  apply_patch: ApplyPatchArguments;
  ask_user: AskUserArguments;
  ast_edit: AstEditArguments;
  ast_grep: AstGrepArguments;
  debug: DebugArguments;
  edit: EditArguments;
  eval: EvalArguments;
  exec: ExecArguments;
  list: ListArguments;
  lsp: LspArguments;
  lsp_rename: LspRenameArguments;
  read: ReadArguments;
  resolve: ResolveArguments;
  vibe_kill: VibeKillArguments;
  vibe_list: VibeListArguments;
  vibe_send: VibeSendArguments;
  vibe_spawn: VibeSpawnArguments;
  vibe_wait: VibeWaitArguments;
  write: WriteArguments;
}

export interface ToolDetailsMap {
  apply_patch: ApplyPatchDetails;
  ask_user: AskUserDetails;
  ast_edit: AstEditDetails;
  ast_grep: AstGrepDetails;
  debug: DebugDetails;
  edit: EditDetails;
  eval: EvalDetails;
  exec: ExecDetails;
  list: ListDetails;
  lsp: LspDetails;
  lsp_rename: LspRenameDetails;
  read: ReadDetails;
  resolve: ResolveDetails;
  vibe_kill: VibeKillDetails;
  vibe_list: VibeListDetails;
  vibe_send: VibeSendDetails;
  vibe_spawn: VibeSpawnDetails;
  vibe_wait: VibeWaitDetails;
  write: WriteDetails;
}
