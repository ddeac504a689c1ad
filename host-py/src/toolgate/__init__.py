"""toolgate: one risk policy for every LLM tool call, in Python.

Before a tool call runs, the policy decides allow, confirm or deny, with
reasons and stable finding codes. It is the same WebAssembly component the
Rust and JavaScript hosts run, so every runtime decides every call alike::

    from toolgate import load_policy

    policy = load_policy()
    policy.assess("execute_sql", '{"sql": "SELECT * FROM users"}').action   # 'allow'
"""

from typing import TYPE_CHECKING, Any

from .errors import AuditBrokenError, LoadError, PolicyFaultError, RejectedError, RequestError, ToolgateError
from .shapes import (
    ACTIONS,
    CALL_FORMATS,
    RISKS,
    SOURCES,
    Action,
    ApiRequest,
    Augmented,
    CallFormat,
    Candidate,
    CheckedLine,
    Decision,
    Finding,
    HookAnswer,
    Imported,
    Layered,
    Risk,
    Source,
    ToolCall,
)

if TYPE_CHECKING:
    from .policy import DEFAULT_WORK_LIMIT, POLICY_FAULT, POLICY_LIMIT, Engine, Policy, load_policy

#: What `toolgate.policy` defines, imported on first use: importing wasmtime
#: is most of a start-up, and the command line's help and usage errors need none.
_LAZY = ("load_policy", "Policy", "Engine", "POLICY_FAULT", "POLICY_LIMIT", "DEFAULT_WORK_LIMIT")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import policy

        return getattr(policy, name)
    raise AttributeError(f"module 'toolgate' has no attribute {name!r}")


__all__ = [
    "load_policy",
    "Policy",
    "Engine",
    "Decision",
    "Finding",
    "ToolCall",
    "Augmented",
    "Candidate",
    "ApiRequest",
    "CheckedLine",
    "HookAnswer",
    "Imported",
    "Layered",
    "Action",
    "Risk",
    "Source",
    "CallFormat",
    "ACTIONS",
    "RISKS",
    "SOURCES",
    "CALL_FORMATS",
    "ToolgateError",
    "LoadError",
    "RejectedError",
    "PolicyFaultError",
    "RequestError",
    "AuditBrokenError",
    "POLICY_FAULT",
    "POLICY_LIMIT",
    "DEFAULT_WORK_LIMIT",
]
