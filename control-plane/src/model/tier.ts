/** A tool's tier: what it may do, and so which surfaces list it and which calls raise a permission card. */
export type Tier = "read" | "write" | "exec";
