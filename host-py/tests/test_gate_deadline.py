"""The blocking gate decides between an answer and the deadline by the time
the answer is given, not by when the waiting thread wakes: an answer given
before the deadline counts however late the waiting thread gets to it (the
Rust gate settles on the answering thread at the answer's time), and one
given at or after the deadline is refused to whoever gives it
(`already-answered`) even while the waiting thread has not yet woken, as it
is once that thread has. The waiting thread is held past the deadline by a
listener of `approval-requested`, which runs on it."""

import json
import shutil
import tempfile
import time
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import JsonlSink

KEY = b"gate-deadline-key-0123456789abcd"
DELETE = {"tool": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}}
#: The window a person has; the waiting thread is held past its end.
TIMEOUT_MS = 200


def _past(deadline_ms, by_ms=20):
    """Sleeps until `by_ms` after `deadline_ms` (ms since the epoch)."""
    while time.time_ns() // 1_000_000 < deadline_ms + by_ms:
        time.sleep(0.005)


class AnswerAndDeadline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.installed()
        cls.policy = load_policy()

    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-deadline-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.log = self.work / "audit.jsonl"
        self.gate = Gate(self.policy, {}, key=KEY, timeout_ms=TIMEOUT_MS, audit=[JsonlSink(self.log)])
        self.addCleanup(self.gate.close)

    def records(self, count):
        self.assertEqual(self.policy.verify_audit(self.log.read_text(), KEY)[0], count)
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def test_an_answer_after_the_deadline_is_refused_before_the_waiting_thread_wakes(self):
        told = []

        def on_request(request):
            # The waiting thread is here, past the deadline, and has not
            # looked at the clock since.
            _past(request.deadline)
            try:
                self.gate.respond(request.id, {"answer": "approve", "by": "ops"})
                told.append("accepted")
            except GateError as e:
                told.append(e.code)
            with self.assertRaises(GateError) as again:
                self.gate.respond(request.id, {"answer": "approve", "by": "ops"})
            told.append(again.exception.code)

        self.gate.on("approval-requested", on_request)
        ran = []
        result = self.gate.run(DELETE, lambda args: ran.append(args) or "deleted")
        self.assertEqual(told, ["already-answered", "already-answered"], "whoever answered late is told")
        self.assertEqual((result.status, ran), ("expired", []))
        self.assertIn("in time", result.for_model())
        self.assertEqual([r["approval"]["outcome"] for r in self.records(1)], ["expired"])

    def test_an_answer_before_the_deadline_counts_when_the_waiting_thread_wakes_after_it(self):
        answered = []

        def on_request(request):
            self.gate.respond(request.id, {"answer": "approve", "by": "ops"})
            answered.append(time.time_ns() // 1_000_000)
            self.assertLess(answered[0], request.deadline)
            # The waiting thread gets to the answer only after the deadline.
            _past(request.deadline)

        self.gate.on("approval-requested", on_request)
        ran = []
        result = self.gate.run(DELETE, lambda args: ran.append(args) or "deleted")
        self.assertEqual((result.status, result.output), ("executed", "deleted"))
        self.assertEqual(ran, ['{"sql":"DELETE FROM users WHERE id = 7"}'])
        record = self.records(2)[0]
        self.assertEqual(record["approval"]["outcome"], "approved")
        # Recorded at the answer's time, before the deadline.
        self.assertLessEqual(record["time"], answered[0])

    def test_a_cancel_after_the_deadline_is_refused_too(self):
        told = []

        def on_request(request):
            _past(request.deadline)
            try:
                self.gate.cancel(request.id)
                told.append("accepted")
            except GateError as e:
                told.append(e.code)

        self.gate.on("approval-requested", on_request)
        result = self.gate.run(DELETE, lambda args: self.fail("an expired call ran"))
        self.assertEqual((told, result.status), (["already-answered"], "expired"))


if __name__ == "__main__":
    unittest.main()
