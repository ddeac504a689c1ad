"""A gated MCP client session: `tools/call` goes through the approval gate.

`GatedSession(session, gate)` wraps an `mcp.Client` or `mcp.ClientSession`
(anything with an async `call_tool(name, arguments, ...)`); every other
attribute is the session's own. A call the policy allows is sent to the
server; a denied one never leaves the client, and the caller gets an error
result carrying the gate's text for the model; a confirmed one waits for a
person (the gate's `approve` function, or `gate.respond` from a dialog) in a
worker thread while the event loop goes on, and is sent with the arguments
the person approved (an edit's, `risk_level` removed) or answered as
rejected, expired or cancelled. Every step is in the gate's audit chain.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

import anyio
import anyio.to_thread
import anyio.from_thread
from mcp.types import CallToolResult, TextContent

from ..gate import Gate, ToolResult


class ToolFailed(Exception):
    """The server answered the call with an error result (recorded as the run's error)."""


def _text(result: CallToolResult) -> str:
    parts = [c.text for c in result.content if isinstance(c, TextContent)]
    return "\n".join(parts) if parts else result.model_dump_json(exclude_none=True)


class GatedSession:
    """An MCP client session whose `call_tool` asks the gate first."""

    def __init__(self, session: Any, gate: Gate, *, session_id: Optional[str] = None, user_id: Optional[str] = None):
        self._session = session
        self._gate = gate
        self._session_id = session_id
        self._user_id = user_id
        #: The gate's result of each call, by the order they were made (for inspection).
        self.results: list = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def call_tool(self, name: str, arguments: Optional[Dict[str, Any]] = None, *args: Any, **kwargs: Any) -> CallToolResult:
        call: Dict[str, Any] = {"tool": name, "args": arguments if arguments is not None else {}}
        if self._session_id is not None:
            call["session_id"] = self._session_id
        if self._user_id is not None:
            call["user_id"] = self._user_id
        sent: Dict[str, CallToolResult] = {}

        def execute(approved: str) -> str:
            # The arguments the tool must receive: risk_level removed, or a person's edit.
            result = anyio.from_thread.run(lambda: self._session.call_tool(name, json.loads(approved), *args, **kwargs))
            sent["result"] = result
            if result.is_error:
                raise ToolFailed(_text(result))
            return _text(result)

        outcome: ToolResult = await anyio.to_thread.run_sync(lambda: self._gate.run(call, execute))
        self.results.append(outcome)
        if "result" in sent:
            return sent["result"]
        return CallToolResult(content=[TextContent(type="text", text=outcome.for_model())], is_error=True)
