"""The SQLite and PostgreSQL stores and sinks across hosts: the Python gate,
the Rust gate (`host-rs/examples/store_peer.rs`, the Rust host's
`SqliteStore`/`SqliteSink` and `PostgresStore`/`PostgresSink`) and the Node
gate (`toolgate/node`'s stores of the same names) share one database. A checkpoint either leaves is listed and settled by the other; an
approval settled by one is refused by the other, even with its checkpoint
put back (the claim stays as a tombstone); the grant the Rust answer kept
applies in Python, and Python's revocation of it holds in Rust; both hosts
appending at once keep one keyed audit chain, which verifies in Python and
in the Rust CLI; and the same holds with the Node gate, the three hosts
appending at once. PostgreSQL is a throwaway server on a Unix socket
(`pgserver.py`)."""

import json
import shutil
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

import pgserver
import support
from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import PostgresSink, PostgresStore, SqliteSink, SqliteStore

KEY = "sql-cross-host-key-0123456789abc"
DELETE = {"tool": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}}
SELECT = {"tool": "execute_sql", "args": {"sql": "SELECT 1"}}
PEER = support.ROOT / "target" / "release" / "examples" / "store_peer"
JS = support.ROOT / "host-js"

#: The Node gate on the same database, one operation a process.
NODE_PEER = """
import { loadPolicy, Gate } from '%(js)s/src/index.js';
import { SqliteStore, SqliteSink, PostgresStore, PostgresSink } from '%(js)s/src/node.js';
const [kind, store, audit, key, op, arg] = process.argv.slice(2);
const gate = new Gate(await loadPolicy(), {
  key,
  timeoutMs: 3600000,
  store: kind === 'sqlite' ? new SqliteStore(store) : new PostgresStore(store),
  audit: [kind === 'sqlite' ? new SqliteSink(audit) : new PostgresSink(audit)],
});
let out;
if (op === 'check') {
  const c = await gate.check({ tool: 'execute_sql', args: '{"sql":"DELETE FROM users WHERE id = 7"}' });
  out = { action: c.decision.action, id: c.pending?.id ?? null };
} else if (op === 'settle') {
  try {
    const r = await gate.settle(arg, { answer: 'approve', by: 'node', remember: { scope: 'project' } }, () => 'node ran it');
    out = { status: r.status, output: r.output };
  } catch (e) {
    out = { error: e.message, code: e.code };
  }
} else if (op === 'pending') {
  out = (await gate.pending()).map((p) => (p.ok ? p.request.id : 'bad:' + p.id));
} else if (op === 'grants') {
  out = (await gate.grants()).filter((g) => g.ok).map((g) => g.id);
} else if (op === 'run') {
  for (let i = 0; i < Number(arg); i++) {
    const r = await gate.run({ tool: 'execute_sql', args: '{"sql":"SELECT 2"}' }, () => '2');
    if (r.auditError) throw new Error(r.auditError);
  }
  out = Number(arg);
}
console.log(JSON.stringify(out));
process.exit(0);
"""


def node_missing(kind):
    """Why the Node gate cannot open this kind of database here, or None."""
    node = shutil.which("node")
    if node is None:
        return "node is not installed"
    if not (JS / "node_modules").is_dir():
        return "host-js's packages are not installed (cd host-js && npm ci)"
    probe = "import('pg')" if kind == "postgres" else "import('node:sqlite').catch(() => import('better-sqlite3'))"
    r = subprocess.run([node, "--input-type=module", "-e", f"await {probe}"], cwd=JS, capture_output=True, timeout=120)
    return None if r.returncode == 0 else f"the Node {kind} driver is not installed: {r.stderr.decode()[-300:]}"


class CrossHost:
    """The scenario, over a kind of database (`kind`, `store_at`, `audit_at`, `open`)."""

    kind = ""

    @classmethod
    def setUpClass(cls):
        support.installed()
        if not PEER.exists():
            # Built here when the JavaScript tests (which build it too) have not run.
            subprocess.run(["cargo", "build", "--release", "--locked", "-p", "toolgate", "--example", "store_peer"], cwd=support.ROOT, check=True, timeout=3600)
        cls.policy = load_policy()

    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix=f"toolgate-{self.kind}-cross-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.opened = []
        self.addCleanup(lambda: [each.close() for each in self.opened])

    def peer(self, op, arg=None):
        argv = [str(PEER), self.kind, self.store_at(), self.audit_at(), KEY, op] + ([arg] if arg is not None else [])
        r = subprocess.run(argv, capture_output=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r.stdout.decode() if op == "export" else json.loads(r.stdout)

    def gate(self):
        store, sink = self.open()
        self.opened += [store, sink]
        return Gate(self.policy, {}, key=KEY, store=store, audit=[sink], timeout_ms=3_600_000), store, sink

    def test_records_claims_grants_and_the_chain_cross_hosts(self):
        gate, store, sink = self.gate()
        # A checkpoint the Rust gate leaves is listed and settled in Python, once.
        rust_id = self.peer("check")["id"]
        self.assertEqual([p["request"].id for p in gate.pending()], [rust_id])
        left = store.get(rust_id)
        ran = []
        self.assertEqual(gate.settle(rust_id, {"answer": "approve", "by": "python"}, lambda a: ran.append(a) or "python ran it").status, "executed")
        self.assertEqual(ran, ['{"sql":"DELETE FROM users WHERE id = 7"}'])
        self.assertIn("error", self.peer("settle", rust_id), "settled in Python, refused in Rust")
        # Put back, its checkpoint is still refused: the claim stays as a tombstone.
        store.put(rust_id, left)
        self.assertIn("error", self.peer("settle", rust_id))
        self.assertEqual(self.peer("pending"), [], "a claimed checkpoint is not pending")
        store.remove(rust_id)
        # A checkpoint Python leaves is listed and settled in Rust, remembered for the project.
        id = gate.check(DELETE).pending.id
        left = store.get(id)
        self.assertEqual(self.peer("pending"), [id])
        self.assertEqual(self.peer("settle", id), {"status": "executed", "output": "rust ran it"})
        store.put(id, left)
        with self.assertRaises(GateError) as refused:
            gate.settle(id, {"answer": "approve"}, lambda a: self.fail("ran twice"))
        self.assertEqual(refused.exception.code, "already-answered")
        store.remove(id)
        # The grant the Rust answer kept applies in Python; Python revokes it, and Rust honours that.
        [grant] = gate.grants()
        self.assertTrue(grant["ok"], grant)
        self.assertEqual(self.peer("grants"), [grant["id"]])
        self.assertEqual(gate.check(DELETE).decision.action, "allow")
        self.assertTrue(gate.revoke(grant["id"]))
        self.assertEqual(self.peer("grants"), [])
        self.assertEqual(self.peer("check")["action"], "confirm")
        # Both hosts append at once: one chain.
        rust = threading.Thread(target=lambda: self.assertEqual(self.peer("run", "20"), 20))
        rust.start()
        for _ in range(20):
            self.assertIsNone(gate.run(SELECT, lambda a: 1).audit_error)
        rust.join()
        log = sink.export()
        self.assertEqual(self.peer("export"), log)
        records = self.policy.verify_audit(log, KEY)[0]
        # Each settle is recorded and then its outcome (2 + 2); the check the
        # grant allowed has its write-ahead record (1); the revocation (1); 40
        # runs of two lines each.
        self.assertEqual(records, 2 + 2 + 1 + 1 + 80)
        (self.work / "key").write_text(KEY)
        (self.work / "audit.jsonl").write_text(log)
        verified = subprocess.run([str(support.RUST_CLI), "audit", "verify", "--key-file", str(self.work / "key"), str(self.work / "audit.jsonl")], capture_output=True, timeout=120)
        self.assertEqual(verified.returncode, 0, verified.stdout + verified.stderr)
        self.assertTrue(verified.stdout.startswith(f"ok: {records} records".encode()), verified.stdout)


    def node(self, op, arg=None):
        script = self.work / "node-peer.mjs"
        if not script.exists():
            script.write_text(NODE_PEER % {"js": JS})
        argv = ["node", str(script), self.kind, self.store_at(), self.audit_at(), KEY, op] + ([arg] if arg is not None else [])
        r = subprocess.run(argv, capture_output=True, timeout=300, cwd=JS)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return json.loads(r.stdout)

    def test_the_node_gate_shares_the_database_too(self):
        why = node_missing(self.kind)
        if why is not None:
            self.skipTest(why)
        gate, store, sink = self.gate()
        # Node leaves a checkpoint; Python settles it; Node and Rust refuse it then, put back or not.
        node_id = self.node("check")["id"]
        self.assertEqual([p["request"].id for p in gate.pending()], [node_id])
        left = store.get(node_id)
        self.assertEqual(gate.settle(node_id, {"answer": "approve"}, lambda a: "python ran it").output, "python ran it")
        store.put(node_id, left)
        self.assertEqual(self.node("settle", node_id)["code"], "already-answered")
        self.assertIn("error", self.peer("settle", node_id))
        store.remove(node_id)
        # Python leaves one; Node lists it and settles it, remembered; Python refuses it put back.
        id = gate.check(DELETE).pending.id
        left = store.get(id)
        self.assertEqual(self.node("pending"), [id])
        self.assertEqual(self.node("settle", id), {"status": "executed", "output": "node ran it"})
        store.put(id, left)
        with self.assertRaises(GateError) as refused:
            gate.settle(id, {"answer": "approve"}, lambda a: self.fail("ran twice"))
        self.assertEqual(refused.exception.code, "already-answered")
        store.remove(id)
        # Node's grant applies in Python and in Rust; Python's revocation holds in both.
        [grant] = gate.grants()
        self.assertEqual((self.node("grants"), self.peer("grants")), ([grant["id"]], [grant["id"]]))
        self.assertEqual(gate.check(DELETE).decision.action, "allow")
        self.assertTrue(gate.revoke(grant["id"]))
        self.assertEqual((self.node("grants"), self.peer("grants")), ([], []))
        self.assertEqual(self.node("check")["action"], "confirm")
        # Three hosts append at once: one chain.
        others = [threading.Thread(target=lambda: self.assertEqual(self.node("run", "15"), 15)), threading.Thread(target=lambda: self.assertEqual(self.peer("run", "15"), 15))]
        for t in others:
            t.start()
        for _ in range(15):
            self.assertIsNone(gate.run(SELECT, lambda a: 1).audit_error)
        for t in others:
            t.join()
        log = sink.export()
        # Two settles of two lines, the check the grant allowed, the revocation, 45 runs of two.
        self.assertEqual(self.policy.verify_audit(log, KEY)[0], 2 + 2 + 1 + 1 + 90)
        self.assertEqual(self.peer("export"), log)


class Sqlite(CrossHost, unittest.TestCase):
    kind = "sqlite"

    def store_at(self):
        return str(self.work / "store.db")

    def audit_at(self):
        return str(self.work / "audit.db")

    def open(self):
        return SqliteStore(self.store_at()), SqliteSink(self.audit_at())


@unittest.skipIf(pgserver.missing() is not None, pgserver.missing() or "")
class Postgres(CrossHost, unittest.TestCase):
    kind = "postgres"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = pgserver.Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        super().setUp()
        self.server.reset()

    def store_at(self):
        return self.server.conninfo

    def audit_at(self):
        return self.server.conninfo

    def open(self):
        return PostgresStore(self.server.conninfo), PostgresSink(self.server.conninfo)


if __name__ == "__main__":
    unittest.main()
