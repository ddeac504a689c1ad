"""The PostgreSQL store and sink (psycopg 3, pinned in host-py/adapters.lock)
against a real PostgreSQL 15 server the test starts (Unix socket only, in a
temporary directory, stopped when done, and by a watchdog should the test
process die; `pgserver.py`): the store keeps the contract, an
approval left pending by one gate is settled by another once however many
race, and gates appending to one chain at once keep it linear."""

import threading
import unittest

import pgserver
import support

MISSING = pgserver.missing()
if MISSING is None:
    import psycopg

from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import PostgresSink, PostgresStore

KEY = b"postgres-test-key-0123456789abcd"
DELETE = {"tool": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}}


@unittest.skipIf(MISSING is not None, MISSING or "")
class Postgres(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.installed()
        cls.server = pgserver.Server()
        cls.conninfo = cls.server.conninfo
        cls.policy = load_policy()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.opened = []
        self.server.reset()

    def tearDown(self):
        for each in self.opened:
            each.close()

    def open(self, kind):
        made = kind(self.conninfo)
        self.opened.append(made)
        return made

    def test_the_store_keeps_the_contract(self):
        store = self.open(PostgresStore)
        store.put("b-2", "two")
        store.put("a-1", "one")
        store.put("a-1", "one again")
        self.assertEqual(store.list(), [("a-1", "one again"), ("b-2", "two")])
        self.assertTrue(store.claim("a-1", 1))
        self.assertFalse(store.claim("a-1", 1))
        self.assertTrue(store.claimed("a-1"))
        self.assertGreater(store.now(), 1_700_000_000_000)
        self.assertEqual(store.sweep(0), 1, "swept by the database's clock")
        self.assertEqual(store.database(), self.open(PostgresSink).database(), "a store and a sink know they share one database")

    def test_replicas_settle_once_and_keep_one_chain(self):
        def replica():
            return Gate(self.policy, {}, key=KEY, store=self.open(PostgresStore), audit=[self.open(PostgresSink)])

        first = replica()
        self.assertTrue(first._joint(), "a store and a sink on one database claim and record in one transaction")
        id = first.check(DELETE).pending.id
        ran, refused = [], []
        gates = [replica() for _ in range(3)]
        barrier = threading.Barrier(3)

        def approve(g):
            barrier.wait()
            try:
                g.settle(id, {"answer": "approve"}, lambda a: ran.append(a) or "deleted")
            except GateError as e:
                refused.append(e.code)

        threads = [threading.Thread(target=approve, args=(g,)) for g in gates]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(ran), 1, "approved by three replicas, run once")
        self.assertEqual(len(refused), 2)
        # Replicas appending at once keep one chain.
        writers = [replica() for _ in range(3)]

        def work(g):
            for i in range(10):
                g.run({"tool": "execute_sql", "args": {"sql": f"SELECT {i}"}}, lambda a: i)

        threads = [threading.Thread(target=work, args=(g,)) for g in writers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        records, _ = self.policy.verify_audit(self.open(PostgresSink).export(), KEY)
        self.assertEqual(records, 2 + 3 * 10 * 2)

    def test_a_record_that_cannot_be_written_leaves_the_approval_pending_and_unclaimed(self):
        store = self.open(PostgresStore)
        gate = Gate(self.policy, {}, key=KEY, store=store, audit=[self.open(PostgresSink)], audit_required=True)
        id = gate.check(DELETE).pending.id
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            conn.execute("ALTER TABLE toolgate_audit ADD CONSTRAINT refuse CHECK (line = '')")
        with self.assertRaises(GateError) as failed:
            gate.settle(id, {"answer": "approve"}, lambda a: self.fail("ran without its record"))
        self.assertEqual(failed.exception.code, "audit")
        self.assertFalse(store.claimed(id), "the claim was rolled back with the record")
        self.assertIsNotNone(store.get(id), "the checkpoint is still there")
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            conn.execute("ALTER TABLE toolgate_audit DROP CONSTRAINT refuse")
        self.assertEqual(gate.settle(id, {"answer": "approve"}, lambda a: "now").status, "executed")


if __name__ == "__main__":
    unittest.main()
