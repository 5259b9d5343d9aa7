"""The reference the eval differential suite compares Enclave's Python kernel with: Jupyter (Debian's
ipykernel driven by jupyter_client, as a notebook front end drives it). Each session runs in a fresh
kernel started in its workspace folder.

usage: python3 eval_jupyter_peer.py < {"sessions": [{"name": N, "workspace": DIR, "cells": [CODE, ...]}]}
prints {"sessions": [{"name": N, "cells": [{"count": EXECUTION_COUNT, "outputs": [...]}]}]}, an output
being one of
  {"type": "stream", "name": "stdout"|"stderr", "text": T}
  {"type": "display"|"result"|"update", "data": {MIME: TEXT, or base64 for images}}
  {"type": "clear"}   (clear_output: a notebook empties the cell's output area here)
  {"type": "error", "ename": E, "evalue": V, "traceback": T (ANSI colours removed)}
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from jupyter_kernelspec import use_this_python  # noqa: E402

use_this_python("fidelity")

from jupyter_client.manager import KernelManager  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CELL_TIMEOUT = 60


def run_session(workspace, cells):
    km = KernelManager(kernel_name="fidelity")
    km.start_kernel(cwd=workspace)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        results = []
        for code in cells:
            outputs = []

            def hook(msg):
                kind, content = msg["msg_type"], msg["content"]
                if kind == "stream":
                    outputs.append({"type": "stream", "name": content["name"], "text": content["text"]})
                elif kind in ("display_data", "execute_result", "update_display_data"):
                    data = {}
                    for mime, value in content["data"].items():
                        data[mime] = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
                    shown = {"execute_result": "result", "display_data": "display", "update_display_data": "update"}[kind]
                    outputs.append({"type": shown, "data": data})
                elif kind == "clear_output":
                    outputs.append({"type": "clear"})
                elif kind == "error":
                    outputs.append(
                        {
                            "type": "error",
                            "ename": content["ename"],
                            "evalue": content["evalue"],
                            "traceback": ANSI.sub("", "\n".join(content["traceback"])),
                        }
                    )

            count = None
            try:
                reply = kc.execute_interactive(code, timeout=CELL_TIMEOUT, output_hook=hook, stop_on_error=False)
                count = reply["content"].get("execution_count")
            except TimeoutError:
                km.interrupt_kernel()
                outputs.append({"type": "error", "ename": "Timeout", "evalue": "cell over %d s" % CELL_TIMEOUT, "traceback": ""})
            results.append({"count": count, "outputs": outputs})
        return results
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    job = json.load(sys.stdin)
    out = []
    for session in job["sessions"]:
        out.append({"name": session["name"], "cells": run_session(session["workspace"], session["cells"])})
    sys.stdout.write(json.dumps({"sessions": out}))


if __name__ == "__main__":
    main()
