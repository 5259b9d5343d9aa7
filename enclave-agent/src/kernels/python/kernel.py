# The Python kernel Enclave's agent runs: a long-lived interpreter that takes cells as frames on
# fd 4 and answers with frames on fd 3, leaving fds 1 and 2 to the user's own output (raw, streamed).
# Run as `python3 kernel.py`; the agent gives the sync token in ENCLAVE_KERNEL_TOKEN.
import sys

# Our modules must not leave __pycache__ in the (read-only, in an enclosure) agent folder.
_bytecode = sys.dont_write_bytecode
sys.dont_write_bytecode = True
from _enclave_kernel.main import main  # noqa: E402

sys.dont_write_bytecode = _bytecode
# A notebook imports from its working directory, not from the runner's folder.
sys.path[0] = ""

if __name__ == "__main__":
    main()
