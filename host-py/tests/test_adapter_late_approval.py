"""A person who approves after the approval's deadline, in each Python
adapter against its real framework (pinned in host-py/adapters.lock): the
call does not run, the approval is recorded as expired, and the model is
told plainly that the approval came too late and it may call the tool
again, in the words the JavaScript adapters use (host-js/src/adapters/
calls.js, `lateApproval`). A rejection after the deadline keeps the gate's
text (no one approved). The MCP session waits inside the gate, which refuses
a late answer to the person giving it; the model hears that no one approved
in time. Each adapter's gate, built with no timeout, gives a person seed
004's 30 s."""

import asyncio
import json
import shutil
import tempfile
import threading
import time
import unittest
from pathlib import Path

import support
from toolgate import load_policy
from toolgate.gate import Gate, GateError
from toolgate.stores import DirStore, JsonlSink

KEY = b"late-approval-test-key-012345678"
DELETE_SQL = "DELETE FROM users WHERE id = 7"
#: The approval window of these tests' gates (ms), and how long the person takes.
WINDOW_MS = 50
LATE_S = 0.15
#: Seed 004: a person has 30 s to answer.
SEED_004_MS = 30_000


def too_late_text(deadline):
    """The text the JavaScript adapters give (host-js/src/adapters/calls.js), spelled out."""
    from datetime import datetime, timezone

    when = datetime.fromtimestamp(deadline / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{deadline % 1000:03d}Z"
    return json.dumps(
        {
            "status": "expired",
            "reason": f"approved too late: a person approved this call after its approval deadline ({when}) had passed, so it was not run; "
            "call the tool again if it is still needed, and the person will be asked again",
        },
        separators=(",", ":"),
    )


class LateApprovalText(unittest.TestCase):
    def setUp(self):
        support.installed()

    def test_the_text_is_the_javascript_adapters(self):
        from toolgate.adapters import late_approval

        self.assertEqual(late_approval(1795734294380), too_late_text(1795734294380))
        self.assertIn("(2026-11-26T23:04:54.380Z)", late_approval(1795734294380))
        self.assertIn("(1970-01-01T00:00:00.005Z)", late_approval(5))
        without = json.loads(late_approval(None))
        self.assertEqual(without["status"], "expired")
        self.assertIn("approval deadline had passed", without["reason"])
        # Outside the years a date holds, the instant is left out, never a crash.
        self.assertIn("approval deadline had passed", late_approval(10**18))


try:
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
except ImportError as missing:  # pragma: no cover
    NO_AGENTS = f"the OpenAI Agents SDK is not installed ({missing}): pip install -r host-py/adapters.lock"
else:
    NO_AGENTS = None
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


@unittest.skipIf(NO_AGENTS is not None, NO_AGENTS or "")
class AgentsSdk(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-late-agents-"))
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

    def agent(self, **options):
        from toolgate.adapters.openai_agents import AgentsGate

        gate = Gate(self.policy, {}, key=KEY, store=DirStore(self.work / "cp"), audit=[JsonlSink(self.log)], **options)
        gated = AgentsGate(gate, session_id="s-1")
        call = ResponseFunctionToolCall(type="function_call", call_id="c-1", name="execute_sql", arguments=json.dumps({"sql": DELETE_SQL}), id="fc-c-1")
        done = ResponseOutputMessage(id="m-1", type="message", role="assistant", status="completed", content=[ResponseOutputText(type="output_text", text="ok", annotations=[])])
        model = ScriptedModel([[call], [done]])
        return gated, model, Agent(name="db", instructions="Run SQL.", model=model, tools=[gated.tool(self.execute_sql)])

    def answer_late(self, answer, **options):
        gated, model, agent = self.agent(**options)

        async def main():
            result = await Runner.run(agent, "delete user 7")
            [item] = result.interruptions
            request = gated.request(item)
            await asyncio.sleep(LATE_S)
            state = result.to_state()
            answer(gated, state, item)
            return request, await Runner.run(agent, state)

        request, final = asyncio.run(main())
        return request, model, final

    def test_an_approval_after_the_deadline_is_told_as_too_late_and_never_runs(self):
        request, model, final = self.answer_late(lambda gated, state, item: gated.approve(state, item, by="ops"), timeout_ms=WINDOW_MS)
        self.assertEqual(self.ran, [], "approved too late, it never runs")
        [output] = [item["output"] for item in model.inputs[-1] if isinstance(item, dict) and item.get("type") == "function_call_output"]
        self.assertEqual(output, too_late_text(request.deadline))
        self.assertIn('"status":"expired"', self.log.read_text())
        self.assertEqual(self.policy.verify_audit(self.log.read_text(), KEY)[0], 1)

    def test_the_default_window_is_seed_004s_30_seconds(self):
        gated, _, agent = self.agent()

        async def main():
            result = await Runner.run(agent, "delete user 7")
            [item] = result.interruptions
            return gated.request(item)

        request = asyncio.run(main())
        self.assertEqual(request.deadline - request.requested_at, SEED_004_MS)


try:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.types import Command
except ImportError as missing:  # pragma: no cover
    NO_LANGGRAPH = f"LangGraph is not installed ({missing}): pip install -r host-py/adapters.lock"
else:
    NO_LANGGRAPH = None


@unittest.skipIf(NO_LANGGRAPH is not None, NO_LANGGRAPH or "")
class LangGraph(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-late-langgraph-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.ran = []

        @tool
        def execute_sql(sql: str) -> str:
            """Runs SQL."""
            self.ran.append(sql)
            return f"ok: {sql}"

        self.tools = [execute_sql]
        self.log = self.work / "audit.jsonl"
        self.policy = load_policy()

    def graph(self, **options):
        from toolgate.adapters.langgraph import gated_tool_node

        turns = [
            AIMessage(content="", tool_calls=[{"name": "execute_sql", "args": {"sql": DELETE_SQL}, "id": "call-1", "type": "tool_call"}]),
            AIMessage(content="done"),
        ]
        model = GenericFakeChatModel(messages=iter(turns))
        gate = Gate(self.policy, {}, key=KEY, store=DirStore(self.work / "cp"), audit=[JsonlSink(self.log)], **options)
        builder = StateGraph(MessagesState)
        builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
        builder.add_node("tools", gated_tool_node(gate, self.tools))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", lambda state: "tools" if state["messages"][-1].tool_calls else END)
        builder.add_edge("tools", "model")
        return builder.compile(checkpointer=InMemorySaver())

    def resumed_late(self, resume, **options):
        graph = self.graph(**options)
        config = {"configurable": {"thread_id": "t-1"}}
        first = graph.invoke({"messages": [HumanMessage("delete user 7")]}, config)
        [pending] = first["__interrupt__"]
        [request] = pending.value
        time.sleep(LATE_S)
        done = graph.invoke(Command(resume=resume), config)
        [message] = [m for m in done["messages"] if isinstance(m, ToolMessage)]
        return request, message

    def test_an_approval_after_the_deadline_is_told_as_too_late_and_never_runs(self):
        for resume in ({"call-1": "approve"}, {"answer": "edit", "args": {"sql": "DELETE FROM users WHERE id = 8"}}):
            with self.subTest(resume=resume):
                self.ran.clear()
                request, message = self.resumed_late(resume, timeout_ms=WINDOW_MS)
                self.assertEqual(self.ran, [])
                self.assertEqual(message.content, too_late_text(request["deadline"]))
                self.assertEqual(message.status, "error")

    def test_a_rejection_after_the_deadline_keeps_the_gates_text(self):
        _, message = self.resumed_late({"answer": "reject", "message": "no"}, timeout_ms=WINDOW_MS)
        self.assertEqual(self.ran, [])
        self.assertNotIn("approved too late", message.content)
        self.assertIn('"status":"expired"', message.content)

    def test_the_default_window_is_seed_004s_30_seconds(self):
        graph = self.graph()
        before = time.time_ns() // 1_000_000
        first = graph.invoke({"messages": [HumanMessage("delete user 7")]}, {"configurable": {"thread_id": "t-2"}})
        after = time.time_ns() // 1_000_000
        [pending] = first["__interrupt__"]
        [request] = pending.value
        self.assertGreaterEqual(request["deadline"], before + SEED_004_MS)
        self.assertLessEqual(request["deadline"], after + SEED_004_MS)


try:
    import anyio
    from mcp import Client
    from mcp.server.mcpserver import MCPServer
except ImportError as missing:  # pragma: no cover
    NO_MCP = f"the MCP Python SDK is not installed ({missing}): pip install -r host-py/adapters.lock"
else:
    NO_MCP = None


@unittest.skipIf(NO_MCP is not None, NO_MCP or "")
class Mcp(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.received = []
        server = MCPServer("db")

        @server.tool()
        def execute_sql(sql: str) -> str:
            """Runs SQL."""
            self.received.append(sql)
            return f"ran {sql}"

        self.server = server
        self.policy = load_policy()

    def call(self, gate):
        from toolgate.adapters.mcp import GatedSession

        async def main():
            async with Client(self.server) as client:
                return await GatedSession(client, gate, session_id="s-1").call_tool("execute_sql", {"sql": DELETE_SQL})

        return anyio.run(main)

    def test_an_answer_after_the_deadline_is_refused_and_the_call_never_sent(self):
        gate = Gate(self.policy, {}, key=KEY, timeout_ms=WINDOW_MS)
        refused = []

        def late(request):
            time.sleep(LATE_S)
            try:
                gate.respond(request.id, {"answer": "approve"})
            except GateError as e:
                refused.append(e.code)

        gate.on("approval-requested", lambda request: threading.Thread(target=late, args=(request,)).start())
        result = self.call(gate)
        deadline = time.monotonic() + 5
        while not refused and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(refused, ["already-answered"], "the person hears the answer came too late")
        self.assertEqual(self.received, [])
        self.assertTrue(result.is_error)
        self.assertEqual(json.loads(result.content[0].text)["status"], "expired")

    def test_the_default_window_is_seed_004s_30_seconds(self):
        gate = Gate(self.policy, {}, key=KEY)
        windows = []

        def answer(request):
            windows.append(request.deadline - request.requested_at)
            gate.respond(request.id, {"answer": "reject"})

        gate.on("approval-requested", answer)
        self.assertTrue(self.call(gate).is_error)
        self.assertEqual(windows, [SEED_004_MS])
        self.assertEqual(self.received, [])


if __name__ == "__main__":
    unittest.main()
