//! `toolgate`: the policy on the command line.
//!
//! Everything it prints — help, usage errors, decisions, error objects,
//! summaries, errors — and its exit codes are the same, byte for byte, as the
//! JavaScript package's `toolgate` bin: the arguments follow one specification
//! (`cli/args.rs`), `check`'s lines are read and formatted by the component,
//! and `host-js/test/cli.test.js` runs both over a table of argument lists and
//! inputs.

use anyhow::Context;
use std::io::{BufRead, Read, Write};
use std::process::ExitCode;
use toolgate::config::{Layer, LayerText};
use toolgate::{Action, Decision, Engine, Policy};

#[path = "cli/args.rs"]
mod args;
#[path = "cli/exec.rs"]
mod exec;

use args::{Command, Globals, Parsed};

/// Exit codes, listed in the help and the README.
mod exit {
    /// Every call was allowed (or the command succeeded).
    pub const OK: u8 = 0;
    /// An error that stops the command: an unreadable input file or
    /// configuration (a policy fault on a call is that call's confirm).
    pub const ERROR: u8 = 1;
    /// Bad command-line usage.
    pub const USAGE: u8 = 2;
    /// `check`: some input lines were malformed (their error objects are in the output).
    pub const MALFORMED: u8 = 3;
    /// At least one call needs confirmation (and none was denied).
    pub const CONFIRM: u8 = 10;
    /// `audit verify`, `approvals list`: a record failed verification.
    pub const BROKEN: u8 = 4;
    /// At least one call was denied.
    pub const DENY: u8 = 11;
}

fn main() -> ExitCode {
    let parsed = match args::parse(std::env::args_os().skip(1)) {
        Ok(parsed) => parsed,
        Err(args::UsageError(message)) => {
            eprintln!("toolgate: usage error: {message}\nTry 'toolgate --help'.");
            return ExitCode::from(exit::USAGE);
        }
    };
    let result = match parsed {
        Parsed::Help(text) => print(&text),
        Parsed::Version(globals) => load_policy(&globals)
            .and_then(|policy| Ok(policy.version()?))
            .and_then(|version| print(&format!("toolgate {version}\n"))),
        // `exec --confine-only` needs no policy; `exec` loads it to decide.
        Parsed::Run(
            globals,
            Command::Exec {
                config,
                json,
                confine_only,
                writable,
                line,
            },
        ) => exec::exec(
            &globals,
            &exec::Exec {
                config: config.as_deref(),
                json,
                confine_only,
                writable,
                line: &line,
            },
        ),
        Parsed::Run(globals, command) => {
            load_policy(&globals).and_then(|policy| run(&policy, &command))
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::from(exit::OK);
            }
            eprintln!("toolgate: error: {e:#}");
            ExitCode::from(exit::ERROR)
        }
    }
}

fn print(text: &str) -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(exit::OK)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The memory the component declares as its maximum (`policy/component/build.rs`),
/// and so the cap in Node: the CLI lets the component use all of it, so an input
/// faults in this CLI exactly when it faults in the JavaScript one.
const COMPONENT_MAX_MEMORY: usize = 256 * 1024 * 1024;

fn load_policy(globals: &Globals) -> anyhow::Result<Policy> {
    let mut builder = Policy::builder().max_memory(COMPONENT_MAX_MEMORY);
    if let Some(path) = &globals.component {
        builder = builder.component_file(path);
    }
    if globals.no_cache {
        builder = builder.no_cache();
    }
    Ok(builder.build()?)
}

/// Why a file could not be read, in words both CLIs use (the runtimes' own
/// texts differ).
fn io_reason(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file or directory",
        ErrorKind::PermissionDenied => "permission denied",
        ErrorKind::IsADirectory => "is a directory",
        ErrorKind::NotADirectory => "not a directory",
        _ => "read error",
    }
}

/// `cannot read WHAT: REASON`, for an input that cannot be read.
fn unreadable(what: &str, e: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("cannot read {what}: {}", io_reason(e))
}

/// The engine for `--config`: the file's text goes to the component as it is,
/// which reads JSON and TOML by content, so both CLIs read a file alike
/// whatever its name.
fn engine(policy: &Policy, config: Option<&str>) -> anyhow::Result<Engine> {
    let text = match config {
        Some(path) => read_text(Some(path))?,
        None => String::from("{}"),
    };
    policy.engine(&text).with_context(|| match config {
        Some(path) => format!("configuration {path}"),
        None => String::from("default configuration"),
    })
}

/// A whole input's bytes: a file, or standard input for `None` and `-`, with
/// the name errors give it.
fn read_bytes(path: Option<&str>) -> anyhow::Result<(Vec<u8>, String)> {
    match path {
        Some(path) if path != "-" => {
            let bytes = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
            Ok((bytes, path.to_owned()))
        }
        _ => {
            let what = String::from("standard input");
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| unreadable(&what, &e))?;
            Ok((bytes, what))
        }
    }
}

/// Reads a whole file, or standard input for `None` and `-`. Input that is not
/// UTF-8 is an error (worded as in the JavaScript CLI), never guessed at.
fn read_text(path: Option<&str>) -> anyhow::Result<String> {
    let (bytes, what) = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("cannot read {what}: not valid UTF-8"))
}

fn run(policy: &Policy, command: &Command) -> anyhow::Result<u8> {
    if let Command::McpProxy { .. } = command {
        // Standard output is the MCP client's pipe: the gateway writes it
        // from its own thread, so this one must not hold its lock.
        return mcp(policy, command, &mut std::io::sink());
    }
    let mut out = std::io::stdout().lock();
    match command {
        Command::Assess {
            config,
            json,
            context,
            tool,
            args_json,
        } => {
            let engine = engine(policy, config.as_deref())?;
            let context = context_text(&engine, context)?;
            let args = if args_json == "-" {
                read_text(None)?
            } else {
                args_json.clone()
            };
            let decision = match &context {
                Some(context) => engine.assess_in(tool, &args, context),
                None => engine.assess(tool, &args),
            };
            if decision.has_finding("args.invalid") {
                eprintln!(
                    "toolgate: note: ARGS_JSON is not a JSON object; the policy answers \
                     confirm, as it would for a model's malformed arguments"
                );
            }
            if *json {
                writeln!(out, "{}", decision.to_json())?;
            } else {
                write!(out, "{}", render(&decision))?;
            }
            out.flush()?;
            Ok(exit_for(&[decision.action]))
        }
        Command::Check {
            config,
            context,
            file,
        } => {
            let engine = engine(policy, config.as_deref())?;
            let context = context_text(&engine, context)?;
            check(&engine, context.as_deref(), file.as_deref(), &mut out)
        }
        Command::Discover {
            config,
            category,
            limit,
            intent,
        } => {
            let limit = match limit {
                Some(text) => whole_number(text, "--limit", u64::from(u32::MAX))
                    .and_then(|n| u32::try_from(n).map_err(anyhow::Error::from))?,
                None => 0,
            };
            let engine = engine(policy, config.as_deref())?;
            for candidate in engine.discover(intent, category.as_deref(), limit)? {
                writeln!(
                    out,
                    "{}",
                    toolgate_shapes::jsonl::escape_controls(&candidate.to_json())
                )?;
            }
            out.flush()?;
            Ok(exit::OK)
        }
        Command::ToolPrompt {
            config,
            lang,
            tools,
        } => {
            let engine = engine(policy, config.as_deref())?;
            let text = engine.tool_prompt(tools, lang)?;
            write!(out, "{text}")?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
            out.flush()?;
            Ok(exit::OK)
        }
        Command::BuildRequest {
            config,
            context,
            now,
            tool,
            args_json,
        } => {
            let now = match now {
                Some(text) => whole_number(text, "--now", MAX_NOW_MS)?,
                None => std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                    .unwrap_or(0),
            };
            let engine = engine(policy, config.as_deref())?;
            let context = context_text(&engine, context)?;
            let args = if args_json == "-" {
                read_text(None)?
            } else {
                args_json.clone()
            };
            let built = engine
                .complete_args(tool, &args, context.as_deref().unwrap_or_default(), now)
                .and_then(|completed| engine.build_request(tool, &completed));
            match built {
                Ok(request) => {
                    writeln!(
                        out,
                        "{}",
                        toolgate_shapes::jsonl::escape_controls(&request.to_json())
                    )?;
                    out.flush()?;
                    Ok(exit::OK)
                }
                Err(toolgate::registry::RequestError::Refused(findings)) => anyhow::bail!(
                    "no request for {}: {}",
                    args::printable(tool),
                    findings_text(&findings)
                ),
                Err(toolgate::registry::RequestError::Policy(e)) => Err(e.into()),
            }
        }
        Command::ReadResponse {
            config,
            status,
            tool,
            file,
        } => {
            let status = match status {
                Some(text) => whole_number(text, "--status", 599)
                    .ok()
                    .filter(|n| *n >= 100)
                    .and_then(|n| u16::try_from(n).ok())
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "--status {}: give an HTTP status code from 100 to 599",
                            args::printable(text)
                        )
                    })?,
                None => 200,
            };
            let engine = engine(policy, config.as_deref())?;
            let body = read_text(file.as_deref())?;
            match engine.read_tool_response(tool, status, &body)? {
                Ok(result) => {
                    writeln!(out, "{result}")?;
                    out.flush()?;
                    Ok(exit::OK)
                }
                Err(error) => anyhow::bail!("the response is an error: {error}"),
            }
        }
        Command::Hook { config, format } => Ok(hook(policy, config.as_deref(), format)),
        Command::Augment {
            config,
            format,
            file,
        } => {
            let engine = engine(policy, config.as_deref())?;
            let tools = read_text(file.as_deref())?;
            let augmented = engine.augment_tools(&tools, format.as_deref())?;
            writeln!(out, "{}", augmented.tools)?;
            out.flush()?;
            for note in &augmented.notes {
                eprintln!("toolgate: note: {note}");
            }
            Ok(exit::OK)
        }
        Command::ImportOpenapi {
            file,
            only,
            exclude,
            category,
        } => {
            let text = read_text(file.as_deref())?;
            let options = toolgate::openapi::ImportOptions {
                only: only.clone(),
                exclude: exclude.clone(),
                category: category.clone(),
            };
            let imported = toolgate::openapi::import(policy, &text, &options)?;
            let output = serde_json::json!({
                "tools": imported.tools,
                "definitions": imported.definitions,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&output)?)?;
            out.flush()?;
            for line in &imported.report {
                eprintln!("{line}");
            }
            Ok(exit::OK)
        }
        Command::ConfigExplain {
            managed,
            project,
            user,
        } => {
            let mut layers = Vec::new();
            for (layer, path) in [
                (Layer::Managed, managed),
                (Layer::Project, project),
                (Layer::User, user),
            ] {
                if let Some(path) = path {
                    layers.push(LayerText {
                        layer,
                        config: read_text(Some(path))?,
                    });
                }
            }
            let merged = policy.layer_config(&layers)?;
            for line in &merged.explain {
                writeln!(out, "{line}")?;
            }
            Ok(exit::OK)
        }
        Command::ConfigCheck { file } => {
            let text = read_text(Some(file))?;
            policy
                .engine(&text)
                .with_context(|| format!("configuration {file}"))?;
            // What the configuration says against itself (seed 002's own
            // example is such a text) is told, and the check still passes.
            let read = policy.layer_config(&[LayerText {
                layer: Layer::Project,
                config: text,
            }])?;
            for line in read.explain.iter().filter(|l| l.starts_with("warning: ")) {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "ok")?;
            Ok(exit::OK)
        }
        Command::Guidance { lang } => {
            write!(out, "{}", policy.guidance(lang)?)?;
            Ok(exit::OK)
        }
        Command::AuditVerify {
            file,
            key_file,
            head,
        } => {
            let log = read_text(Some(file))?;
            let keyed = key_file.is_some();
            let verified = match key_file {
                Some(path) => policy.verify_audit_keyed(&log, &read_key(path)?),
                None => policy.verify_audit(&log),
            };
            if let (Ok(_), Some(head)) = (&verified, head) {
                // The anchored head must be one of the log's record hashes.
                let anchored = log.lines().any(|line| {
                    serde_json::from_str::<serde_json::Value>(line)
                        .ok()
                        .and_then(|v| v.get("hash").and_then(|h| h.as_str()).map(|h| h == head))
                        .unwrap_or(false)
                });
                if !anchored {
                    writeln!(
                        out,
                        "broken: the head {} kept elsewhere is not in the log: it was cut or rewritten",
                        args::printable(head)
                    )?;
                    return Ok(exit::BROKEN);
                }
            }
            match verified {
                Ok(summary) => {
                    writeln!(
                        out,
                        "ok: {} records, head {}",
                        summary.records, summary.head
                    )?;
                    // Whether the chain is keyed, on standard error: what a
                    // verification proves depends on it.
                    eprintln!("toolgate: {}", keyed_note(keyed));
                    Ok(exit::OK)
                }
                Err(toolgate::AuditError::Broken { line, reason }) => {
                    writeln!(out, "broken: line {line}: {reason}")?;
                    Ok(exit::BROKEN)
                }
                Err(other) => Err(other.into()),
            }
        }
        Command::ApprovalsList {
            dir,
            key_file,
            unsigned,
        } => {
            let key = match key_file {
                Some(path) => Some(read_key(path)?),
                None => None,
            };
            let mut builder =
                toolgate::Gate::builder(policy).store(toolgate::gate::store::DirStore::new(dir));
            if let Some(key) = key {
                builder = builder.key(key);
            } else if *unsigned {
                builder = builder.unsigned();
            }
            let gate = builder.build()?;
            let mut refused = false;
            for item in gate.pending()? {
                match item {
                    // Controls and separators escaped: what a person reads
                    // is what the record holds.
                    Ok(request) => writeln!(
                        out,
                        "{}",
                        toolgate_shapes::jsonl::escape_controls(&serde_json::to_string(&request)?)
                    )?,
                    Err(toolgate::GateError::Checkpoint { id, source }) => {
                        refused = true;
                        let error = serde_json::json!({ "id": id, "error": source.to_string() });
                        writeln!(out, "{error}")?;
                    }
                    Err(other) => return Err(other.into()),
                }
            }
            Ok(if refused { exit::BROKEN } else { exit::OK })
        }
        Command::ApprovalsAnswer {
            dir,
            id,
            approve,
            message,
        } => approvals_answer(policy, dir, id, *approve, message.clone(), &mut out),
        Command::GrantsList { dir, key_file } => {
            let gate = toolgate::Gate::builder(policy)
                .store(toolgate::gate::store::DirStore::new(dir))
                .key(read_key(key_file)?)
                .build()?;
            let mut refused = false;
            for listed in gate.grants()? {
                let id = serde_json::to_string(&listed.id)?;
                match (&listed.grant, &listed.refused) {
                    (Some(grant), _) => writeln!(
                        out,
                        "{{\"id\":{id},\"grant\":{}}}",
                        toolgate_shapes::jsonl::escape_controls(&serde_json::to_string(grant)?)
                    )?,
                    (None, why) => {
                        refused = true;
                        let why = serde_json::to_string(why.as_deref().unwrap_or_default())?;
                        writeln!(out, "{{\"id\":{id},\"error\":{why}}}")?;
                    }
                }
            }
            Ok(if refused { exit::BROKEN } else { exit::OK })
        }
        Command::McpProxy { .. } | Command::McpPinsList { .. } | Command::McpPinsApprove { .. } => {
            mcp(policy, command, &mut out)
        }
        // Answered before a policy is loaded (see `main`).
        Command::Exec { .. } => Ok(exit::USAGE),
        Command::GrantsRevoke {
            dir,
            id,
            key_file,
            audit,
            audit_key_file,
        } => {
            let mut builder = toolgate::Gate::builder(policy)
                .store(toolgate::gate::store::DirStore::new(dir))
                .key(read_key(key_file)?);
            if let Some(log) = audit {
                builder = builder.audit(
                    toolgate::gate::audit::JsonlSink::open(log)
                        .map_err(|e| anyhow::anyhow!("cannot open {log}: {e}"))?,
                );
            }
            if let Some(file) = audit_key_file {
                builder = builder.audit_key(read_key(file)?);
            }
            let gate = builder.build()?;
            if !gate.revoke(id)? {
                anyhow::bail!("no grant `{}` in {}", args::printable(id), dir);
            }
            writeln!(out, "revoked {}", args::printable(id))?;
            Ok(exit::OK)
        }
    }
}

/// A path given by an option, or the default file in the state directory.
#[cfg(feature = "mcp")]
fn state_file(
    given: Option<&str>,
    default: &str,
    option: &str,
) -> anyhow::Result<std::path::PathBuf> {
    match given {
        Some(path) => Ok(std::path::PathBuf::from(path)),
        None => toolgate::mcp::state_dir()
            .map(|dir| dir.join(default))
            .ok_or_else(|| anyhow::anyhow!("no state directory (neither XDG_STATE_HOME nor HOME is set): give {option} FILE")),
    }
}

/// The MCP gateway's commands.
#[cfg(feature = "mcp")]
fn mcp(policy: &Policy, command: &Command, out: &mut impl Write) -> anyhow::Result<u8> {
    use toolgate::mcp::{pins::Pins, DEFAULT_APPROVALS, DEFAULT_AUDIT, DEFAULT_PINS};
    match command {
        Command::McpProxy {
            config,
            name,
            augment,
            audit,
            pins,
            listen,
            token_file,
            allow_origin,
            remote,
            remote_token_file,
            approvals,
            audit_results,
            command,
            args,
        } => {
            let audit_results_full = match audit_results.as_deref() {
                None | Some("hash") => false,
                Some("full") => true,
                Some(other) => anyhow::bail!(
                    "--audit-results {}: give hash (the default) or full",
                    args::printable(other)
                ),
            };
            let config = match config {
                Some(path) => read_text(Some(path))?,
                None => String::from("{}"),
            };
            if *remote && !args.is_empty() {
                anyhow::bail!("with --remote, COMMAND is the server's URL and takes no arguments");
            }
            if !*remote && remote_token_file.is_some() {
                anyhow::bail!("--remote-token-file is for --remote");
            }
            if listen.is_none() && (token_file.is_some() || !allow_origin.is_empty()) {
                anyhow::bail!("--token-file and --allow-origin are for --listen");
            }
            let listen = match listen {
                Some(addr) => Some(toolgate::mcp::listen::Listen {
                    addr: addr.parse().map_err(|e| {
                        anyhow::anyhow!("--listen {addr}: {e} (give IP:PORT, e.g. 127.0.0.1:8931)")
                    })?,
                    token: token_file.as_deref().map(read_token).transpose()?,
                    origins: allow_origin.clone(),
                }),
                None => None,
            };
            let remote = if *remote {
                if !(command.starts_with("http://") || command.starts_with("https://")) {
                    anyhow::bail!("with --remote, COMMAND must be an http:// or https:// URL");
                }
                Some(toolgate::mcp::remote::Remote {
                    url: command.clone(),
                    token: remote_token_file.as_deref().map(read_token).transpose()?,
                })
            } else {
                None
            };
            let options = toolgate::mcp::Options {
                config,
                name: name.clone(),
                augment: *augment,
                audit: state_file(audit.as_deref(), DEFAULT_AUDIT, "--audit")?,
                pins: state_file(pins.as_deref(), DEFAULT_PINS, "--pins")?,
                audit_results_full,
                // By default beside the audit log.
                approvals: match approvals {
                    Some(dir) => std::path::PathBuf::from(dir),
                    None => {
                        let audit = state_file(audit.as_deref(), DEFAULT_AUDIT, "--audit")?;
                        audit
                            .parent()
                            .map_or_else(
                                || std::path::PathBuf::from("."),
                                std::path::Path::to_path_buf,
                            )
                            .join(DEFAULT_APPROVALS)
                    }
                },
                command: command.clone(),
                args: args.clone(),
                remote,
                listen,
            };
            Ok(toolgate::mcp::run(policy, options)?)
        }
        Command::McpPinsList { pins } => {
            let path = state_file(pins.as_deref(), DEFAULT_PINS, "--pins")?;
            let pins = Pins::load(&path)?;
            for (server, tools) in &pins.servers {
                for (tool, pin) in tools {
                    let line = serde_json::json!({
                        "server": server,
                        "tool": tool,
                        "hash": pin.hash,
                        "changed": pin.changed.as_ref().map(|c| &c.hash),
                    });
                    writeln!(out, "{line}")?;
                }
            }
            Ok(exit::OK)
        }
        Command::McpPinsApprove { pins, server, tool } => {
            let path = state_file(pins.as_deref(), DEFAULT_PINS, "--pins")?;
            let mut all = Pins::load(&path)?;
            if all.approve(server, tool, &path)? {
                all.save(&path)?;
                writeln!(
                    out,
                    "approved the new definition of {} of {}",
                    args::printable(tool),
                    args::printable(server)
                )?;
            } else {
                writeln!(
                    out,
                    "{} of {} has no changed definition to approve",
                    args::printable(tool),
                    args::printable(server)
                )?;
            }
            Ok(exit::OK)
        }
        _ => Ok(exit::USAGE),
    }
}

/// The MCP gateway's commands, in a build without them.
#[cfg(not(feature = "mcp"))]
fn mcp(_: &Policy, _: &Command, _: &mut impl Write) -> anyhow::Result<u8> {
    anyhow::bail!("this toolgate was built without the `mcp` feature")
}

/// A key file's bytes (one trailing newline ignored); an empty or short key
/// is an error, never a key.
fn read_key(path: &str) -> anyhow::Result<Vec<u8>> {
    let mut key = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
    if key.last() == Some(&b'\n') {
        key.pop();
        if key.last() == Some(&b'\r') {
            key.pop();
        }
    }
    if key.len() < toolgate::gate::MIN_KEY_LEN {
        anyhow::bail!(
            "the key file {} holds {} bytes; a key has at least {} \
             (make one with `head -c 32 /dev/urandom > key`)",
            path,
            key.len(),
            toolgate::gate::MIN_KEY_LEN
        );
    }
    Ok(key)
}

/// `approvals approve|reject DIR ID`: the person's answer to a call the MCP
/// gateway left pending, signed with the directory's key for the gateway to
/// settle when the client calls again.
#[cfg(feature = "mcp")]
fn approvals_answer(
    policy: &Policy,
    dir: &str,
    id: &str,
    approve: bool,
    message: Option<String>,
    out: &mut impl Write,
) -> anyhow::Result<u8> {
    use toolgate::mcp::answers;
    let root = std::path::Path::new(dir);
    let key_path = root.join(answers::KEY_FILE);
    let key =
        std::fs::read(&key_path).map_err(|e| unreadable(&key_path.display().to_string(), &e))?;
    let gate = toolgate::Gate::builder(policy)
        .store(toolgate::gate::store::DirStore::new(dir))
        .unsigned()
        .build()?;
    let Some(pending) = gate.pending()?.into_iter().flatten().find(|p| p.id == id) else {
        anyhow::bail!(
            "no approval {} is pending in {dir} (answered, expired, or never asked)",
            args::printable(id)
        );
    };
    let by = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| String::from("a person"));
    let verdict = if approve {
        answers::Verdict::Approve
    } else {
        answers::Verdict::Reject
    };
    answers::write(
        root,
        &key,
        id,
        verdict,
        message,
        &by,
        &pending.tool,
        &pending.args,
    )?;
    writeln!(
        out,
        "{} {} ({} {}): the client's next call of it with the same arguments {}",
        if approve { "approved" } else { "rejected" },
        args::printable(id),
        args::printable(&pending.tool),
        toolgate_shapes::jsonl::escape_controls(&pending.args),
        if approve {
            "runs it, if the policy still allows it"
        } else {
            "is answered rejected"
        }
    )?;
    Ok(exit::OK)
}

/// The gateway's approvals, in a build without it.
#[cfg(not(feature = "mcp"))]
fn approvals_answer(
    _: &Policy,
    _: &str,
    _: &str,
    _: bool,
    _: Option<String>,
    _: &mut impl Write,
) -> anyhow::Result<u8> {
    anyhow::bail!("this toolgate was built without the `mcp` feature")
}

/// A bearer token's file: one line of at least 16 visible ASCII characters
/// (one trailing newline ignored); anything else is an error, never a token.
#[cfg(feature = "mcp")]
fn read_token(path: &str) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, &e))?;
    let token = text.strip_suffix('\n').unwrap_or(&text);
    let token = token.strip_suffix('\r').unwrap_or(token);
    if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        anyhow::bail!(
            "the token file {path} must hold one token of at least 16 visible ASCII characters \
             (make one with `head -c 24 /dev/urandom | base64 > token`)"
        );
    }
    Ok(token.to_owned())
}

/// The human-readable form of a decision (identical in the JavaScript bin).
fn render(d: &Decision) -> String {
    let mut text = format!(
        "{} · risk {} · source {}",
        d.action.as_str(),
        d.risk.as_str(),
        d.source.as_str()
    );
    if let Some(claimed) = d.llm_risk {
        text.push_str(&format!(" · model said {}", claimed.as_str()));
    }
    text.push('\n');
    text.push_str(&d.summary);
    text.push('\n');
    for finding in &d.findings {
        text.push_str(&format!("  {:<24} {}\n", finding.code, finding.message));
    }
    text
}

/// The exit code for a set of decided actions: deny beats confirm beats allow.
fn exit_for(actions: &[Action]) -> u8 {
    if actions.contains(&Action::Deny) {
        exit::DENY
    } else if actions.contains(&Action::Confirm) {
        exit::CONFIRM
    } else {
        exit::OK
    }
}

/// Answers one hook event from standard input, always in the agent's
/// shape: when no engine can be made (a missing or refused configuration)
/// or the policy faults, the component's `hook-unconfigured` answers "ask"
/// with the error, exit 0, so the agent asks a person instead of blocking
/// every tool (exit 2) or running it on its own permissions. Only an unknown
/// format is a usage error.
fn hook(policy: &Policy, config: Option<&str>, format: &str) -> u8 {
    let answer = match read_bytes(None) {
        Ok((event, _)) => match engine(policy, config) {
            Ok(engine) => match engine.hook(format, &event) {
                Err(toolgate::Error::Rejected(message)) => Err(toolgate::Error::Rejected(message)),
                Err(fault) => policy.hook_unconfigured(format, &fault.to_string()),
                answer => answer,
            },
            Err(e) => policy.hook_unconfigured(format, &format!("{e:#}")),
        },
        Err(e) => policy.hook_unconfigured(format, &format!("{e:#}")),
    };
    match answer {
        Ok(answer) => {
            if let Some(error) = &answer.error {
                eprintln!("{error}");
            }
            let mut out = std::io::stdout().lock();
            // A closed pipe leaves the agent without an answer; there is no one
            // left to tell.
            let _ = writeln!(out, "{}", answer.output).and_then(|()| out.flush());
            answer.exit
        }
        Err(toolgate::Error::Rejected(message)) => {
            eprintln!("toolgate: usage error: {message}\nTry 'toolgate --help'.");
            exit::USAGE
        }
        Err(fault) => {
            eprintln!("toolgate: error: {fault}");
            exit::USAGE
        }
    }
}

/// The largest `--now` every CLI takes exactly: JavaScript's numbers hold
/// whole numbers up to 2^53 - 1 (about 285,000 years after 1970).
const MAX_NOW_MS: u64 = (1 << 53) - 1;

/// An option's value as a whole number from 0 to `max`: ASCII digits only,
/// worded alike in every CLI.
fn whole_number(text: &str, option: &str, max: u64) -> anyhow::Result<u64> {
    text.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| text.parse::<u64>().ok())
        .flatten()
        .filter(|n| *n <= max)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{option} {}: give a whole number from 0 to {max}",
                args::printable(text)
            )
        })
}

/// Reasons as `code: message`, joined by `; `.
fn findings_text(findings: &[toolgate::Finding]) -> String {
    findings
        .iter()
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// An id given on the command line as JSON: a whole number written as one
/// (`1`), anything else a string (`"db-01"`).
fn id_json(text: &str) -> String {
    let number = text == "0"
        || (text.starts_with(|c: char| matches!(c, '1'..='9'))
            && text.bytes().all(|b| b.is_ascii_digit()));
    if number {
        text.to_owned()
    } else {
        serde_json::Value::from(text).to_string()
    }
}

/// The caller's context the command line gives, as the component reads it
/// (`None` when it gives none). The flags make one context, JSON written
/// here; with `--context FILE` too, the two go as a list, `[FILE, flags]`,
/// which the component merges (a flag's field replaces the file's; a
/// group is added to the file's resources and defaults), so the file's
/// text reaches the component as written, and what a file holds is read
/// by one reader in every CLI. The file alone and the whole are each
/// checked by the component first: a context it cannot read is an error
/// naming the file, as a configuration is.
fn context_text(engine: &Engine, given: &args::ContextArgs) -> anyhow::Result<Option<String>> {
    let strings = |items: &[String]| {
        let quoted: Vec<String> = items
            .iter()
            .map(|s| serde_json::Value::from(s.as_str()).to_string())
            .collect();
        format!("[{}]", quoted.join(","))
    };
    let mut fields = Vec::new();
    if let Some(permissions) = &given.permissions {
        fields.push(format!("\"permissions\":{}", strings(permissions)));
    }
    if let Some(roles) = &given.roles {
        fields.push(format!("\"roles\":{}", strings(roles)));
    }
    if let Some(groups) = &given.groups {
        let ids: Vec<String> = groups.iter().map(|g| id_json(g)).collect();
        fields.push(format!(
            "\"resources\":{{\"group_id\":[{}]}}",
            ids.join(",")
        ));
    }
    if let Some(group) = &given.default_group {
        fields.push(format!("\"defaults\":{{\"group_id\":{}}}", id_json(group)));
    }
    let flags = (!fields.is_empty()).then(|| format!("{{{}}}", fields.join(",")));
    let file = match &given.file {
        Some(path) => {
            let text = read_text(Some(path))?;
            context_error(engine, &text)
                .map_or(Ok(()), |e| Err(anyhow::anyhow!("context {path}: {e}")))?;
            // Blank by JSON's reading (the component's empty context).
            let blank = text
                .bytes()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            (!blank).then_some((path.as_str(), text))
        }
        None => None,
    };
    let whole = match (file, flags) {
        (None, None) => return Ok(None),
        (Some((_, text)), None) => return Ok(Some(text)),
        (None, Some(flags)) => (String::from("context"), flags),
        (Some((path, text)), Some(flags)) => {
            (format!("context {path}"), format!("[{text},{flags}]"))
        }
    };
    let (what, text) = whole;
    if let Some(e) = context_error(engine, &text) {
        anyhow::bail!("{what}: {e}");
    }
    Ok(Some(text))
}

/// Why the component cannot read a context, in its own words; `None` when
/// it can.
fn context_error(engine: &Engine, context: &str) -> Option<String> {
    engine
        .assess_in("", "{}", context)
        .findings
        .into_iter()
        .find(|f| f.code == "context.invalid")
        .map(|f| f.message)
}

/// Decides every call of a JSON Lines input, in the caller's context when
/// one is given. Each line's bytes go to the component, which says whether
/// it is blank, malformed or a call, and what to print: one crossing per
/// line, and the same bytes in every runtime.
fn check(
    engine: &Engine,
    context: Option<&str>,
    file: Option<&str>,
    out: &mut impl Write,
) -> anyhow::Result<u8> {
    let (reader, what): (Box<dyn BufRead>, String) = match file {
        Some(path) if path != "-" => (
            Box::new(std::io::BufReader::new(
                std::fs::File::open(path).map_err(|e| unreadable(path, &e))?,
            )),
            path.to_owned(),
        ),
        _ => (
            Box::new(std::io::stdin().lock()),
            String::from("standard input"),
        ),
    };
    let mut actions = Vec::new();
    let mut counts = [0usize; 3];
    let mut malformed = 0usize;
    for (index, bytes) in reader.split(b'\n').enumerate() {
        let bytes = bytes.map_err(|e| unreadable(&what, &e))?;
        let number = u64::try_from(index).unwrap_or(u64::MAX).saturating_add(1);
        let checked = match context {
            Some(context) => engine.check_line_in(number, &bytes, context),
            None => engine.check_line(number, &bytes),
        };
        let Some(checked) = checked else {
            continue;
        };
        writeln!(out, "{}", checked.output)?;
        let Some(action) = checked.action else {
            malformed += 1;
            continue;
        };
        let slot = match action {
            Action::Allow => 0,
            Action::Confirm => 1,
            Action::Deny => 2,
        };
        if let Some(count) = counts.get_mut(slot) {
            *count += 1;
        }
        actions.push(action);
    }
    out.flush()?;
    let [allow, confirm, deny] = counts;
    eprintln!(
        "toolgate: {} calls: {allow} allow, {confirm} confirm, {deny} deny; {malformed} malformed lines",
        allow + confirm + deny
    );
    Ok(if malformed > 0 {
        exit::MALFORMED
    } else {
        exit_for(&actions)
    })
}

/// What `audit verify` proved, by whether the chain was checked with a key.
fn keyed_note(keyed: bool) -> &'static str {
    if keyed {
        "the chain is keyed: every hash is an HMAC under the key file, so nobody without \
         it can rewrite the log and recompute the chain"
    } else {
        "the chain was checked unkeyed: anyone who can write the log can erase a record and \
         recompute every hash after it; a gate with a key keys its chain with it (verify with \
         --key-file)"
    }
}
