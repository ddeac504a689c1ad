"""Records written by one host apply in the others: a checkpoint the Python
gate leaves in a directory store is listed by the Rust CLI and settled by the
JavaScript gate; the grant that answer kept applies in Python; the Rust CLI
revokes it and Python no longer applies it; a checkpoint the JavaScript gate
leaves is settled by Python; and the one keyed audit chain all three wrote
(Python and JavaScript under the log's writer locks, the Rust CLI's
revocation) verifies in the Rust CLI and in Python."""

import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate
from toolgate.stores import DirStore, JsonlSink

KEY = b"cross-host-shared-key-0123456789"
DELETE = {"sql": "DELETE FROM users WHERE id = 7"}

NODE_SETTLE = """
import { loadPolicy, Gate } from '%(js)s/src/index.js';
import { FileStore, JsonlSink } from '%(js)s/src/node.js';
const [dir, log, key, op, id] = process.argv.slice(2);
const policy = await loadPolicy();
const gate = new Gate(policy, { key, store: new FileStore(dir), audit: [new JsonlSink(log)] });
let out;
if (op === 'settle') {
  const r = await gate.settle(id, { answer: 'approve', by: 'node', remember: { scope: 'project' } }, () => 'node ran it');
  out = { status: r.status, output: r.output, forModel: r.forModel() };
} else if (op === 'pending') {
  out = (await gate.pending()).map((p) => (p.ok ? p.request.id : 'bad:' + p.id));
} else if (op === 'check') {
  const c = await gate.check({ tool: 'execute_sql', args: '{"sql":"DROP TABLE audit_copy"}' });
  out = { id: c.pending.id, action: c.decision.action };
}
console.log(JSON.stringify(out));
"""


def _node():
    return shutil.which("node")


@unittest.skipUnless(support.RUST_CLI.exists(), f"the Rust CLI is not built ({support.RUST_CLI}): run the README's build")
@unittest.skipUnless(_node() and (support.ROOT / "host-js" / "gen" / "toolgate.wasm").exists(), "node and the JavaScript host's component are needed (run the README's build)")
class CrossHost(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-cross-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.dir = self.work / "checkpoints"
        self.log = self.work / "audit.jsonl"
        self.keyfile = self.work / "key"
        self.keyfile.write_bytes(KEY)
        self.script = self.work / "node-gate.mjs"
        self.script.write_text(NODE_SETTLE % {"js": (support.ROOT / "host-js").as_posix()})
        self.policy = load_policy()

    def gate(self):
        return Gate(self.policy, {}, key=KEY, store=DirStore(self.dir), audit=[JsonlSink(self.log)])

    def node(self, *args):
        done = subprocess.run(["node", str(self.script), str(self.dir), str(self.log), KEY.decode(), *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads(done.stdout)

    def rust(self, *args, ok=True):
        done = subprocess.run([str(support.RUST_CLI), *args], capture_output=True, text=True, timeout=120)
        if ok:
            self.assertEqual(done.returncode, 0, done.stderr)
        return done

    def test_checkpoints_grants_and_the_audit_chain_cross_every_host(self):
        # Python leaves a DELETE pending: the Rust CLI lists it, signed and whole.
        gate = self.gate()
        checked = gate.check({"tool": "execute_sql", "args": DELETE})
        self.assertEqual(checked.decision.action, "confirm")
        first = checked.pending.id
        listed = [json.loads(line) for line in self.rust("approvals", "list", str(self.dir), "--key-file", str(self.keyfile)).stdout.splitlines()]
        self.assertEqual([p["id"] for p in listed], [first])
        self.assertEqual(listed[0]["args"], '{"sql":"DELETE FROM users WHERE id = 7"}')

        # The JavaScript gate answers it "always for this project": it runs
        # there, once, and the grant lands in the shared store.
        settled = self.node("settle", first)
        self.assertEqual(settled["status"], "executed")
        self.assertEqual(settled["output"], "node ran it")
        self.assertEqual(gate.pending(), [], "the claimed approval is no longer pending in Python")

        # Python applies the grant JavaScript kept: the same call now runs.
        gate = self.gate()
        grants = gate.grants()
        self.assertEqual(len(grants), 1, grants)
        self.assertTrue(grants[0]["ok"], grants)
        grant_id = grants[0]["id"]
        again = gate.check({"tool": "execute_sql", "args": DELETE})
        self.assertEqual(again.decision.action, "allow", again.decision)
        self.assertEqual(again.proceed(lambda args: "python ran it").status, "executed")

        # The Rust CLI lists and revokes it, appending its record to the same
        # keyed chain; Python no longer applies it.
        self.assertIn(grant_id, self.rust("grants", "list", str(self.dir), "--key-file", str(self.keyfile)).stdout)
        self.rust("grants", "revoke", str(self.dir), grant_id, "--key-file", str(self.keyfile), "--audit", str(self.log), "--audit-key-file", str(self.keyfile))
        gate = self.gate()
        self.assertEqual(gate.grants(), [])
        revoked = gate.check({"tool": "execute_sql", "args": DELETE})
        self.assertEqual(revoked.decision.action, "confirm", "a revoked grant never applies again")

        # JavaScript lists what Python left, and leaves one of its own that
        # Python settles (rejected: never run).
        self.assertEqual(self.node("pending"), [revoked.pending.id])
        js = self.node("check")
        self.assertEqual(js["action"], "confirm")
        ids = sorted(p["request"].id for p in gate.pending())
        self.assertEqual(ids, sorted([revoked.pending.id, js["id"]]))
        result = gate.settle(js["id"], {"answer": "reject", "message": "not today"}, lambda args: self.fail("a rejected call ran"))
        self.assertEqual(result.status, "rejected")

        # One chain, written by three hosts, verifies in the Rust CLI and in Python.
        text = self.log.read_text()
        verified = self.rust("audit", "verify", str(self.log), "--key-file", str(self.keyfile))
        records, head = self.policy.verify_audit(text, KEY)
        self.assertIn(f"ok: {records} records, head {head}", verified.stdout)
        lines = [json.loads(line) for line in text.splitlines()]
        # JavaScript's approval and run, Python's granted run (two each), the
        # Rust CLI's revocation and Python's rejection.
        self.assertEqual(records, 6)
        self.assertTrue(any("revoke" in json.dumps(line) for line in lines), "the Rust CLI's revocation is in the chain")
        # Unkeyed, the chain is refused: it is an HMAC chain under the key.
        self.assertNotEqual(self.rust("audit", "verify", str(self.log), ok=False).returncode, 0)


if __name__ == "__main__":
    unittest.main()
