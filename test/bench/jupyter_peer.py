"""The peer `make bench` measures eval against: Jupyter (Debian's ipykernel + jupyter_client),
driven by a client in the same run. Prints JSON: cold start-to-result and warm `1+1` round trips in ms.

usage: python3 jupyter_peer.py COLD_SAMPLES WARM_SAMPLES
       python3 jupyter_peer.py rss KERNELS   (memory of idle warm kernels: {"rss_mib": [...]})
       python3 jupyter_peer.py burst KERNELS (KERNELS started at once, each running `1+1`: {"burst_ms": [...]},
                                              each the time from the common start to that kernel's result)
"""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from jupyter_kernelspec import use_this_python  # noqa: E402

use_this_python("bench")

from jupyter_client.manager import KernelManager  # noqa: E402


def start():
    km = KernelManager(kernel_name="bench")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(kc, code):
    reply = kc.execute_interactive(code, timeout=60, output_hook=lambda msg: None)
    if reply["content"]["status"] != "ok":
        raise RuntimeError("jupyter cell failed: %r" % reply["content"])


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def idle_memory(n):
    """n kernels started, each warmed with a cell, left idle: the resident memory of each."""
    started = []
    for _ in range(n):
        km, kc = start()
        run(kc, "x = 1")
        started.append((km, kc))
    time.sleep(2)
    sizes = [rss_mib(km.provisioner.process.pid) for km, _ in started]
    for km, kc in started:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    print(json.dumps({"rss_mib": sizes}))


def burst(n):
    """n kernels started at once (one event loop, as a Jupyter server starts them), each running `1+1`."""
    import asyncio

    from jupyter_client.manager import AsyncKernelManager

    import tempfile

    sockets = tempfile.mkdtemp(prefix="enclave-bench-burst-")

    async def one(t0, started):
        # Unix sockets, one folder each: with TCP a kernel binds the ports its manager picked a moment
        # before, and among 100 starting at once another process may take one first ("Address already
        # in use"; the kernel never answers). ipc is Jupyter's own transport for one host.
        km = AsyncKernelManager(kernel_name="bench", transport="ipc", ip=os.path.join(sockets, "k%d" % len(started)))
        started.append(km)
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=300)
            reply = await kc.execute_interactive("1+1", timeout=300, output_hook=lambda msg: None)
            if reply["content"]["status"] != "ok":
                raise RuntimeError("jupyter cell failed: %r" % reply["content"])
            return (time.perf_counter() - t0) * 1000
        finally:
            kc.stop_channels()

    async def all_at_once():
        started = []
        t0 = time.perf_counter()
        try:
            return await asyncio.gather(*(one(t0, started) for _ in range(n)))
        finally:
            await asyncio.gather(*(km.shutdown_kernel(now=True) for km in started), return_exceptions=True)
            shutil.rmtree(sockets, ignore_errors=True)

    print(json.dumps({"burst_ms": asyncio.run(all_at_once())}))


def main():
    if sys.argv[1] == "rss":
        idle_memory(int(sys.argv[2]))
        return
    if sys.argv[1] == "burst":
        burst(int(sys.argv[2]))
        return
    cold_n, warm_n = int(sys.argv[1]), int(sys.argv[2])
    cold = []
    for _ in range(cold_n):
        t = time.perf_counter()
        km, kc = start()
        run(kc, "1+1")
        cold.append((time.perf_counter() - t) * 1000)
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    km, kc = start()
    for _ in range(20):
        run(kc, "1+1")
    warm = []
    for _ in range(warm_n):
        t = time.perf_counter()
        run(kc, "1+1")
        warm.append((time.perf_counter() - t) * 1000)
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    print(json.dumps({"cold_ms": cold, "warm_ms": warm}))


if __name__ == "__main__":
    main()
