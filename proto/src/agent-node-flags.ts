// The V8 flags every enclave agent's Node runs with, on the host and in an enclosure (the enclosure's
// supervise.sh spells the same flags; a unit test holds the two together).
//
// An agent serves one conversation and is idle most of its life. V8 grows a busy process's young
// generation towards 16 MiB semi-spaces and gives it back slowly: after 4,000 calls a host agent held
// 46.6 MiB (PSS) with the default and 36.8 MiB with 1 MiB semi-spaces, for the same CPU (2.78 s
// against 2.76 s). Across hundreds of conversations a machine holds, that is the difference.
export const AGENT_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=1"];
