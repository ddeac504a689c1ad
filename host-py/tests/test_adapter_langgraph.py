"""The LangGraph adapter against the real LangGraph (pinned in
host-py/adapters.lock), with LangChain's fake chat model as the test model:
a graph of the model and the gated tool node with a checkpointer. An allowed
call runs at once; a confirmed one interrupts the graph with its request and
runs only when the graph is resumed with an approval, once, even though
LangGraph runs the node again from its start; a rejected one never runs and
the model is told; the audit chain verifies."""

import shutil
import tempfile
import unittest
from pathlib import Path

import support

try:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.types import Command
except ImportError as missing:  # pragma: no cover
    MISSING = f"LangGraph is not installed ({missing}): pip install -r host-py/adapters.lock"
else:
    MISSING = None

from toolgate import load_policy
from toolgate.gate import Gate
from toolgate.stores import DirStore, JsonlSink

KEY = b"langgraph-test-key-0123456789abc"


@unittest.skipIf(MISSING is not None, MISSING or "")
class LangGraphAdapter(unittest.TestCase):
    def setUp(self):
        support.installed()
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-langgraph-"))
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

    def graph(self, turns):
        from toolgate.adapters.langgraph import gated_tool_node

        model = GenericFakeChatModel(messages=iter(turns))
        gate = Gate(self.policy, {}, key=KEY, store=DirStore(self.work / "cp"), audit=[JsonlSink(self.log)])
        builder = StateGraph(MessagesState)
        builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
        builder.add_node("tools", gated_tool_node(gate, self.tools))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", lambda state: "tools" if state["messages"][-1].tool_calls else END)
        builder.add_edge("tools", "model")
        return builder.compile(checkpointer=InMemorySaver())

    def turns(self):
        return [
            AIMessage(content="", tool_calls=[
                {"name": "execute_sql", "args": {"sql": "SELECT count(*) FROM users"}, "id": "call-1", "type": "tool_call"},
                {"name": "execute_sql", "args": {"sql": "DELETE FROM users WHERE id = 7"}, "id": "call-2", "type": "tool_call"},
            ]),
            AIMessage(content="done"),
        ]

    def test_a_confirmed_call_interrupts_and_runs_once_on_approval(self):
        graph = self.graph(self.turns())
        config = {"configurable": {"thread_id": "t-1"}}
        first = graph.invoke({"messages": [HumanMessage("count users and delete 7")]}, config)
        [pending] = first["__interrupt__"]
        [request] = pending.value
        self.assertEqual((request["tool_call_id"], request["tool"], request["risk"]), ("call-2", "execute_sql", "high"))
        self.assertEqual(self.ran, [], "nothing runs before the person answers")
        done = graph.invoke(Command(resume={"call-2": "approve"}), config)
        self.assertEqual(self.ran, ["SELECT count(*) FROM users", "DELETE FROM users WHERE id = 7"])
        tools = [m for m in done["messages"] if isinstance(m, ToolMessage)]
        self.assertEqual([m.content for m in tools], ["ok: SELECT count(*) FROM users", "ok: DELETE FROM users WHERE id = 7"])
        self.assertEqual(done["messages"][-1].content, "done")
        records, _ = self.policy.verify_audit(self.log.read_text(), KEY)
        self.assertEqual(records, 4)

    def test_a_rejected_call_never_runs_and_the_model_is_told(self):
        graph = self.graph(self.turns())
        config = {"configurable": {"thread_id": "t-2"}}
        graph.invoke({"messages": [HumanMessage("go")]}, config)
        done = graph.invoke(Command(resume={"answer": "reject", "message": "not user 7"}), config)
        self.assertEqual(self.ran, ["SELECT count(*) FROM users"], "the allowed call runs, the rejected one never does")
        tools = [m for m in done["messages"] if isinstance(m, ToolMessage)]
        self.assertEqual(len(tools), 2)
        self.assertIn("rejected", tools[1].content)
        self.assertIn("not user 7", tools[1].content)


if __name__ == "__main__":
    unittest.main()
