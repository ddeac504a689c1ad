"""The MCP adapter against the real MCP Python SDK (`mcp`, pinned in
host-py/adapters.lock): an in-process MCP server with a SQL tool and a
command tool that record every call they receive, a scripted client as the
test model, and a `GatedSession` between them. An allowed call reaches the
server; a denied one never does; a confirmed one reaches it only once a
person approved it, with the arguments they approved; a rejected one never
does; and the audit chain verifies."""

import json
import shutil
import tempfile
import threading
import unittest
from pathlib import Path

import support

try:
    import anyio
    from mcp import Client
    from mcp.server.mcpserver import MCPServer
except ImportError as missing:  # pragma: no cover - the message says what to install
    MISSING = f"the MCP Python SDK is not installed ({missing}): pip install -r host-py/adapters.lock"
else:
    MISSING = None

from toolgate import load_policy
from toolgate.gate import Gate
from toolgate.stores import JsonlSink

KEY = b"mcp-adapter-test-key-0123456789"


@unittest.skipIf(MISSING is not None, MISSING or "")
class McpAdapter(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-mcp-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.received = []
        server = MCPServer("db")

        @server.tool()
        def execute_sql(sql: str) -> str:
            """Runs SQL."""
            self.received.append(("execute_sql", sql))
            return f"ran {sql}"

        @server.tool()
        def execute_command(command: str) -> str:
            """Runs a shell command."""
            self.received.append(("execute_command", command))
            return f"ran {command}"

        self.server = server
        self.log = self.work / "audit.jsonl"

    def run_model(self, gate, calls):
        """The test model: a scripted list of tool calls, made through the gated session."""
        from toolgate.adapters.mcp import GatedSession

        async def main():
            async with Client(self.server) as client:
                gated = GatedSession(client, gate, session_id="s-1")
                return [await gated.call_tool(name, args) for name, args in calls]

        return anyio.run(main)

    def test_allowed_denied_and_confirmed_calls(self):
        policy = load_policy()
        answers = {"DELETE FROM users WHERE id = 7": {"answer": "edit", "args": {"sql": "DELETE FROM users WHERE id = 8"}}, "rm -rf /srv": {"answer": "reject", "message": "no"}}
        requests = []

        def approve(request):
            requests.append(request)
            return answers.get(json.loads(request.args).get("sql") or json.loads(request.args).get("command"))

        gate = Gate(policy, {"denied_tools": ["drop_everything"]}, key=KEY, audit=[JsonlSink(self.log)], approve=approve)
        results = self.run_model(
            gate,
            [
                ("execute_sql", {"sql": "SELECT count(*) FROM users", "risk_level": "low"}),
                ("drop_everything", {}),
                ("execute_sql", {"sql": "DELETE FROM users WHERE id = 7"}),
                ("execute_command", {"command": "rm -rf /srv"}),
            ],
        )
        self.assertEqual(self.received, [("execute_sql", "SELECT count(*) FROM users"), ("execute_sql", "DELETE FROM users WHERE id = 8")])
        self.assertFalse(results[0].is_error)
        self.assertIn("ran SELECT count(*) FROM users", results[0].content[0].text)
        self.assertTrue(results[1].is_error)
        self.assertIn("denied", results[1].content[0].text)
        self.assertFalse(results[2].is_error)
        self.assertTrue(results[3].is_error)
        self.assertIn("rejected", results[3].content[0].text)
        self.assertEqual([r.tool for r in requests], ["execute_sql", "execute_command"])
        records, _ = policy.verify_audit(self.log.read_text(), KEY)
        self.assertEqual(records, 6, "two runs of two lines each (the SELECT, the edit), a denial and a rejection")

    def test_a_dialog_answers_from_its_own_thread_while_the_loop_runs(self):
        policy = load_policy()
        gate = Gate(policy, {}, key=KEY)
        gate.on("approval-requested", lambda request: threading.Timer(0.05, lambda: gate.respond(request.id, {"answer": "approve"})).start())
        [result] = self.run_model(gate, [("execute_command", {"command": "rm -rf build"})])
        self.assertFalse(result.is_error)
        self.assertEqual(self.received, [("execute_command", "rm -rf build")])


if __name__ == "__main__":
    unittest.main()
