"""The errors toolgate raises, all `ToolgateError`s.

`assess` and its siblings never raise for any arguments: what the policy
cannot read, and a fault of the policy itself, are answered `confirm`. The
other calls raise these, with messages meant for the person who wrote the
configuration, tools or document.
"""

from __future__ import annotations

from typing import List

from .shapes import Finding


class ToolgateError(Exception):
    """Every error toolgate raises."""


class LoadError(ToolgateError):
    """The component could not be read, compiled or instantiated."""


class RejectedError(ToolgateError):
    """The component refused a configuration, argument or tool list; the message names the field."""


class PolicyFaultError(ToolgateError):
    """The policy faulted (a trap) or ran past its work limit; the message names the kind."""


class RequestError(ToolgateError):
    """A registry tool's request could not be built: `findings` lists every reason."""

    def __init__(self, findings: List[Finding]):
        super().__init__("; ".join(f.message for f in findings))
        self.findings = findings


class AuditBrokenError(ToolgateError):
    """An audit log failed verification at `line` (1-based) for `reason`."""

    def __init__(self, line: int, reason: str):
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason
