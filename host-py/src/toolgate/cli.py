"""`python -m toolgate`: the same help, usage errors, output and exit codes as
the Rust CLI, byte for byte.

The arguments follow one specification, `host-rs/src/cli/args.rs` (docs/cli.md
sums it up): its declarations (help, options, command shapes) are generated
into `_grammar.py`, its rules followed here. `check`'s lines are read and
formatted by the component, and `hook`'s answers made by it.
`host-py/tests/test_cli.py` runs this CLI and the Rust one over a table of
argument lists and inputs and compares every byte.

The commands that need the approval gate's stores (`grants list|revoke`) are
refused with one message, as the Python host has no gate yet; every other
command this CLI does not run (`approvals list`, `mcp-proxy`, `mcp pins`,
`exec`) is refused as the Rust CLI's own.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from . import _json
from ._grammar import GLOBAL, HELP, OPTIONS, SHAPES, VARIADIC
from .errors import AuditBrokenError, PolicyFaultError, RejectedError, ToolgateError
from .shapes import Decision

if TYPE_CHECKING:
    from .policy import Engine, Policy

OK, ERROR, USAGE, MALFORMED, BROKEN, CONFIRM, DENY = 0, 1, 2, 3, 4, 10, 11


class UsageError(Exception):
    pass


#: The commands only the Rust CLI has: every command of the grammar this CLI
#: does not run, but those of the approval gate (see GATE_ONLY).
RUST_ONLY_WORDS = "is in the Rust CLI only"
#: The commands that work on the approval gate's stores, which this host does not have yet.
GATE_ONLY = {"grants list", "grants revoke"}
#: The commands this CLI runs.
COMMANDS = {"assess", "check", "augment", "hook", "guidance", "import-openapi", "config check", "config explain", "audit verify"}


def printable(text: str) -> str:
    """`text` with control characters written as `\\u{…}`, for a terminal."""
    return "".join(f"\\u{{{ord(c):x}}}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in text)


def _bad_argument(arg: str) -> bool:
    # Bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape).
    return "\ufffd" in arg or any(0xD800 <= ord(c) <= 0xDFFF for c in arg)


class Options:
    def __init__(self) -> None:
        self.help = False
        self.version = False
        self.component: Optional[str] = None
        self.no_cache = False
        self.command = ""
        self.operands: List[str] = []
        self.given: Dict[str, Optional[str]] = {}

    def get(self, name: str) -> Optional[str]:
        return self.given.get(name)


def parse_args(argv: Sequence[str]) -> Options:
    """Reads the arguments after the program's name (see the specification above)."""
    for index, arg in enumerate(argv):
        if _bad_argument(arg):
            raise UsageError(f"argument {index + 1} is not valid UTF-8 or holds U+FFFD")
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
        if arg in ("-h", "--help"):
            opts.help = True
            return opts
        if arg in ("-V", "--version"):
            if opts.version:
                raise UsageError("option '--version' given more than once")
            opts.version = True
            continue
        name, inline = arg, None
        if arg.startswith("--") and "=" in arg:
            name, inline = arg.split("=", 1)
        if name not in OPTIONS:
            raise UsageError(f"unknown option '{printable(name)}'")
        value: Optional[str] = None
        if OPTIONS[name]:
            if inline is not None:
                value = inline
            elif i < len(argv):
                value = argv[i]
                i += 1
            if not value:
                raise UsageError(f"option '{name}' needs a value")
        elif inline is not None:
            raise UsageError(f"option '{name}' takes no value")
        if name in given:
            raise UsageError(f"option '{name}' given more than once")
        given[name] = value
    opts.component = given.get("--component")
    opts.no_cache = "--no-cache" in given
    if opts.version:
        return opts
    if not positional:
        raise UsageError("a command is required")
    command, words = _command(positional)
    options, required, optional = SHAPES[command]
    rest = command in VARIADIC
    for name in given:
        if name not in GLOBAL and name not in options:
            raise UsageError(f"option '{name}' does not apply to '{command}'")
    operands = positional[words:]
    if len(operands) < len(required):
        raise UsageError(f"'{command}' needs {required[len(operands)]}")
    most = len(required) + len(optional)
    if not rest and len(operands) > most:
        raise UsageError(f"unexpected argument '{printable(operands[most])}'")
    if command == "exec" and "--writable" in given and "--confine-only" not in given:
        raise UsageError("'--writable' needs --confine-only")
    if command == "approvals list":
        if "--key-file" in given and "--unsigned" in given:
            raise UsageError("'approvals list' takes --key-file FILE or --unsigned, not both")
        if "--key-file" not in given and "--unsigned" not in given:
            raise UsageError("'approvals list' needs --key-file FILE or --unsigned")
    if command in ("grants list", "grants revoke") and "--key-file" not in given:
        raise UsageError(f"'{command}' needs --key-file FILE")
    if "--audit-key-file" in given and "--audit" not in given:
        raise UsageError("'--audit-key-file' needs --audit FILE")
    opts.command = command
    opts.operands = operands
    return opts


def _command(positional: List[str]) -> Tuple[str, int]:
    """The command the first positional words name, and how many words it took:
    a parent word (`config`, `mcp pins`) needs one of its subcommands."""
    words: List[str] = []
    for word in positional:
        prefix = " ".join(words + [word])
        if prefix in SHAPES:
            return prefix, len(words) + 1
        if any(name.startswith(prefix + " ") for name in SHAPES):
            words.append(word)
            continue
        parent = " ".join(words)
        if not words:
            raise UsageError(f"unknown command '{printable(word)}'")
        raise UsageError(f"unknown command '{parent} {printable(word)}'")
    if not words:
        raise UsageError("a command is required")
    parent = " ".join(words)
    subs: List[str] = []
    for name in SHAPES:
        if name.startswith(parent + " "):
            sub = name[len(parent) + 1 :].split(" ")[0]
            if sub not in subs:
                subs.append(sub)
    raise UsageError(f"'{parent}' needs a subcommand: {' or '.join(subs)}")


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


def check(engine: "Engine", path: Optional[str]) -> int:
    """Decides every call of a JSON Lines input, one crossing a line."""
    lines = byte_lines(read_bytes(path or "-"))
    counts = {"allow": 0, "confirm": 0, "deny": 0}
    actions: List[str] = []
    malformed = 0
    written: List[str] = []
    for number, line in enumerate(lines, 1):
        checked = engine.check_line(number, line)
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
    """Answers one hook event from standard input; exit 2 (the agents block
    the tool) when no answer can be made, never a silent pass."""
    try:
        engine = engine_for(policy, config_path)
        event = read_bytes("-")
        try:
            answer = engine.hook(format, event)
        except RejectedError as e:
            err(f"toolgate: usage error: {e}\nTry 'toolgate --help'.\n")
            return USAGE
    except ToolgateError as e:
        err(f"toolgate: error: {error_text(e)}\n")
        return USAGE
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
        err(f"toolgate: usage error: {e}\nTry 'toolgate --help'.\n")
        return USAGE
    if opts.help:
        out(HELP)
        return OK
    # Loaded only now: help and usage errors need no wasmtime.
    from .policy import load_policy

    policy = load_policy(component=opts.component, cache=not opts.no_cache)
    if opts.version:
        out(f"toolgate {policy.version()}\n")
        return OK
    command = opts.command
    if command in GATE_ONLY:
        raise ToolgateError(f"'{command}' needs the approval gate, which the Python CLI does not have yet")
    if command not in COMMANDS:
        raise ToolgateError(f"'{command}' {RUST_ONLY_WORDS}")
    operands = opts.operands
    if command == "assess":
        engine = engine_for(policy, opts.get("--config"))
        tool = operands[0]
        args = operands[1] if len(operands) > 1 else "{}"
        if args == "-":
            args = read_text("-")
        decision = engine.assess(tool, args)
        if any(f.code == "args.invalid" for f in decision.findings):
            err(
                "toolgate: note: ARGS_JSON is not a JSON object; the policy answers confirm, "
                "as it would for a model's malformed arguments\n"
            )
        out(decision.to_json() + "\n" if "--json" in opts.given else render(decision))
        return exit_for([decision.action])
    if command == "check":
        return check(engine_for(policy, opts.get("--config")), operands[0] if operands else None)
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
    raise ToolgateError(f"'{command}' is not implemented")


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
