"""The conformance vectors, run through the component in Python (wasmtime's
Python package): every expectation holds, and the decisions go to
`target/conformance/python.jsonl`, which `tests/cross-runtime.test.mjs`
requires to be byte-identical with the native, wasmtime, Node and Chromium
runtimes' files."""

import time
import unittest

import conformance
import support
from toolgate import load_policy


class Conformance(unittest.TestCase):
    def test_every_vector_in_python(self):
        support.installed()
        policy = load_policy()
        started = time.perf_counter()
        lines, failures = conformance.run(policy, support.VECTORS)
        took = time.perf_counter() - started
        self.assertGreaterEqual(len(lines), 80, f"only {len(lines)} conformance cases found")
        support.OUT.mkdir(parents=True, exist_ok=True)
        (support.OUT / "python.jsonl").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        print(f"python: {len(lines)} conformance cases run in {took:.2f} s")
        self.assertEqual(failures, [], f"{len(failures)} of {len(lines)} cases failed")


if __name__ == "__main__":
    unittest.main()
