"""The gate-vector runner for Python: the twin of `tests/gate/runner.rs` and
`host-js/test/gate-lib.js` — the same script semantics, the same output text
per step, written to `target/conformance/gate-python.txt` for the
cross-runtime comparison.

- a flow is created at its first use (`create` makes it explicitly and
  outputs `{"ok":true}` or the error);
- `settle` and `open` take the checkpoint of the last `ask` step unless they
  name one; `tamper: [from, to]` replaces the first `from` in it; `finish` the
  ticket of the last `run` step unless it names one;
- a `run` step's `grant` is held, as a host keeps it: a `begin` with
  `"granted": true` passes every held grant with its call (each tampered with
  as `grant_tamper: [from, to]` says); `revoke` takes the last held grant (or
  the step's `grant`), outputs `{"line":L}` and drops it; `open_grant` opens
  the last held grant;
- `previous` is the last audit line any step produced (or the step's own
  `previous`), so a script's lines form one chain;
- a step's output is the component's text, or for an error
  `{"error":"checkpoint","kind":K,"detail":D}` / `{"error":"invalid","detail":D}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from toolgate import RejectedError
from toolgate._json import RawNumber, dumps, loads
from toolgate.flow import StepError


def text(v: Any) -> Optional[str]:
    """A field as text: strings as they are, other JSON values as JSON, None as None."""
    if v is None:
        return None
    return v if isinstance(v, str) and not isinstance(v, RawNumber) else dumps(v)


def string(v: Any, otherwise: str) -> str:
    return v if isinstance(v, str) and not isinstance(v, RawNumber) else otherwise


def u64(v: Any) -> int:
    if isinstance(v, RawNumber):
        try:
            n = int(v)
        except ValueError:
            return 0
        return n if 0 <= n <= 2**53 - 1 else 0
    return 0


def replace_first(text_: str, pair: Any) -> str:
    if not isinstance(pair, list) or len(pair) < 2:
        return text_
    old, new = pair[0], pair[1]
    if not isinstance(old, str) or not isinstance(new, str) or isinstance(old, RawNumber) or isinstance(new, RawNumber):
        return text_
    return text_.replace(old, new, 1)


def error_text(e: StepError) -> str:
    if e.kind == "invalid":
        return dumps({"error": "invalid", "detail": e.detail})
    cp = e.checkpoint
    return dumps({"error": "checkpoint", "kind": cp.kind, "detail": cp.detail})


def run_script(policy: Any, script: Dict[str, Any]) -> List[str]:
    """Runs one script; returns the outputs of its steps, one text each."""
    specs = script.get("flows") or {}
    flows: Dict[str, Dict[str, Any]] = {}
    checkpoint: Optional[str] = None
    ticket: Optional[str] = None
    previous: Optional[str] = None
    held: List[str] = []
    outputs: List[str] = []
    try:
        for step in script.get("steps") or []:
            name = string(step.get("flow"), "a")
            if name not in flows:
                spec = specs.get(name) or {}
                try:
                    flows[name] = {
                        "ok": policy.flow(
                            text(spec.get("config")) or "{}",
                            text(spec.get("settings")) or "{}",
                            text(spec.get("checkpoint_key")),
                            text(spec.get("audit_key")),
                        )
                    }
                except RejectedError as e:
                    flows[name] = {"error": str(e)}
            flow = flows[name]
            prev = text(step.get("previous")) if "previous" in step else previous
            now = u64(step.get("now"))
            doing = string(step.get("do"), "")
            if "error" in flow:
                out = dumps({"error": "create", "detail": flow["error"]})
            elif doing == "create":
                out = '{"ok":true}'
            else:
                f = flow["ok"]
                try:
                    if doing == "begin":
                        call = text(step.get("call")) or ""
                        if step.get("granted") is True:
                            value = loads(call)
                            value["grants"] = [replace_first(g, step.get("grant_tamper")) for g in held]
                            call = dumps(value)
                        out = f.begin(call, string(step.get("id"), ""), now, prev)
                    elif doing == "open_grant":
                        out = f.open_grant(text(step.get("grant")) or (held[-1] if held else ""), now)
                    elif doing == "revoke":
                        grant = text(step.get("grant"))
                        if grant is None:
                            grant = held.pop() if held else ""
                        out = dumps({"line": f.revoke(grant, now, prev)})
                    elif doing == "open":
                        out = f.open(replace_first(text(step.get("checkpoint")) or checkpoint or "", step.get("tamper")))
                    elif doing == "settle":
                        cp = replace_first(text(step.get("checkpoint")) or checkpoint or "", step.get("tamper"))
                        out = f.settle(cp, text(step.get("answer")) or "", now, prev)
                    elif doing == "finish":
                        out = f.finish(text(step.get("ticket")) or ticket or "", text(step.get("ran")) or "", now, prev)
                    elif doing == "gap":
                        out = dumps({"line": f.gap(string(step.get("what"), ""), now, prev)})
                    else:
                        raise ValueError(f"unknown step `{doing}`")
                except StepError as e:
                    out = error_text(e)
            # What the next steps take from this one.
            try:
                value = loads(out)
            except ValueError:
                value = None
            if isinstance(value, dict):
                if value.get("step") == "ask":
                    checkpoint = text(value.get("checkpoint"))
                elif value.get("step") == "run":
                    ticket = text(value.get("ticket"))
                    grant = value.get("grant")
                    sealed = text(grant.get("sealed")) if isinstance(grant, dict) else None
                    if sealed is not None:
                        held.append(sealed)
                line = text(value.get("audit"))
                if line is None:
                    line = text(value.get("line"))
                if line is not None:
                    previous = line
            outputs.append(out)
    finally:
        for f in flows.values():
            if "ok" in f:
                f["ok"].close()
    return outputs


def run_gate_vectors(policy: Any, directory: Path) -> Tuple[int, List[str], List[Dict[str, Any]]]:
    """Runs every script of `directory/*.jsonl` in name order: the case
    count, every step's output in order, and the cases whose outputs differ
    from their `expect`."""
    lines: List[str] = []
    failures: List[Dict[str, Any]] = []
    count = 0
    for path in sorted(directory.glob("*.jsonl")):
        names = set()
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip() == "":
                continue
            script = loads(line)
            if script["name"] in names:
                raise ValueError(f"{path.name}: two cases named `{script['name']}`")
            names.add(script["name"])
            count += 1
            outputs = run_script(policy, script)
            lines.extend(outputs)
            expected = [dumps(v) for v in script.get("expect") or []]
            if expected != outputs:
                failures.append({"file": path.name, "name": script["name"], "expected": expected, "got": outputs})
    return count, lines, failures
