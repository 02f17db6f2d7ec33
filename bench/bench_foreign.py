"""Per-case overhead of the child-process protocol against the same cases run in process.

For each selected case (default: the chat families, ``wire.*`` and ``stream.*``, which make the
HTTP round trips), the median over ``--repeats`` of one ``run_case`` on the sync interface:

* **in-process**: the reference OpenAI adapter (Python, httpx) over ``httpx.MockTransport``,
  the kit's default;
* **loopback**: the same Python adapter over the fake provider served on 127.0.0.1 (what a
  foreign adapter has to use: it isolates the cost of real sockets);
* **protocol**: the Node example adapter (``docs/examples/node/openai_adapter.mjs``) in one
  child process reused across cases, over the protocol, calling the fake on 127.0.0.1 with the
  harness's ``httpRequest`` (``node:http``, kept-alive connections), the example's default;
* **protocol-fetch** (for information): the same child with ``TOOLCALL_EXAMPLE_HTTP=fetch``,
  Node's global ``fetch`` (undici) instead.

Each figure includes the per-case setup the plugin's fixtures do (a fresh fake provider, and
for the loopback modes its server). Prints per-case means and the ratios; no test asserts on
them (``tests/test_foreign.py`` only runs the quick mode through ``--quick``).

The target figure, **protocol / in-process**, is wall time: for each case the median of its
repeats, then the mean over the cases, protocol over in-process. Both sides run the same case
objects, the same fake provider (its checks and its answers) and the same profile (the
child's hello, sync interface); what differs is the adapter (Node in a child over the
protocol, against Python in process) and the transport (loopback HTTP against
``httpx.MockTransport``, no socket). Cases the profile skips (quirks the example does not
target) do no work in any mode and are not counted. Printed beside it, for information: the
same ratio in CPU (every thread of the kit and of the child, mean over all repeats), which the
load does not inflate as it does the waits between the processes, and where that time goes.

    python bench/bench_foreign.py [--repeats 5] [--cases 'wire.*,stream.*'] [--quick] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NODE_ADAPTER = ROOT / "docs" / "examples" / "node" / "openai_adapter.mjs"
RUNNER = ROOT / "js" / "bin" / "pytest-toolcall-node.mjs"


_CLIENT: Any = None
_ASYNC_CLIENT: Any = None


def _async_client() -> Any:
    """The adapter's async client, unused on the sync interface, built once: one per case
    (the adapter's default) loads an SSL context each time, ~60 ms, which was most of the
    loopback figure before 2026-11-25."""
    global _ASYNC_CLIENT
    if _ASYNC_CLIENT is None:
        import httpx

        _ASYNC_CLIENT = httpx.AsyncClient(trust_env=False, timeout=30)
    return _ASYNC_CLIENT


def _client() -> Any:
    """One httpx client for the loopback mode (a new one per case costs its SSL context)."""
    global _CLIENT
    if _CLIENT is None:
        import httpx

        import socket

        # TCP_NODELAY as Node's fetch sets it: httpx writes headers and body apart, and
        # without it Nagle's algorithm holds the body for the server's delayed ACK (~40 ms)
        transport = httpx.HTTPTransport(
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        _CLIENT = httpx.Client(transport=transport, trust_env=False, timeout=30)
    return _CLIENT


def _one(case: Any, mode: str, child: Any, profile: Any, fetch_child: Any = None,
         skipped: set[str] | None = None) -> float:
    """Seconds for one run of ``case`` in ``mode``; a case the profile skips (``CaseSkipped``)
    is added to ``skipped``."""
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.run.foreign import served
    from pytest_toolcall.run.foreign import ForeignAdapter
    from pytest_toolcall.reference import reference_adapter
    from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
    from pytest_toolcall.run.runner import CaseSkipped, run_case

    started = time.perf_counter()
    fake = FakeProvider("openai")
    try:
        if mode == "in-process":
            endpoint = in_process_endpoint(fake)
            run_case(case, reference_adapter(endpoint), profile, endpoint,
                     interfaces=["sync"])
            endpoint.close()
        else:
            with served(fake) as endpoint:
                adapter = (OpenAIChatAdapter(endpoint.base_url, endpoint.api_key,
                                             client=_client(), async_client=_async_client())
                           if mode == "loopback"
                           else ForeignAdapter(fetch_child if mode == "protocol-fetch"
                                               else child, endpoint))
                run_case(case, adapter, profile, endpoint, interfaces=["sync"])
    except CaseSkipped:
        if skipped is not None:
            skipped.add(case.id)
    return time.perf_counter() - started


def _schedstat(pid: int) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one) summed over the threads of
    another process (Linux's /proc/<pid>/task/*/schedstat, in ns; a thread's figures are
    brought up to date when it leaves the CPU, so this is exact for a process that waits);
    (0, 0) where it cannot be read."""
    run = wait = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0, 0.0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as file:
                fields = file.read().split()
        except OSError:
            continue  # a thread that ended
        run, wait = run + int(fields[0]), wait + int(fields[1])
    return run / 1e9, wait / 1e9


def _main_thread_run(pid: int) -> float:
    """Seconds on a CPU of a process's main thread (its thread id is its pid); 0 where it
    cannot be read."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as file:
            return int(file.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _switches(pid: int) -> int:
    """Voluntary context switches summed over a process's threads: each is a thread going to
    sleep to wait (a pipe, a socket, the GIL), so about one wake-up each."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/status") as file:
                for line in file:
                    if line.startswith("voluntary_ctxt_switches"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def _own_wait() -> float:
    """Seconds this process's threads were runnable but waited for a CPU."""
    return _schedstat(os.getpid())[1]


class _Where:
    """Where a protocol case's time goes (Linux): CPU of the kit's main thread (the runner,
    the protocol's JSON and checks, the case's checks), of the kit's other threads (the
    loopback hub serving the fake provider, the child's stderr reader), of the child (all its
    threads), and the rest of the wall time: waiting, for the other side to answer (pipe and
    socket wake-ups) or for a CPU that other processes hold (the load). Also the time the
    threads of both processes were runnable but waited for a CPU, summed over threads (two
    waiting at once count twice), and how many times the threads of both went to sleep to
    wait (voluntary context switches: each about one wake-up, which a loaded machine makes
    dear)."""

    PARTS = ("kit main thread", "kit other threads (hub)", "child (all threads)")
    #: reported apart, within "child (all threads)": its main thread (the harness, the
    #: adapter, Node's HTTP client) and the rest (V8's optimizing compiler, GC helpers)
    CHILD_MAIN = "  of which its main thread"

    def __init__(self, child_pid: int) -> None:
        self.child_pid = child_pid
        self.sums = dict.fromkeys((*self.PARTS, self.CHILD_MAIN), 0.0)
        self.queued = 0.0
        self.sleeps = 0
        self.wall = 0.0
        self.count = 0
        self.available = os.path.exists(f"/proc/{child_pid}/task")

    def measure(self, run: Any) -> float:
        if not self.available:
            return float(run())
        # this thread's clocks read last before the case and first after it: the /proc
        # reads are not counted in its time
        child0, child_wait0 = _schedstat(self.child_pid)
        child_main0 = _main_thread_run(self.child_pid)
        wait0 = _own_wait()
        sleeps0 = _switches(os.getpid()) + _switches(self.child_pid)
        main0, kit0 = time.thread_time(), time.process_time()
        took = float(run())
        main1, kit1 = time.thread_time(), time.process_time()
        child1, child_wait1 = _schedstat(self.child_pid)
        child_main1 = _main_thread_run(self.child_pid)
        wait1 = _own_wait()
        # the reads of /proc after the case cost a few switches of their own: counted alike
        # in both modes, so compare the two figures, not one with zero
        self.sleeps += _switches(os.getpid()) + _switches(self.child_pid) - sleeps0
        self.sums["kit main thread"] += main1 - main0
        self.sums["kit other threads (hub)"] += (kit1 - kit0) - (main1 - main0)
        self.sums["child (all threads)"] += child1 - child0
        self.sums[self.CHILD_MAIN] += child_main1 - child_main0
        self.queued += (wait1 - wait0) + (child_wait1 - child_wait0)
        self.wall += took
        self.count += 1
        return took

    def report(self) -> dict[str, float]:
        """Means per case, in ms."""
        if not self.available or not self.count:
            return {}
        out = {part: self.sums[part] / self.count * 1000 for part in self.PARTS}
        wall = self.wall / self.count * 1000
        cpu = sum(out.values())
        out[self.CHILD_MAIN] = self.sums[self.CHILD_MAIN] / self.count * 1000
        out["waiting (the rest)"] = max(0.0, wall - cpu)
        out["CPU, both processes"] = cpu
        out["wall"] = wall
        out["runnable, no CPU free"] = self.queued / self.count * 1000
        out["sleeps (count)"] = self.sleeps / self.count
        return out


def _bare_round_trip(count: int = 200) -> float:
    """One complete -> result exchange with a child that answers at once (no HTTP)."""
    from pytest_toolcall import ChatRequest, UserMessage
    from pytest_toolcall.providers.fake import FakeProvider
    from pytest_toolcall.run.foreign import Child, ForeignAdapter, served

    harness = (ROOT / "js" / "src" / "index.mjs").as_uri()
    code = (f"import {{ serve }} from {json.dumps(harness)};"
            "serve({ adapter: { complete: () => ({ content: 'ok', toolCalls: [] }) } });")
    child = Child(["node", "--input-type=module", "-e", code])
    child.start()
    request = ChatRequest(messages=(UserMessage(content="hi"),))
    with served(FakeProvider("openai")) as endpoint:
        adapter = ForeignAdapter(child, endpoint)
        for _ in range(10):
            adapter.complete(request)
        started = time.perf_counter()
        for _ in range(count):
            adapter.complete(request)
        took = (time.perf_counter() - started) / count
    child.close()
    return took


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default="wire.*,stream.*")
    parser.add_argument("--quick", action="store_true", help="2 cases, 1 repeat (smoke)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--runner", action="store_true",
                        help="start the protocol child through the js/ package's runner "
                             "(npx pytest-toolcall-node chat=...#sendMessages ...)")
    args = parser.parse_args(argv)
    if shutil.which("node") is None:
        print("bench_foreign: skipped, needs the 'node' program (Node 18+) on PATH")
        return 0

    from pytest_toolcall.cases import default_registry
    from pytest_toolcall.core.contracts import make_profile
    from pytest_toolcall.run.foreign import Child

    command = ["node", str(NODE_ADAPTER)]
    if args.runner:  # the same exports, served by the package's runner (no harness code)
        command = ["node", str(RUNNER), f"chat={NODE_ADAPTER}#sendMessages",
                   f"stream={NODE_ADAPTER}#sendMessagesStreaming", f"profile={NODE_ADAPTER}#profile"]
    child = Child(command, provider="openai")
    child.start()
    fetch_child = Child(["node", str(NODE_ADAPTER)], provider="openai",
                        env={"TOOLCALL_EXAMPLE_HTTP": "fetch"})
    fetch_child.start()
    profile = make_profile({**child.hello["profile"], "async": False})
    cases = list(default_registry().select(args.cases.split(","), "openai"))
    repeats = args.repeats
    quick = 2 if args.quick else None  # the quick mode times the first 2 cases that run
    if args.quick:
        cases, repeats = cases[:6], 1
    modes = ("in-process", "loopback", "protocol", "protocol-fetch")
    load_before = _load()
    skipped: dict[str, set[str]] = {mode: set() for mode in modes}
    for case in cases:  # warm imports, the child's JIT and the sockets once
        for mode in modes:
            _one(case, mode, child, profile, fetch_child, skipped[mode])
    # a case the profile skips does no work in any mode (its claims and quirk are checked
    # before any request): timed, it would add the same ~0.2 ms to both sides of the ratio
    # and pull it towards 1, so the figures are over the cases that ran in every mode
    not_run = sorted(set.union(*skipped.values()))
    uneven = sorted(set.union(*skipped.values()) - set.intersection(*skipped.values()))
    cases = [case for case in cases if case.id not in not_run][:quick]
    if not cases:
        print(f"bench_foreign: every selected case skipped ({', '.join(not_run)})")
        child.close()
        fetch_child.close()
        return 1
    medians: dict[str, list[float]] = {m: [] for m in modes}
    where = {"protocol": _Where(child.proc.pid), "in-process": _Where(child.proc.pid)}
    for case in cases:
        for mode in modes:
            def run(mode: str = mode, case: Any = case) -> float:
                return _one(case, mode, child, profile, fetch_child)

            watch = where.get(mode)
            medians[mode].append(statistics.median(
                watch.measure(run) if watch else run() for _ in range(repeats)))
    child.close()
    fetch_child.close()
    round_trip = _bare_round_trip()
    per_case = {m: sum(v) / len(v) for m, v in medians.items()}
    ratios = sorted(p / i for p, i in zip(medians["protocol"], medians["in-process"]))
    slowest = sorted(zip(medians["protocol"], medians["in-process"],
                         [c.id for c in cases]), reverse=True)[:3]
    protocol_where, in_process_where = (where["protocol"].report(),
                                        where["in-process"].report())
    cpu_ratio = (round(protocol_where["CPU, both processes"]
                       / in_process_where["CPU, both processes"], 2)
                 if protocol_where and in_process_where.get("CPU, both processes") else None)
    result = {
        "cases": len(cases), "repeats": repeats,
        "skipped_cases": not_run, "skipped_in_some_modes_only": uneven,
        "protocol_vs_in_process_cpu": cpu_ratio,
        "load_average_before": load_before,
        "per_case_ms": {m: round(v * 1000, 3) for m, v in per_case.items()},
        "protocol_vs_in_process": round(per_case["protocol"] / per_case["in-process"], 2),
        "protocol_vs_loopback": round(per_case["protocol"] / per_case["loopback"], 2),
        "protocol_fetch_vs_in_process": round(per_case["protocol-fetch"]
                                              / per_case["in-process"], 2),
        "protocol_round_trip_ms": round(round_trip * 1000, 3),
        "median_case_ratio": round(ratios[len(ratios) // 2], 2),
        "slowest_protocol_cases": [{"case": c, "protocol_ms": round(p * 1000, 2),
                                    "in_process_ms": round(i * 1000, 2)} for p, i, c in slowest],
        "target": "protocol <= 2x in-process per case",
        "load_average": _load(),
        "where_ms": {mode: {k: round(v, 3) for k, v in w.report().items()}
                     for mode, w in where.items()},
    }
    print(f"bench_foreign: {len(cases)} cases ({args.cases}), median of {repeats} per case, "
          "sync interface; the protocol's child: "
          + ("the package's runner" if args.runner else "the example's own serve()"))
    everywhere = [c for c in not_run if c not in uneven]
    if everywhere:
        print(f"  not counted: {len(everywhere)} cases the profile skips in every mode (no "
              f"work done): {', '.join(everywhere)}")
    if uneven:
        print(f"  not counted either, skipped in some modes only: {', '.join(uneven)}")
    for mode in modes:
        print(f"  {mode:<14} per case: {per_case[mode] * 1000:8.2f} ms")
    verdict = "PASS" if result["protocol_vs_in_process"] <= 2 else "MISS"
    print(f"  protocol / in-process: {result['protocol_vs_in_process']:.2f}x  "
          f"(target <= 2x: {verdict})")
    print("    (wall time per case, the mean over the cases of each case's median; both sides "
          "run the same cases,\n     the same fake provider and profile, setup included: in "
          "process the Python reference adapter\n     over httpx.MockTransport, no socket; "
          "over the protocol the Node example in a child process,\n     calling the fake "
          "over loopback HTTP)")
    if cpu_ratio is not None:
        cpu = (protocol_where["CPU, both processes"], in_process_where["CPU, both processes"])
        print(f"  protocol / in-process, CPU: {cpu_ratio:.2f}x  (for information: {cpu[0]:.2f} "
              f"against {cpu[1]:.2f} ms a case, every thread of the kit and the child,\n"
              "     mean over all repeats: the protocol's cost without the waits for a CPU "
              "that the load adds)")
    print(f"  protocol / loopback:   {result['protocol_vs_loopback']:.2f}x  (for information: "
          "the Python adapter over the same loopback server)")
    print(f"  protocol-fetch / in-process: {result['protocol_fetch_vs_in_process']:.2f}x  (for "
          "information: the example on Node's global fetch)")
    print(f"  one bare protocol round trip (complete -> result, no HTTP): "
          f"{round_trip * 1000:.3f} ms")
    print(f"  median over cases of protocol / in-process: {result['median_case_ratio']:.2f}x")
    for row in result["slowest_protocol_cases"]:
        print(f"  slowest: {row['case']}: {row['protocol_ms']} ms (in-process "
              f"{row['in_process_ms']} ms)")
    if protocol_where:
        print(f"  where a case's time goes, protocol (in process), mean per case over all "
              f"repeats, load average {load_before} before, {result['load_average']} after:")
        for part, value in protocol_where.items():
            also = in_process_where.get(part, 0.0)
            unit = "" if "count" in part else " ms"
            print(f"    {part:<26} {value:6.2f}{unit}  ({also:.2f}{unit})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
