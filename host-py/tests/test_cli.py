"""`python -m toolgate` against the Rust CLI: the same input gives the same
standard output, standard error and exit code, byte for byte (the Python twin
of `host-js/test/cli.test.js`, whose parity table this one follows).

`grants list|revoke` run on copies of one checkpoint directory (a grant, a
forged one, an expired one) and leave the same files. Left out, for a reason
a test below holds: YAML documents for `import-openapi`, which this CLI
refuses (JSON only) rather than read YAML by another reader than the Rust
CLI's. The Rust-only commands are refused as in the JavaScript CLI.
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Sequence, Union

import conformance
import support


def key_bytes(path: str) -> bytes:
    return Path(path).read_bytes().rstrip(b"\n")

Arg = Union[str, bytes]

SCRATCH = Path(tempfile.mkdtemp(prefix="toolgate-py-cli-"))
BAD = bytes([0x53, 0x45, 0x4C, 0xFF, 0xFE, 0x20, 0x31])


def with_bad(before: str, after: str) -> bytes:
    return before.encode() + BAD + after.encode()


def call(tool: str, args: object) -> str:
    return json.dumps({"tool": tool, "args": args}, separators=(",", ":"), ensure_ascii=False)


def run(command: List[str], args: Sequence[Arg], stdin: Union[str, bytes]) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([*command, *args], input=data, capture_output=True, cwd=support.ROOT, timeout=600)


def both(args: Sequence[Arg], stdin: Union[str, bytes] = ""):
    """The Rust and the Python CLI's runs on the same arguments and input."""
    assert support.RUST_CLI.exists(), f"the Rust CLI is not built at {support.RUST_CLI}: run cargo build --release first"
    return run([str(support.RUST_CLI)], args, stdin), run(support.python_cli(), args, stdin)


def all_both(rows: Sequence[tuple]) -> list:
    """`both` for many (arguments, input) rows, a few at a time: the runs are
    independent processes, and a Python CLI's start-up is mostly waiting."""
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda row: both(*row), rows))


def write(name: str, data: Union[str, bytes]) -> str:
    path = SCRATCH / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


DIR = SCRATCH / "a-directory"
DIR.mkdir()
DENY = write("parity-deny.json", '{"denied_tools":["execute_command"]}')
BAD_CONFIG = write("parity-bad.json", '{"strict":"yes"}')
HUGE_SQL = "x" * (300 * 1024 * 1024)

# [what, arguments, standard input, exit code]: the rows of the JavaScript
# parity table for the commands this CLI has, and its usage errors for all.
PARITY = [
    ("no arguments", [], "", 2),
    ("--help", ["--help"], "", 0),
    ("-h after a command, before a bad option", ["assess", "-h", "--bogus"], "", 0),
    ("a bad option before --help", ["--bogus", "--help"], "", 2),
    ("--help after -- is an operand", ["assess", "--", "--help"], "", 10),
    ("--version", ["--version"], "", 0),
    ("-V with a command", ["check", "-V"], "", 0),
    ("--version twice", ["--version", "-V"], "", 2),
    ("unknown command", ["frobnicate"], "", 2),
    ("unknown command with a control character", ["x\u0007y"], "", 2),
    ("unknown option", ["check", "--bogus"], "", 2),
    ("unknown option with a value", ["check", "--bogus=1"], "", 2),
    ("unknown short option", ["-x"], "", 2),
    ("an option of another command", ["check", "--json"], "", 2),
    ("a flag given a value", ["assess", "--json=yes", "x"], "", 2),
    ("--json twice", ["assess", "--json", "--json", "execute_sql", "{}"], "", 2),
    ("--config twice, two spellings", ["check", "--config", "examples/config.json", "--config=examples/config.json"], "", 2),
    ("--config= (empty value)", ["check", "--config="], "", 2),
    ('--config "" (empty value)', ["check", "--config", ""], "", 2),
    ("--config without a value", ["check", "--config"], "", 2),
    ("--no-cache twice", ["--no-cache", "guidance", "--no-cache"], "", 2),
    ("assess without TOOL", ["assess"], "", 2),
    ("assess with an extra operand", ["assess", "a", "{}", "b"], "", 2),
    ("assess -- TOOL ARGS", ["assess", "--", "execute_sql", '{"sql":"SELECT 1"}'], "", 0),
    ("assess --json -- with operands that look like options", ["assess", "--json", "--", "-rm", "--json"], "", 10),
    ("options before the command", ["--json", "assess", "execute_sql", '{"sql":"SELECT 1"}'], "", 0),
    ("--config=FILE", ["assess", f"--config={DENY}", "execute_command", '{"command":"ls"}'], "", 11),
    ("--no-cache and --json", ["assess", "--no-cache", "--json", "execute_sql", '{"sql":"DROP TABLE t"}'], "", 10),
    ("ARGS_JSON not an object", ["assess", "execute_sql", "[1]"], "", 10),
    ("ARGS_JSON holding U+FFFD", ["assess", "execute_sql", '{"sql":"SELECT \ufffd"}'], "", 2),
    ("ARGS_JSON that is not UTF-8", ["assess", "execute_sql", with_bad('{"sql":"', '"}')], "", 2),
    ("ARGS_JSON from standard input, not UTF-8", ["assess", "execute_sql", "-"], with_bad('{"sql":"', '"}'), 1),
    ("a TOOL that is not UTF-8", ["assess", with_bad("x", ""), "{}"], "", 2),
    ("a check input that is not UTF-8", ["check"], with_bad(call("execute_command", {"command": "ls"}) + '\n{"tool":"', '"}\n'), 3),
    ("audit without a subcommand", ["audit"], "", 2),
    ("audit with an unknown subcommand", ["audit", "list"], "", 2),
    ("audit verify without FILE", ["audit", "verify"], "", 2),
    ("audit verify with a missing file", ["audit", "verify", "/nonexistent/audit.jsonl"], "", 1),
    ("config check without FILE", ["config", "check"], "", 2),
    ("config check, a valid file", ["config", "check", "examples/config.json"], "", 0),
    ("config check, seed 004 TOML", ["config", "check", "tests/config/seed-004-workflow.toml"], "", 0),
    ("config check, seed 002 definition as written: its contradictions are warnings", ["config", "check", "tests/config/seed-002-definition.json"], "", 0),
    ("config check, seed 002 table rows as JSON", ["config", "check", "tests/config/seed-002-rows.json"], "", 0),
    ("config explain, seed 002 table rows as JSON", ["config", "explain", "tests/config/seed-002-rows.json"], "", 0),
    ("config explain, no layers", ["config", "explain"], "", 0),
    ("config explain, three layers", ["config", "explain", "--managed", "tests/config/seed-004-workflow.toml", "--user", "examples/config.json", "examples/monitoring/registry.json"], "", 0),
    ("config explain, a managed layer locks what a user layer loosens", ["config", "explain", "--managed", "tests/config/managed-locks.toml", "--user", "tests/config/user-loosens.json"], "", 0),
    ("config explain, a refused layer", ["config", "explain", "--user", "host-js/package.json"], "", 1),
    ("config without a subcommand", ["config"], "", 2),
    ("config with an unknown subcommand", ["config", "show"], "", 2),
    ("config check, a refused file", ["config", "check", "host-js/package.json"], "", 1),
    ("import-openapi from standard input (JSON)", ["import-openapi", "-"], '{"openapi":"3.0.0","paths":{"/a/{id}":{"get":{"operationId":"getA","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","minimum":1.5}}]}}}}', 0),
    ("import-openapi --only and --category (JSON)", ["import-openapi", "--only", "getA", "--category=letters", "-"], '{"openapi":"3.0.0","paths":{"/a":{"get":{"operationId":"getA"},"delete":{"operationId":"deleteA"}}}}', 0),
    ("import-openapi of a document that is not one", ["import-openapi", "-"], '{"info": {}}', 1),
    ("import-openapi --category without a value", ["import-openapi", "--category"], "", 2),
    ("approvals list without a key or --unsigned", ["approvals", "list", str(DIR)], "", 2),
    ("approvals list with both", ["approvals", "list", "--unsigned", "--key-file", "k", str(DIR)], "", 2),
    ("mcp-proxy without COMMAND", ["mcp-proxy", "--augment", "--"], "", 2),
    ("mcp-proxy with an option of another command", ["mcp-proxy", "--json", "--", "node"], "", 2),
    ("mcp-proxy --name without a value", ["mcp-proxy", "--name"], "", 2),
    ("mcp without a subcommand", ["mcp"], "", 2),
    ("mcp with an unknown subcommand", ["mcp", "tools"], "", 2),
    ("mcp pins without a subcommand", ["mcp", "pins"], "", 2),
    ("mcp pins with an unknown subcommand", ["mcp", "pins", "show"], "", 2),
    ("mcp pins approve without TOOL", ["mcp", "pins", "approve", "fs"], "", 2),
    ("mcp pins list with an extra operand", ["mcp", "pins", "list", "fs"], "", 2),
    ("mcp pins list --augment", ["mcp", "pins", "list", "--augment"], "", 2),
    ("grants without a subcommand", ["grants"], "", 2),
    ("grants with an unknown subcommand", ["grants", "show"], "", 2),
    ("grants list without a key", ["grants", "list", str(DIR)], "", 2),
    ("grants revoke --audit-key-file without --audit", ["grants", "revoke", "--key-file", "k", "--audit-key-file", "k", str(DIR), "g-1"], "", 2),
    ("guidance with an operand", ["guidance", "zh"], "", 2),
    ("hook without a format", ["hook"], "", 2),
    ("hook with two formats", ["hook", "claude-code", "gemini-cli"], "", 2),
    ("hook --config without a value", ["hook", "claude-code", "--config"], "", 2),
    ("hook --config= empty", ["hook", "--config=", "claude-code"], "", 2),
    ("hook --json", ["hook", "--json", "claude-code"], "", 2),
    ("hook --config twice", ["hook", "--config", "a", "--config", "b", "claude-code"], "", 2),
    ("hook of an unknown format", ["hook", "cursor"], "{}", 2),
    ("hook with a missing configuration asks, exit 0", ["hook", "--config", "/nonexistent/config.json", "claude-code"], "{}", 0),
    ("hook with a configuration the policy refuses asks, exit 0", ["hook", "--config", BAD_CONFIG, "gemini-cli"], "{}", 0),
    ("hook with a missing configuration, codex denies", ["hook", "--config", "/nonexistent/config.json", "codex"], "{}", 0),
    ("hook of an unknown format with a missing configuration", ["hook", "--config", "/nonexistent/config.json", "cursor"], "{}", 2),
    ("hook, empty input", ["hook", "claude-code"], "", 0),
    ("guidance in an unknown language", ["guidance", "--lang=xx"], "", 0),
    ("check a missing file", ["check", "/nonexistent/calls.jsonl"], "", 1),
    ("check a directory", ["check", str(DIR)], "", 1),
    ("a missing configuration", ["assess", "--config", "/nonexistent/config.json", "x"], "", 1),
    ("a configuration the policy refuses", ["check", "--config", BAD_CONFIG], "", 1),
    ("augment a missing file", ["augment", "/nonexistent/tools.json"], "", 1),
    ("check, empty input", ["check"], "", 0),
    ("check, blank lines (space, tab, CR, CRLF)", ["check", "-"], "\n \t\r\n\r\n\n", 0),
    ("check, a line holding only U+0085", ["check"], "\u0085\n", 3),
    ("check, a line holding only a byte-order mark", ["check"], "\ufeff\n", 3),
    ("check, a byte-order mark before a call", ["check"], "\ufeff" + call("execute_command", {"command": "ls"}) + "\n", 3),
    ("check, U+00A0, U+2028, U+3000, VT and FF lines", ["check"], "\u00a0\n\u2028\n\u3000\n\u000b\n\u000c\n", 3),
    ("check, a NUL line", ["check"], "\u0000\n", 3),
    ("check, calls around blank and malformed lines, no final newline", ["check"], call("execute_sql", {"sql": "SELECT 1"}) + "\r\n\u0085\n\n{\"args\":{}}\n" + call("execute_command", {"command": "rm -rf /"}), 3),
    ("check, a denied call", ["check", "--config", DENY], call("execute_command", {"command": "ls"}) + "\n", 11),
    ("a policy fault in check", ["check"], lambda: call("execute_sql", {"sql": f"SELECT '{HUGE_SQL}'"}) + "\n", 10),
    ("a policy fault in assess", ["assess", "--json", "execute_sql", "-"], lambda: json.dumps({"sql": f"SELECT '{HUGE_SQL}'"}), 10),
]


class Parity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Both CLIs must run one component: the Rust CLI's cache file name
        # carries the SHA-256 of the component it embeds (docs/hosts.md).
        cache = SCRATCH / "rust-cache"
        subprocess.run([str(support.RUST_CLI), "--version"], env=support.scratch_env(cache), capture_output=True, check=True)
        (artifact,) = [p.name for p in cache.glob("toolgate-*.cwasm")]
        import toolgate._runtime

        bundled = toolgate._runtime.BUNDLED_SHA256.read_text().strip()
        rust = artifact.split("-")[1]
        assert bundled.startswith(rust), f"the Rust CLI embeds component {rust}…, the Python package bundles {bundled}: build both from one tree"

    def assert_same(self, args: Sequence[Arg], stdin: Union[str, bytes] = "", label: str = "", ran: tuple = ()) -> subprocess.CompletedProcess:
        rs, py = ran or both(args, stdin)
        label = label or "toolgate " + " ".join(a if isinstance(a, str) else repr(a) for a in args)
        self.assertEqual(py.stderr.decode("utf-8", "replace"), rs.stderr.decode("utf-8", "replace"), f"{label}: standard error differs")
        self.assertEqual(py.stdout, rs.stdout, f"{label}: standard output differs")
        self.assertEqual(py.returncode, rs.returncode, f"{label}: exit codes differ")
        return rs

    def test_the_parity_table(self):
        support.installed()
        small = [(args, stdin) for _, args, stdin, _ in PARITY if not callable(stdin)]
        ran = iter(all_both(small))
        for what, args, stdin, status in PARITY:
            # The inputs of 300 MiB are run one at a time, after the others.
            runs = both(args, stdin()) if callable(stdin) else next(ran)
            rs = self.assert_same(args, label=f"{what}: toolgate {' '.join(map(str, args))}", ran=runs)
            self.assertEqual(rs.returncode, status, f"{what}: exit code {rs.returncode}, the specification says {status}\n{rs.stderr!r}")
            text = (rs.stdout + rs.stderr).decode("utf-8", "replace")
            self.assertNotRegex(text, r"wasm backtrace|Traceback|ENOENT|os error", what)
            if what.startswith("a policy fault"):
                self.assertIn('"code":"policy.fault","message":"the policy faulted (the component aborted); a person must decide"', rs.stdout.decode())

    def test_the_table_covers_what_it_claims(self):
        rows = {what: (args, stdin) for what, args, stdin, _ in PARITY}

        def rust(what):
            args, stdin = rows[what]
            return run([str(support.RUST_CLI)], args, stdin)

        self.assertRegex(rust("--version").stdout.decode(), r"^toolgate \d+\.\d+\.\d+\n$")
        self.assertTrue(rust("--help").stdout.startswith(b"toolgate: one risk policy"))
        self.assertEqual(rust("no arguments").stderr, b"toolgate: usage error: a command is required\nTry 'toolgate --help'.\n")
        self.assertIn(b"argument 3 is not valid UTF-8", rust("ARGS_JSON that is not UTF-8").stderr)
        self.assertEqual(rust("check, a line holding only U+0085").stdout, b'{"line":1,"error":"the call is not valid JSON"}\n')
        self.assertEqual(rust("check, blank lines (space, tab, CR, CRLF)").stdout, b"")

    def test_check_on_the_examples_and_every_vector(self):
        self.assertEqual(self.assert_same(["check", "examples/tool-calls.jsonl"]).returncode, 10)
        self.assert_same(["check", "--config", "examples/config.json", "examples/tool-calls.jsonl"])
        # Every assess vector's call in one input, under the default
        # configuration and under a denying one (the per-configuration
        # decisions are compared case by case by the conformance run).
        lines = [call_line(c) for c in conformance.cases(support.VECTORS) if c.kind == "assess"]
        self.assertGreaterEqual(len(lines), 1000)
        text = "\n".join(lines) + "\n"
        rows = [(["check", "-"], text), (["check", "--config", DENY, "-"], text)]
        for row, ran in zip(rows, all_both(rows)):
            r = self.assert_same(row[0], label="check " + " ".join(row[0]), ran=ran)
            self.assertEqual(len([l for l in r.stdout.split(b"\n") if l]), len(lines))

    def test_assess_augment_and_guidance(self):
        for tool_args in (
            ["execute_sql", '{"sql":"SELECT 1; DROP TABLE t"}'],
            ["execute_command", '{"command":"ls -la","risk_level":"high"}'],
            ["execute_sql", '{"sql": '],
            ["execute_sql", '{"sql":"DROP TABLE users","risk_level":"low"}'],
            ["file_operations", '{"operation":"read","path":"a.txt"}'],
            ["unknown_tool"],
        ):
            self.assert_same(["assess", *tool_args])
            self.assert_same(["assess", "--json", *tool_args])
        self.assert_same(["augment", "examples/tools.json"])
        for fmt in ("openai-chat", "openai-responses", "anthropic", "mcp", "gemini"):
            self.assert_same(["augment", f"examples/formats/{fmt}.json"])
            self.assert_same(["augment", "--format", fmt, f"examples/formats/{fmt}.json"])
        self.assert_same(["augment", "--format", "cobol"], "[]")
        self.assert_same(["augment"], '[{"name":"own","input_schema":{"type":"object","properties":{"risk_level":{"type":"integer"}}}}, 7]')
        self.assert_same(["guidance"])
        self.assert_same(["guidance", "--lang", "zh"])

    def test_hook_events_of_both_agents(self):
        # Every documented and malformed event of tests/hooks: the Python
        # host's answer (what `python -m toolgate hook` prints: the output, the
        # error line, the exit code) is the Rust CLI's, byte for byte. The CLI's
        # own handling of `hook` (standard input, configuration errors, exit 2)
        # is in the parity table.
        import toolgate

        policy = toolgate.load_policy()
        directory = support.ROOT / "tests" / "hooks"
        seen = 0
        for file in ("claude-code.json", "gemini-cli.json"):
            spec = json.loads((directory / file).read_text())
            for c in spec["cases"]:
                config = directory / c["config"] if c.get("config") else None
                if config is not None and not config.exists():
                    # A missing configuration is the CLI's own error, answered
                    # before any policy runs: the parity table holds it.
                    continue
                args = ["hook", spec["format"], *(["--config", str(config)] if config else [])]
                if "event" in c:
                    data = json.dumps(c["event"], separators=(",", ":"), ensure_ascii=False).encode()
                elif "raw" in c:
                    data = c["raw"].encode()
                elif "raw_base64" in c:
                    data = base64.b64decode(c["raw_base64"])
                else:
                    data = b" " * c["oversize"]
                rs = run([str(support.RUST_CLI)], args, data)
                with policy.engine(config.read_text() if config else "{}") as engine:
                    answer = engine.hook(spec["format"], data)
                label = f"{spec['format']}: {c['name']}"
                self.assertEqual((answer.output + "\n").encode(), rs.stdout, label)
                self.assertEqual(b"" if answer.error is None else (answer.error + "\n").encode(), rs.stderr, label)
                self.assertEqual(answer.exit, rs.returncode, label)
                seen += 1
        self.assertGreaterEqual(seen, 40)

    def test_audit_verify(self):
        # A log sealed by the Rust CLI's component is verified alike by both; a cut one is broken in both.
        import toolgate

        policy = toolgate.load_policy()
        entry = '{"time":1,"tool":"%s","parameters":"{}","decision":{"action":"allow","risk":"low","source":"whitelist","findings":[],"policy_version":"0.1.0"},"status":"executed","success":true}'
        lines: List[str] = []
        seal = lambda text, prev: policy._free("seal-audit", text, prev, interface="toolgate:policy/records@0.1.0")  # noqa: E731
        for tool in ("a", "b", "c"):
            ok, line = seal(entry % tool, lines[-1] if lines else None)
            self.assertTrue(ok, line)
            lines.append(line)
        good = write("audit.jsonl", "\n".join(lines) + "\n")
        self.assertEqual(self.assert_same(["audit", "verify", good]).returncode, 0)
        bad = write("audit-broken.jsonl", f"{lines[0]}\n{lines[2]}\n")
        self.assertEqual(self.assert_same(["audit", "verify", bad]).returncode, 4)

    def test_mutated_lines_decide_alike(self):
        rng = random.Random(0x7001)
        splices = ["\ufffd", "\\ud800", "\u0000", "\\u0000", "😀", "\u2028", '"', "\\", ";", "$(", "|", "{", "[", "]", "}", "risk_level"]
        cases = [c for c in conformance.cases(support.VECTORS) if c.kind == "assess"]
        lines = []
        for _ in range(1500):
            c = rng.choice(cases)
            line = json.dumps({"tool": c.tool, "args": c.text}, ensure_ascii=False)
            for _ in range(rng.randrange(4)):
                at = rng.randrange(len(line) + 1)
                line = line[:at] if rng.randrange(3) == 0 else line[:at] + rng.choice(splices) + line[at:]
            lines.append(line.replace("\n", " "))
        r = self.assert_same(["check", "-"], "\n".join(lines) + "\n", "1500 mutated lines")
        self.assertIn(r.returncode, (3, 10, 11), r.stderr)

    def test_grants_list_and_revoke(self):
        import shutil
        import time

        from toolgate import load_policy
        from toolgate.gate import Gate
        from toolgate.stores import DirStore

        key = write("grants-key", "grants-parity-key-0123456789abcdef\n")
        base = Path(tempfile.mkdtemp(prefix="toolgate-grants-", dir=SCRATCH))
        made = base / "made"
        made.mkdir()
        kept = []
        # Three grants, each kept by a gate of its own (one would cover the next call).
        for n, remember in enumerate(("project", {"scope": "project", "expires_at": int(time.time() * 1000) + 100}, "project")):
            own = base / f"gate-{n}"
            gate = Gate(load_policy(), {}, key=key_bytes(key), store=DirStore(own))
            id = gate.check({"tool": "execute_sql", "args": {"sql": f"DELETE FROM users WHERE id = {n}"}}).pending.id
            gate.settle(id, {"answer": "approve", "remember": remember}, lambda a: 1)
            (grant,) = own.glob("grant-*.json")
            shutil.move(str(grant), made / grant.name)
            kept.append(grant.name)
        time.sleep(0.2)
        # The last one is changed after it was sealed (another table): refused as forged.
        forged = made / kept[2]
        text = forged.read_text()
        self.assertIn("users", text)
        forged.write_text(text.replace("users", "accounts", 1))
        rs, py = base / "rust", base / "python"

        def fresh():
            for copy in (rs, py):
                shutil.rmtree(copy, True)
                shutil.copytree(made, copy)

        fresh()
        listed = self.assert_same_paths(["grants", "list", "--key-file", key, "DIR"], rs, py)
        self.assertEqual(listed.returncode, 4)
        lines = [json.loads(l) for l in listed.stdout.decode().splitlines()]
        self.assertEqual(sorted(l["id"] for l in lines), sorted(k[len("grant-") : -len(".json")] for k in kept))
        self.assertEqual(sum("grant" in l for l in lines), 1, lines)
        self.assertTrue(any(l.get("error", "").startswith("grant.expired") for l in lines), lines)
        good = next(l["id"] for l in lines if "grant" in l)
        log_rs, log_py = base / "rust.jsonl", base / "python.jsonl"
        r = self.assert_same_paths(["grants", "revoke", "--key-file", key, "--audit", "LOG", "--audit-key-file", key, "DIR", good], rs, py, (log_rs, log_py))
        self.assertEqual((r.returncode, r.stdout.decode()), (0, f"revoked {good}\n"))
        for log in (log_rs, log_py):
            self.assertEqual(load_policy().verify_audit(log.read_text(), key_bytes(key))[0], 1)
        self.assertTrue((rs / f"revoked-{good}.json").exists())
        self.assertEqual(self.assert_same_paths(["grants", "list", "--key-file", key, "DIR"], rs, py).returncode, 4)
        self.assertEqual(self.assert_same_paths(["grants", "revoke", "--key-file", key, "DIR", good], rs, py).returncode, 1)
        self.assertEqual(self.assert_same_paths(["grants", "revoke", "--key-file", key, "DIR", "../x"], rs, py).returncode, 1)
        self.assert_same_paths(["grants", "list", "--key-file", str(SCRATCH / "no-key"), "DIR"], rs, py)
        self.assert_same_paths(["grants", "list", "--key-file", write("short-key", "short"), "DIR"], rs, py)
        self.assertEqual(self.assert_same_paths(["grants", "list", "--key-file", key, "DIR"], base / "none-rs", base / "none-py").stdout, b"")
        # A grant the Python CLI left is listed by the Rust CLI, and the other way round.
        fresh()
        self.assertEqual(run([str(support.RUST_CLI)], ["grants", "list", "--key-file", key, str(py)], "").stdout, run(support.python_cli(), ["grants", "list", "--key-file", key, str(rs)], "").stdout)

    def assert_same_paths(self, args, rs, py, logs=None):
        """Both CLIs, each on its own directory (DIR) and audit log (LOG):
        the same output (each directory's name read as the same) and exit
        code, and the same files left."""

        def argv(dir, log):
            return [str(dir) if a == "DIR" else str(log) if a == "LOG" else a for a in args]

        logs = logs or (None, None)
        ran_rs = run([str(support.RUST_CLI)], argv(rs, logs[0]), "")
        ran_py = run(support.python_cli(), argv(py, logs[1]), "")
        names = [(str(py).encode(), str(rs).encode())] + ([(str(logs[1]).encode(), str(logs[0]).encode())] if logs[0] else [])
        for theirs, ours in names:
            ran_py.stdout = ran_py.stdout.replace(theirs, ours)
            ran_py.stderr = ran_py.stderr.replace(theirs, ours)
        r = self.assert_same(args, ran=(ran_rs, ran_py))
        files = [sorted(p.name for p in d.iterdir()) if d.exists() else None for d in (rs, py)]
        self.assertEqual(files[1], files[0], f"{args}: the files left differ")
        return r

    def test_commands_this_cli_refuses(self):
        for args, name in (
            (["approvals", "list", "--unsigned", str(DIR)], "'approvals list' is in the Rust CLI only"),
            (["mcp-proxy", "--name", "fs", "--", "node", "server.js"], "'mcp-proxy' is in the Rust CLI only"),
            (["mcp", "pins", "list"], "'mcp pins list' is in the Rust CLI only"),
            (["exec", "--", "ls"], "'exec' is in the Rust CLI only"),
        ):
            r = run(support.python_cli(), args, "")
            self.assertEqual(r.stderr.decode(), f"toolgate: error: {name}\n")
            self.assertEqual(r.returncode, 1)
        r = run(support.python_cli(), ["import-openapi", "tests/openapi/petstore-openapi.yaml"], "")
        self.assertEqual(r.stderr.decode(), "toolgate: error: the Python CLI reads OpenAPI documents as JSON; convert YAML to JSON first\n")
        self.assertEqual(r.returncode, 1)


def call_line(c: conformance.Case) -> str:
    """A conformance case as a `check` input line (`args` as the vector gives it: an object, or a string)."""
    args = c.raw.get("args")
    from toolgate._json import dumps

    return "{" + f'"tool":{dumps(c.tool)},"args":{dumps(args) if args is not None else "{}"}' + "}"


if __name__ == "__main__":
    unittest.main()
