# The README's Python example, run by the tests against a control plane (as against `make run`) with
# the wheel installed, and type-checked by mypy --strict: python3 docs/examples/quickstart.py
from enclave_client import Sandbox, ast_edit_details, eval_details

with Sandbox.create() as sb:  # $ENCLAVE_ADDRESS, else 127.0.0.1:7400: a new conversation, a headless run
    sb.files.write("hello.py", 'print("hello")\n')
    ran = sb.exec("python3 hello.py; exit 3")
    print(ran.stdout, "exit code", ran.exit_code)  # read from the result's details, not its text
    cell = eval_details(sb.eval('import pandas as pd\npd.DataFrame({"a": [1, 2]})'))
    print(cell and list(cell["outputs"][0]["data"]))  # the table by MIME type: text/markdown, text/html, text/plain
    failed = eval_details(sb.eval("1 / 0"))
    print(failed and failed["error"] and failed["error"]["name"])  # ZeroDivisionError
    staged = ast_edit_details(sb.stage("print($X)", "print($X, flush=True)", path="hello.py"))
    sb.resolve("apply", staged and staged["edit_id"])  # nothing is written before this
    print(sb.files.read("hello.py"))  # print("hello", flush=True)
