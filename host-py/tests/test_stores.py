"""The stores and audit sinks: the contract every host's store keeps (a
claim is made once, across processes; tombstones; releases), and the audit
chain's single writer across processes and hosts: Python processes and a
JavaScript gate appending to one JSON Lines log at once keep one chain, a
writer killed while holding the log's locks stalls nobody (the kernel drops
its `flock`, its `<log>.lock` names a dead holder), SQLite's write lock the
same, and a torn end is set aside and recorded as a gap."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate
from toolgate.stores import (
    DirStore,
    JsonlSink,
    MemoryStore,
    SqliteSink,
    SqliteStore,
    StoreError,
    append_audit,
)

KEY = b"store-test-key-0123456789abcdef"


def entry(time_ms, tool="execute_sql"):
    """An execution-log entry as the records interface takes it (every field of a gate's line but `seq`, `prev`, `hash`)."""
    return {
        "time": time_ms,
        "session_id": None,
        "user_id": None,
        "tool": tool,
        "call_id": None,
        "parameters": "{}",
        "decision": {"action": "allow", "risk": "low", "source": "whitelist", "findings": ["sql.read-only"], "policy_version": "0.1.0"},
        "approval": None,
        "shadow": False,
        "status": "executed",
        "success": True,
        "result": "1",
        "error": None,
        "execution_time_ms": 0,
    }


WRITER = """
import sys
from toolgate import load_policy
from toolgate.gate import Gate
from toolgate.stores import {sink}
gate = Gate(load_policy(), {{}}, key=sys.argv[2].encode(), audit=[{sink}(sys.argv[1])])
for i in range(int(sys.argv[3])):
    r = gate.run({{"tool": "execute_sql", "args": {{"sql": "SELECT %d" % i}}}}, lambda a: i)
    assert r.status == "executed" and r.audit_error is None, (r.status, r.audit_error)
"""

HOLDER = """
import sys, time
from pathlib import Path
from toolgate.stores import {sink}
sink = {sink}(sys.argv[1])
def seal(previous):
    Path(sys.argv[2]).write_text("holding")
    time.sleep(600)
    return "never"
sink.append_sealed(seal)
"""

NODE_WRITER = """
import { loadPolicy, Gate } from '%(js)s/src/index.js';
import { JsonlSink } from '%(js)s/src/node.js';
const [log, key, n] = process.argv.slice(2);
const gate = new Gate(await loadPolicy(), { key, audit: [new JsonlSink(log)] });
for (let i = 0; i < Number(n); i++) {
  const r = await gate.run({ tool: 'execute_sql', args: `{"sql":"SELECT ${i}"}` }, () => i);
  if (r.status !== 'executed' || r.auditError !== null) throw new Error(`${r.status} ${r.auditError}`);
}
"""


class Stores(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-stores-"))
        self.addCleanup(shutil.rmtree, self.work, True)

    def stores(self):
        yield "memory", MemoryStore()
        yield "directory", DirStore(self.work / "dir")
        sqlite = SqliteStore(self.work / "store.db")
        self.addCleanup(sqlite.close)
        yield "sqlite", sqlite

    def test_every_store_keeps_the_contract(self):
        for name, store in self.stores():
            with self.subTest(store=name):
                self.assertEqual(store.list(), [])
                store.put("b-2", "two")
                store.put("a-1", "one")
                store.put("a-1", "one again")
                self.assertEqual(store.list(), [("a-1", "one again"), ("b-2", "two")])
                self.assertEqual(store.get("a-1"), "one again")
                self.assertIsNone(store.get("zz"))
                self.assertTrue(store.claim("a-1", 1000))
                self.assertFalse(store.claim("a-1", 5000), "a claim is made once")
                self.assertTrue(store.claimed("a-1"))
                self.assertEqual([k for k, _ in store.list()], ["a-1", "b-2"], "claims are never listed")
                self.assertEqual(store.sweep(999), 0, "a tombstone stays until its deadline")
                self.assertEqual(store.sweep(1001), 1)
                self.assertFalse(store.claimed("a-1"))
                self.assertTrue(store.claim("b-2", 10))
                self.assertTrue(store.release("b-2"))
                self.assertTrue(store.claim("b-2", 10), "a released claim can be made again")
                store.remove("a-1")
                store.remove("a-1")
                self.assertEqual([k for k, _ in store.list()], ["b-2"])
                for bad in ["", "../etc/passwd", "a b", "x" * 129, "é"]:
                    with self.assertRaises(StoreError):
                        store.put(bad, "x")
                    with self.assertRaises(StoreError):
                        store.claim(bad, 1)

    def test_the_directory_layout_is_the_other_hosts(self):
        store = DirStore(self.work / "dir")
        store.put("ap-1", "{}")
        store.claim("ap-2", 1767225600000)
        self.assertEqual(sorted(os.listdir(self.work / "dir")), ["ap-1.json", "ap-2.claim"])
        self.assertEqual((self.work / "dir" / "ap-2.claim").read_text(), "1767225600000")
        (self.work / "dir" / "ap-3.claim").write_text("not a number")
        self.assertEqual(store.sweep(2**62), 1, "a claim whose deadline cannot be read is kept")
        self.assertTrue(store.claimed("ap-3"))

    def test_one_claim_wins_among_racing_threads_and_connections(self):
        for name, make in [("directory", lambda: DirStore(self.work / "race")), ("sqlite", lambda: SqliteStore(self.work / "race.db"))]:
            with self.subTest(store=name):
                stores = [make() for _ in range(8)]
                wins = []
                barrier = threading.Barrier(len(stores))

                def claim(store):
                    barrier.wait()
                    wins.append(store.claim("contested", 10**13))

                threads = [threading.Thread(target=claim, args=(s,)) for s in stores]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                self.assertEqual(sorted(wins), [False] * 7 + [True])

    def test_a_torn_log_is_set_aside_and_recorded_as_a_gap(self):
        policy = load_policy()
        log = self.work / "audit.jsonl"
        gate = Gate(policy, {}, key=KEY, audit=[JsonlSink(log)])
        gate.run({"tool": "execute_sql", "args": {"sql": "SELECT 1"}}, lambda a: 1)
        with open(log, "ab") as f:
            f.write(b'{"seq":3,"time":17')  # a crash mid-write
        sink = JsonlSink(log)
        self.assertIn("torn bytes after offset", sink.gap())
        Gate(policy, {}, key=KEY, audit=[sink]).run({"tool": "execute_sql", "args": {"sql": "SELECT 2"}}, lambda a: 2)
        records, _ = policy.verify_audit(log.read_text(), KEY)
        self.assertEqual(records, 5, "two runs of two lines and the gap's line")
        self.assertIn('"gap"', log.read_text())
        aside = [p for p in self.work.iterdir() if ".torn-" in p.name]
        self.assertEqual([p.read_bytes() for p in aside], [b'{"seq":3,"time":17'])

    def test_append_audit_seals_through_the_keyed_chain(self):
        policy = load_policy()
        for name, sink in [("jsonl", JsonlSink(self.work / "a.jsonl")), ("sqlite", SqliteSink(self.work / "a.db"))]:
            with self.subTest(sink=name):
                for i in range(3):
                    append_audit(sink, policy.records, entry(1767225600000 + i), KEY)
                text = (self.work / "a.jsonl").read_text() if name == "jsonl" else sink.export()
                self.assertEqual(policy.verify_audit(text, KEY)[0], 3)
                with self.assertRaises(Exception):
                    policy.verify_audit(text, b"another-key-0123456789")

    def _writers(self, sink, target, processes, each, node=False):
        script = self.work / f"writer-{sink}.py"
        script.write_text(WRITER.format(sink=sink))
        procs = [subprocess.Popen([sys.executable, str(script), str(target), KEY.decode(), str(each)], stderr=subprocess.PIPE, text=True) for _ in range(processes)]
        if node:
            js = self.work / "writer.mjs"
            js.write_text(NODE_WRITER % {"js": (support.ROOT / "host-js").as_posix()})
            procs.append(subprocess.Popen(["node", str(js), str(target), KEY.decode(), str(each)], stderr=subprocess.PIPE, text=True))
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        return len(procs)

    def test_processes_of_two_hosts_appending_at_once_keep_one_chain(self):
        node = shutil.which("node") is not None and (support.ROOT / "host-js" / "gen" / "toolgate.wasm").exists()
        log = self.work / "shared.jsonl"
        writers = self._writers("JsonlSink", log, 3, 15, node=node)
        records, _ = load_policy().verify_audit(log.read_text(), KEY)
        self.assertEqual(records, writers * 15 * 2)
        if not node:
            self.skipTest("node is not available: only Python processes wrote the log")

    def test_sqlite_writers_in_several_processes_keep_one_chain(self):
        db = self.work / "shared.db"
        writers = self._writers("SqliteSink", db, 3, 15)
        records, _ = load_policy().verify_audit(SqliteSink(db).export(), KEY)
        self.assertEqual(records, writers * 15 * 2)

    def test_a_writer_killed_holding_the_lock_stalls_nobody(self):
        policy = load_policy()
        for sink, target in [("JsonlSink", self.work / "killed.jsonl"), ("SqliteSink", self.work / "killed.db")]:
            with self.subTest(sink=sink):
                ready = self.work / f"ready-{sink}"
                script = self.work / f"holder-{sink}.py"
                script.write_text(HOLDER.format(sink=sink))
                holder = subprocess.Popen([sys.executable, str(script), str(target), str(ready)])
                try:
                    deadline = time.monotonic() + 60
                    while not ready.exists():
                        self.assertLess(time.monotonic(), deadline, "the holder never took the lock")
                        self.assertIsNone(holder.poll(), "the holder died before taking the lock")
                        time.sleep(0.02)
                    if sink == "JsonlSink":
                        self.assertTrue(Path(f"{target}.lock").exists(), "the holder holds <log>.lock")
                    os.kill(holder.pid, signal.SIGKILL)
                    holder.wait()
                finally:
                    if holder.poll() is None:
                        holder.kill()
                        holder.wait()
                started = time.monotonic()
                sinks = {"JsonlSink": JsonlSink, "SqliteSink": SqliteSink}
                opened = sinks[sink](target)
                append_audit(opened, policy.records, entry(1767225600000), KEY)
                took = time.monotonic() - started
                self.assertLess(took, 5, f"the next writer waited {took:.1f} s for a dead holder")
                text = target.read_text() if sink == "JsonlSink" else opened.export()
                self.assertEqual(policy.verify_audit(text, KEY)[0], 1)


if __name__ == "__main__":
    unittest.main()
