"""toolgate for the OpenAI Agents SDK (`openai-agents`): its approvals
(`needs_approval`, `RunResult.interruptions`, `RunState.approve` / `reject`)
driven by the gate.

    gated = AgentsGate(gate)
    agent = Agent(name="db", tools=[gated.tool(execute_sql)])
    result = await Runner.run(agent, "delete user 7")
    while result.interruptions:
        state = result.to_state()
        for item in result.interruptions:
            request = gated.request(item)        # what the policy found, for the dialog
            if ask_a_person(request):
                gated.approve(state, item, by="ops")
            else:
                gated.reject(state, item, message="not today")
        result = await Runner.run(agent, state)

`tool(t)` returns a copy of a function tool whose `needs_approval` asks the
gate (true exactly when the policy confirms: the approval is then pending in
the gate's store, so any process sharing it can settle it) and whose
`on_invoke_tool` runs through the gate: an allowed call runs, a denied one
never does (the model gets the gate's text), and a confirmed one, which the
SDK invokes only once the run state approved it, is settled as approved and
run with the arguments the flow allows; approved after the approval's
deadline, it is not run, and the model is told it was approved too late and
may call the tool again (`late_approval`). `reject` settles the pending
approval as rejected and gives the SDK the gate's text for the model, so the
audit holds every answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Dict, Optional

from agents import FunctionTool

from ..gate import Checked, Gate, Request
from . import late_approval


def _call_id(item: Any) -> str:
    raw = getattr(item, "raw_item", item)
    found = getattr(raw, "call_id", None)
    if found is None and isinstance(raw, dict):
        found = raw.get("call_id") or raw.get("callId")
    if not isinstance(found, str):
        raise ValueError("the approval item names no call id")
    return found


class AgentsGate:
    """The gate's adapter for the Agents SDK."""

    def __init__(self, gate: Gate, *, session_id: Optional[str] = None, user_id: Optional[str] = None):
        self.gate = gate
        self._session_id = session_id
        self._user_id = user_id
        self._checked: Dict[str, Checked] = {}
        self._answers: Dict[str, Dict[str, Any]] = {}

    def _call(self, name: str, args: Any, call_id: str) -> Dict[str, Any]:
        call: Dict[str, Any] = {"tool": name, "args": args, "call_id": call_id}
        if self._session_id is not None:
            call["session_id"] = self._session_id
        if self._user_id is not None:
            call["user_id"] = self._user_id
        return call

    def _pending(self, call_id: str) -> Optional[Request]:
        """The approval pending for `call_id`: decided here, or by a gate in
        another process that shares the store (a run state resumed there)."""
        checked = self._checked.get(call_id)
        if checked is not None:
            return checked.pending
        for listed in self.gate.pending():
            if listed["ok"] and listed["request"].call_id == call_id:
                return listed["request"]
        return None

    def request(self, item: Any) -> Optional[Request]:
        """The gate's request behind an interruption (its decision, findings, deadline)."""
        return self._pending(_call_id(item))

    def approve(self, state: Any, item: Any, *, by: Optional[str] = None, args: Any = None) -> None:
        """Approves an interruption (`args`: a person's edit of the arguments)."""
        answer: Dict[str, Any] = {"answer": "approve"} if args is None else {"answer": "edit", "args": args}
        if by is not None:
            answer["by"] = by
        self._answers[_call_id(item)] = answer
        state.approve(item)

    def reject(self, state: Any, item: Any, *, message: Optional[str] = None, by: Optional[str] = None) -> None:
        """Rejects an interruption: the approval is settled as rejected in the
        gate (audited) and the SDK tells the model the gate's text."""
        call_id = _call_id(item)
        pending = self._pending(call_id)
        text = message
        if pending is not None:
            answer: Dict[str, Any] = {"answer": "reject"}
            if message is not None:
                answer["message"] = message
            if by is not None:
                answer["by"] = by
            text = self.gate.settle(pending.id, answer).for_model()
            self._checked.pop(call_id, None)
        state.reject(item, rejection_message=text)

    def tool(self, tool: FunctionTool) -> FunctionTool:
        """A copy of `tool` whose approvals and runs go through the gate."""
        name = tool.name
        invoke = tool.on_invoke_tool

        async def needs_approval(ctx: Any, params: Dict[str, Any], call_id: str) -> bool:
            checked = self._checked.get(call_id)
            if checked is None:
                checked = await asyncio.to_thread(self.gate.check, self._call(name, params, call_id))
                self._checked[call_id] = checked
            return checked.pending is not None

        async def on_invoke_tool(ctx: Any, arguments: str) -> Any:
            call_id = ctx.tool_call_id
            loop = asyncio.get_running_loop()

            def execute(args: str) -> Any:
                # Runs the SDK's own invocation, with the arguments the flow allows.
                return asyncio.run_coroutine_threadsafe(invoke(ctx, args), loop).result()

            def through_gate() -> str:
                checked = self._checked.pop(call_id, None)
                pending = checked.pending if checked is not None else self._pending(call_id)
                if pending is not None:
                    # The SDK invokes a call that needed approval only once the run state approved it.
                    answer = self._answers.pop(call_id, {"answer": "approve"})
                    result = self.gate.settle(pending.id, answer, execute)
                    if result.status == "expired":
                        # Approved, but after the deadline: the model hears
                        # that, not the gate's "no one approved".
                        return late_approval(pending.deadline)
                else:
                    if checked is None:
                        checked = self.gate.check(self._call(name, json.loads(arguments or "{}"), call_id))
                    if checked.pending is not None:
                        # Decided confirm now, though the SDK did not ask: never run unanswered.
                        return self.gate.settle(checked.pending.id, {"answer": "cancel"}).for_model()
                    result = checked.result if checked.proceed is None else checked.proceed(execute)
                if result.status == "executed" and result.output is not None:
                    return result.output
                return result.for_model()

            return await asyncio.to_thread(through_gate)

        return dataclasses.replace(tool, needs_approval=needs_approval, on_invoke_tool=on_invoke_tool)
