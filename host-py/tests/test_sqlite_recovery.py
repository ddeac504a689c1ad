"""Recovery of a dead holder's claim when the SQLite store and the SQLite
audit sink are two files (not one transaction): the gate asks the sink
whether the claimed approval was recorded. A claim without its record (the
holder died between the two) is taken back and the approval answered once;
a claim with its record is never taken back, and the checkpoint a holder
left behind after its record is removed without running the call again.
The sink reads the `toolgate_audit` rows the Rust and Node SQLite sinks
write, so a record any host wrote counts."""

import json
import shutil
import sqlite3
import tempfile
import time
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import SqliteSink, SqliteStore

KEY = b"sqlite-recovery-key-0123456789ab"
DELETE = {"tool": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}}


class SqliteRecovery(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.installed()
        cls.policy = load_policy()

    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-sqlite-recover-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.store_db = self.work / "store.db"
        self.audit_db = self.work / "audit.db"

    def gate(self):
        store, sink = SqliteStore(self.store_db), SqliteSink(self.audit_db)
        self.addCleanup(store.close)
        self.addCleanup(sink.close)
        gate = Gate(self.policy, {}, key=KEY, store=store, audit=[sink])
        self.addCleanup(gate.close)
        self.assertFalse(gate._joint(), "two files: the claim and the record are two steps")
        return gate, store, sink

    def sql(self, path, statement, args=()):
        db = sqlite3.connect(path)
        try:
            with db:
                return db.execute(statement, args).fetchall()
        finally:
            db.close()

    def claims(self):
        return [r[0] for r in self.sql(self.store_db, "SELECT id FROM toolgate_claims")]

    def checkpoint(self, id):
        rows = self.sql(self.store_db, "SELECT checkpoint FROM toolgate_checkpoints WHERE id = ?", (id,))
        return rows[0][0] if rows else None

    def test_the_sink_answers_from_the_rows_and_the_time_it_looks_back_to(self):
        _, _, sink = self.gate()
        self.assertIs(sink.recorded("a_b", 0), False)
        # Rows as any host writes them (only `approval.id` and `time` are read).
        self.sql(self.audit_db, "INSERT INTO toolgate_audit (line) VALUES (?)", (json.dumps({"time": 1000, "approval": {"id": "a_b"}}),))
        self.sql(self.audit_db, "INSERT INTO toolgate_audit (line) VALUES (?)", (json.dumps({"time": 1000, "approval": {"id": "axb2"}}),))
        self.sql(self.audit_db, "INSERT INTO toolgate_audit (line) VALUES (?)", ('{"torn',))
        self.assertIs(sink.recorded("a_b", 1000), True)
        self.assertIs(sink.recorded("a_b", 999), True)
        self.assertIs(sink.recorded("a_b", 1001), False, "older than `since`")
        # `_` is a LIKE wildcard: escaped, `a_b` never matches `axb`, and an id
        # named only in a line's text (not its `approval.id`) is not a record.
        self.assertIs(sink.recorded("axb", 0), False)
        self.sql(self.audit_db, "INSERT INTO toolgate_audit (line) VALUES (?)", (json.dumps({"time": 5, "note": "q1"}),))
        self.assertIs(sink.recorded("q1", 0), False)

    def test_a_claim_without_its_record_is_taken_back_and_answered_once(self):
        gate, _, _ = self.gate()
        id = gate.check(DELETE).pending.id
        # A holder killed between its claim and its record (the claim is
        # its own statement on the store's file; no record was written).
        self.sql(self.store_db, "INSERT INTO toolgate_claims (id, deadline) VALUES (?, ?)", (id, int(time.time() * 1000) + 3_600_000))
        fresh, _, _ = self.gate()
        self.assertEqual(fresh.recover(), 1)
        self.assertEqual(self.claims(), [], "the unrecorded claim was released")
        self.assertEqual([p["request"].id for p in fresh.pending()], [id])
        ran = []
        result = fresh.settle(id, {"answer": "approve", "by": "ops"}, lambda args: ran.append(args) or "deleted")
        self.assertEqual((result.status, result.output), ("executed", "deleted"))
        self.assertEqual(len(ran), 1)
        with self.assertRaises(GateError) as again:
            fresh.settle(id, {"answer": "approve", "by": "ops"}, lambda args: ran.append(args))
        # Settled and gone: no approval `id` is left to answer.
        self.assertEqual(again.exception.code, "unknown")
        self.assertEqual(len(ran), 1)

    def test_a_claim_with_its_record_is_never_taken_back_or_run_again(self):
        gate, _, sink = self.gate()
        id = gate.check(DELETE).pending.id
        saved = self.checkpoint(id)
        self.assertIsNotNone(saved)
        ran = []
        self.assertEqual(gate.settle(id, {"answer": "approve", "by": "ops"}, lambda args: ran.append(args) or "deleted").status, "executed")
        self.assertIs(sink.recorded(id, 0), True)
        # A holder killed after its record, before the checkpoint's removal.
        self.sql(self.store_db, "INSERT INTO toolgate_checkpoints (id, checkpoint) VALUES (?, ?)", (id, saved))
        fresh, _, _ = self.gate()
        self.assertEqual(fresh.recover(), 1)
        self.assertIsNone(self.checkpoint(id), "the checkpoint left behind is removed")
        self.assertEqual(self.claims(), [id], "the recorded claim stays")
        self.sql(self.store_db, "INSERT INTO toolgate_checkpoints (id, checkpoint) VALUES (?, ?)", (id, saved))
        with self.assertRaises(GateError) as again:
            fresh.settle(id, {"answer": "approve", "by": "ops"}, lambda args: ran.append(args))
        self.assertEqual(again.exception.code, "already-answered")
        self.assertEqual(len(ran), 1)
        records, _ = self.policy.verify_audit(sink.export(), KEY)
        self.assertEqual(records, 2)


if __name__ == "__main__":
    unittest.main()
