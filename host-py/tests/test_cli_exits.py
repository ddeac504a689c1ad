"""Every exit code the grammar declares (`shapes/cli.json`, the table in
docs/cli.md), held by a row that runs the Python CLI beside the Rust CLI:
the same standard output, standard error and exit code, byte for byte.

The rows of `test_cli.PARITY` hold most codes; the rows here add what the
table promises about `check`: a call nested deeper than a JSON parser builds
is decided (confirm, `args.invalid`), and a policy fault is that line's
confirm while the next line is still answered; and a broken audit log (4).
"""

from __future__ import annotations

import json
import unittest
from typing import List

import support
import test_cli
from toolgate._grammar import GRAMMAR

# Arguments nested deeper than serde_json builds (128 levels): the tool name
# is still readable, so the call is decided.
DEEP = '{"tool":"execute_sql","args":' + "[" * 200 + "]" * 200 + "}\n"


def broken_audit_log() -> str:
    """Three records sealed by the component, the middle one cut out."""
    import toolgate

    policy = toolgate.load_policy()
    entry = '{"time":1,"tool":"%s","parameters":"{}","decision":{"action":"allow","risk":"low","source":"whitelist","findings":[],"policy_version":"0.1.0"},"status":"executed","success":true}'
    lines: List[str] = []
    for tool in ("a", "b", "c"):
        ok, line = policy._free("seal-audit", entry % tool, lines[-1] if lines else None, interface="toolgate:policy/records@0.1.0")
        assert ok, line
        lines.append(line)
    return test_cli.write("exits-audit-broken.jsonl", f"{lines[0]}\n{lines[2]}\n")


class Exits(unittest.TestCase):
    def run_both(self, what: str, args: list, stdin: str, status: int):
        rs, py = test_cli.both(args, stdin)
        self.assertEqual(py.stderr, rs.stderr, f"{what}: standard error differs")
        self.assertEqual(py.stdout, rs.stdout, f"{what}: standard output differs")
        self.assertEqual(py.returncode, rs.returncode, f"{what}: exit codes differ")
        self.assertEqual(rs.returncode, status, f"{what}: exit code {rs.returncode}, the table says {status}\n{rs.stderr!r}")
        return rs

    def test_a_deep_call_is_decided(self):
        support.installed()
        rs = self.run_both("check, a call whose arguments nest 200 deep", ["check"], DEEP, 10)
        (line,) = [json.loads(l) for l in rs.stdout.decode().splitlines()]
        self.assertEqual(line["action"], "confirm")
        self.assertEqual([f["code"] for f in line["findings"]], ["args.invalid"])
        self.assertTrue(line["summary"].startswith("execute_sql — "), line["summary"])

    def test_a_fault_is_that_lines_confirm(self):
        support.installed()
        huge = test_cli.call("execute_sql", {"sql": f"SELECT '{test_cli.HUGE_SQL}'"}) + "\n"
        denied = test_cli.call("execute_command", {"command": "ls"}) + "\n"
        rs = self.run_both("a policy fault in check, then a denied call", ["check", "--config", test_cli.DENY], huge + denied, 11)
        lines = [json.loads(l) for l in rs.stdout.decode().splitlines()]
        self.assertEqual([l["action"] for l in lines], ["confirm", "deny"])
        self.assertEqual(lines[0]["findings"][0]["code"], "policy.fault")

    def test_a_broken_audit_log(self):
        support.installed()
        self.run_both("audit verify of a broken log", ["audit", "verify", broken_audit_log()], "", 4)

    def test_every_declared_exit_code_has_a_row(self):
        here = {10, 11, 4}  # the rows of this file
        held = {row[3] for row in test_cli.PARITY} | here
        for exit in GRAMMAR["exits"]:
            self.assertIn(exit["code"], held, f"no row exits {exit['code']} ({exit['name']}: {exit['help']})")


if __name__ == "__main__":
    unittest.main()
