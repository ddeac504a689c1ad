"""Adapters from agent frameworks to the approval gate (`toolgate.gate.Gate`).

Each module imports its framework, so import only the one you use:

- `toolgate.adapters.openai_agents`: the OpenAI Agents SDK's approvals
  (`needs_approval`, `RunState.approve` / `reject`);
- `toolgate.adapters.langgraph`: a LangGraph tool node that asks through
  `interrupt` and settles on resume;
- `toolgate.adapters.mcp`: an MCP client session whose `call_tool` is gated.

The versions they are tested with are pinned in `host-py/adapters.lock`.

When a person's approval reaches the gate after the approval's deadline,
the call is not run, and the SDK adapters (Agents SDK, LangGraph), which
settle only what their user answered, tell the model so in the words the
JavaScript adapters use (`late_approval`), not the gate's own text for an
approval no one gave. The MCP session waits in the gate itself, which
refuses an answer given after the deadline to whoever gives it, so the model
hears that no one approved in time.
"""

from __future__ import annotations

import datetime
import json
from typing import Optional

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _iso(ms: int) -> Optional[str]:
    """An instant (ms) as JavaScript's `Date.toISOString` writes it, for the
    years Python's dates hold (1-9999); None outside them."""
    try:
        t = _EPOCH + datetime.timedelta(milliseconds=ms)
    except OverflowError:
        return None
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}.{t.microsecond // 1000:03d}Z"


def late_approval(deadline: Optional[int]) -> str:
    """What the model is told when a person approved a call after its
    approval's deadline (`deadline`, ms, when known): plainly that it was
    approved too late and did not run, so it can ask again. The same text as
    the JavaScript adapters' `lateApproval` (host-js/src/adapters/calls.js)."""
    when = None
    if isinstance(deadline, int) and not isinstance(deadline, bool):
        when = _iso(deadline)
    at = f" ({when})" if when is not None else ""
    reason = (
        f"approved too late: a person approved this call after its approval deadline{at} had passed, "
        "so it was not run; call the tool again if it is still needed, and the person will be asked again"
    )
    return json.dumps({"status": "expired", "reason": reason}, ensure_ascii=False, separators=(",", ":"))
