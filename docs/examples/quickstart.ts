// The README's TypeScript example, compiled by every build so it cannot rot: a conversation, a run, a
// file written, a Python cell, a structural search. Run it against `make run`: node dist/docs/examples/quickstart.js
import { EnclaveClient, resultText } from "enclave/client";

const client = new EnclaveClient(process.env["ENCLAVE_ADDRESS"] ?? "127.0.0.1:7400");
const conv = await client.createConversation(); // a new id and workspace
const run = await client.openRun(conv.id, { approvalPolicy: "never" }); // headless: nobody answers cards
await client.callTool(run.id, "write", { path: "hello.py", content: 'print("hello")\n' });
const cell = await client.callTool(run.id, "eval", {
  description: "run the file and show a table",
  code: '%run hello.py\nimport pandas as pd\npd.DataFrame({"a": [1, 2]})',
});
console.log(resultText(cell));
const found = await client.callTool(run.id, "ast_grep", { pattern: "print($X)", path: "hello.py" });
console.log(found.errorCode || "ok", resultText(found));
await client.closeRun(run.id);
client.close();
