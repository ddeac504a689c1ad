"""Adapters from agent frameworks to the approval gate (`toolgate.gate.Gate`).

Each module imports its framework, so import only the one you use:

- `toolgate.adapters.openai_agents`: the OpenAI Agents SDK's approvals
  (`needs_approval`, `RunState.approve` / `reject`);
- `toolgate.adapters.langgraph`: a LangGraph tool node that asks through
  `interrupt` and settles on resume;
- `toolgate.adapters.mcp`: an MCP client session whose `call_tool` is gated.

The versions they are tested with are pinned in `host-py/adapters.lock`.
"""
