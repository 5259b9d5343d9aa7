// Imported first by the fidelity runs that start a control plane: its own lines (one per tool call)
// would bury the figures, so warnings only unless the environment asks for more. The logger reads
// the level when the control plane's modules load, hence a module of its own, evaluated before them.
process.env.ENCLAVE_LOG_LEVEL ??= "warn";
