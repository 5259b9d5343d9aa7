// The README's TypeScript example, compiled by every build so it cannot rot, and run by the packaging
// test against a control plane with the packed client installed (as against `make run`).
import { Sandbox } from "@enclave-sandbox/client";

await using sb = await Sandbox.create(); // $ENCLAVE_ADDRESS, else 127.0.0.1:7400: a new conversation, a headless run
await sb.files.write("hello.py", 'print("hello")\n');
const ran = await sb.exec("python3 hello.py; exit 3");
console.log(ran.stdout, "exit code", ran.exit_code); // read from the result's details, not its text
const cell = await sb.eval('import pandas as pd\npd.DataFrame({"a": [1, 2]})');
console.log(Object.keys(cell.details.outputs[0]?.data ?? {})); // the table by MIME type: text/markdown, text/html, text/plain
const failed = await sb.eval("1 / 0");
console.log(failed.details.error?.name); // ZeroDivisionError
const staged = await sb.stage("print($X)", "print($X, flush=True)", { path: "hello.py" });
await sb.resolve("apply", staged.details.edit_id ?? undefined); // nothing is written before this
console.log(await sb.files.read("hello.py")); // print("hello", flush=True)
