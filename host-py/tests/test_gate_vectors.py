"""The gate vectors (tests/gate/*.jsonl), run through the component's flow in
Python: every step's output is the expected text, and all outputs go to
`target/conformance/gate-python.txt`, which `tests/cross-runtime.test.mjs`
requires to be byte-identical with the native, wasmtime, Node and Chromium
runtimes' files."""

import time
import unittest

import gate_vectors
import support
from toolgate import load_policy


class GateVectors(unittest.TestCase):
    def test_every_gate_vector_in_python(self):
        support.installed()
        policy = load_policy()
        started = time.perf_counter()
        count, lines, failures = gate_vectors.run_gate_vectors(policy, support.ROOT / "tests" / "gate")
        took = time.perf_counter() - started
        self.assertGreaterEqual(count, 40, f"only {count} gate cases found")
        support.OUT.mkdir(parents=True, exist_ok=True)
        (support.OUT / "gate-python.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        print(f"python: {count} gate cases ({len(lines)} steps) run in {took:.2f} s")
        report = "\n".join(f"{f['file']} / {f['name']}:\n  expected {f['expected']}\n  got      {f['got']}" for f in failures[:3])
        self.assertEqual(failures, [], f"{len(failures)} of {count} gate cases failed:\n{report}")


if __name__ == "__main__":
    unittest.main()
