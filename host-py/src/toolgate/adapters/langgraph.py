"""A LangGraph tool node gated by toolgate: a confirmed call asks a person
through LangGraph's `interrupt` and is settled when the graph resumes.

`gated_tool_node(gate, tools)` is a node for a graph whose state has
`messages` (`MessagesState`); it carries out the tool calls of the last AI
message. Allowed calls run, denied ones never do (the model gets the gate's
text as the tool message), and confirmed ones are stored as pending
approvals (in the gate's store: any process sharing it can settle them) and
put to a person with one `interrupt` carrying the requests. Resume with
`Command(resume=ANSWER)`: one answer for every call (`{"answer":
"approve"}`), or a dict from tool call id (or approval id) to answer; an
answer is `approve`, `reject` (`message`), `edit` (`args`) or `cancel`. An
approval or edit given after the approval's deadline runs nothing, and the
model is told it came too late and may call the tool again (`late_approval`).

LangGraph runs a node again from its start when it resumes, so nothing runs
before the interrupt: the calls are decided first, and the pending approvals
are found again in the store by their tool call id, never asked twice.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Sequence

from langchain_core.messages import ToolMessage
from langgraph.types import interrupt

from ..gate import Checked, Gate, Request
from . import late_approval


def _request(request: Request, call_id: str) -> Dict[str, Any]:
    """A request as the interrupt's value: plain JSON, for any checkpointer."""
    d = request.decision
    return {
        "approval_id": request.id,
        "tool_call_id": call_id,
        "tool": request.tool,
        "args": request.args,
        "summary": d.summary,
        "risk": d.risk,
        "findings": [{"code": f.code, "message": f.message} for f in d.findings],
        "deadline": request.deadline,
    }


def _answer_for(resume: Any, call_id: str, approval_id: str) -> Any:
    if isinstance(resume, dict) and "answer" in resume:
        return resume
    if isinstance(resume, str):
        return {"answer": resume}
    if isinstance(resume, dict):
        found = resume.get(call_id, resume.get(approval_id))
        if found is not None:
            return {"answer": found} if isinstance(found, str) else found
    # No answer for this call: it is not run.
    return {"answer": "cancel"}


def gated_tool_node(gate: Gate, tools: Sequence[Any], *, session_id: Optional[str] = None, user_id: Optional[str] = None) -> Callable[[Dict[str, Any]], Dict[str, Any]]:
    """A node running the last AI message's tool calls through `gate`.
    `tools` are LangChain tools (`@tool` functions, `BaseTool`s), by name."""
    by_name = {t.name: t for t in tools}

    def executor(name: str) -> Callable[[str], Any]:
        def run(args: str) -> Any:
            tool = by_name.get(name)
            if tool is None:
                raise LookupError(f"no tool named `{name}`")
            return tool.invoke(json.loads(args))

        return run

    def call_of(tc: Dict[str, Any]) -> Dict[str, Any]:
        call = {"tool": tc["name"], "args": tc.get("args") or {}, "call_id": tc["id"]}
        if session_id is not None:
            call["session_id"] = session_id
        if user_id is not None:
            call["user_id"] = user_id
        return call

    def node(state: Dict[str, Any]) -> Dict[str, Any]:
        last = state["messages"][-1]
        calls: List[Dict[str, Any]] = list(getattr(last, "tool_calls", None) or [])
        if not calls:
            return {"messages": []}
        # Approvals this node already asked for (before an interrupt), by tool call id.
        waiting: Dict[str, Request] = {}
        for listed in gate.pending():
            if listed["ok"] and listed["request"].call_id is not None:
                waiting[listed["request"].call_id] = listed["request"]
        decided: Dict[str, Checked] = {}
        asks: List[tuple] = []
        for tc in calls:
            if tc["id"] in waiting:
                asks.append((tc, waiting[tc["id"]]))
                continue
            # Only what a person must answer is checked (and so stored) before the interrupt.
            if gate.engine.assess(tc["name"], tc.get("args") or {}).action != "confirm":
                continue
            checked = gate.check(call_of(tc))
            decided[tc["id"]] = checked
            if checked.pending is not None:
                asks.append((tc, checked.pending))
        resume = interrupt([_request(r, tc["id"]) for tc, r in asks]) if asks else None
        asked = {tc["id"]: r for tc, r in asks}
        out = []
        for tc in calls:
            run = executor(tc["name"])
            if tc["id"] in asked:
                request = asked[tc["id"]]
                answer = _answer_for(resume, tc["id"], request.id)
                result = gate.settle(request.id, answer, run)
                if result.status == "expired" and answer.get("answer") in ("approve", "edit"):
                    # Approved, but after the deadline: the model hears that.
                    out.append(ToolMessage(content=late_approval(request.deadline), tool_call_id=tc["id"], name=tc["name"], status="error"))
                    continue
            else:
                checked = decided.get(tc["id"]) or gate.check(call_of(tc))
                result = checked.result if checked.proceed is None else checked.proceed(run)
            text = result.output if result.status == "executed" and result.output is not None else result.for_model()
            out.append(ToolMessage(content=text, tool_call_id=tc["id"], name=tc["name"], status="success" if result.status == "executed" else "error"))
        return {"messages": out}

    return node
