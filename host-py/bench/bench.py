"""The Python host beside the Rust and Node hosts, from one run: start-up
(import wasmtime, compiling the component, loading the cached compiled
component, process start to first decision) and the cost of a call, over the
shared call mix (`tests/bench/mix.json`). Not a test: it prints figures for
BENCHMARKS.md.

    target/py-venv/bin/python host-py/bench/bench.py [--quick]

Run it with the Python that has the package installed (tests/run-all makes
target/py-venv). It uses the Rust CLI at target/release/toolgate and, when
host-js is built (`cd host-js && npm run build`), the Node host and CLI.
Each timed figure is a median: of 7 rounds of about 150 ms after a warm-up for
a call, of 11 fresh processes for a start-up.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUST = ROOT / "target" / "release" / "toolgate"
NODE_CLI = ROOT / "host-js" / "bin" / "toolgate.js"
NODE_BUILT = (ROOT / "host-js" / "gen" / "toolgate.js").exists() and shutil.which("node") is not None
QUICK = "--quick" in sys.argv
ROUNDS = 3 if QUICK else 7
ROUND_S = 0.02 if QUICK else 0.15
PROCESSES = 3 if QUICK else 11

MIX = json.loads((ROOT / "tests" / "bench" / "mix.json").read_text())
CALLS = [(c["name"], c["tool"], json.dumps(c["args"], separators=(",", ":"))) for c in MIX["calls"]]
CONFIG = json.dumps(MIX["config"])


def per_call(f) -> float:
    """Microseconds per call of `f`: the median of ROUNDS rounds after a warm-up."""
    for _ in range(50):
        f()
    samples = []
    for _ in range(ROUNDS):
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < ROUND_S:
            for _ in range(8):
                f()
            n += 8
        samples.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(samples)


def wall(command, env=None, stdin=b"") -> float:
    """Milliseconds of a whole process: the median of PROCESSES runs."""
    samples = []
    for _ in range(PROCESSES):
        start = time.perf_counter()
        subprocess.run(command, input=stdin, capture_output=True, env=env, cwd=ROOT)
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def child_json(code: str, env=None) -> list:
    out = []
    for _ in range(PROCESSES):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        out.append(json.loads(r.stdout))
    return out


def med(rows: list, key: str) -> float:
    return statistics.median(r[key] for r in rows)


NODE_PER_CALL = """
const { loadPolicy } = await import('./host-js/src/index.js');
const [mix, rounds, roundS] = [JSON.parse(process.argv[1]), Number(process.argv[2]), Number(process.argv[3])];
const engine = (await loadPolicy()).engine(JSON.stringify(mix.config));
const medians = [];
for (const c of mix.calls) {
  const args = JSON.stringify(c.args);
  for (let i = 0; i < 50; i++) engine.assess(c.tool, args);
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < roundS * 1000) {
      for (let i = 0; i < 8; i++) engine.assess(c.tool, args);
      n += 8;
    }
    samples.push(((performance.now() - start) / n) * 1000);
  }
  samples.sort((a, b) => a - b);
  medians.push(samples[Math.floor(samples.length / 2)]);
}
console.log(JSON.stringify({ mean: medians.reduce((a, b) => a + b, 0) / medians.length }));
"""

NODE_GATE = """
const { loadPolicy, Gate, MemorySink } = await import('./host-js/src/index.js');
const [rounds, roundS] = [Number(process.argv[1]), Number(process.argv[2])];
const gate = new Gate(await loadPolicy(), { key: 'bench-key-0123456789abcdef012345', audit: [new MemorySink()] });
const select = { tool: 'execute_sql', args: '{"sql":"SELECT 1"}' };
const del = { tool: 'execute_sql', args: '{"sql":"DELETE FROM t WHERE id = 1"}' };
async function time(f) {
  for (let i = 0; i < 20; i++) await f();
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < roundS * 1000) { await f(); n++; }
    samples.push(((performance.now() - start) / n) * 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}
const allowed = await time(() => gate.run(select, () => '1'));
const confirmed = await time(async () => {
  const c = await gate.check(del);
  await gate.settle(c.pending.id, { answer: 'approve' }, () => '1');
});
console.log(JSON.stringify({ allowed, confirmed }));
"""


def gate_costs(policy) -> dict:
    """The Python gate's cost per call: an allowed call's `run`, a confirmed
    call's `check` and `settle` (approved, run), and the crossings into the
    component each takes."""
    from toolgate.gate import Gate
    from toolgate.stores import DirStore, JsonlSink, MemorySink

    key = b"bench-key-0123456789abcdef012345"
    work = Path(tempfile.mkdtemp(prefix="toolgate-bench-gate-"))
    select = {"tool": "execute_sql", "args": {"sql": "SELECT 1"}}
    delete = {"tool": "execute_sql", "args": {"sql": "DELETE FROM t WHERE id = 1"}}
    out = {}
    for label, gate in (
        ("memory", Gate(policy, {}, key=key, audit=[MemorySink()])),
        ("directory + JSON Lines", Gate(policy, {}, key=key, store=DirStore(work / "cp"), audit=[JsonlSink(work / "audit.jsonl")])),
    ):

        def allowed():
            gate.run(select, lambda a: 1)

        def confirmed():
            gate.settle(gate.check(delete).pending.id, {"answer": "approve"}, lambda a: 1)

        crossings = []
        for f in (allowed, confirmed):
            before = policy.stats()["crossings"]
            f()
            crossings.append(policy.stats()["crossings"] - before)
        out[label] = (per_call(allowed), per_call(confirmed), f"{crossings[0]}, {crossings[1]}")
    shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> None:
    import toolgate
    from toolgate import _runtime

    print(f"# toolgate: Python host beside Rust and Node ({'quick' if QUICK else 'full'} run)\n")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print(f"Python {sys.version.split()[0]}, wasmtime (PyPI) 50.0.1; component {_runtime.BUNDLED_SHA256.read_text().strip()[:16]}…\n")

    # Per call, in process.
    policy = toolgate.load_policy()
    engine = policy.engine(CONFIG)
    print("## Per call, in process (µs)\n")
    print("| call | decision | Python |")
    print("|---|---|---:|")
    total = []
    for name, tool, args in CALLS:
        d = engine.assess(tool, args)
        t = per_call(lambda: engine.assess(tool, args))
        total.append(t)
        print(f"| {name} | {d.action} | {t:.1f} |")
    print(f"| **mean of the mix** | | **{statistics.mean(total):.1f}** |")
    pairs = [(tool, args) for _, tool, args in CALLS]
    batch = per_call(lambda: engine.assess_many(pairs)) / len(pairs)
    version = per_call(policy.version)
    print(f"\nassess_many over the mix: {batch:.1f} µs a call; the cheapest export (version()): {version:.1f} µs\n")
    if NODE_BUILT:
        # The same mix in one Node process, timed the same way (median of rounds after a warm-up).
        node = json.loads(subprocess.run(["node", "--input-type=module", "-e", NODE_PER_CALL, json.dumps(MIX), str(ROUNDS), str(ROUND_S)], capture_output=True, text=True, cwd=ROOT, check=True).stdout)
        print(f"Node, in process, the same mix: {node['mean']:.1f} µs a call (mean of the calls' medians)\n")

    # The approval gate: an allowed call run, and a confirmed call checked, settled and run.
    print("## The approval gate, per call (µs; in memory, and on a directory store with a JSON Lines log)\n")
    print("| gate | allowed call, `run` | confirmed call, `check` + `settle` | crossings (allowed, confirmed) |")
    print("|---|---:|---:|---:|")
    for label, (allowed, confirmed, crossings) in gate_costs(policy).items():
        print(f"| Python, {label} | {allowed:.0f} | {confirmed:.0f} | {crossings} |")
    if NODE_BUILT:
        node_gate = json.loads(subprocess.run(["node", "--input-type=module", "-e", NODE_GATE, str(ROUNDS), str(ROUND_S)], capture_output=True, text=True, cwd=ROOT, check=True).stdout)
        print(f"| Node, memory | {node_gate['allowed']:.0f} | {node_gate['confirmed']:.0f} | (the driver in batches too) |")
    print()

    # The same calls through each CLI's check: one process deciding the mix
    # repeated, minus the same process with no lines (its start-up).
    repeat = 40 if QUICK else 400
    text = ("".join(json.dumps({"tool": t, "args": json.loads(a)}) + "\n" for _, t, a in CALLS) * repeat).encode()
    config_file = Path(tempfile.mkdtemp(prefix="toolgate-bench-")) / "config.json"
    config_file.write_text(CONFIG)
    clis = {"Rust": [str(RUST)], "Python": [sys.executable, "-m", "toolgate"]}
    if NODE_BUILT:
        clis["Node"] = ["node", str(NODE_CLI)]
    print("## Through each CLI's `check` (µs a call, start-up taken off)\n")
    print("| host | µs a call |")
    print("|---|---:|")
    for host, cli in clis.items():
        full = wall([*cli, "check", "--config", str(config_file), "-"], stdin=text)
        empty = wall([*cli, "check", "--config", str(config_file), "-"], stdin=b"")
        print(f"| {host} | {(full - empty) * 1e3 / (len(CALLS) * repeat):.1f} |")

    # Start-up.
    print("\n## Start-up (ms, medians of fresh processes)\n")
    print("| measure | time |")
    print("|---|---:|")
    cold = tempfile.mkdtemp(prefix="toolgate-bench-cache-")
    env = dict(os.environ, TOOLGATE_CACHE_DIR=cold)
    imports = child_json("import json, time; t = time.perf_counter(); import wasmtime; print(json.dumps({'ms': (time.perf_counter() - t) * 1e3}))")
    print(f"| Python: `import wasmtime` | {med(imports, 'ms'):.1f} |")
    steps = (
        "import json, time; t0 = time.perf_counter(); from toolgate import load_policy; t1 = time.perf_counter(); "
        "p = load_policy(cache={cache}); t2 = time.perf_counter(); "
        "p.assess('execute_sql', '{{\"sql\":\"SELECT 1\"}}'); t3 = time.perf_counter(); "
        "print(json.dumps({{'import': (t1 - t0) * 1e3, 'load': (t2 - t1) * 1e3, 'first': (t3 - t2) * 1e3, 'from': p.loaded_from[:6]}}))"
    )
    once = subprocess.run([sys.executable, "-c", steps.format(cache="False")], capture_output=True, text=True, env=env, check=True)
    compiled = json.loads(once.stdout)
    print(f"| Python: compile the component (no cache), `load_policy(cache=False)` | {compiled['load']:.0f} |")
    subprocess.run([sys.executable, "-c", steps.format(cache="True")], capture_output=True, env=env, check=True)
    cached = child_json(steps.format(cache="True"), env=env)
    assert all(r["from"] == "cache:" for r in cached), cached
    print(f"| Python: `from toolgate import load_policy` (imports wasmtime) | {med(cached, 'import'):.1f} |")
    print(f"| Python: `load_policy()`, cached compiled component | {med(cached, 'load'):.2f} |")
    print(f"| Python: first decision after loading | {med(cached, 'first'):.2f} |")
    print(f"| Python: `load_policy()` to first decision | {statistics.median(r['load'] + r['first'] for r in cached):.2f} |")
    assess = ["assess", "execute_sql", '{"sql":"SELECT 1"}']
    print(f"| Python: `python -m toolgate assess`, whole process | {wall([sys.executable, '-m', 'toolgate', *assess], env=env):.0f} |")
    print(f"| Python: `python -c pass`, whole process (the interpreter alone) | {wall([sys.executable, '-c', 'pass']):.0f} |")
    print(f"| Rust: `toolgate assess`, whole process, cached | {wall([str(RUST), *assess]):.1f} |")
    if NODE_BUILT:
        snippet = (
            "const t0 = performance.now(); const { loadPolicy } = await import('./host-js/src/index.js'); "
            "const p = await loadPolicy(); p.assess('execute_sql', '{\"sql\":\"SELECT 1\"}'); "
            "console.log(JSON.stringify({ ms: performance.now() - t0 }));"
        )
        node = [json.loads(subprocess.run(["node", "--input-type=module", "-e", snippet], capture_output=True, text=True, cwd=ROOT, check=True).stdout) for _ in range(PROCESSES)]
        print(f"| Node: import to first decision | {med(node, 'ms'):.1f} |")
        print(f"| Node: `toolgate assess` (host-js/bin), whole process | {wall(['node', str(NODE_CLI), *assess]):.0f} |")
    else:
        print("| Node | not built: `cd host-js && npm install && npm run build` |")
    shutil.rmtree(cold, ignore_errors=True)
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
