"""The component's approval flow (`interface gate` in wit/toolgate.wit) and
its records (`interface records`), as Python calls.

Each `Flow` method is one crossing into the component and returns the
component's JSON text unchanged (a step, a pending approval, an audit line),
so Python hands its callers the bytes every other host hands its own. `Flow.drive`
starts one of the gate's operations, whose effects a `Driver` hands out one
at a time; the gate (`toolgate.gate`) carries them out on its stores, clock
and audit sinks.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple, Union

from ._runtime import Fault
from .errors import PolicyFaultError, RejectedError, ToolgateError

GATE = "toolgate:policy/gate@0.1.0"
RECORDS = "toolgate:policy/records@0.1.0"

Key = Union[bytes, bytearray, str, None]

_CHECKPOINT_MESSAGES = {
    "unsigned": "the checkpoint is not signed, and this gate requires signed checkpoints",
    "forged": "the checkpoint's signature does not match: it was forged or changed",
}


class CheckpointError(ToolgateError):
    """A checkpoint was refused. `kind` is `invalid` (the message names the
    field), `format` (a format this version does not read), `unsigned`,
    `forged` or `weak-key`; `detail` is the component's payload (a text, a
    key length, or None)."""

    def __init__(self, kind: str, detail: Any, message: str):
        super().__init__(message)
        self.kind = kind
        self.detail = detail


def checkpoint_error(payload: Any) -> CheckpointError:
    """The component's `checkpoint-error` as a `CheckpointError`, in the
    words the JavaScript host uses."""
    tag = getattr(payload, "tag", None)
    detail = getattr(payload, "payload", None)
    if tag == "invalid":
        return CheckpointError("invalid", detail, f"invalid checkpoint: {detail}")
    if tag == "format":
        return CheckpointError("format", detail, f"unsupported checkpoint format `{detail}`")
    if tag == "weak-key":
        return CheckpointError(
            "weak-key",
            detail,
            f"the checkpoint key is {detail} bytes long; a key has at least 16 (make one with `head -c 32 /dev/urandom > key`)",
        )
    if tag in _CHECKPOINT_MESSAGES:
        return CheckpointError(tag, None, _CHECKPOINT_MESSAGES[tag])
    return CheckpointError("invalid", None, str(payload))


class StepError(ToolgateError):
    """A step of the flow could not be taken. `kind` is `checkpoint` (the
    checkpoint was refused: `checkpoint` is the `CheckpointError`) or
    `invalid` (the call, answer, outcome or ticket is not of the expected
    shape; `detail` says how)."""

    def __init__(self, kind: str, detail: Any, message: str, checkpoint: Optional[CheckpointError] = None):
        super().__init__(message)
        self.kind = kind
        self.detail = detail
        self.checkpoint = checkpoint


def step_error(payload: Any) -> StepError:
    """The component's `step-error` as a `StepError`. wasmtime lifts this
    variant untagged, its cases' Python types differing: `invalid` as its
    text, `checkpoint` as the (tagged) `checkpoint-error` inside it."""
    if isinstance(payload, str):
        return StepError("invalid", payload, payload)
    inner = checkpoint_error(payload)
    return StepError("checkpoint", inner.detail, str(inner), inner)


def key_bytes(key: Key) -> Optional[bytes]:
    """A key as bytes: text is taken as its UTF-8 bytes (as the other hosts take it)."""
    if key is None:
        return None
    return key.encode("utf-8") if isinstance(key, str) else bytes(key)


def _time(now: int) -> int:
    if isinstance(now, bool) or not isinstance(now, int) or now < 0 or now >= 2**64:
        raise TypeError("`now` is milliseconds since the Unix epoch")
    return now


def _opt(previous: Optional[str]) -> Optional[str]:
    return None if previous is None else str(previous)


class Flow:
    """One gate's flow in the component: a policy configuration, the gate's
    settings and keys (see `Policy.flow`). `close()` it (or use `with`)."""

    def __init__(self, policy: Any, handle_id: int):
        self._policy = policy
        self._id = handle_id

    def __enter__(self) -> "Flow":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Frees the flow in the component."""
        self._policy._close_flow(self._id)

    def _step(self, method: str, *args: Any) -> str:
        try:
            ok, value = self._policy._call_flow(self._id, method, *args)
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None
        if not ok:
            raise step_error(value)
        return value

    def begin(self, call: str, id: str, now: int, previous: Optional[str] = None) -> str:
        """Step 1: decides `call` (JSON text) at `now`; `id` names the approval if one is needed."""
        return self._step("begin", str(call), str(id), _time(now), _opt(previous))

    def open(self, checkpoint: str) -> str:
        """The pending approval (JSON text) in a checkpoint this flow's key signed."""
        return self._step("open", str(checkpoint))

    def settle(self, checkpoint: str, answer: str, now: int, previous: Optional[str] = None) -> str:
        """Step 2: an answer (JSON text) to the approval in `checkpoint`, taken at `now`."""
        return self._step("settle", str(checkpoint), str(answer), _time(now), _opt(previous))

    def finish(self, ticket: str, ran: str, now: int, previous: Optional[str] = None) -> str:
        """Step 3: how the run of a `run` step's `ticket` ended (JSON text), at `now`."""
        return self._step("finish", str(ticket), str(ran), _time(now), _opt(previous))

    def gap(self, what: str, now: int, previous: Optional[str] = None) -> str:
        """The audit line recording a torn log's repair (`what` was set aside)."""
        return self._step("gap", str(what), _time(now), _opt(previous))

    def open_grant(self, grant: str, now: int) -> str:
        """A sealed grant's JSON text, if this flow's key signed it and it has not expired at `now`."""
        return self._step("open-grant", str(grant), _time(now))

    def revoke(self, grant: str, now: int, previous: Optional[str] = None) -> str:
        """The audit line recording that a sealed grant was revoked at `now`."""
        return self._step("revoke", str(grant), _time(now), _opt(previous))

    def drive(self, op: str) -> "Driver":
        """Starts one operation of the gate (`op`, JSON text: `check`,
        `settle`, `execute`, `sweep`, …), carried out effect by effect
        through the returned `Driver` (docs/gate-steps.md)."""
        try:
            live, handle = self._policy._drive_flow(self._id, str(op))
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None
        return Driver(self._policy, live, handle)

    def start(self, op: str) -> Tuple["Driver", List[str]]:
        """Starts one operation as `drive` does, and returns its first batch
        of effects with it (one crossing less): drive it on with
        `Driver.step`."""
        try:
            live, (handle, batch) = self._policy._drive_flow(self._id, str(op), "start")
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None
        return Driver(self._policy, live, handle), list(batch)


class Records:
    """The `records` interface: checkpoints and the audit chain's lines, the
    same bytes in every host (`Policy.records`)."""

    def __init__(self, policy: Any):
        self._policy = policy

    def _call(self, name: str, *args: Any) -> Any:
        return self._policy._free(name, *args, interface=RECORDS)

    def seal_checkpoint(self, pending: str, key: Key = None) -> str:
        ok, value = self._call("seal-checkpoint", str(pending), key_bytes(key))
        if not ok:
            raise checkpoint_error(value)
        return value

    def open_checkpoint(self, checkpoint: str, key: Key = None) -> str:
        ok, value = self._call("open-checkpoint", str(checkpoint), key_bytes(key))
        if not ok:
            raise checkpoint_error(value)
        return value

    def seal_audit(self, entry: str, previous: Optional[str] = None, key: Key = None) -> str:
        """Seals an audit entry (JSON) as the line after `previous` (None to
        start a log); with `key`, a keyed chain (HMAC-SHA-256)."""
        raw = key_bytes(key)
        if raw is None:
            ok, value = self._call("seal-audit", str(entry), _opt(previous))
        else:
            ok, value = self._call("seal-audit-keyed", str(entry), _opt(previous), raw)
        if not ok:
            raise RejectedError(value)
        return value

    def verify_audit(self, log: str, key: Key = None) -> Tuple[int, str]:
        return self._policy.verify_audit(log, key)

    def config_hash(self, config: str) -> str:
        return self._call("config-hash", str(config))

    def recheck(self, sealed: str, current: str) -> str:
        ok, value = self._call("recheck", str(sealed), str(current))
        if not ok:
            raise RejectedError(value)
        return value

    def args_diff(self, before: str, after: str) -> str:
        ok, value = self._call("args-diff", str(before), str(after))
        if not ok:
            raise RejectedError(value)
        return value


class Driver:
    """One operation of the gate in the component (`resource driver`): each
    `next(outcome)` returns the next effect (JSON text) given the outcome of
    the last one, or `step(outcomes)` the next batch of them, until the
    effect is `done` or `fail` (docs/gate-steps.md). Made by `Flow.drive` or
    `Flow.start`; used by one thread at a time; `close()` it when the
    operation is over."""

    def __init__(self, policy: Any, live: Any, handle: Any):
        self._policy = policy
        self._live = live
        self._handle = handle

    def next(self, outcome: Optional[str] = None) -> str:
        """The next effect, given the last one's outcome."""
        return self._call("next", outcome)

    def step(self, outcomes: List[str]) -> List[str]:
        """The next batch of effects, given the outcomes of the effects of
        the last batch the host carried out (fewer when it stopped early)."""
        return list(self._call("step", list(outcomes)))

    def _call(self, method: str, arg: Any) -> Any:
        def run(live: Any) -> Any:
            if live is not self._live:
                # The instance that held this operation was discarded after a fault.
                raise Fault("host error")
            return live.func(GATE, f"[method]driver.{method}")(live.store, self._handle, arg)

        try:
            ok, value = self._policy._runtime.call(run)
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None
        if not ok:
            raise step_error(value)
        return value

    def close(self) -> None:
        handle, self._handle = self._handle, None
        live = self._policy._runtime._live
        if handle is not None and live is self._live:
            try:
                self._policy._runtime.call(lambda live: handle.drop(live.store))
            except Exception:
                pass
