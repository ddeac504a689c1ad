"""The OpenAI Agents SDK adapter against the real `openai-agents` package
(pinned in host-py/adapters.lock), with a scripted model as the test model
(the SDK's `Model` interface, no network): an allowed call runs with no
interruption; a confirmed one interrupts the run, runs only once the run
state approves it, and is recorded as approved; a rejected one never runs
and the model gets the gate's text; a denied one never runs."""

import asyncio
import shutil
import tempfile
import unittest
from pathlib import Path

import support

try:
    from agents import Agent, Runner, function_tool
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
except ImportError as missing:  # pragma: no cover
    MISSING = f"the OpenAI Agents SDK is not installed ({missing}): pip install -r host-py/adapters.lock"
else:
    MISSING = None

from toolgate import load_policy
from toolgate.gate import Gate
from toolgate.stores import DirStore, JsonlSink

KEY = b"agents-adapter-test-key-01234567"

if MISSING is None:
    from agents import set_tracing_disabled

    # No traces leave the machine: the test model is local.
    set_tracing_disabled(True)

    class ScriptedModel(Model):
        """The test model: each turn's output given in advance; the inputs it was sent are kept."""

        def __init__(self, turns):
            self.turns = list(turns)
            self.inputs = []

        async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **kwargs):
            self.inputs.append(input)
            return ModelResponse(output=self.turns.pop(0), usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):  # pragma: no cover - not streamed here
            raise NotImplementedError


def call(call_id, name, arguments):
    return ResponseFunctionToolCall(type="function_call", call_id=call_id, name=name, arguments=arguments, id=f"fc-{call_id}")


def say(text):
    return ResponseOutputMessage(id="m-1", type="message", role="assistant", status="completed", content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


@unittest.skipIf(MISSING is not None, MISSING or "")
class OpenAiAgentsAdapter(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-agents-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.ran = []
        self.log = self.work / "audit.jsonl"
        self.policy = load_policy()

        @function_tool
        def execute_sql(sql: str) -> str:
            """Runs SQL."""
            self.ran.append(sql)
            return f"ok: {sql}"

        self.execute_sql = execute_sql

    def agent(self, turns, config=None):
        from toolgate.adapters.openai_agents import AgentsGate

        gate = Gate(self.policy, config or {}, key=KEY, store=DirStore(self.work / "cp"), audit=[JsonlSink(self.log)])
        gated = AgentsGate(gate, session_id="s-1")
        model = ScriptedModel(turns)
        return gated, model, Agent(name="db", instructions="Run SQL.", model=model, tools=[gated.tool(self.execute_sql)])

    def test_allowed_runs_confirmed_waits_for_the_run_states_approval(self):
        gated, model, agent = self.agent([
            [call("c-1", "execute_sql", '{"sql": "SELECT count(*) FROM users"}')],
            [call("c-2", "execute_sql", '{"sql": "DELETE FROM users WHERE id = 7"}')],
            [say("deleted")],
        ])

        async def main():
            result = await Runner.run(agent, "count, then delete user 7")
            self.assertEqual(self.ran, ["SELECT count(*) FROM users"])
            [item] = result.interruptions
            request = gated.request(item)
            self.assertEqual((request.tool, request.decision.action, request.decision.risk), ("execute_sql", "confirm", "high"))
            state = result.to_state()
            gated.approve(state, item, by="ops")
            return await Runner.run(agent, state)

        final = asyncio.run(main())
        self.assertEqual(final.final_output, "deleted")
        self.assertEqual(self.ran, ["SELECT count(*) FROM users", "DELETE FROM users WHERE id = 7"])
        text = self.log.read_text()
        records, _ = self.policy.verify_audit(text, KEY)
        self.assertEqual(records, 4)
        self.assertIn('"by":"ops"', text)

    def test_a_rejected_call_never_runs_and_the_model_gets_the_gates_text(self):
        gated, model, agent = self.agent([
            [call("c-3", "execute_sql", '{"sql": "DROP TABLE users"}')],
            [say("understood")],
        ])

        async def main():
            result = await Runner.run(agent, "drop users")
            [item] = result.interruptions
            state = result.to_state()
            gated.reject(state, item, message="never drop users")
            return await Runner.run(agent, state)

        final = asyncio.run(main())
        self.assertEqual(final.final_output, "understood")
        self.assertEqual(self.ran, [])
        sent = str(model.inputs[-1])
        self.assertIn("rejected", sent)
        self.assertIn("never drop users", sent)
        self.assertIn('"status":"rejected"', self.log.read_text())

    def test_a_denied_call_never_runs(self):
        gated, model, agent = self.agent([
            [call("c-4", "execute_sql", '{"sql": "SELECT 1"}')],
            [say("ok")],
        ], config={"denied_tools": ["execute_sql"]})
        final = asyncio.run(Runner.run(agent, "select"))
        self.assertEqual(final.interruptions, [])
        self.assertEqual(self.ran, [])
        self.assertIn("denied", str(model.inputs[-1]))


if __name__ == "__main__":
    unittest.main()
