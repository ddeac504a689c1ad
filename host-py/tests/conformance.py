"""The conformance runner for Python: the twin of `tests/conformance/runner.rs`
and `host-js/test/conformance-lib.js` — the same vector format, the same
checks, the same recorded line per case, written to
`target/conformance/python.jsonl` for the cross-runtime comparison."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from toolgate import Policy, RejectedError, RequestError
from toolgate._json import dumps, loads, quote


@dataclass
class Case:
    file: str
    name: str
    kind: str
    config: Optional[str]
    context: Optional[str]
    tool: str
    text: str
    format: Optional[str]
    expect: Dict[str, Any]
    raw: Dict[str, Any]


def text_of(value: Any) -> str:
    """A string as itself, anything else as compact JSON with numbers as written (serde_json's `to_string`)."""
    return value if isinstance(value, str) else dumps(value)


def cases(directory: Path) -> List[Case]:
    """Every case of every vector file, files in name order, lines in file order."""
    found: List[Case] = []
    for path in sorted(directory.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if line.strip() == "":
                continue
            try:
                v = loads(line)
            except ValueError as e:
                raise AssertionError(f"{path.name}:{number}: {e}") from None
            kind = v.get("kind", "assess")
            field = {"call": "call", "augment": "tools", "import": "spec"}.get(kind, "args")
            found.append(
                Case(
                    file=path.name,
                    name=v["name"],
                    kind=kind,
                    config=dumps(v["config"]) if "config" in v else None,
                    context=text_of(v["context"]) if "context" in v else None,
                    tool=v["tool"] if isinstance(v.get("tool"), str) else "",
                    text=text_of(v.get(field)),
                    format=v["format"] if isinstance(v.get("format"), str) else None,
                    expect=json.loads(dumps(v.get("expect", {}))),
                    raw=v,
                )
            )
    return found


class Runner:
    def __init__(self, policy: Policy):
        self.policy = policy
        self.engines: Dict[str, Any] = {}

    def engine(self, config: Optional[str]) -> Any:
        key = config if config is not None else "{}"
        if key not in self.engines:
            self.engines[key] = self.policy.engine(key)
        return self.engines[key]

    def line(self, c: Case) -> str:
        """The recorded line of one case, exactly as the Rust runner writes it."""
        if c.kind == "call":
            try:
                call, error = self.policy.parse_call(c.text).to_json(), "null"
            except RejectedError as e:
                call, error = "null", quote(str(e))
            decision = self.engine(c.config).assess_call(c.text).to_json()
            return f'{{"call":{call},"error":{error},"decision":{decision}}}'
        if c.kind == "augment":
            try:
                a = self.engine(c.config).augment_json(c.text, c.format)
            except RejectedError as e:
                return f'{{"error":{quote(str(e))}}}'
            return f'{{"tools":{quote(a.tools)},"notes":{dumps(a.notes)}}}'
        if c.kind == "discover":
            raw = c.raw
            engine = self.engine(c.config)
            intent = raw["intent"] if isinstance(raw.get("intent"), str) else ""
            category = raw["category"] if isinstance(raw.get("category"), str) else None
            limit = int(raw["limit"]) if "limit" in raw and str(raw["limit"]).isdigit() else 0
            found = engine.discover(intent, category, limit)
            candidates = ",".join(f.to_json() for f in found)
            language = raw.get("language")
            prompt = quote(engine.tool_prompt([f.name for f in found], language)) if isinstance(language, str) else "null"
            return f'{{"candidates":[{candidates}],"prompt":{prompt}}}'
        if c.kind == "request":
            try:
                r = self.engine(c.config).build_request(c.tool, c.text)
            except RequestError as e:
                return f'{{"error":{dumps(e.findings)}}}'
            return f'{{"request":{r.to_json()}}}'
        if c.kind == "response":
            status = int(c.raw["status"]) & 0xFFFF
            body = c.raw["body"]
            if c.tool:
                ok, text = self.engine(c.config).read_tool_response(c.tool, status, body)
            else:
                ok, text = self.policy.read_response(status, body)
            return f'{{"ok":{quote(text)}}}' if ok else f'{{"error":{quote(text)}}}'
        if c.kind == "import":
            options = dumps(c.raw["options"]) if "options" in c.raw else "{}"
            try:
                return f'{{"output":{self.policy.import_openapi_json(c.text, options)}}}'
            except RejectedError as e:
                return f'{{"error":{quote(str(e))}}}'
        if c.config is None and c.context is None:
            return self.policy.assess(c.tool, c.text).to_json()
        engine = self.engine(c.config)
        return (engine.assess(c.tool, c.text) if c.context is None else engine.assess(c.tool, c.text, c.context)).to_json()


def check_decision(c: Case, got: Dict[str, Any], failures: List[str]) -> None:
    label = f"{c.file} / {c.name}"
    want = c.expect
    if "action" not in want:
        failures.append(f"{label}: no expected action")
    for key in ("action", "risk", "source"):
        if key in want and got[key] != want[key]:
            failures.append(f"{label}: {key} is {got[key]}, expected {want[key]}")
    codes = [f["code"] for f in got["findings"]]
    if "findings" in want and codes != want["findings"]:
        failures.append(f"{label}: findings {codes}, expected {want['findings']}")
    for code in (want.get("includes") or []):
        if code not in codes:
            failures.append(f"{label}: findings {codes} lack {code}")
    if got["summary"] == "" or "\n" in got["summary"]:
        failures.append(f"{label}: summary {got['summary']!r} is not one line")


def check_error(c: Case, got: Dict[str, Any], failures: List[str]) -> None:
    if "error" in c.expect:
        message = got.get("error") if isinstance(got.get("error"), str) else ""
        if c.expect["error"] not in message:
            failures.append(f"{c.file} / {c.name}: error {got.get('error')!r}, expected one containing {c.expect['error']}")


def check(c: Case, got: Dict[str, Any], failures: List[str]) -> None:
    """The expectations of one case (the Rust runner's checks, kind by kind)."""
    label = f"{c.file} / {c.name}"
    want = c.expect
    if c.kind == "call":
        check_error(c, got, failures)
        for key, value in (want.get("call") or {}).items():
            seen = (got.get("call") or {}).get(key)
            if seen != value:
                failures.append(f"{label}: call.{key} is {seen!r}, expected {value!r}")
        check_decision(c, got["decision"], failures)
    elif c.kind == "augment":
        if "error" in want:
            check_error(c, got, failures)
        elif not isinstance(got.get("tools"), str):
            failures.append(f"{label}: failed with {got.get('error')}")
        else:
            if "output" in want and json.loads(got["tools"]) != want["output"]:
                failures.append(f"{label}: output {got['tools']}, expected {want['output']}")
            if "notes" in want and got["notes"] != want["notes"]:
                failures.append(f"{label}: notes {got['notes']}, expected {want['notes']}")
    elif c.kind == "discover":
        names = [x["name"] for x in got["candidates"]]
        if "names" in want and names != want["names"]:
            failures.append(f"{label}: candidates {names}, expected {want['names']}")
        if "matched" in want:
            first = got["candidates"][0]["matched"] if got["candidates"] else None
            if first != want["matched"]:
                failures.append(f"{label}: matched {first}, expected {want['matched']}")
        if "prompt" in want and got["prompt"] != want["prompt"]:
            failures.append(f"{label}: prompt {got['prompt']!r}")
        for part in (want.get("prompt_includes") or []):
            if part not in str(got["prompt"] or ""):
                failures.append(f"{label}: prompt lacks {part}")
    elif c.kind == "request":
        if "errors" in want:
            codes = [f["code"] for f in got.get("error") or []]
            if codes != want["errors"]:
                failures.append(f"{label}: errors {codes}, expected {want['errors']} (got {got})")
        for key, value in (want.get("request") or {}).items():
            seen = (got.get("request") or {}).get(key)
            if seen != value:
                failures.append(f"{label}: request.{key} is {seen!r}, expected {value!r}")
    elif c.kind == "response":
        for key in ("ok", "error"):
            if key in want and got.get(key) != want[key]:
                failures.append(f"{label}: {key} is {got.get(key)!r}, expected {want[key]!r} (got {got})")
    elif c.kind == "import":
        if "output" in want and got.get("output") != want["output"]:
            failures.append(f"{label}: output is {got.get('output')}, expected {want['output']}")
        if "summary" in want and (got.get("output") or {}).get("summary") != want["summary"]:
            failures.append(f"{label}: summary is {(got.get('output') or {}).get('summary')}, expected {want['summary']}")
        if "error" in want and not (isinstance(got.get("error"), str) and want["error"] in got["error"]):
            failures.append(f"{label}: error is {got.get('error')!r}, expected one containing {want['error']!r}")
    else:
        check_decision(c, got, failures)


def run(policy: Policy, directory: Path) -> Tuple[List[str], List[str]]:
    """Runs every case: the recorded lines, in order, and every failed expectation."""
    runner = Runner(policy)
    lines: List[str] = []
    failures: List[str] = []
    for c in cases(directory):
        line = runner.line(c)
        lines.append(line)
        check(c, json.loads(line), failures)
    return lines, failures
