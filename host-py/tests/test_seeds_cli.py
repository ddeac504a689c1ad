"""The seeds' commands in `python -m toolgate` against the Rust CLI: the
caller's context (`--context` and its flags) and seed 002's discovery, tool
prompt, request building and response templates, played with the seeds' own
examples. The rows are `tests/seeds/cli-parity.json`, which the JavaScript
CLI's test (`host-js/test/seeds-cli.test.js`) plays too; each names the exit
code the specification gives.
"""

from __future__ import annotations

import json
import unittest

import support
from test_cli import all_both

ROWS = json.loads((support.ROOT / "tests" / "seeds" / "cli-parity.json").read_text(encoding="utf-8"))


class SeedCommands(unittest.TestCase):
    def test_the_rows_print_the_same_bytes_in_both_clis(self):
        ran = all_both([(args, stdin) for _, args, stdin, _ in ROWS])
        for (what, args, _, status), (rs, py) in zip(ROWS, ran):
            label = f"{what}: toolgate {' '.join(args)}"
            self.assertEqual(py.stderr.decode("utf-8", "replace"), rs.stderr.decode("utf-8", "replace"), f"{label}: standard error differs")
            self.assertEqual(py.stdout, rs.stdout, f"{label}: standard output differs")
            self.assertEqual(py.returncode, rs.returncode, f"{label}: exit codes differ")
            self.assertEqual(rs.returncode, status, f"{label}: exit code {rs.returncode}, the row says {status}")

    def test_seed_002_section_7_2_request_through_the_python_cli(self):
        (row,) = [r for r in ROWS if r[0].startswith("seed 002 §7.2")]
        ((_, py),) = all_both([(row[1], row[2])])
        request = json.loads(py.stdout)
        self.assertEqual((request["method"], request["path"]), ("POST", "/api/n9e/busi-group/1/alert-mutes"))
        self.assertEqual(
            json.loads(request["body"]),
            {"prod": "host", "note": "数据库维护", "cate": 0, "btime": 1704153600, "etime": 1704164400,
             "tags": [{"key": "ident", "func": "==", "value": "db-master-01"}], "disabled": 0, "mute_time_type": 0},
        )


if __name__ == "__main__":
    unittest.main()
