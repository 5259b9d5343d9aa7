"""The growth bench's peer: ipykernel kernels driven by jupyter_client, grown from one size to the next
(never restarted from zero), each warmed by a cell. At each size: the PSS of every kernel process, and
the latency of `1+1` executed by CALLERS concurrent callers spread over all the kernels (caller c's k-th
call goes to kernel (c + k * CALLERS) mod N; calls to one kernel wait their turn, first come first
served, as a kernel runs one cell at a time). Prints one JSON line per size as it is measured:
  {"kernels": N, "pss_mib": [...], "latency_ms": [...], "grow_s": S, "cpu_s": C}
and stops growing early (measuring what it has) when the machine's available memory would fall below
RESERVE_MIB by one more kernel.

usage: python3 jupyter_growth.py SIZES CALLS CALLERS RESERVE_MIB [CONCURRENCY]
       (SIZES ascending, comma-separated; CALLS per size in all)
"""
import json
import os
import queue
import shutil
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from jupyter_kernelspec import use_this_python  # noqa: E402

use_this_python("bench-growth")

from jupyter_client.manager import KernelManager  # noqa: E402


def available_mib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return 0.0


def pss_mib(pid):
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Kernel:
    """A kernel and its client, with a thread of its own running the cells asked of it in the order they
    were asked (a client's sockets serve one request at a time, and a kernel runs one cell at a time):
    a queue as fair as the host agent's, which runs a conversation's cells first come, first served."""

    def __init__(self, km, kc):
        self.km = km
        self.kc = kc
        self.cells = queue.Queue()
        self.worker = threading.Thread(target=self._serve, daemon=True)
        self.worker.start()

    def _serve(self):
        while True:
            item = self.cells.get()
            if item is None:
                return
            code, done = item
            try:
                reply = self.kc.execute_interactive(code, timeout=120, output_hook=lambda msg: None)
                if reply["content"]["status"] != "ok":
                    raise RuntimeError("jupyter cell failed: %r" % reply["content"])
                done.set_result(None)
            except Exception as err:  # noqa: BLE001 — handed to the caller
                done.set_exception(err)

    def run(self, code):
        done = Future()
        self.cells.put((code, done))
        done.result()

    def stop(self):
        self.cells.put(None)
        try:
            self.kc.stop_channels()
            self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 — every kernel is stopped, whatever one of them does
            pass


def start_kernel():
    km = KernelManager(kernel_name="bench-growth")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    k = Kernel(km, kc)
    k.run("x = 1\nx + 1")
    return k


def main():
    sizes = [int(s) for s in sys.argv[1].split(",") if s]
    calls, callers, reserve = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    kernels = []
    guard = threading.Lock()
    first_available = available_mib()
    stopped = False

    def grow_one(_):
        nonlocal stopped
        with guard:
            if stopped:
                return
            # What each kernel has cost the machine so far, or a first guess of 100 MiB.
            each = (first_available - available_mib()) / len(kernels) if kernels else 100.0
            if available_mib() - max(each, 50.0) < reserve:
                stopped = True
                return
        k = start_kernel()
        with guard:
            kernels.append(k)

    try:
        with ThreadPoolExecutor(max_workers=max(concurrency, callers)) as pool:
            for size in sizes:
                t0 = time.perf_counter()
                c0 = os.times()
                with ThreadPoolExecutor(max_workers=concurrency) as starters:
                    list(starters.map(grow_one, range(size - len(kernels))))
                grow_s = time.perf_counter() - t0
                time.sleep(2)
                n = len(kernels)
                pss = [pss_mib(k.km.provisioner.process.pid) for k in kernels]
                per_caller = max(1, calls // callers)
                # Every kernel answers once untimed first (the harness's own first calls are not the figure).
                list(pool.map(lambda k: k.run("1+1"), kernels))

                def caller(c):
                    out = []
                    for i in range(per_caller):
                        k = kernels[(c + i * callers) % n]
                        t = time.perf_counter()
                        k.run("1+1")
                        out.append((time.perf_counter() - t) * 1000)
                    return out

                latencies = [ms for got in pool.map(caller, range(callers)) for ms in got]
                c1 = os.times()
                print(
                    json.dumps({"kernels": n, "pss_mib": pss, "latency_ms": latencies, "grow_s": grow_s, "cpu_s": (c1.user + c1.system) - (c0.user + c0.system)}),
                    flush=True,
                )
                if stopped:
                    break
    finally:
        with ThreadPoolExecutor(max_workers=8) as stoppers:
            list(stoppers.map(lambda k: k.stop(), kernels))
        # The kernelspec and the connection files of this run.
        shutil.rmtree(os.environ["JUPYTER_PATH"], ignore_errors=True)


if __name__ == "__main__":
    main()
