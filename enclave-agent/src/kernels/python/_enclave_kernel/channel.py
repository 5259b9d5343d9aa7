"""The frame channel to the agent: JSON lines out on fd 3, JSON lines in on fd 4.

Every frame out is preceded by a sync marker written to fds 1 and 2, so the agent can put it in
order with everything printed before it (by Python, or by a child process sharing those fds).
A reader thread takes frames in: cells to run go to a queue for the main thread, bridge replies
wake the thread waiting for them, and end of input (the agent is gone) ends the kernel.

The agent kills a kernel whose frame line passes its limit, so no frame this runner sends does: a
display too large is replaced by a note, an error's text is cut, a bridge call too large fails.
"""
import json
import os
import queue
import sys
import threading

from . import cellscope

OUT_FD = 3
IN_FD = 4
# Room under the agent's limit for the frame's own fields.
_FRAME_SLACK = 64 * 1024


class FrameTooLarge(ValueError):
    """A bridge call whose frame would pass the agent's frame limit."""


class Interrupts:
    """SIGINT arrives as KeyboardInterrupt in user code only, never while a frame is half-written."""

    def __init__(self):
        self.executing = False
        self.critical = 0
        self.pending = False

    def on_sigint(self, signum, frame):
        if self.executing and self.critical == 0:
            self.pending = False
            raise KeyboardInterrupt
        if self.executing:
            self.pending = True

    def enter(self):
        self.critical += 1

    def leave(self):
        self.critical -= 1
        if self.critical == 0 and self.pending and self.executing:
            self.pending = False
            raise KeyboardInterrupt


class Channel:
    def __init__(self, token, interrupts, max_frame_bytes):
        self.token = token.encode("ascii")
        self.max_frame_bytes = max_frame_bytes
        self.interrupts = interrupts
        self.seq = 0
        self.lock = threading.Lock()
        self.cells = queue.Queue()
        self.replies = {}
        self.replies_lock = threading.Lock()
        self.next_call = 0
        self.pid = os.getpid()

    def start(self):
        t = threading.Thread(target=self._read, name="enclave-frames", daemon=True)
        t.start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(IN_FD, 65536)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                # The agent is gone: nobody will ever read our output or send a cell again.
                os._exit(0)
            buf += chunk
            while True:
                nl = buf.find(b"\n")
                if nl < 0:
                    break
                line, buf = buf[:nl], buf[nl + 1:]
                if line.strip():
                    self._dispatch(json.loads(line))

    def _dispatch(self, frame):
        kind = frame.get("t")
        if kind == "execute":
            self.cells.put(frame)
        elif kind == "reply":
            with self.replies_lock:
                slot = self.replies.get(frame.get("id"))
            if slot is not None:
                slot["reply"] = frame
                slot["event"].set()

    def next_cell(self):
        return self.cells.get()

    def send(self, frame):
        """Writes one frame after a sync marker on stdout and stderr; safe from any thread."""
        if os.getpid() != self.pid:
            # A forked child shares the frame pipes but has no reader: its frames would corrupt the
            # kernel's, and a bridge reply could never reach it.
            raise RuntimeError("display() and tool() work only in the kernel's own process, not in a process it forked")
        self.interrupts.enter()
        try:
            with self.lock:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except Exception:
                        pass
                frame["seq"] = self.seq + 1
                line = self._fit(frame)
                self.seq += 1
                marker = b"\x00ENCLAVE-SYNC:" + self.token + b":" + str(self.seq).encode("ascii") + b"\x00"
                for fd in (1, 2):
                    try:
                        _write_all(fd, marker)
                    except OSError:
                        pass  # the user closed it; the agent sees the stream end instead
                _write_all(OUT_FD, line)
        finally:
            self.interrupts.leave()

    def _encode(self, frame):
        return json.dumps(frame, separators=(",", ":")).encode("utf-8") + b"\n"

    def _fit(self, frame):
        """The frame's line, made to fit under the agent's limit."""
        line = self._encode(frame)
        if len(line) <= self.max_frame_bytes:
            return line
        kind = frame.get("t")
        if kind == "call":
            raise FrameTooLarge(
                "the call's arguments make a frame of %d bytes, over the %d bytes a bridge call can carry"
                % (len(line), self.max_frame_bytes)
            )
        if kind == "display":
            frame["items"] = [
                {
                    "mime": "text/plain",
                    "text": "[a display of %d bytes was not sent: over the %d MiB one display may take]"
                    % (len(line), self.max_frame_bytes // (1024 * 1024)),
                }
            ]
        elif kind == "done":
            room = max(1024, (self.max_frame_bytes - _FRAME_SLACK) // 12)  # JSON may escape a character as 6 bytes
            for key in ("evalue", "traceback"):
                text = frame.get(key) or ""
                if len(text) > room:
                    frame[key] = text[: room // 2] + "\n[… %d characters cut …]\n" % (len(text) - room) + text[-(room // 2):]
        return self._encode(frame)

    def call(self, tool, arguments_json):
        """A bridge call: sends it up and blocks this thread until the agent answers. The call says
        which cell it belongs to (the cell running the code that called, or that started its thread)."""
        cell = cellscope.owner()
        with self.replies_lock:
            self.next_call += 1
            call_id = "b%d" % self.next_call
            slot = {"event": threading.Event(), "reply": None}
            self.replies[call_id] = slot
        try:
            self.send({"t": "call", "id": call_id, "tool": tool, "args": arguments_json, "cell": cell})
            slot["event"].wait()
            return slot["reply"]
        finally:
            with self.replies_lock:
                self.replies.pop(call_id, None)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]
