"""The toolgate policy in Python: `load_policy`, `Policy` and `Engine`.

The policy is the very component the Rust and JavaScript hosts embed; this
layer loads it (see `_runtime`), converts its values into the generated
shapes (`toolgate.shapes`), and answers `confirm` whenever the component
faults, recovering with a fresh instance. Calls are synchronous; a `Policy`
is not shared between threads (give each thread its own, they share nothing).
"""

from __future__ import annotations

from pathlib import Path
import json
import time
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _json
from ._runtime import GATE, POLICY, RECORDS, Compiled, Fault, Instance, Runtime, compile_component
from .errors import AuditBrokenError, LoadError, PolicyFaultError, RejectedError, RequestError, ToolgateError
from .shapes import ApiRequest, Augmented, Candidate, CheckedLine, Decision, Finding, HookAnswer, Imported, Layered, ToolCall

#: The finding code of a decision the host made because the policy faulted.
POLICY_FAULT = "policy.fault"
#: The finding code of a call stopped at the work limit.
POLICY_LIMIT = "policy.limit"
#: The default work limit of one call, in seconds of wall-clock time (as the Rust host's).
DEFAULT_WORK_LIMIT = 2.0

Json = Union[str, Dict[str, Any], List[Any]]

if TYPE_CHECKING:
    from .flow import Flow, Records

#: What stands for arguments JSON cannot hold: it is not JSON, so the policy
#: answers it `confirm` with `args.invalid`, and the decision still comes from
#: the component (a denied tool stays denied).
UNSERIALISABLE = "(arguments that JSON cannot hold)"

_WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def _text(value: str) -> str:
    """A string the component can take: lone surrogates (which UTF-8 cannot
    hold) become U+FFFD, as JavaScript's encoder writes them."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _name(tool: Any) -> str:
    """A tool name as text, whatever an SDK hands over."""
    if isinstance(tool, str):
        return _text(tool)
    try:
        return _text(str(tool))
    except Exception:
        return ""


def _args(value: Any) -> str:
    """Arguments as JSON text: text verbatim, None as `{}`, any other value serialised."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, (bytes, bytearray)):
        return _text(bytes(value).decode("utf-8", "replace"))
    if value is None:
        return "{}"
    try:
        return _text(_json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return UNSERIALISABLE


def _json_text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, (dict, list)):
        return _text(_json.dumps(value))
    raise TypeError(f"{what} must be JSON text, a dict or a list")


def _one_line(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (the Rust host's rule)."""
    parts: List[str] = []
    word: List[str] = []
    for ch in text:
        if ch in _WHITESPACE or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            if word:
                parts.append("".join(word))
                word = []
        else:
            word.append(ch)
    if word:
        parts.append("".join(word))
    flat = " ".join(parts)
    return flat[:limit] + "…" if len(flat) > limit else flat


def _host_confirm(tool: str, code: str, message: str, why: str) -> Decision:
    return Decision(
        action="confirm",
        risk="medium",
        source="default",
        llm_risk=None,
        findings=[Finding(code=code, message=message)],
        summary=f"{_one_line(tool, 60)} — {why}; needs confirmation",
    )


def fault_decision(tool: str, fault: Fault) -> Decision:
    """The `confirm` the host answers when the component gave no answer."""
    if fault.limit:
        return _host_confirm(
            tool,
            POLICY_LIMIT,
            "the call was too expensive to assess within the policy's work limit; a person must decide",
            "too expensive to assess",
        )
    return _host_confirm(tool, POLICY_FAULT, f"the policy faulted ({fault.kind}); a person must decide", "the policy faulted")


def load_policy(
    config: Optional[Json] = None,
    *,
    component: Union[str, Path, bytes, None] = None,
    cache_dir: Union[str, Path, None] = None,
    cache: bool = True,
    work_limit: Optional[float] = DEFAULT_WORK_LIMIT,
    max_memory: Optional[int] = None,
) -> "Policy":
    """Loads the policy.

    `config` (JSON text or a dict) configures the policy's own decisions;
    without it they are made under the default configuration (make more with
    `Policy.engine`). `component` is another component file (or its bytes);
    by default the one shipped in this package. The compiled component is
    cached in `cache_dir` (by default `$TOOLGATE_CACHE_DIR`, else the user's
    cache directory + `toolgate`); `cache=False` compiles it every time.
    `work_limit` bounds each call in seconds (None: no bound); `max_memory`
    bounds the instance's linear memory in bytes (by default the 256 MiB the
    component declares). Raises `LoadError`, or `RejectedError` for a
    configuration the policy refuses.
    """
    if isinstance(component, (bytes, bytearray)):
        compiled = compile_component(data=bytes(component), cache_dir=_path(cache_dir), use_cache=cache)
    else:
        compiled = compile_component(path=_path(component), cache_dir=_path(cache_dir), use_cache=cache)
    policy = Policy(compiled, work_limit=work_limit, max_memory=max_memory)
    try:
        # Unbounded: a tight work limit is for decisions, and a loaded machine
        # must not turn the first start of the instance into "invalid component".
        policy._free("version", bounded=False)
    except ToolgateError as e:
        raise LoadError(f"invalid toolgate component: {e}") from None
    if config is not None:
        policy._default = policy.engine(config)
    return policy


def _path(value: Union[str, Path, None]) -> Optional[Path]:
    return None if value is None else Path(value)


class Policy:
    """The toolgate policy, loaded and ready (see `load_policy`)."""

    def __init__(self, compiled: Compiled, work_limit: Optional[float] = DEFAULT_WORK_LIMIT, max_memory: Optional[int] = None):
        self._runtime = Runtime(compiled, work_limit, max_memory)
        self._configs: Dict[int, str] = {}
        #: The flows' creation arguments, by id: a flow is made again in a fresh instance.
        self._flows: Dict[int, Tuple[str, str, Optional[bytes], Optional[bytes]]] = {}
        self._next = 0
        self._default: Optional[Engine] = None
        #: Where the compiled component came from: `cache:PATH`, `compiled-and-cached:PATH` or `compiled`.
        self.loaded_from = compiled.source

    # -- the engine resource ------------------------------------------------

    def engine(self, config: Json = "{}") -> "Engine":
        """A policy with this configuration (JSON or TOML text, or a dict).
        Raises `RejectedError` naming the offending field."""
        text = _json_text(config, "config")
        self._next += 1
        handle_id = self._next
        try:
            ok, value = self._runtime.call(lambda live: live.func(POLICY, "[static]engine.create")(live.store, text))
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None
        if not ok:
            raise RejectedError(value)
        self._runtime.live().engines[handle_id] = value
        self._configs[handle_id] = text
        return Engine(self, handle_id)

    def _handle(self, live: Instance, handle_id: int) -> Any:
        handle = live.engines.get(handle_id)
        if handle is None:
            # Accepted before, so a refusal now means the instance is broken.
            ok, handle = live.func(POLICY, "[static]engine.create")(live.store, self._configs[handle_id])
            if not ok:
                raise Fault("host error")
            live.engines[handle_id] = handle
        return handle

    def _call_engine(self, handle_id: int, method: str, *args: Any) -> Any:
        if handle_id not in self._configs:
            raise ToolgateError("this engine was closed")

        def run(live: Instance) -> Any:
            handle = self._handle(live, handle_id)
            return live.func(POLICY, f"[method]engine.{method}")(live.store, handle, *args)

        return self._runtime.call(run)

    def _close(self, handle_id: int) -> None:
        self._configs.pop(handle_id, None)
        live = self._runtime._live
        handle = live.engines.pop(handle_id, None) if live is not None else None
        if handle is not None:
            try:
                handle.drop(live.store)
            except Exception:
                # An instance that cannot drop a handle is discarded on its next fault.
                pass

    # -- the gate's flow resource -------------------------------------------

    def flow(self, config: Json = "{}", settings: Json = "{}", checkpoint_key: Any = None, audit_key: Any = None) -> "Flow":
        """The component's approval flow (`toolgate.flow.Flow`) for a policy
        configuration and the gate's settings (`identity`, `timeout_ms`,
        `tool_timeouts`, `shadow`, `audit`, `audit_required`), checkpoints
        signed with `checkpoint_key` and the audit chain keyed with
        `audit_key` (each at least 16 bytes; text is its UTF-8 bytes).
        Raises `RejectedError` with the component's message."""
        from .flow import Flow, key_bytes

        args = (_json_text(config, "config"), _json_text(settings, "settings"), key_bytes(checkpoint_key), key_bytes(audit_key))
        self._next += 1
        handle_id = self._next
        try:
            ok, value = self._runtime.call(lambda live: live.func(GATE, "[static]flow.create")(live.store, *args))
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None
        if not ok:
            raise RejectedError(value)
        self._runtime.live().flows[handle_id] = value
        self._flows[handle_id] = args
        return Flow(self, handle_id)

    def _call_flow(self, handle_id: int, method: str, *args: Any) -> Any:
        if handle_id not in self._flows:
            raise ToolgateError("this flow was closed")

        return self._runtime.call(lambda live: self._call_flow_in(live, handle_id, method, *args))

    def _drive_flow(self, handle_id: int, op: str, method: str = "drive") -> Any:
        """Starts an operation on a flow (`drive`, or `start`, which returns
        the first batch of effects too): the instance it lives in and the
        component's answer (a step error raises `StepError`)."""
        from .flow import step_error

        def run(live: Instance) -> Any:
            ok, value = self._call_flow_in(live, handle_id, method, op)
            if not ok:
                raise step_error(value)
            return live, value

        if handle_id not in self._flows:
            raise ToolgateError("this flow was closed")
        return self._runtime.call(run)

    def _call_flow_in(self, live: Instance, handle_id: int, method: str, *args: Any) -> Any:
        handle = live.flows.get(handle_id)
        if handle is None:
            ok, handle = live.func(GATE, "[static]flow.create")(live.store, *self._flows[handle_id])
            if not ok:
                raise Fault("host error")
            live.flows[handle_id] = handle
        return live.func(GATE, f"[method]flow.{method}")(live.store, handle, *args)

    def _close_flow(self, handle_id: int) -> None:
        self._flows.pop(handle_id, None)
        live = self._runtime._live
        handle = live.flows.pop(handle_id, None) if live is not None else None
        if handle is not None:
            try:
                handle.drop(live.store)
            except Exception:
                pass

    @property
    def records(self) -> "Records":
        """The component's records: checkpoints and audit lines (`toolgate.flow.Records`)."""
        from .flow import Records

        return Records(self)

    def _engine(self) -> "Engine":
        if self._default is None:
            self._default = self.engine("{}")
        return self._default

    def _free(self, name: str, *args: Any, interface: str = POLICY, bounded: bool = True) -> Any:
        try:
            return self._runtime.call(lambda live: live.func(interface, name)(live.store, *args), bounded=bounded)
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None

    # -- decisions ----------------------------------------------------------

    def assess(self, tool: str, args: Any = None) -> Decision:
        """Decides one call: `args` as JSON text exactly as the model sent it,
        or any value (serialised; None is `{}`). Never raises: unreadable
        arguments and faults are answered `confirm`."""
        if self._default is not None:
            return self._default.assess(tool, args)
        name, text = _name(tool), _args(args)
        try:
            return Decision._lift(self._runtime.call(lambda live: live.func(POLICY, "assess")(live.store, name, text)))
        except Fault as fault:
            return fault_decision(name, fault)

    def assess_in(self, tool: str, args: Any, context: Any) -> Decision:
        """`assess` in the caller's context (`{"permissions": [...]}`)."""
        return self._engine().assess(tool, args, context)

    def assess_call(self, call: Any) -> Decision:
        """Decides a tool call in any supported wire format (see `parse_call`)."""
        return self._engine().assess_call(call)

    def assess_many(self, calls: Iterable[Any]) -> List[Decision]:
        """Decides many `(tool, args)` pairs (or `{"tool", "args"}` dicts) in one crossing."""
        return self._engine().assess_many(calls)

    def check(self, text: Union[bytes, str]) -> List[CheckedLine]:
        """Decides every call of a JSON Lines input, as `toolgate check` does (see `Engine.check`)."""
        return self._engine().check(text)

    def check_line(self, number: int, line: Union[bytes, str]) -> Optional[CheckedLine]:
        """One line of a `check` input (see `Engine.check_line`)."""
        return self._engine().check_line(number, line)

    def augment(self, tools: Json, format: Optional[str] = None) -> Tuple[Json, List[str]]:
        """Adds `risk_level` to tool definitions (see `Engine.augment`)."""
        return self._engine().augment(tools, format)

    def hook(self, format: str, event: Union[bytes, str]) -> HookAnswer:
        """Answers a coding agent's before-tool hook event (see `Engine.hook`)."""
        return self._engine().hook(format, event)

    def discover(self, intent: str, category: Optional[str] = None, limit: int = 0) -> List[Candidate]:
        """The registry tools matching an intent (see `Engine.discover`)."""
        return self._engine().discover(intent, category, limit)

    def tool_prompt(self, tools: Sequence[str], language: str = "en") -> str:
        """The named tools as a numbered list for the model."""
        return self._engine().tool_prompt(tools, language)

    def build_request(self, tool: str, args: Any) -> ApiRequest:
        """The HTTP request for registry tool `tool` (see `Engine.build_request`)."""
        return self._engine().build_request(tool, args)

    def read_tool_response(self, tool: str, status: int, body: str) -> Tuple[bool, str]:
        """`read_response` with registry tool `tool`'s response template."""
        return self._engine().read_tool_response(tool, status, body)

    # -- the free functions -------------------------------------------------

    def parse_call(self, call: Any) -> ToolCall:
        """Reads a tool call in any supported wire format (OpenAI Chat
        Completions, OpenAI Responses, Anthropic, MCP, Gemini, AI SDK, or
        `{"tool", "args"}`). Raises `RejectedError` only when no tool name can
        be found; malformed arguments are kept for `assess`."""
        ok, value = self._free("parse-call", _args(call))
        if not ok:
            raise RejectedError(value)
        return ToolCall._lift(value)

    def hook_unconfigured(self, format: str, error: str) -> HookAnswer:
        """The hook answer when no engine could be made (a missing or refused
        configuration): the agent's "ask" with the error, exit 0. Raises
        `RejectedError` for an unknown format."""
        ok, value = self._free("hook-unconfigured", _text(str(format)), _text(str(error)))
        if not ok:
            raise RejectedError(value)
        return HookAnswer._lift(value)

    def strip_risk_level(self, args: Json) -> str:
        """The arguments a tool really receives: `risk_level` removed, nothing
        else changed. Raises `RejectedError` when `args` is not a JSON object."""
        ok, value = self._free("strip-risk-level", _json_text(args, "args"))
        if not ok:
            raise RejectedError(value)
        return value

    def guidance(self, language: str = "en") -> str:
        """The prompt text that tells the model how to rate its calls (`en` or `zh`)."""
        return self._free("guidance", _text(str(language)))

    def version(self) -> str:
        """The policy's version, which is also the version of its guidance text."""
        return self._free("version")

    def read_response(self, status: int, body: str) -> Tuple[bool, str]:
        """A registry API's response as a result for the model: `(True,
        result)` or `(False, error)`."""
        code = max(0, min(int(status), 65535))
        return self._free("read-response", code, _text(str(body)))

    def import_openapi(self, spec: Json, options: Optional[Dict[str, Any]] = None) -> Imported:
        """Registry entries and tool definitions from an OpenAPI 3 or Swagger 2
        document (JSON text or a dict; read YAML with a YAML parser first).
        `options`: `only`, `exclude` (tags or operation ids), `category`.
        Raises `RejectedError` for a document or options the import refuses."""
        text = self.import_openapi_json(_json_text(spec, "spec"), _json.dumps(options or {}))
        return Imported._from_json(json.loads(text))

    def import_openapi_json(self, spec: str, options: str = "{}") -> str:
        """`import_openapi` as the component's exact JSON text, for JSON text in."""
        ok, value = self._free("import-openapi", _text(spec), _text(options))
        if not ok:
            raise RejectedError(value)
        return value

    def layer_config(self, layers: Iterable[Union[Tuple[str, Json], Dict[str, Any]]]) -> Layered:
        """Merges configuration layers (`("managed" | "project" | "user",
        text)` pairs or `{"layer", "config"}` dicts) into the configuration a
        policy runs with, with a line per setting saying where it came from.
        Raises `RejectedError` naming the layer at fault."""
        items = []
        for layer in layers:
            rank, config = (layer["layer"], layer["config"]) if isinstance(layer, dict) else layer
            items.append({"layer": str(rank), "config": _json_text(config, "config")})
        text = self.layer_config_json(_json.dumps(items))
        return Layered._from_json(json.loads(text))

    def layer_config_json(self, layers: str) -> str:
        """`layer_config` as the component's exact JSON text, for JSON text in."""
        ok, value = self._free("layer-config", _text(layers))
        if not ok:
            raise RejectedError(value)
        return value

    def verify_audit(self, log: str, key: Union[bytes, str, None] = None) -> Tuple[int, str]:
        """Verifies a gate's hash-chained audit log (JSON Lines; with `key`, a
        keyed chain): `(records, head)`, or `AuditBrokenError` naming the
        first broken line."""
        if key is None:
            ok, value = self._free("verify-audit", _text(log), interface=RECORDS)
        else:
            raw = key.encode() if isinstance(key, str) else bytes(key)
            ok, value = self._free("verify-audit-keyed", _text(log), raw, interface=RECORDS)
        if not ok:
            raise AuditBrokenError(value.line, value.reason)
        return value.records, value.head

    def stats(self) -> Dict[str, int]:
        """Usage figures: live engines, calls into the component, faults recovered from."""
        return {"engines": len(self._configs), "crossings": self._runtime.crossings, "faults": self._runtime.faults}


class Engine:
    """A policy with one deployment's configuration (see `Policy.engine`).
    `close()` it (or use `with`) when done."""

    def __init__(self, policy: Policy, handle_id: int):
        self._policy = policy
        self._id = handle_id

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Frees the engine in the component."""
        self._policy._close(self._id)

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return self._policy._call_engine(self._id, method, *args)
        except Fault as fault:
            raise PolicyFaultError(fault.kind) from None

    def assess(self, tool: str, args: Any = None, context: Any = None) -> Decision:
        """Decides one call under this configuration, optionally in the
        caller's context (`{"permissions": [...]}`). Never raises for any
        arguments; `ToolgateError` only when the engine was closed."""
        name, text = _name(tool), _args(args)
        try:
            if context is None:
                value = self._policy._call_engine(self._id, "assess", name, text)
            else:
                value = self._policy._call_engine(self._id, "assess-in", name, text, _args(context))
        except Fault as fault:
            return fault_decision(name, fault)
        return Decision._lift(value)

    def assess_call(self, call: Any) -> Decision:
        """Decides a tool call in any supported wire format; one without a tool
        name is answered `confirm` with `call.invalid`. Never raises."""
        try:
            return Decision._lift(self._policy._call_engine(self._id, "assess-call", _args(call)))
        except Fault as fault:
            return fault_decision("(tool call)", fault)

    def assess_many(self, calls: Iterable[Any]) -> List[Decision]:
        """Decides many calls in one crossing: each `(tool, args)` or `{"tool",
        "args"}`; the decisions come back in order. Never raises."""
        pairs = []
        for call in calls:
            if isinstance(call, dict):
                pairs.append((_name(call.get("tool")), _args(call.get("args"))))
            else:
                pairs.append((_name(call[0]), _args(call[1] if len(call) > 1 else None)))
        try:
            found = self._policy._call_engine(self._id, "assess-many", pairs)
        except Fault as fault:
            return [fault_decision(tool, fault) for tool, _ in pairs]
        if len(found) != len(pairs):
            return [fault_decision(tool, Fault(f"{len(found)} decisions for {len(pairs)} calls")) for tool, _ in pairs]
        return [Decision._lift(d) for d in found]

    def check_line(self, number: int, line: Union[bytes, str]) -> Optional[CheckedLine]:
        """Reads, decides and formats line `number` (1-based) of a JSON Lines
        input, given as its bytes without the newline: None for a blank line,
        else the text to print and the action (None for a malformed line).
        The component decides what is blank or malformed, so every runtime
        prints the same. Never raises for any bytes: a fault is a `confirm`."""
        data = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else bytes(line)
        try:
            if len(data) >= LINE_LIMIT:
                # The component cannot take in more than its memory holds: taking
                # such a line in aborts it in every runtime, so it is answered as
                # that fault without building the copy first.
                raise Fault("the component aborted")
            value = self._policy._call_engine(self._id, "check-line", number, data)
        except Fault as fault:
            decision = fault_decision("(tool call)", fault)
            return CheckedLine(output=decision.to_json(), action=decision.action)
        return None if value is None else CheckedLine._lift(value)

    def check_line_in(self, number: int, line: Union[bytes, str], context: Any) -> Optional[CheckedLine]:
        """`check_line` in the caller's context (JSON text or a value, as
        `assess`): every call of the line is decided with the user's
        permissions, roles and resources; an unreadable context makes the
        line malformed. Never raises for any bytes: a fault is a `confirm`."""
        data = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else bytes(line)
        try:
            if len(data) >= LINE_LIMIT:
                raise Fault("the component aborted")
            value = self._policy._call_engine(self._id, "check-line-in", number, data, _args(context))
        except Fault as fault:
            decision = fault_decision("(tool call)", fault)
            return CheckedLine(output=decision.to_json(), action=decision.action)
        return None if value is None else CheckedLine._lift(value)

    def check(self, text: Union[bytes, str]) -> List[CheckedLine]:
        """Every non-blank line of a JSON Lines input (split at `\\n`), decided
        and formatted as `toolgate check` prints it."""
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text)
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        out = []
        for number, line in enumerate(lines, 1):
            checked = self.check_line(number, line)
            if checked is not None:
                out.append(checked)
        return out

    def augment(self, tools: Json, format: Optional[str] = None) -> Tuple[Json, List[str]]:
        """Adds the optional `risk_level` parameter to tool definitions (a list,
        or a request body with `tools`). `format` forces `openai-chat`,
        `openai-responses`, `anthropic`, `mcp` or `gemini`. Returns the
        definitions in the form they came in (text for text) and notes on
        tools left alone; raises `RejectedError` for input that is not such JSON."""
        result = self.augment_json(_json_text(tools, "tools"), format)
        return (result.tools if isinstance(tools, str) else json.loads(result.tools)), result.notes

    def augment_json(self, tools: str, format: Optional[str] = None) -> Augmented:
        """`augment` for JSON text: the component's `Augmented`."""
        ok, value = self._call("augment-tools", _text(tools), None if format is None else _text(format))
        if not ok:
            raise RejectedError(value)
        return Augmented._lift(value)

    def discover(self, intent: str, category: Optional[str] = None, limit: int = 0) -> List[Candidate]:
        """The enabled API and MCP tools matching a user's intent, best first,
        at most `limit` (0: all); `category` keeps one category."""
        bound = max(0, min(int(limit), 0xFFFFFFFF))
        found = self._call("discover", _text(str(intent)), None if category is None else _text(category), bound)
        return [Candidate._lift(c) for c in found]

    def tool_prompt(self, tools: Sequence[str], language: str = "en") -> str:
        """The named tools as a numbered list for the model, in `language` (`en` or `zh`)."""
        return self._call("tool-prompt", [_text(str(t)) for t in tools], _text(str(language)))

    def build_request(self, tool: str, args: Any) -> ApiRequest:
        """The HTTP request for calling registry tool `tool`, without base URL
        or credentials. Raises `RequestError` (every reason in `findings`)."""
        ok, value = self._call("build-request", _name(tool), _args(args))
        if not ok:
            raise RequestError([Finding._lift(f) for f in value])
        return ApiRequest._lift(value)

    def complete_args(self, tool: str, args: Any, context: Any = None, now_ms: Optional[int] = None) -> str:
        """Seed 002 §4.3's argument completion for registry tool `tool`, as
        JSON text: the model's argument names mapped by the tool's
        `argument_names`, parameters left out filled from the context's
        `defaults`, a `duration` (seconds) turned into `btime`/`etime` from
        `now_ms` (ms since the Unix epoch; the clock when None). Raises
        `RequestError` (every reason in `findings`) when they contradict."""
        now = int(time.time() * 1000) if now_ms is None else max(0, min(int(now_ms), 2**64 - 1))
        ok, value = self._call("complete-args", _name(tool), _args(args), "" if context is None else _args(context), now)
        if not ok:
            raise RequestError([Finding._lift(f) for f in value])
        return value

    def read_tool_response(self, tool: str, status: int, body: str) -> Tuple[bool, str]:
        """`Policy.read_response` through registry tool `tool`'s `response_template`."""
        code = max(0, min(int(status), 65535))
        return self._call("read-tool-response", _name(tool), code, _text(str(body)))

    def hook(self, format: str, event: Union[bytes, str]) -> HookAnswer:
        """Answers one coding agent's before-tool hook event of `format`
        (`claude-code`, `gemini-cli`), given as the bytes read from standard
        input. Raises `RejectedError` for an unknown format."""
        data = event.encode("utf-8", "surrogateescape") if isinstance(event, str) else bytes(event)
        ok, value = self._call("hook", _text(str(format)), data)
        if not ok:
            raise RejectedError(value)
        return HookAnswer._lift(value)


#: The size from which a `check` line cannot be taken into the component: its
#: linear memory is capped at 256 MiB (`MAX_MEMORY` in
#: `policy/component/build.rs`), and a copy of the line must fit in it.
LINE_LIMIT = 256 * 1024 * 1024
