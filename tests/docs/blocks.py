#!/usr/bin/env python3
"""Every code and configuration block of README.md and docs/**/*.md, run or
checked as a reader would copy it.

Blocks are found by their fences; the files are discovered, so a new page is
covered without a change here. What each kind of block goes through:

- TOML and JSON: a toolgate configuration is checked with `toolgate config
  check` (exit 0 required; warnings are allowed); JSON that holds `"hooks"`
  is an agent's settings (a fragment is read inside braces), and every
  `toolgate hook FORMAT …` command in it answers a sample event of that
  agent, exit 0, with a configuration it could load (no `hook.config`);
  JSON that holds `"mcpServers"` is a client's settings, and every server
  whose command is `toolgate` is started as written, in front of the
  reference filesystem server (from host-js's node_modules instead of `npx
  -y`), and must answer MCP's `initialize` and `tools/list`. A client's
  entry for a server over Streamable HTTP (`url` or Gemini CLI's `httpUrl`
  under `mcpServers`, VS Code's `servers` of `type` `http`, Codex CLI's
  TOML `[mcp_servers.NAME]` with `url` and `bearer_token_env_var`) is
  reached as the client would: a gateway is started with `--listen` on a
  free loopback port and `--token-file`, the entry's URL is kept but for its
  port, its headers are sent with their variable references (`${VAR}`,
  `$VAR`, `${env:VAR}`, `${input:ID}`) standing for the token, and it must
  answer `initialize` and `tools/list`, and refuse the same request without
  the entry's `Authorization`.
- Shell (`sh`, `bash`, `console`, and `text` blocks that start with `$ `):
  each command must be a toolgate CLI command (`toolgate …`, `python -m
  toolgate …`, `cargo run --release -p toolgate -- …`, which runs as
  TOOLGATE_BIN: the install test builds it as `cargo install --path
  host-rs`, the same build) and is run in a
  scratch directory that sees the repository's `examples/` and `tests/`; an
  exit code other than 0, 10 (confirm) or 11 (deny) fails. A `# allow`,
  `# confirm` or `# deny` comment after a command is the decision it must
  print; in a `$ ` transcript the lines after a command are its output
  (`…` ends a line early).
- Python: a page's blocks run in order in one namespace with the installed
  package (as host-py/tests/test_docs.py does for docs/python.md); a
  `print(…)  # shown` comment names what was printed, and a bare expression
  followed by a literal in a comment (`x.action  # 'deny'`) must equal it.
- WIT: an excerpt, each of its lines but comments a line of wit/*.wit. `text` blocks
  are declared plain text (output, pseudo-code) and not run unless they are
  a `$ ` transcript; a block with no language must carry a marker.
- JavaScript (`js`, and the module scripts of `html`): syntax-checked with
  `node --check`, every name imported from `toolgate…` must be an export of
  the installed package (an entry point whose optional peer, an agent SDK,
  the project did not install is not probed), then the block runs as a module in a project that
  installed the package; `expr;  // 'value'` must hold.
- Rust: blocks are compiled into one program against the `toolgate` crate of
  this clone (the shared target directory, so nothing but the program is
  built) and run; each block is the body of a function returning a Result.

A block that cannot run as written carries its reason in the markdown just
before its fence, as `<!-- not-run: REASON -->`; it is still syntax-checked
where a checker exists (JavaScript, Python, shell). A block written to a file
that later blocks use carries `<!-- file: NAME -->` (a hook's `.toolgate.toml`,
the gateway's configuration); an absolute NAME is placed in the scratch
directory and replaced by that place in the page's commands.

Environment: TOOLGATE_BIN (the CLI; default target/release/toolgate),
TOOLGATE_DOCS_PYTHON (a Python with the package installed; default
target/py-venv/bin/python), TOOLGATE_DOCS_NODE_PROJECT (a directory whose
node_modules holds the package; default a scratch project linking host-js).
Arguments: markdown files to check instead of the discovered ones.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tokenize
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRATCH = ROOT / "target" / "docs-blocks"
TIMEOUT = 120
DECISION_EXITS = {0, 10, 11}


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    not_run: str | None = None
    file: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass
class Result:
    failures: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def fail(self, block: Block, message: str) -> None:
        self.failures.append(f"{block.where} ({block.lang or 'plain'}): {message}")


MARKER = re.compile(r"^\s*<!--\s*(not-run|file):\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^\s`]*)")


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the markers just before each."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        j = i + 1
        while j < len(lines) and not re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[j]):
            j += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1 : j]]
        block = Block(page, i + 1, lang, "\n".join(body) + "\n")
        k = i - 1
        while k >= 0 and (lines[k].strip() == "" or MARKER.match(lines[k])):
            mm = MARKER.match(lines[k])
            if mm:
                if mm.group(1) == "not-run":
                    block.not_run = mm.group(2)
                else:
                    block.file = mm.group(2)
            k -= 1
        found.append(block)
        i = j + 1
    return found


def run(argv, cwd, stdin=None, env=None, merge=False, timeout=TIMEOUT):
    try:
        return _run(argv, cwd, stdin, env, merge, timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, f"(timed out after {timeout} s)", f"(timed out after {timeout} s)")


def _run(argv, cwd, stdin, env, merge, timeout):
    return subprocess.run(
        argv,
        cwd=cwd,
        input=stdin,
        capture_output=not merge,
        stdout=subprocess.PIPE if merge else None,
        stderr=subprocess.STDOUT if merge else None,
        text=True,
        env=env,
        timeout=timeout,
    )


class Page:
    """The scratch directory and files of one page's blocks."""

    def __init__(self, ctx: "Context", page: Path):
        self.ctx = ctx
        self.page = page
        rel = str(page.relative_to(ROOT)).replace("/", "_")
        self.dir = SCRATCH / "pages" / rel
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        for name in ("examples", "tests"):
            (self.dir / name).symlink_to(ROOT / name)
        self.renames: dict[str, str] = {}
        self.count = 0

    def place(self, name: str, text: str) -> Path:
        if name.startswith("/"):
            path = self.dir / "root" / name.lstrip("/")
            self.renames[name] = str(path)
        else:
            path = self.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def scratch_file(self, suffix: str, text: str) -> Path:
        self.count += 1
        path = self.dir / f"block-{self.count}{suffix}"
        path.write_text(text)
        return path

    def substitute(self, word: str) -> str:
        for name, path in self.renames.items():
            word = word.replace(name, path)
        return word


class Context:
    def __init__(self):
        # Commands run in scratch directories: relative paths are taken from here.
        self.bin = os.path.abspath(os.environ.get("TOOLGATE_BIN") or ROOT / "target" / "release" / "toolgate")
        self.python = os.path.abspath(os.environ.get("TOOLGATE_DOCS_PYTHON") or ROOT / "target" / "py-venv" / "bin" / "python")
        project = os.environ.get("TOOLGATE_DOCS_NODE_PROJECT")
        if project:
            self.node_project = Path(project).resolve()
        else:
            self.node_project = SCRATCH / "node-project"
            shutil.rmtree(self.node_project, ignore_errors=True)
            (self.node_project / "node_modules").mkdir(parents=True)
            (self.node_project / "node_modules" / "toolgate").symlink_to(ROOT / "host-js")
            (self.node_project / "package.json").write_text('{"name": "docs-blocks", "private": true, "type": "module"}\n')
        self.result = Result()
        self.rust: list[Block] = []

    # --- configurations -------------------------------------------------

    def config_check(self, block: Block, page: Page, path: Path) -> None:
        r = run([self.bin, "config", "check", str(path)], page.dir)
        if r.returncode != 0 or r.stdout.strip().split("\n")[-1:] != ["ok"]:
            self.result.fail(block, f"`toolgate config check` refused it (exit {r.returncode}): {(r.stderr + r.stdout).strip()}")
        else:
            self.result.checked.append(f"{block.where} config check")

    def toml(self, block: Block, page: Page) -> None:
        try:
            tomllib.loads(block.text)
        except tomllib.TOMLDecodeError as e:
            self.result.fail(block, f"not TOML: {e}")
            return
        value = tomllib.loads(block.text)
        servers = value.get("mcp_servers")
        # toolgate's own `[mcp_servers.NAME]` says whether a server is trusted;
        # Codex's says where the server is.
        if isinstance(servers, dict) and any(isinstance(v, dict) and ("url" in v or "command" in v) for v in servers.values()):
            # Codex CLI's config.toml: servers over Streamable HTTP.
            entries = []
            for name, server in (value.get("mcp_servers") or {}).items():
                if isinstance(server, dict) and isinstance(server.get("url"), str):
                    headers = dict(server.get("http_headers") or {})
                    if server.get("bearer_token_env_var"):
                        headers["Authorization"] = "Bearer ${" + str(server["bearer_token_env_var"]) + "}"
                    entries.append((name, server["url"], headers))
            if not entries:
                self.result.fail(block, "Codex settings without a server reached by url")
            self.http_clients(block, page, entries)
            return
        path = page.place(block.file, block.text) if block.file else page.scratch_file(".toml", block.text)
        self.config_check(block, page, path)

    def json(self, block: Block, page: Page) -> None:
        try:
            value = json.loads(block.text)
        except json.JSONDecodeError:
            try:
                value = json.loads("{" + block.text + "}")  # a settings fragment: "key": {…}
            except json.JSONDecodeError as e:
                self.result.fail(block, f"not JSON, nor a fragment of an object: {e}")
                return
        if not isinstance(value, dict):
            self.result.fail(block, "a JSON block that is not an object: mark what it is with <!-- not-run: … -->")
            return
        if "hooks" in value:
            self.agent_settings(block, page, value)
        elif "mcpServers" in value:
            self.client_settings(block, page, value)
        elif isinstance(value.get("servers"), dict):
            # VS Code's mcp.json: `servers`, each with a `type`.
            entries = [
                (name, v["url"], dict(v.get("headers") or {}))
                for name, v in value["servers"].items()
                if isinstance(v, dict) and v.get("type") == "http" and isinstance(v.get("url"), str)
            ]
            if not entries:
                self.result.fail(block, "VS Code settings without a server of type http")
            self.http_clients(block, page, entries)
        else:
            path = page.place(block.file, block.text) if block.file else page.scratch_file(".json", block.text)
            self.config_check(block, page, path)

    def agent_settings(self, block: Block, page: Page, value: dict) -> None:
        commands = []

        def walk(v):
            if isinstance(v, dict):
                if v.get("type") == "command" and isinstance(v.get("command"), str):
                    commands.append(v["command"])
                for x in v.values():
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)

        walk(value)
        if not commands:
            self.result.fail(block, "agent settings with no hook command")
        for command in commands:
            argv = [page.substitute(w) for w in shlex.split(command)]
            if argv[:2] != ["toolgate", "hook"]:
                self.result.fail(block, f"a hook command that is not `toolgate hook`: {command}")
                continue
            fmt = next((a for a in argv[2:] if not a.startswith("-") and argv[argv.index(a) - 1] != "--config"), "")
            if fmt == "gemini-cli":
                event = {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}, "cwd": str(page.dir)}
            else:
                event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(page.dir), "session_id": "docs", "permission_mode": "default"}
            r = run([self.bin, *argv[1:]], page.dir, stdin=json.dumps(event))
            try:
                answer = json.loads(r.stdout)
            except json.JSONDecodeError:
                answer = None
            if r.returncode != 0 or not isinstance(answer, dict):
                self.result.fail(block, f"`{command}` answered exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
            elif "hook.config" in r.stdout:
                self.result.fail(block, f"`{command}` could not load its configuration (write it in the page, marked <!-- file: NAME -->): {r.stdout.strip()}")
            else:
                self.result.ran.append(f"{block.where} {command}")

    def client_settings(self, block: Block, page: Page, value: dict) -> None:
        servers = value.get("mcpServers") or {}
        gated = {k: v for k, v in servers.items() if isinstance(v, dict) and v.get("command") == "toolgate"}
        remote = [
            (k, v.get("httpUrl") or v.get("url"), dict(v.get("headers") or {}))
            for k, v in servers.items()
            if isinstance(v, dict) and isinstance(v.get("httpUrl") or v.get("url"), str)
        ]
        if not gated and not remote:
            self.result.fail(block, "MCP client settings without a toolgate server")
        if remote:
            self.http_clients(block, page, remote)
        fs_server = ROOT / "host-js" / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
        for name, server in gated.items():
            args = [page.substitute(a) for a in server.get("args", [])]
            if "--" not in args:
                self.result.fail(block, f"server {name}: no `--` before the server's command")
                continue
            at = args.index("--")
            served = page.dir / "served"
            served.mkdir(exist_ok=True)
            (served / "note.txt").write_text("a note\n")
            # The gateway as written, the server it fronts started without npx
            # (no network): the reference filesystem server on a scratch root.
            argv = [self.bin, *args[:at], "--", "node", str(fs_server), str(served)]
            ok, message = mcp_handshake(argv, page.dir)
            if ok:
                self.result.ran.append(f"{block.where} {name}: {message}")
            else:
                self.result.fail(block, f"server {name} ({shlex.join(['toolgate', *args[:at]])} -- …): {message}")

    def http_clients(self, block: Block, page: Page, entries: list) -> None:
        """Each (name, url, headers) entry, reached as its client would reach
        a gateway listening over Streamable HTTP."""
        fs_server = ROOT / "host-js" / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
        served = page.dir / "served"
        served.mkdir(exist_ok=True)
        (served / "note.txt").write_text("a note\n")
        for name, url, headers in entries:
            m = re.fullmatch(r"http://(127\.0\.0\.1|localhost|\[::1\]):(\d+)(/mcp)", url)
            if m is None:
                self.result.fail(block, f"server {name}: `{url}` is not the gateway's loopback endpoint http://127.0.0.1:PORT/mcp")
                continue
            token = os.urandom(16).hex()
            token_file = page.dir / f"token-{name}"
            token_file.write_text(token + "\n")
            sent = {k: re.sub(r"\$\{(?:env:|input:)?[A-Za-z0-9_.-]+\}|\$[A-Za-z_][A-Za-z0-9_]*", token, str(v)) for k, v in headers.items()}
            argv = [self.bin, "mcp-proxy", "--listen", "127.0.0.1:0", "--token-file", str(token_file), "--name", name,
                    "--audit", str(page.dir / f"audit-{name}.jsonl"), "--pins", str(page.dir / f"pins-{name}.json"),
                    "--", "node", str(fs_server), str(served)]
            ok, message = http_handshake(argv, page.dir, m.group(1), m.group(3), sent)
            if ok:
                self.result.ran.append(f"{block.where} {name}: {message}")
            else:
                self.result.fail(block, f"server {name} at {url}: {message}")

    # --- shell ----------------------------------------------------------

    def shell(self, block: Block, page: Page) -> None:
        transcript = block.text.lstrip().startswith("$ ")
        script = "\n".join(l[2:] for l in block.text.split("\n") if l.startswith("$ ")) if transcript else block.text
        r = run(["bash", "-n"], page.dir, stdin=script)
        if r.returncode != 0:
            self.result.fail(block, f"bash -n: {r.stderr.strip()}")
            return
        if block.not_run:
            self.result.skipped.append(f"{block.where}: {block.not_run}")
            return
        steps: list[tuple[str, list[str]]] = []  # (command, expected output lines)
        logical = block.text.replace("\\\n", " ").split("\n")
        for line in logical:
            if transcript:
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                elif steps and line.strip():
                    steps[-1][1].append(line)
            elif line.strip() and not line.strip().startswith("#"):
                steps.append((line, []))
        for command, expected in steps:
            words = shlex.split(command, comments=False)
            comment = None
            if "#" in words:
                comment = " ".join(words[words.index("#") + 1 :]).strip()
                words = words[: words.index("#")]
            words = [page.substitute(w) for w in words]
            if any(w.startswith("[") or w.endswith("]") for w in words):
                self.result.fail(block, f"`{command}` is a synopsis, not a command line: mark the block <!-- not-run: REASON -->")
                return
            if words[:1] == ["toolgate"]:
                argv = [self.bin, *words[1:]]
            elif words[:3] in (["python", "-m", "toolgate"], ["python3", "-m", "toolgate"]):
                argv = [self.python, *words[1:]]
            elif words[:6] == ["cargo", "run", "--release", "-p", "toolgate", "--"]:
                # The CLI that command builds and runs: TOOLGATE_BIN (the
                # install test's `cargo install --path host-rs`, the same build).
                argv = [self.bin, *words[6:]]
            else:
                self.result.fail(block, f"`{command}` is not a toolgate command the test can run: mark the block <!-- not-run: REASON -->")
                return
            r = run(argv, page.dir, merge=True)
            out = r.stdout
            if r.returncode not in DECISION_EXITS:
                self.result.fail(block, f"`{command}` exited {r.returncode}: {out.strip()[-800:]}")
                continue
            if comment in ("allow", "confirm", "deny"):
                first = out.split()[0] if out.split() else ""
                if first != comment:
                    self.result.fail(block, f"`{command}` printed {first!r}, the comment says {comment!r}")
                    continue
            if expected:
                got = [l for l in out.split("\n") if l.strip() and not l.startswith("    Finished") and not l.startswith("     Running")]
                bad = compare(expected, got)
                if bad:
                    self.result.fail(block, f"`{command}` printed other output than shown: {bad}")
                    continue
            self.result.ran.append(f"{block.where} {command}")

    # --- Python ---------------------------------------------------------

    def python_page(self, blocks: list[Block], page: Page) -> None:
        runnable = []
        for block in blocks:
            try:
                compile(block.text, block.where, "exec")
            except SyntaxError as e:
                self.result.fail(block, f"not Python: {e}")
                continue
            if block.not_run:
                self.result.skipped.append(f"{block.where}: {block.not_run}")
            else:
                runnable.append({"where": block.where, "source": expectations(block.text)})
        if not runnable:
            return
        spec = page.scratch_file(".py.json", json.dumps(runnable))
        r = run([self.python, "-c", PY_DRIVER, str(spec)], page.dir)
        try:
            report = json.loads(r.stdout.strip().split("\n")[-1])
        except (json.JSONDecodeError, IndexError):
            report = {"failures": [f"the Python driver failed (exit {r.returncode}): {r.stderr.strip()[-1500:]}"], "ran": []}
        for where in report["ran"]:
            self.result.ran.append(f"{where} (python)")
        for f in report["failures"]:
            self.result.failures.append(f"(python) {f}")

    # --- JavaScript -----------------------------------------------------

    def js(self, block: Block, page: Page, code: str | None = None) -> None:
        code = block.text if code is None else code
        page.count += 1
        name = f"docs-{page.dir.name}-{page.count}.mjs"
        path = self.node_project / name
        path.write_text(code)
        try:
            r = run(["node", "--check", str(path)], self.node_project)
            if r.returncode != 0:
                self.result.fail(block, f"node --check: {r.stderr.strip()}")
                return
            imports = []
            for names, spec in re.findall(r"import\s*\{([^}]*)\}\s*from\s*'([^']+)'", code):
                if spec == "toolgate" or spec.startswith("toolgate/") or "node_modules/toolgate/" in spec:
                    imports.append((spec, [n.split(" as ")[0].strip() for n in names.split(",") if n.strip()]))
            if imports:
                probe = ";".join(
                    f"{{let m = null; try {{ m = await import({json.dumps(spec)}); }} catch (e) {{ if (e.code !== 'ERR_MODULE_NOT_FOUND' || /toolgate/.test(String(e.message).split(' imported from')[0])) throw e; }} if (m) for (const n of {json.dumps(ns)}) if (!(n in m)) missing.push({json.dumps(spec)} + ': ' + n);}}"
                    for spec, ns in imports
                )
                r = run(["node", "--input-type=module", "-e", f"const missing = []; {probe} if (missing.length) {{ console.log(missing.join(', ')); process.exit(1); }}"], self.node_project)
                if r.returncode != 0:
                    self.result.fail(block, f"imports the installed package does not export: {(r.stdout + r.stderr).strip()[-800:]}")
                    return
            if block.not_run:
                self.result.skipped.append(f"{block.where}: {block.not_run} (syntax and imports checked)")
                return
            path.write_text(JS_PRELUDE + js_expectations(code))
            r = run(["node", str(path)], self.node_project)
            if r.returncode != 0:
                self.result.fail(block, f"node: {(r.stderr or r.stdout).strip()[-1200:]}")
            else:
                self.result.ran.append(f"{block.where} (node)")
        finally:
            path.unlink(missing_ok=True)

    def html(self, block: Block, page: Page) -> None:
        scripts = re.findall(r'<script type="module">(.*?)</script>', block.text, re.S)
        if not scripts:
            self.result.fail(block, "an html block without a module script")
        for script in scripts:
            self.js(block, page, "\n".join(l[2:] if l.startswith("  ") else l for l in script.strip("\n").split("\n")) + "\n")

    # --- WIT ------------------------------------------------------------

    def wit(self, block: Block) -> None:
        """A WIT block is an excerpt: each of its lines but comments (prose,
        which may be shortened) is a line of wit/*.wit."""
        lines = {l.strip() for f in sorted((ROOT / "wit").rglob("*.wit")) for l in f.read_text().split("\n")}
        code = [l.strip() for l in block.text.split("\n") if l.strip() and not l.strip().startswith("//")]
        missing = [l for l in code if l not in lines]
        if missing:
            self.result.fail(block, f"lines that are not in wit/*.wit: {missing[:5]}")
        else:
            self.result.checked.append(f"{block.where} an excerpt of wit/")

    # --- Rust -----------------------------------------------------------

    def rust_all(self) -> None:
        runnable = [b for b in self.rust if not b.not_run]
        for b in self.rust:
            if b.not_run:
                self.result.skipped.append(f"{b.where}: {b.not_run}")
        if not runnable:
            return
        crate = SCRATCH / "rust"
        shutil.rmtree(crate / "src", ignore_errors=True)
        (crate / "src").mkdir(parents=True)
        (crate / "Cargo.toml").write_text(
            '[package]\nname = "toolgate-docs-blocks"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
            f'[dependencies]\ntoolgate = {{ path = {json.dumps(str(ROOT / "host-rs"))} }}\n\n[workspace]\n'
        )
        # The workspace's lock: the same versions, so the shared target's
        # builds of them are reused.
        shutil.copyfile(ROOT / "Cargo.lock", crate / "Cargo.lock")
        fns, calls = [], []
        for n, b in enumerate(runnable):
            body = "\n".join("    " + l for l in b.text.rstrip("\n").split("\n"))
            fns.append(f"// {b.where}\n#[allow(unused_variables, unused_imports)]\nfn block_{n}() -> Result<(), Box<dyn std::error::Error>> {{\n{body}\n    Ok(())\n}}\n")
            calls.append(f'    if let Err(e) = block_{n}() {{ println!("FAIL {b.where}: {{e}}"); failed = true; }} else {{ println!("RAN {b.where}"); }}')
        (crate / "src" / "main.rs").write_text("\n".join(fns) + "\nfn main() {\n    let mut failed = false;\n" + "\n".join(calls) + "\n    if failed { std::process::exit(1); }\n}\n")
        env = dict(os.environ, CARGO_TARGET_DIR=os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target")))
        r = run(["cargo", "run", "--quiet", "--release", "--offline"], crate, env=env, timeout=900)
        ran = re.findall(r"^RAN (.*)$", r.stdout, re.M)
        for where in ran:
            self.result.ran.append(f"{where} (rust)")
        if r.returncode != 0:
            failed = re.findall(r"^FAIL (.*)$", r.stdout, re.M)
            message = "; ".join(failed) or r.stderr.strip()[-3000:]
            self.result.failures.append(f"(rust) the Rust blocks {', '.join(b.where for b in runnable)}: {message}")

    # --- the pages ------------------------------------------------------

    def page(self, path: Path) -> None:
        page = Page(self, path)
        blocks = blocks_of(path)
        python = [b for b in blocks if b.lang in ("python", "py")]
        # Files first: a page may show the settings that name a file before
        # the file itself.
        for block in blocks:
            if block.file:
                page.place(block.file, block.text)
        for block in blocks:
            if block.not_run is not None and len(block.not_run.split()) < 3:
                self.result.fail(block, f"a not-run marker needs its reason: {block.not_run!r}")
                continue
            lang = block.lang
            if lang in ("python", "py"):
                continue
            if lang == "rust":
                self.rust.append(block)
            elif lang in ("js", "javascript", "mjs"):
                self.js(block, page)
            elif lang == "html":
                self.html(block, page)
            elif lang in ("sh", "bash", "shell", "console") or (lang in ("text", "") and block.text.lstrip().startswith("$ ")):
                self.shell(block, page)
            elif block.not_run:
                self.result.skipped.append(f"{block.where}: {block.not_run}")
            elif lang == "text":
                # Declared plain text (output, pseudo-code): nothing to run.
                self.result.checked.append(f"{block.where} plain text")
            elif lang == "wit":
                self.wit(block)
            elif lang == "toml":
                self.toml(block, page)
            elif lang in ("json", "jsonc"):
                self.json(block, page)
            else:
                self.result.fail(block, "a block the test does not know how to run: mark it <!-- not-run: REASON --> or give it a language")
        if python:
            self.python_page(python, page)


def compare(expected: list[str], got: list[str]) -> str | None:
    """None when `got` shows `expected` line for line (`…` ends a line early)."""
    if len(expected) != len(got):
        return f"{len(got)} lines, {len(expected)} shown: {got!r}"
    for e, g in zip(expected, got):
        e, g = e.rstrip(), g.rstrip()
        if "…" in e:
            if not g.startswith(e.split("…")[0].rstrip()):
                return f"{g!r} is not {e!r}"
        elif e != g:
            return f"{g!r} is not {e!r}"
    return None


def expectations(source: str) -> str:
    """A bare expression followed by a literal comment becomes a check of it."""
    out = []
    for n, line in enumerate(source.split("\n"), 1):
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(line + "\n").readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            out.append(line)
            continue
        comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
        if comment is None:
            out.append(line)
            continue
        code = line[: comment.start[1]].rstrip()
        shown = comment.string[1:].strip()
        try:
            expected = ast.literal_eval(shown)
            tree = ast.parse(code.strip())
        except (ValueError, SyntaxError):
            out.append(line)
            continue
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) and not _is_print(tree.body[0].value):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}__expect(({code.strip()}), {expected!r}, {n})")
        else:
            out.append(line)
    return "\n".join(out)


def _is_print(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"


def js_expectations(code: str) -> str:
    """`expr;  // 'value'` becomes a check that expr is that string."""
    out = []
    for line in code.split("\n"):
        m = re.match(r"^(\s*)(?!const |let |var |import |await import)([^/]*?\S);\s*//\s*('[^']*')\s*$", line)
        out.append(f"{m.group(1)}__expect(({m.group(2)}), {m.group(3)});" if m else line)
    return "\n".join(out)


JS_PRELUDE = (
    "const __expect = (got, want) => { if (got !== want) { console.error(`shown ${JSON.stringify(want)}, got ${JSON.stringify(got)}`); process.exit(1); } };\n"
)

PY_DRIVER = r'''
import contextlib, io, json, re, sys
blocks = json.load(open(sys.argv[1]))
failures, ran = [], []
class Mismatch(Exception):
    pass
def __expect(got, want, line):
    if got != want:
        raise Mismatch(f"line {line}: shown {want!r}, got {got!r}")
namespace = {"__expect": __expect}
for b in blocks:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(b["source"], b["where"], "exec"), namespace)
    except Exception as e:
        failures.append(f"{b['where']}: {type(e).__name__}: {e}")
        break
    bad = []
    for shown in re.findall(r"print\(.*\)\s+# (.+)", b["source"]):
        first = shown.split(" …")[0].split(", ")[0]
        if first not in printed.getvalue():
            bad.append(f"{b['where']}: shows {shown!r}, printed {printed.getvalue()[-400:]!r}")
    failures.extend(bad)
    if not bad:
        ran.append(b["where"])
print(json.dumps({"failures": failures, "ran": ran}))
'''


def mcp_handshake(argv: list[str], cwd: Path) -> tuple[bool, str]:
    """Starts an MCP server over stdio, asks `initialize` then `tools/list`."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "docs-blocks", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin and proc.stdout
        answers = {}
        deadline = time.monotonic() + 60
        proc.stdin.write(json.dumps(messages[0]) + "\n")
        proc.stdin.flush()
        sent_list = False
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "id" in msg:
                answers[msg["id"]] = msg
            if 1 in answers and not sent_list:
                if "error" in answers[1]:
                    break
                proc.stdin.write(json.dumps(messages[1]) + "\n" + json.dumps(messages[2]) + "\n")
                proc.stdin.flush()
                sent_list = True
            if 2 in answers:
                break
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stderr = proc.stderr.read() if proc.stderr else ""
        tools = answers.get(2, {}).get("result", {}).get("tools")
        if not tools:
            return False, f"no tools/list answer; initialize: {answers.get(1)}; stderr: {stderr.strip()[-800:]}"
        return True, f"{len(tools)} tools listed through the gateway"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def http_handshake(argv: list[str], cwd: Path, host: str, path: str, headers: dict) -> tuple[bool, str]:
    """Starts a gateway listening over Streamable HTTP; POSTs `initialize`,
    `notifications/initialized` and `tools/list` with `headers`, as a client
    does, and the same `initialize` without `Authorization`, which must be
    refused."""
    import urllib.error
    import urllib.request

    log = cwd / f"gateway-{os.getpid()}-{time.monotonic_ns()}.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, text=True)
    try:
        endpoint = None
        deadline = time.monotonic() + 60
        while endpoint is None and time.monotonic() < deadline and proc.poll() is None:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", log.read_text())
            if m:
                endpoint = m.group(1)
            else:
                time.sleep(0.05)
        if endpoint is None:
            return False, f"the gateway did not start listening: {log.read_text().strip()[-800:]}"
        url = f"http://{host}:{endpoint}{path}"

        def post(message: dict, extra: dict, session: str | None = None):
            h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **extra}
            if session:
                h["Mcp-Session-Id"] = session
            request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=h, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=60) as r:
                    body = r.read().decode()
                    answers = [json.loads(l[5:]) for l in body.splitlines() if l.startswith("data:") and l[5:].strip()]
                    if not answers and body.strip():
                        answers = [json.loads(body)]
                    return r.status, r.headers.get("Mcp-Session-Id"), answers
            except urllib.error.HTTPError as e:
                return e.code, None, []

        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "docs-blocks", "version": "0"}}}
        bare = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        refused, _, _ = post(init, bare)
        if refused != 401:
            return False, f"a request without the entry's Authorization was answered {refused}, not 401"
        status, session, answers = post(init, headers)
        if status != 200 or not any("result" in a for a in answers):
            return False, f"initialize was answered {status}: {answers}"
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers, session)
        status, _, answers = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers, session)
        tools = next((a.get("result", {}).get("tools") for a in answers if a.get("id") == 2), None)
        if not tools:
            return False, f"no tools/list answer ({status}): {answers}"
        return True, f"{len(tools)} tools listed through the gateway over HTTP"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> int:
    started = time.monotonic()
    pages = [Path(a).resolve() for a in sys.argv[1:]] or [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    ctx = Context()
    for page in pages:
        ctx.page(page)
    ctx.rust_all()
    r = ctx.result
    if os.environ.get("TOOLGATE_DOCS_VERBOSE"):
        for line in r.ran:
            print(f"ran: {line}")
        for line in r.checked:
            print(f"checked: {line}")
    for line in r.skipped:
        print(f"not run: {line}")
    print(f"docs blocks: {len(r.ran)} run, {len(r.checked)} checked, {len(r.skipped)} not run (reasons above), "
          f"{len(r.failures)} failed, over {len(pages)} pages in {time.monotonic() - started:.1f} s")
    for f in r.failures:
        print(f"FAIL {f}", file=sys.stderr)
    return 1 if r.failures else 0


if __name__ == "__main__":
    sys.exit(main())
