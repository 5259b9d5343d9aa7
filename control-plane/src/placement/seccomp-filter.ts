// Host sandboxes' seccomp filter: the system calls Docker's default profile refuses a container with
// no capabilities, refused here too (the kernel keyrings, namespaces of any kind, mounts, modules,
// BPF, perf, clocks), so that per-uid kernel state and nested user namespaces are out of reach. ptrace
// stays: debug adapters need it, and it reaches only the sandbox's own processes (own uid, own pid
// namespace). The program is compiled by libseccomp (Debian's python3-seccomp), never assembled by
// hand; once per control plane, into its private folder, and handed to bubblewrap on a descriptor.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EnclaveError } from "../errors.js";

/** Refused with EPERM, whatever their arguments. Names libseccomp does not know are skipped. */
export const REFUSED_SYSCALLS = [
  // kernel keyrings: per-uid state shared with every process of the uid
  "add_key",
  "keyctl",
  "request_key",
  // namespaces, mounts and the root
  "unshare",
  "setns",
  "mount",
  "umount2",
  "pivot_root",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "chroot",
  // the kernel itself: modules, kexec, reboot, swap, accounting, quotas
  "init_module",
  "finit_module",
  "delete_module",
  "create_module",
  "kexec_load",
  "kexec_file_load",
  "reboot",
  "swapon",
  "swapoff",
  "acct",
  "quotactl",
  "quotactl_fd",
  "syslog",
  "sysfs",
  "_sysctl",
  "uselib",
  "ustat",
  "nfsservctl",
  "get_kernel_syms",
  "query_module",
  "lookup_dcookie",
  "vhangup",
  "sethostname",
  "setdomainname",
  // clocks
  "settimeofday",
  "clock_settime",
  "clock_adjtime",
  // hardware and kernel interfaces with a history of escapes
  "ioperm",
  "iopl",
  "bpf",
  "perf_event_open",
  "userfaultfd",
  "fanotify_init",
  "open_by_handle_at",
  "name_to_handle_at",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
] as const;

/** clone's flags that make a namespace: refused, so no process of the sandbox makes one. */
export const NAMESPACE_CLONE_FLAGS = {
  CLONE_NEWNS: 0x00020000,
  CLONE_NEWCGROUP: 0x02000000,
  CLONE_NEWUTS: 0x04000000,
  CLONE_NEWIPC: 0x08000000,
  CLONE_NEWUSER: 0x10000000,
  CLONE_NEWPID: 0x20000000,
  CLONE_NEWNET: 0x40000000,
} as const;

/** Debian's interpreter: the seccomp module is Debian's package, not any python3 on PATH. */
const PYTHON = "/usr/bin/python3";

// The filter is a binary tree over syscall numbers (CTL_OPTIMIZE 2): every call a sandbox makes
// goes through it, and a linear chain of some seventy tests would cost each one. clone3 takes its
// flags in memory a filter cannot read: it answers ENOSYS, and the C libraries fall back to clone,
// whose flags are checked (what Docker does too).
const PROGRAM = `
import errno, json, seccomp, sys
refused, clone_flags, out = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
for name in refused:
    try:
        f.add_rule(seccomp.ERRNO(errno.EPERM), name)
    except (RuntimeError, ValueError):
        pass
for flag in clone_flags:
    f.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
with open(out, "wb") as o:
    f.export_bpf(o)
`;

function compile(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ["-I", "-c", PROGRAM, JSON.stringify(REFUSED_SYSCALLS), JSON.stringify(Object.values(NAMESPACE_CLONE_FLAGS)), file],
      { env: { PATH: "/usr/bin:/bin", LC_ALL: "C" }, timeout: 30_000 },
      (err, _out, stderr) => {
        if (!err && existsSync(file)) return resolve(file);
        reject(
          new EnclaveError(
            "placement_unavailable",
            `cannot build the host sandbox's seccomp filter (${String(stderr).trim().split("\n").at(-1) || err?.message}): install Debian's python3-seccomp with \`make host-sandbox\` (scripts/ensure-host-sandbox.sh)`,
          ),
        );
      },
    );
  });
}

/** The compiled filter, built once per control plane into `privateDir` (mode 700, mounted nowhere). */
export class SeccompFilter {
  private built: Promise<Buffer> | undefined;

  constructor(private readonly privateDir: string) {}

  /** The program's bytes, built on first need; a failed build is tried again at the next call. */
  program(): Promise<Buffer> {
    this.built ??= compile(join(this.privateDir, "host-sandbox.bpf"))
      .then((file) => readFileSync(file))
      .catch((err: unknown) => {
        this.built = undefined;
        throw err;
      });
    return this.built;
  }
}
