# The README's Python example, run by the tests against a control plane (as against `make run`) with
# the wheel installed, and type-checked by mypy --strict: python3 docs/examples/quickstart.py
from enclave_client import Sandbox

with Sandbox.create() as sb:  # ENCLAVE_ADDRESS, else 127.0.0.1:7400; a new conversation, a headless run
    sb.files.write("hello.py", 'print("hello")\n')
    cell = sb.eval('%run hello.py\nimport pandas as pd\npd.DataFrame({"a": [1, 2]})')
    print(cell.text)
    ran = sb.exec("python3 hello.py; exit 3")
    print(ran.stdout, "exit code", ran.exit_code)  # read from the result's details, not its text
    found = sb.call("ast_grep", {"pattern": "print($X)", "path": "hello.py"})
    print(found.error_code or "ok", found.text)
