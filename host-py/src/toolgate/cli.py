"""`python -m toolgate`: the same help, usage errors, output and exit codes as
the Rust CLI, byte for byte.

The commands, options, help, usage errors and exit codes are declared once, in
`shapes/cli.json` (carried here as `_grammar.py`, generated from it); this
module parses the arguments and lays out the help from that declaration by the
rules of `host-rs/src/cli/args.rs` (docs/cli.md sums them up). `check`'s lines
are read and formatted by the component, and `hook`'s answers made by it.
`host-py/tests/test_cli.py` runs this CLI and the Rust one over a table of
argument lists and inputs and compares every byte.

A command the grammar declares for other hosts only is refused: those of the
approval gate's stores (`grants list|revoke`) with one message, as the Python
host has no gate yet; the rest (`approvals list`, `mcp-proxy`, `mcp pins`,
`exec`) as the Rust CLI's own.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from . import _json
from ._grammar import GRAMMAR
from .errors import AuditBrokenError, PolicyFaultError, RejectedError, RequestError, ToolgateError
from .shapes import Decision

if TYPE_CHECKING:
    from .policy import Engine, Policy

_EXITS = {e["name"]: e["code"] for e in GRAMMAR["exits"]}
OK, ERROR, USAGE, MALFORMED, BROKEN, CONFIRM, DENY = (
    _EXITS["OK"], _EXITS["ERROR"], _EXITS["USAGE"], _EXITS["MALFORMED"], _EXITS["BROKEN"], _EXITS["CONFIRM"], _EXITS["DENY"]
)


class UsageError(Exception):
    pass


#: How a command of the Rust CLI only is refused.
RUST_ONLY_WORDS = "is in the Rust CLI only"


def printable(text: str) -> str:
    """`text` with control characters written as `\\u{…}`, for a terminal."""
    return "".join(f"\\u{{{ord(c):x}}}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in text)


def fill(template: str, **holes: str) -> str:
    """`template` with each `{name}` replaced by its value, in one pass."""
    return re.sub(r"\{(\w+)\}", lambda m: holes.get(m.group(1), m.group(0)), template)


def _usage(template: str, **holes: str) -> UsageError:
    return UsageError(fill(GRAMMAR["errors"][template], **holes))


def _bad_argument(arg: str) -> bool:
    # Bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape).
    return "\ufffd" in arg or any(0xD800 <= ord(c) <= 0xDFFF for c in arg)


def _display(option: Dict[str, Any]) -> str:
    """How an option is shown in a synopsis and in messages: `--config FILE`."""
    return option["name"] if "value" not in option else f"{option['name']} {option['value']}"


def _wrap(words: Sequence[str], first: str, indent: str, width: int) -> str:
    """Words laid out after `first`, each line at most `width` characters, continued after `indent`."""
    lines = []
    line = first
    fresh = True
    for word in words:
        if not fresh and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = indent + word
        else:
            line += ("" if fresh else " ") + word
        fresh = False
    lines.append(line)
    return "".join(f"{l}\n" for l in lines)


def _synopsis(command: Dict[str, Any]) -> List[str]:
    """A command's synopsis, as groups that stay on one line (see args.rs)."""
    options = command.get("options", [])
    one_of = command.get("one_of", [])
    groups: List[str] = []
    for option in options:
        if "requires" in option and any(o["name"] == option["requires"] for o in options):
            continue
        group = next((g for g in one_of if option["name"] in g), None)
        if group is not None:
            if group[0] == option["name"]:
                shown = [_display(o) for name in group for o in options if o["name"] == name]
                groups.append("(" + " | ".join(shown) + ")")
            continue
        inner = _display(option)
        for dependent in options:
            if dependent.get("requires") == option["name"]:
                inner += f" [{_display(dependent)}]"
        groups.append(inner if option.get("required") else f"[{inner}]")
    if command.get("dashes"):
        groups.append("--")
    groups += command.get("operands", [])
    groups += [f"[{o}]" for o in command.get("optional", [])]
    return groups


def help_text() -> str:
    """The help text, laid out from the grammar."""
    g = GRAMMAR
    width = g["width"]
    out = f"{g['about']}\n\n{g['usage']}\n\nCommands:\n"
    for command in g["commands"]:
        out += _wrap([command["name"]] + _synopsis(command), "  ", " " * 12, width)
        text = command["help"]
        hosts = command.get("hosts")
        if hosts is not None and len(hosts) == 1 and hosts[0] in g["hosts"]:
            text += f" ({g['hosts'][hosts[0]]} only)"
        out += _wrap(text.split(" "), " " * 10, " " * 10, width)
    out += "\nOptions:\n"
    for option in g["options"]:
        left = _display(option) if "short" not in option else f"{option['short']}, {_display(option)}"
        out += _wrap(option.get("help", "").split(" "), f"  {left:<18}", " " * 20, width)
    out += "\n" + "".join(f"{line}\n" for line in g["notes"]) + "\nExit codes:\n"
    for e in g["exits"]:
        out += f"  {str(e['code']):<4}{e['help']}\n"
    return out


class Options:
    def __init__(self) -> None:
        self.help = False
        self.version = False
        self.component: Optional[str] = None
        self.no_cache = False
        self.command = ""
        self.spec: Dict[str, Any] = {}
        self.operands: List[str] = []
        self.given: Dict[str, Optional[str]] = {}

    def get(self, name: str) -> Optional[str]:
        return self.given.get(name)


def parse_args(argv: Sequence[str]) -> Options:
    """Reads the arguments after the program's name (the rules are args.rs's)."""
    for index, arg in enumerate(argv):
        if _bad_argument(arg):
            raise _usage("not_utf8", index=str(index + 1))
    glob = GRAMMAR["options"]
    known: Dict[str, Dict[str, Any]] = {}
    for option in glob + [o for c in GRAMMAR["commands"] for o in c.get("options", [])]:
        if "action" not in option:
            known.setdefault(option["name"], option)
    opts = Options()
    given = opts.given
    positional: List[str] = []
    ended = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if ended or arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        if arg == "--":
            ended = True
            continue
        action = next((o for o in glob if "action" in o and arg in (o["name"], o.get("short"))), None)
        if action is not None:
            if action["action"] == "help":
                opts.help = True
                return opts
            if opts.version:
                raise _usage("given_twice", name=action["name"])
            opts.version = True
            continue
        name, inline = arg, None
        if arg.startswith("--") and "=" in arg:
            name, inline = arg.split("=", 1)
        if name not in known:
            raise _usage("unknown_option", name=printable(name))
        value: Optional[str] = None
        if "value" in known[name]:
            if inline is not None:
                value = inline
            elif i < len(argv):
                value = argv[i]
                i += 1
            if not value:
                raise _usage("needs_value", name=name)
        elif inline is not None:
            raise _usage("takes_no_value", name=name)
        if name in given:
            raise _usage("given_twice", name=name)
        given[name] = value
    opts.component = given.get("--component")
    opts.no_cache = "--no-cache" in given
    if opts.version:
        return opts
    spec, words = _command(positional)
    options = spec.get("options", [])
    own = {o["name"]: o for o in options}
    for name in given:
        if not any(o["name"] == name for o in glob) and name not in own:
            raise _usage("not_applicable", name=name, command=spec["name"])
    operands = positional[words:]
    required = spec.get("operands", [])
    if len(operands) < len(required):
        raise _usage("needs", subject=spec["name"], what=required[len(operands)])
    most = len(required) + len(spec.get("optional", []))
    if not spec.get("variadic") and len(operands) > most:
        raise _usage("unexpected", argument=printable(operands[most]))
    for option in options:
        if option.get("required") and option["name"] not in given:
            raise _usage("needs", subject=spec["name"], what=_display(option))
    for group in spec.get("one_of", []):
        choices = " or ".join(_display(own[name]) for name in group if name in own)
        count = sum(1 for name in group if name in given)
        if count > 1:
            raise _usage("not_both", subject=spec["name"], choices=choices)
        if count == 0:
            raise _usage("needs", subject=spec["name"], what=choices)
    for option in options:
        needed = own.get(option.get("requires", ""))
        if needed is not None and option["name"] in given and needed["name"] not in given:
            raise _usage("needs", subject=option["name"], what=_display(needed))
    opts.command = spec["name"]
    opts.spec = spec
    opts.operands = operands
    return opts


def _command(positional: List[str]) -> Tuple[Dict[str, Any], int]:
    """The command the first positional words name, and how many words it took:
    a parent word (`config`, `mcp pins`) needs one of its subcommands."""
    commands = GRAMMAR["commands"]
    parent = ""
    for index, word in enumerate(positional):
        candidate = word if not parent else f"{parent} {word}"
        # A word is one word: 'config check' as one argument names nothing.
        if " " not in word:
            found = next((c for c in commands if c["name"] == candidate), None)
            if found is not None:
                return found, index + 1
            if any(c["name"].startswith(candidate + " ") for c in commands):
                parent = candidate
                continue
        raise _usage("unknown_command", command=printable(word) if not parent else f"{parent} {printable(word)}")
    if not parent:
        raise _usage("no_command")
    subs: List[str] = []
    for c in commands:
        if c["name"].startswith(parent + " "):
            sub = c["name"][len(parent) + 1 :].split(" ")[0]
            if sub not in subs:
                subs.append(sub)
    raise _usage("needs_subcommand", command=parent, choices=" or ".join(subs))


def io_reason(e: OSError) -> str:
    """Why a file could not be read, in the words the Rust CLI uses."""
    return {
        errno.ENOENT: "no such file or directory",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EISDIR: "is a directory",
        errno.ENOTDIR: "not a directory",
    }.get(e.errno or 0, "read error")


def read_bytes(path: Optional[str]) -> bytes:
    if path is None or path == "-":
        try:
            return sys.stdin.buffer.read()
        except OSError as e:
            raise ToolgateError(f"cannot read standard input: {io_reason(e)}") from None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ToolgateError(f"cannot read {path}: {io_reason(e)}") from None


def read_text(path: Optional[str]) -> str:
    """A whole input as text; input that is not UTF-8 is an error, never guessed at."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        what = "standard input" if path is None or path == "-" else path
        raise ToolgateError(f"cannot read {what}: not valid UTF-8") from None


def read_key(path: str) -> bytes:
    """A key file's bytes (one trailing newline ignored); a short key is an error."""
    key = read_bytes(path)
    if key.endswith(b"\r\n"):
        key = key[:-2]
    elif key.endswith(b"\n"):
        key = key[:-1]
    if len(key) < 16:
        raise ToolgateError(
            f"the key file {path} holds {len(key)} bytes; a key has at least 16 "
            "(make one with `head -c 32 /dev/urandom > key`)"
        )
    return key


def byte_lines(data: bytes) -> List[bytes]:
    """Splits bytes at '\\n'; a final newline ends the last line, it does not start another."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


#: The largest `--now` every CLI takes exactly (2^53 - 1: a JavaScript number's whole numbers).
MAX_NOW_MS = 2**53 - 1

_HIDDEN = re.compile("[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_line(text: str) -> str:
    """JSON text with DEL, the C1 controls, the line and paragraph separators
    and the bidirectional marks written as `\\uXXXX` escapes: the twin of the
    Rust host's `toolgate_shapes::jsonl::escape_controls`."""
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def whole_number(text: str, option: str, maximum: int) -> int:
    """An option's value as a whole number from 0 to `maximum`: ASCII digits only, worded as in the Rust CLI."""
    if re.fullmatch(r"[0-9]+", text) is None or int(text) > maximum:
        raise ToolgateError(f"{option} {printable(text)}: give a whole number from 0 to {maximum}")
    return int(text)


def id_json(text: str) -> str:
    """An id given on the command line as JSON: a whole number written as one, anything else a string."""
    return text if re.fullmatch(r"0|[1-9][0-9]*", text) else _json.quote(text)


def context_error(engine: "Engine", context: str) -> Optional[str]:
    """Why the component cannot read a context, in its own words; None when it can."""
    found = [f for f in engine.assess("", "{}", context).findings if f.code == "context.invalid"]
    return found[0].message if found else None


def context_text(engine: "Engine", opts: "Options") -> Optional[str]:
    """The caller's context the command line gives, as the component reads it
    (None when it gives none): the flags as one context, and with `--context
    FILE` the list `[FILE, flags]`, which the component merges; the file's
    text goes as written (see `context_text` in the Rust CLI)."""

    def strings(name: str) -> str:
        return "[" + ",".join(_json.quote(item) for item in _list(opts.get(name))) + "]"

    fields = []
    if opts.get("--permissions") is not None:
        fields.append(f'"permissions":{strings("--permissions")}')
    if opts.get("--roles") is not None:
        fields.append(f'"roles":{strings("--roles")}')
    if opts.get("--groups") is not None:
        fields.append('"resources":{"group_id":[' + ",".join(id_json(g) for g in _list(opts.get("--groups"))) + "]}")
    if opts.get("--default-group") is not None:
        fields.append('"defaults":{"group_id":' + id_json(opts.get("--default-group") or "") + "}")
    flags = "{" + ",".join(fields) + "}" if fields else None
    path = opts.get("--context")
    file = None
    if path is not None:
        text = read_text(path)
        error = context_error(engine, text)
        if error is not None:
            raise ToolgateError(f"context {path}: {error}")
        if re.fullmatch(r"[ \t\r\n]*", text) is None:
            file = text
    if file is None and flags is None:
        return None
    if flags is None:
        return file
    what, whole = ("context", flags) if file is None else (f"context {path}", f"[{file},{flags}]")
    error = context_error(engine, whole)
    if error is not None:
        raise ToolgateError(f"{what}: {error}")
    return whole


def findings_text(findings: Sequence[Any]) -> str:
    """Reasons as `code: message`, joined by `; `."""
    return "; ".join(f"{f.code}: {f.message}" for f in findings)


def render(d: Decision) -> str:
    """The human-readable form of a decision (identical in the Rust CLI)."""
    text = f"{d.action} · risk {d.risk} · source {d.source}"
    if d.llm_risk is not None:
        text += f" · model said {d.llm_risk}"
    text += f"\n{d.summary}\n"
    for f in d.findings:
        text += f"  {f.code:<24} {f.message}\n"
    return text


def exit_for(actions: Sequence[Optional[str]]) -> int:
    if "deny" in actions:
        return DENY
    if "confirm" in actions:
        return CONFIRM
    return OK


def out(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))


def err(text: str) -> None:
    sys.stderr.buffer.write(text.encode("utf-8"))
    sys.stderr.flush()


def engine_for(policy: "Policy", config_path: Optional[str]) -> "Engine":
    text = "{}" if config_path is None else read_text(config_path)
    try:
        return policy.engine(text)
    except ToolgateError as e:
        what = "default configuration" if config_path is None else f"configuration {config_path}"
        raise ToolgateError(f"{what}: {e}") from None


def check(engine: "Engine", context: Optional[str], path: Optional[str]) -> int:
    """Decides every call of a JSON Lines input, in the caller's context when
    one is given; one crossing a line."""
    lines = byte_lines(read_bytes(path or "-"))
    counts = {"allow": 0, "confirm": 0, "deny": 0}
    actions: List[str] = []
    malformed = 0
    written: List[str] = []
    for number, line in enumerate(lines, 1):
        checked = engine.check_line(number, line) if context is None else engine.check_line_in(number, line, context)
        if checked is None:
            continue
        written.append(checked.output + "\n")
        if checked.action is None:
            malformed += 1
            continue
        counts[checked.action] += 1
        actions.append(checked.action)
    out("".join(written))
    sys.stdout.flush()
    total = counts["allow"] + counts["confirm"] + counts["deny"]
    err(
        f"toolgate: {total} calls: {counts['allow']} allow, {counts['confirm']} confirm, "
        f"{counts['deny']} deny; {malformed} malformed lines\n"
    )
    return MALFORMED if malformed else exit_for(actions)


def hook(policy: "Policy", config_path: Optional[str], format: str) -> int:
    """Answers one hook event from standard input, always in the agent's
    shape: when no engine can be made (a missing or refused configuration)
    or the policy faults, the component's `hook-unconfigured` answers "ask"
    with the error, exit 0, so the agent asks a person instead of blocking
    every tool (exit 2) or running it on its own permissions. Only an unknown
    format is a usage error."""
    try:
        failed: Optional[str] = None
        event = b""
        try:
            event = read_bytes("-")
        except ToolgateError as e:
            failed = error_text(e)
        engine = None
        if failed is None:
            try:
                engine = engine_for(policy, config_path)
            except ToolgateError as e:
                failed = error_text(e)
        answer = None
        if engine is not None:
            try:
                answer = engine.hook(format, event)
            except RejectedError:
                raise
            except ToolgateError as e:
                failed = error_text(e)
        if failed is not None:
            answer = policy.hook_unconfigured(format, failed)
    except RejectedError as e:
        err(fill(GRAMMAR["errors"]["report"], message=str(e)))
        return USAGE
    except ToolgateError as e:
        err(f"toolgate: error: {error_text(e)}\n")
        return USAGE
    assert answer is not None
    if answer.error is not None:
        err(f"{answer.error}\n")
    try:
        out(f"{answer.output}\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # A closed pipe leaves the agent without an answer; there is no one left to tell.
        pass
    return answer.exit


def spec_json(text: str) -> str:
    """An OpenAPI document's JSON text. This CLI reads JSON only: YAML needs a
    YAML reader, and the Rust and JavaScript CLIs' readers are YAML 1.2."""
    try:
        _json.loads(text)
        return text
    except ValueError:
        raise ToolgateError("the Python CLI reads OpenAPI documents as JSON; convert YAML to JSON first") from None


def pretty_json(text: str) -> str:
    """Compact JSON text laid out with two-space indents, as the Rust CLI prints
    (`{}` and `[]` stay closed), copying every string and number as written."""
    parts: List[str] = []
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            parts.append(text[i : j + 1])
            i = j
        elif c in "{[":
            close = "}" if c == "{" else "]"
            if i + 1 < n and text[i + 1] == close:
                parts.append(c + close)
                i += 1
            else:
                depth += 1
                parts.append(c + "\n" + "  " * depth)
        elif c in "}]":
            depth -= 1
            parts.append("\n" + "  " * depth + c)
        elif c == ",":
            parts.append(",\n" + "  " * depth)
        elif c == ":":
            parts.append(": ")
        else:
            parts.append(c)
        i += 1
    return "".join(parts)


def _list(value: Optional[str]) -> List[str]:
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def line_hash(line: str) -> Optional[str]:
    try:
        value = _json.loads(line)
    except ValueError:
        return None
    found = value.get("hash") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def run(argv: Sequence[str]) -> int:
    try:
        opts = parse_args(argv)
    except UsageError as e:
        err(fill(GRAMMAR["errors"]["report"], message=str(e)))
        return USAGE
    if opts.help:
        out(help_text())
        return OK
    # Loaded only now: help and usage errors need no wasmtime.
    from .policy import load_policy

    policy = load_policy(component=opts.component, cache=not opts.no_cache)
    if opts.version:
        out(f"toolgate {policy.version()}\n")
        return OK
    command = opts.command
    hosts = opts.spec.get("hosts")
    if hosts is not None and "python" not in hosts:
        raise ToolgateError(f"'{command}' {RUST_ONLY_WORDS}")
    operands = opts.operands
    if command == "assess":
        engine = engine_for(policy, opts.get("--config"))
        context = context_text(engine, opts)
        tool = operands[0]
        args = operands[1] if len(operands) > 1 else "{}"
        if args == "-":
            args = read_text("-")
        decision = engine.assess(tool, args, context)
        if any(f.code == "args.invalid" for f in decision.findings):
            err(
                "toolgate: note: ARGS_JSON is not a JSON object; the policy answers confirm, "
                "as it would for a model's malformed arguments\n"
            )
        out(decision.to_json() + "\n" if "--json" in opts.given else render(decision))
        return exit_for([decision.action])
    if command == "check":
        engine = engine_for(policy, opts.get("--config"))
        return check(engine, context_text(engine, opts), operands[0] if operands else None)
    if command == "discover":
        limit = 0 if opts.get("--limit") is None else whole_number(opts.get("--limit") or "", "--limit", 0xFFFFFFFF)
        engine = engine_for(policy, opts.get("--config"))
        found = engine.discover(operands[0], opts.get("--category"), limit)
        out("".join(json_line(c.to_json()) + "\n" for c in found))
        return OK
    if command == "tool-prompt":
        engine = engine_for(policy, opts.get("--config"))
        text = engine.tool_prompt(operands, opts.get("--lang") or "en")
        out(text if text.endswith("\n") else text + "\n")
        return OK
    if command == "build-request":
        now = None if opts.get("--now") is None else whole_number(opts.get("--now") or "", "--now", MAX_NOW_MS)
        engine = engine_for(policy, opts.get("--config"))
        context = context_text(engine, opts)
        tool = operands[0]
        args = operands[1] if len(operands) > 1 else "{}"
        if args == "-":
            args = read_text("-")
        try:
            request = engine.build_request(tool, engine.complete_args(tool, args, context, now))
        except RequestError as e:
            raise ToolgateError(f"no request for {printable(tool)}: {findings_text(e.findings)}") from None
        out(json_line(request.to_json()) + "\n")
        return OK
    if command == "read-response":
        given = opts.get("--status")
        status = 200
        if given is not None:
            if re.fullmatch(r"[0-9]+", given) is None or not 100 <= int(given) <= 599:
                raise ToolgateError(f"--status {printable(given)}: give an HTTP status code from 100 to 599")
            status = int(given)
        engine = engine_for(policy, opts.get("--config"))
        body = read_text(operands[1] if len(operands) > 1 else "-")
        ok, text = engine.read_tool_response(operands[0], status, body)
        if not ok:
            raise ToolgateError(f"the response is an error: {text}")
        out(text + "\n")
        return OK
    if command == "augment":
        engine = engine_for(policy, opts.get("--config"))
        tools = read_text(operands[0] if operands else "-")
        try:
            augmented = engine.augment_json(tools, opts.get("--format"))
        except RejectedError as e:
            raise ToolgateError(str(e)) from None
        out(augmented.tools + "\n")
        sys.stdout.flush()
        for note in augmented.notes:
            err(f"toolgate: note: {note}\n")
        return OK
    if command == "hook":
        return hook(policy, opts.get("--config"), operands[0])
    if command == "guidance":
        out(policy.guidance(opts.get("--lang") or "en"))
        return OK
    if command == "import-openapi":
        spec = spec_json(read_text(operands[0] if operands else "-"))
        options: Dict[str, object] = {"only": _list(opts.get("--only")), "exclude": _list(opts.get("--exclude"))}
        if opts.get("--category") is not None:
            options["category"] = opts.get("--category")
        text = policy.import_openapi_json(spec, _json.dumps(options))
        imported = _json.loads(text)
        # The component's text of {tools, definitions}, laid out as the Rust
        # CLI does, without a parse that could reorder keys or rewrite numbers.
        cut = text.rindex(',"summary":[')
        out(pretty_json(text[:cut] + "}") + "\n")
        sys.stdout.flush()
        err("".join(f"{line}\n" for line in imported["report"]))
        return OK
    if command == "config explain":
        layers = []
        for layer, path in (("managed", opts.get("--managed")), ("project", operands[0] if operands else None), ("user", opts.get("--user"))):
            if path is not None:
                layers.append({"layer": layer, "config": read_text(path)})
        try:
            merged = _json.loads(policy.layer_config_json(_json.dumps(layers)))
        except RejectedError as e:
            raise ToolgateError(str(e)) from None
        out("".join(f"{line}\n" for line in merged["explain"]))
        return OK
    if command == "config check":
        engine_for(policy, operands[0])
        # What the configuration says against itself (seed 002's own example
        # is such a text) is told, and the check still passes.
        try:
            read = _json.loads(policy.layer_config_json(_json.dumps([{"layer": "project", "config": read_text(operands[0])}])))
        except RejectedError as e:
            raise ToolgateError(str(e)) from None
        out("".join(f"{line}\n" for line in read["explain"] if line.startswith("warning: ")))
        out("ok\n")
        return OK
    if command == "audit verify":
        log = read_text(operands[0])
        key_file = opts.get("--key-file")
        head_kept = opts.get("--head")
        try:
            records, head = policy.verify_audit(log, None if key_file is None else read_key(key_file))
        except AuditBrokenError as e:
            out(f"broken: {e}\n")
            return BROKEN
        if head_kept is not None and not any(line_hash(line) == head_kept for line in log.split("\n")):
            out(f"broken: the head {printable(head_kept)} kept elsewhere is not in the log: it was cut or rewritten\n")
            return BROKEN
        out(f"ok: {records} records, head {head}\n")
        # Whether the chain is keyed, on standard error, as the Rust CLI says
        # it: what a verification proves depends on it.
        err(
            "toolgate: the chain was checked unkeyed: anyone who can write the log can erase a record "
            "and recompute every hash after it; a gate with a key keys its chain with it (verify with --key-file)\n"
            if key_file is None
            else "toolgate: the chain is keyed: every hash is an HMAC under the key file, so nobody without "
            "it can rewrite the log and recompute the chain\n"
        )
        return OK
    if command in ("grants list", "grants revoke"):
        return grants(policy, command, opts)
    raise ToolgateError(f"'{command}' is not implemented")


def grants(policy: "Policy", command: str, opts: Options) -> int:
    """`grants list DIR` and `grants revoke DIR ID`: the gate over a checkpoint
    directory, as the Rust CLI opens it (the key first, then the audit log)."""
    from .gate import Gate
    from .stores import DirStore, JsonlSink, StoreError

    directory = opts.operands[0]
    key = read_key(str(opts.get("--key-file")))
    audit = []
    log = opts.get("--audit")
    if log is not None:
        try:
            audit.append(JsonlSink(log))
        except StoreError as e:
            raise ToolgateError(f"cannot open {log}: {e}") from None
    audit_key_file = opts.get("--audit-key-file")
    audit_key = None if audit_key_file is None else read_key(audit_key_file)
    with Gate(policy, "{}", key=key, store=DirStore(directory), audit=audit, audit_key=audit_key) as gate:
        if command == "grants list":
            refused = False
            for listed in gate.grants():
                if listed["ok"]:
                    out(f'{{"id":{_json.quote(listed["id"])},"grant":{json_line(_json.dumps(listed["grant"]))}}}\n')
                else:
                    refused = True
                    out(f'{{"id":{_json.quote(listed["id"])},"error":{_json.quote(listed["error"])}}}\n')
            return BROKEN if refused else OK
        id = opts.operands[1]
        if not gate.revoke(id):
            raise ToolgateError(f"no grant `{printable(id)}` in {directory}")
        out(f"revoked {printable(id)}\n")
        return OK


def error_text(e: BaseException) -> str:
    """An error's text for standard error, worded as in the Rust CLI."""
    if isinstance(e, PolicyFaultError):
        return f"the policy faulted: {e}"
    if isinstance(e, ToolgateError):
        return str(e)
    return f"internal error: {e}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the CLI; returns the exit code."""
    try:
        code = run(sys.argv[1:] if argv is None else list(argv))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return OK
    except Exception as e:  # every failure is reported in the CLI's words, never a traceback
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _quiet_stdout()
            return OK
        except Exception:
            pass
        err(f"toolgate: error: {error_text(e)}\n")
        return ERROR


def _quiet_stdout() -> None:
    """After a closed pipe, Python's final flush would report it again: point stdout at nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
