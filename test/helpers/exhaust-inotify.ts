// A tenant's command that takes every inotify instance its placement allows and holds them: one
// tenant's exhaustion must leave another's instances alone. It prints how many it holds.
export function holdAllInotify(seconds: number): string {
  return `setsid -f python3 -c '
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
fds = []
while True:
    fd = libc.inotify_init()
    if fd < 0: break
    fds.append(fd)
open("/tmp/inotify-held", "w").write(str(len(fds)))
time.sleep(${seconds})' >/dev/null 2>&1; for i in $(seq 100); do [ -s /tmp/inotify-held ] && break; sleep 0.1; done; cat /tmp/inotify-held`;
}
