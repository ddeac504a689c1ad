"""A Python gate whose SQLite store and SQLite audit sink are one database
file. The two share one connection, so the claim the gate makes from inside
the sink's `BEGIN IMMEDIATE` runs in that transaction instead of waiting for
the sink's write lock on a second connection (30 s, then "database is
locked"); both name the file as their `database()`, so the gate claims,
removes the checkpoint and records in one transaction (the driver's `joint`
mode, as on PostgreSQL). Check, settle and the blocking run each finish well
within a second; a record that cannot be written leaves the approval pending
and unclaimed; a second answer is refused; the chain verifies."""

import shutil
import sqlite3
import tempfile
import threading
import time
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import SqliteSink, SqliteStore

KEY = b"sqlite-one-file-key-0123456789ab"
DELETE = {"tool": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}}

#: What "well within a second" means here: the deadlock waited 30 s.
QUICK = 1.0


class OneSqliteFile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.installed()
        cls.policy = load_policy()

    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-sqlite-one-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.db = self.work / "toolgate.db"

    def gate(self, **options):
        store, sink = SqliteStore(self.db), SqliteSink(self.db)
        self.addCleanup(store.close)
        self.addCleanup(sink.close)
        gate = Gate(self.policy, {}, key=KEY, store=store, audit=[sink], **options)
        self.addCleanup(gate.close)
        return gate, store, sink

    def rows(self, sql):
        with sqlite3.connect(self.db) as db:
            return db.execute(sql).fetchall()

    def test_the_store_and_the_sink_share_one_connection_and_name_one_database(self):
        gate, store, sink = self.gate()
        self.assertIsNotNone(store.database())
        self.assertEqual(store.database(), sink.database())
        self.assertTrue(gate._joint())
        other = SqliteStore(self.work / "other.db")
        self.addCleanup(other.close)
        self.assertNotEqual(other.database(), sink.database())

    def test_check_then_settle_runs_within_a_second_in_one_transaction(self):
        gate, store, sink = self.gate()
        started = time.monotonic()
        checked = gate.check(DELETE)
        id = checked.pending.id
        self.assertEqual(self.rows("SELECT id FROM toolgate_checkpoints"), [(id,)])
        ran = []
        result = gate.settle(id, {"answer": "approve", "by": "ops"}, lambda args: ran.append(args) or "deleted")
        elapsed = time.monotonic() - started
        self.assertLess(elapsed, QUICK, f"check and settle took {elapsed:.1f} s")
        self.assertEqual((result.status, result.output, result.audit_error), ("executed", "deleted", None))
        self.assertEqual(ran, ['{"sql":"DELETE FROM users WHERE id = 7"}'])
        # Claimed (the tombstone), the checkpoint gone, and both records in the chain.
        self.assertEqual([r[0] for r in self.rows("SELECT id FROM toolgate_claims")], [id])
        self.assertEqual(self.rows("SELECT id FROM toolgate_checkpoints"), [])
        records, _ = self.policy.verify_audit(sink.export(), KEY)
        self.assertEqual(records, 2)
        with self.assertRaises(GateError) as again:
            gate.settle(id, {"answer": "approve"}, lambda args: self.fail("ran twice"))
        self.assertIn(again.exception.code, ("unknown", "already-answered"))

    def test_a_blocking_run_answered_from_another_thread_runs_within_a_second(self):
        gate, store, sink = self.gate()
        gate.on("approval-requested", lambda request: threading.Timer(0.02, lambda: gate.respond(request.id, {"answer": "approve"})).start())
        started = time.monotonic()
        result = gate.run(DELETE, lambda args: "deleted")
        elapsed = time.monotonic() - started
        self.assertLess(elapsed, QUICK, f"the confirmed run took {elapsed:.1f} s")
        self.assertEqual(result.status, "executed")
        self.assertEqual(self.rows("SELECT id FROM toolgate_checkpoints"), [])
        self.assertEqual(self.policy.verify_audit(sink.export(), KEY)[0], 2)

    def test_a_record_that_cannot_be_written_leaves_the_approval_pending_and_unclaimed(self):
        gate, store, sink = self.gate(audit_required=True)
        id = gate.check(DELETE).pending.id
        with sqlite3.connect(self.db) as db:
            db.execute("CREATE TRIGGER full BEFORE INSERT ON toolgate_audit BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
        started = time.monotonic()
        with self.assertRaises(GateError) as failed:
            gate.settle(id, {"answer": "approve"}, lambda args: self.fail("ran without its record"))
        self.assertLess(time.monotonic() - started, QUICK)
        self.assertEqual(failed.exception.code, "audit")
        # Claim, checkpoint removal and record were one transaction: none of it happened.
        self.assertEqual(self.rows("SELECT id FROM toolgate_claims"), [])
        self.assertEqual(self.rows("SELECT id FROM toolgate_checkpoints"), [(id,)])
        with sqlite3.connect(self.db) as db:
            db.execute("DROP TRIGGER full")
        self.assertEqual(gate.settle(id, {"answer": "approve"}, lambda args: "deleted").status, "executed")
        self.assertEqual(self.policy.verify_audit(sink.export(), KEY)[0], 2)

    def test_two_gates_on_the_file_settle_one_approval_once(self):
        first, _, sink = self.gate()
        second, _, _ = self.gate()
        id = first.check(DELETE).pending.id
        ran = []
        results, errors = [], []

        def settle(gate):
            try:
                results.append(gate.settle(id, {"answer": "approve"}, lambda args: ran.append(args) or "deleted"))
            except GateError as e:
                errors.append(e.code)

        threads = [threading.Thread(target=settle, args=(g,)) for g in (first, second)]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        self.assertLess(time.monotonic() - started, QUICK)
        self.assertEqual(len(ran), 1, "exactly one gate runs it")
        self.assertEqual([r.status for r in results], ["executed"])
        self.assertEqual(len(errors), 1)
        self.assertEqual(self.policy.verify_audit(sink.export(), KEY)[0], 2)


if __name__ == "__main__":
    unittest.main()
