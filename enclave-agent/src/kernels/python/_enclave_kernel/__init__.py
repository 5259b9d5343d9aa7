"""Enclave's Python kernel runner (frames on fds 3/4; the user's stdout and stderr stay raw)."""
