"""The Python gate: what each answer does, exactly once, recorded in a chain
that verifies. Check now and settle later; the blocking form answered from
another thread, by an `approve` function, or by nobody before the deadline;
grants kept and revoked; a required audit that cannot be written runs
nothing; a claim left by a dead holder without its record is taken back."""

import json
import shutil
import tempfile
import threading
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import DirStore, JsonlSink, MemorySink, Sink, SqliteStore, StoreError

KEY = b"gate-test-key-0123456789abcdef"
SELECT = {"tool": "execute_sql", "args": {"sql": "SELECT * FROM users"}}
DELETE = {"tool": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}}


class FullDisk(Sink):
    def append(self, line):
        raise StoreError("audit sink: No space left on device")


class GateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.installed()
        cls.policy = load_policy()

    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-gate-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.log = self.work / "audit.jsonl"

    def gate(self, **options):
        options.setdefault("key", KEY)
        options.setdefault("store", DirStore(self.work / "cp"))
        options.setdefault("audit", [JsonlSink(self.log)])
        return Gate(self.policy, options.pop("config", {}), **options)

    def verified(self):
        return self.policy.verify_audit(self.log.read_text(), KEY)[0]

    def test_allow_runs_deny_never_runs(self):
        gate = self.gate(config={"denied_tools": ["execute_command"]})
        ran = []
        result = gate.run(SELECT, lambda args: ran.append(args) or [{"id": 1}])
        self.assertEqual((result.status, result.output), ("executed", '[{"id":1}]'))
        self.assertEqual(ran, ['{"sql":"SELECT * FROM users"}'])
        denied = gate.run({"tool": "execute_command", "args": {"command": "ls"}}, lambda a: self.fail("a denied call ran"))
        self.assertEqual(denied.status, "denied")
        self.assertIn("denied", denied.for_model())
        checked = gate.check({"tool": "execute_command", "args": {"command": "ls"}})
        self.assertEqual(checked.decision.action, "deny")
        self.assertIsNone(checked.proceed)
        self.assertEqual(self.verified(), 4)

    def test_check_now_settle_later_runs_once_in_any_gate_sharing_the_store(self):
        first = self.gate()
        checked = first.check(DELETE)
        self.assertEqual(checked.decision.action, "confirm")
        self.assertIsNone(checked.proceed)
        id = checked.pending.id
        self.assertTrue((self.work / "cp" / f"{id}.json").exists())
        # Three gates (as three processes would) answer at once: it runs once.
        gates = [self.gate() for _ in range(3)]
        ran, errors = [], []
        barrier = threading.Barrier(3)

        def answer(g):
            barrier.wait()
            try:
                ran.append(g.settle(id, {"answer": "approve", "by": "ops"}, lambda args: "deleted").status)
            except GateError as e:
                errors.append(e.code)

        threads = [threading.Thread(target=answer, args=(g,)) for g in gates]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(ran, ["executed"])
        # The losers were refused: claimed already, or its checkpoint already gone.
        self.assertEqual(len(errors), 2)
        self.assertTrue(set(errors) <= {"already-answered", "unknown"}, errors)
        with self.assertRaises(GateError):
            first.settle(id, {"answer": "approve"}, lambda args: self.fail("ran twice"))
        # A settled checkpoint put back never runs again.
        (self.work / "cp" / f"{id}.json").write_text(json.dumps({"forged": True}))
        self.assertEqual([p for p in first.pending() if p["ok"]], [])
        self.assertEqual(self.verified(), 2)

    def test_an_edit_is_decided_afresh_and_an_invalid_one_keeps_it_pending(self):
        gate = self.gate()
        id = gate.check(DELETE).pending.id
        with self.assertRaises(GateError) as refused:
            gate.settle(id, {"answer": "edit", "args": "not json"}, lambda a: self.fail("ran"))
        self.assertEqual(refused.exception.code, "invalid-edit")
        self.assertEqual([p["request"].id for p in gate.pending()], [id])
        got = []
        result = gate.settle(id, {"answer": "edit", "args": {"sql": "SELECT 1"}}, lambda args: got.append(args) or 1)
        self.assertEqual(result.status, "executed")
        self.assertEqual(got, ['{"sql":"SELECT 1"}'])

    def test_the_blocking_form_is_answered_from_another_thread(self):
        gate = self.gate()
        requests = []

        def on_request(request):
            requests.append(request)
            threading.Timer(0.05, lambda: gate.respond(request.id, {"answer": "reject", "message": "not now"})).start()

        gate.on("approval-requested", on_request)
        result = gate.run(DELETE, lambda a: self.fail("a rejected call ran"))
        self.assertEqual(result.status, "rejected")
        self.assertEqual(result.message, "not now")
        self.assertEqual(requests[0].decision.action, "confirm")
        with self.assertRaises(GateError) as late:
            gate.respond(requests[0].id, {"answer": "approve"})
        self.assertEqual(late.exception.code, "already-answered")

    def test_an_approve_function_and_the_deadline(self):
        approved = self.gate(approve=lambda request: {"answer": "approve", "by": "bot"})
        self.assertEqual(approved.run(DELETE, lambda a: "ok").status, "executed")
        processed = []
        quiet = self.gate(timeout_ms=150, warn_before_ms=100)
        quiet.on("approval-expiring", lambda detail: processed.append(("expiring", detail["id"])))
        quiet.on("approval-processed", lambda detail: processed.append((detail["status"], detail["id"])))
        result = quiet.run(DELETE, lambda a: self.fail("an unanswered call ran"))
        self.assertEqual(result.status, "expired")
        self.assertEqual([kind for kind, _ in processed], ["expiring", "expired"])
        self.assertEqual(self.verified(), 3)

    def test_a_remembered_approval_is_a_grant_until_revoked(self):
        gate = self.gate()
        id = gate.check(DELETE).pending.id
        gate.settle(id, {"answer": "approve", "remember": "project"}, lambda a: 1)
        other = self.gate()
        [grant] = other.grants()
        self.assertTrue(grant["ok"], grant)
        self.assertEqual(other.check(DELETE).decision.action, "allow")
        self.assertTrue(other.revoke(grant["id"]))
        self.assertFalse(other.revoke(grant["id"]))
        self.assertEqual(self.gate().check(DELETE).decision.action, "confirm")
        self.assertTrue((self.work / "cp" / f"revoked-{grant['id']}.json").exists())
        session = self.gate()
        id = session.check(DELETE).pending.id
        session.settle(id, {"answer": "approve", "remember": "session"}, lambda a: 1)
        self.assertEqual(session.check(DELETE).decision.action, "allow")
        self.assertEqual(self.gate().check(DELETE).decision.action, "confirm", "a session grant stays in its gate")

    def test_a_required_audit_that_cannot_be_written_runs_nothing(self):
        gate = self.gate(audit=[FullDisk()], audit_required=True)
        result = gate.run(SELECT, lambda a: self.fail("ran unrecorded"))
        self.assertNotEqual(result.status, "executed")
        self.assertIn("No space left", result.audit_error or "")
        lenient = self.gate(audit=[FullDisk()])
        result = lenient.run(SELECT, lambda a: 1)
        self.assertEqual(result.status, "executed")
        self.assertIn("No space left", result.audit_error)

    def test_a_dead_holders_claim_without_its_record_is_taken_back(self):
        gate = self.gate()
        id = gate.check(DELETE).pending.id
        # A holder claimed it and died before its record was written.
        self.assertTrue(DirStore(self.work / "cp").claim(id, 2**50))
        self.assertEqual([p["request"].id for p in gate.pending()], [id])
        self.assertEqual(gate.settle(id, {"answer": "approve"}, lambda a: "once").status, "executed")

    def test_sweep_closes_expired_approvals_with_a_record(self):
        gate = self.gate(timeout_ms=1)
        id = gate.check(DELETE).pending.id
        threading.Event().wait(0.01)
        self.assertEqual(gate.sweep(), 1)
        self.assertEqual(gate.pending(), [])
        self.assertIn('"expired"', self.log.read_text())
        self.assertIn(id, self.log.read_text())

    def test_a_store_needs_a_key_and_a_forged_checkpoint_is_refused(self):
        with self.assertRaises(GateError) as no_key:
            Gate(self.policy, {}, store=DirStore(self.work / "cp"))
        self.assertEqual(no_key.exception.code, "key")
        gate = self.gate()
        id = gate.check(DELETE).pending.id
        path = self.work / "cp" / f"{id}.json"
        path.write_text(path.read_text().replace("DELETE", "DROP TABLE users; DELETE"))
        with self.assertRaises(GateError) as forged:
            gate.settle(id, {"answer": "approve"}, lambda a: self.fail("a forged checkpoint ran"))
        self.assertEqual(forged.exception.code, "checkpoint")
        [listed] = gate.pending()
        self.assertFalse(listed["ok"])

    def test_sqlite_and_memory_sinks_keep_the_same_chain(self):
        sink = MemorySink()
        gate = self.gate(store=SqliteStore(self.work / "g.db"), audit=[sink, JsonlSink(self.log)])
        id = gate.check(DELETE).pending.id
        gate.settle(id, {"answer": "approve"}, lambda a: 1)
        self.assertEqual("".join(line + "\n" for line in sink.lines), self.log.read_text())
        self.assertEqual(self.verified(), 2)


if __name__ == "__main__":
    unittest.main()
