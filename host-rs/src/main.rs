//! `toolgate`: the policy on the command line.
//!
//! The output of `assess` and `check` is the same, line for line, as that of the
//! JavaScript package's `toolgate` bin; the cross-runtime tests diff them.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolgate::{Action, Decision, Engine, Policy};

/// Exit codes, documented in `--help` and the README.
mod exit {
    /// Every call was allowed (or the command succeeded).
    pub const OK: u8 = 0;
    /// An error: unreadable input file or configuration, a policy fault.
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

const EXIT_CODES: &str = "\
Exit codes:
  0   every call allowed (or the command succeeded)
  1   error: unreadable file or configuration, policy fault
  2   usage error
  3   check: some input lines were malformed (see the error objects in the output)
  4   audit verify, approvals list: a record failed verification
  10  at least one call needs confirmation, none denied
  11  at least one call denied";

/// One risk policy for every LLM tool call: allow, confirm or deny, with reasons.
#[derive(Parser, Debug)]
#[command(name = "toolgate", version, after_help = EXIT_CODES)]
struct Cli {
    /// Load this policy component instead of the embedded one.
    #[arg(long, global = true, value_name = "FILE")]
    component: Option<PathBuf>,

    /// Compile the component now instead of using (or filling) the cache of
    /// compiled components.
    #[arg(long, global = true)]
    no_cache: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Decide one tool call.
    #[command(after_help = EXIT_CODES)]
    Assess {
        #[command(flatten)]
        config: ConfigArg,
        /// Print the decision as JSON.
        #[arg(long)]
        json: bool,
        /// The tool's name, e.g. execute_sql.
        tool: String,
        /// The call's arguments as JSON, exactly as the model sent them; `-` reads
        /// them from standard input.
        #[arg(default_value = "{}")]
        args_json: String,
    },
    /// Decide every call in a JSON Lines file: one {"tool": …, "args": …} a line
    /// (args an object, or a JSON string as OpenAI sends it), or a tool call in
    /// any supported format (OpenAI, Anthropic, MCP, Gemini). Writes one decision
    /// (or error object) a line, in order, and a summary on standard error.
    #[command(after_help = EXIT_CODES)]
    Check {
        #[command(flatten)]
        config: ConfigArg,
        /// The input file; `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Add the optional risk_level parameter to tool definitions (an array, or a
    /// request body with a `tools` array) and print them; tools left alone are
    /// listed on standard error.
    Augment {
        #[command(flatten)]
        config: ConfigArg,
        /// The definitions' format: openai-chat, openai-responses, anthropic, mcp
        /// or gemini; recognised per tool when not given.
        #[arg(long, value_name = "FORMAT")]
        format: Option<String>,
        /// The input file; `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Turn an OpenAPI 3 or Swagger 2 document (JSON or YAML) into registry
    /// entries and tool definitions: prints {"tools": …, "definitions": […]} and
    /// one line per operation (level, method, path, name) on standard error.
    ImportOpenapi {
        /// The document; `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Configuration files.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Audit logs written by an approval gate.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Pending approvals checkpointed by an approval gate.
    #[command(subcommand)]
    Approvals(ApprovalsCommand),
    /// Print the prompt guidance that tells the model how to rate its calls.
    Guidance {
        /// The language: en or zh.
        #[arg(long, default_value = "en")]
        lang: String,
    },
}

#[derive(Subcommand, Debug)]
enum ConfigCommand {
    /// Check a configuration file (JSON, or TOML by its `.toml` extension):
    /// prints `ok` or the error, naming the field and line.
    Check {
        /// The configuration file.
        file: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum AuditCommand {
    /// Verify a JSON Lines audit log: every record's hash, their order and the
    /// chain. Prints the number of records and the head hash (keep it: it also
    /// detects lines cut off the end), or the first broken line (exit 4).
    Verify {
        /// The log; `-` reads standard input.
        file: PathBuf,
        /// A file holding the audit key of a keyed chain (at least 16 bytes;
        /// one trailing newline is ignored): every hash must be its HMAC.
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
        /// The head hash kept elsewhere when the log was last seen: the log
        /// must still end in it or continue from it (lines cut off the end,
        /// or a rewritten history, are reported).
        #[arg(long, value_name = "HASH")]
        head: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
enum ApprovalsCommand {
    /// List the pending approvals in a checkpoint directory (one `<id>.json`
    /// each, as both hosts' file stores write them): one request a line, or an
    /// `{"id", "error"}` object for a checkpoint that is refused (exit 4).
    List {
        /// The directory.
        dir: PathBuf,
        /// A file holding the checkpoint key (at least 16 bytes; make one
        /// with `head -c 32 /dev/urandom > key`); one trailing newline is
        /// ignored. Unsigned and forged checkpoints are refused. An empty or
        /// short key file is an error.
        #[arg(long, value_name = "FILE", required_unless_present = "unsigned")]
        key_file: Option<PathBuf>,
        /// Read checkpoints without checking signatures, on purpose: anyone who
        /// can write the directory can forge what is listed.
        #[arg(long, conflicts_with = "key_file")]
        unsigned: bool,
    },
}

#[derive(Args, Debug)]
struct ConfigArg {
    /// A JSON configuration file (see the README); the default policy without it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            });
        }
    };
    match run(cli) {
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

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn load_policy(cli: &Cli) -> anyhow::Result<Policy> {
    let mut builder = Policy::builder();
    if let Some(path) = &cli.component {
        builder = builder.component_file(path);
    }
    if cli.no_cache {
        builder = builder.no_cache();
    }
    Ok(builder.build()?)
}

/// A configuration file's JSON text: TOML files (by extension) are converted.
fn config_text(path: &Path) -> anyhow::Result<String> {
    let text = read_text(Some(path))?;
    if path.extension().is_some_and(|e| e == "toml") {
        let value: toml::Value = toml::from_str(&text)
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        return Ok(serde_json::to_string(&value)?);
    }
    Ok(text)
}

fn engine(policy: &Policy, config: &ConfigArg) -> anyhow::Result<Engine> {
    let text = match &config.config {
        Some(path) => config_text(path)?,
        None => String::from("{}"),
    };
    policy.engine(&text).with_context(|| match &config.config {
        Some(path) => format!("configuration {}", path.display()),
        None => String::from("default configuration"),
    })
}

/// Reads a whole file, or standard input for `None` and `-`. Input that is not
/// UTF-8 is an error (worded as in the JavaScript CLI), never guessed at.
fn read_text(path: Option<&Path>) -> anyhow::Result<String> {
    let (bytes, what) = match path {
        Some(path) if path != Path::new("-") => {
            let what = path.display().to_string();
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {what}"))?;
            (bytes, what)
        }
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            (bytes, String::from("standard input"))
        }
    };
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("cannot read {what}: not valid UTF-8"))
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    let policy = load_policy(&cli)?;
    let mut out = std::io::stdout().lock();
    match &cli.command {
        Command::Assess {
            config,
            json,
            tool,
            args_json,
        } => {
            let engine = engine(&policy, config)?;
            let args = if args_json == "-" {
                read_text(None)?
            } else {
                args_json.clone()
            };
            let decision = engine.assess(tool, &args);
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
            Ok(exit_for(&[decision.action]))
        }
        Command::Check { config, file } => {
            let engine = engine(&policy, config)?;
            check(&policy, &engine, file.as_deref(), &mut out)
        }
        Command::Augment {
            config,
            format,
            file,
        } => {
            let engine = engine(&policy, config)?;
            let tools = read_text(file.as_deref())?;
            let augmented = engine.augment_tools(&tools, format.as_deref())?;
            writeln!(out, "{}", augmented.tools)?;
            for note in &augmented.notes {
                eprintln!("toolgate: note: {note}");
            }
            Ok(exit::OK)
        }
        Command::ImportOpenapi { file } => {
            let text = read_text(file.as_deref())?;
            let imported = toolgate::openapi::import(&text)?;
            let output = serde_json::json!({
                "tools": imported.tools,
                "definitions": imported.definitions,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&output)?)?;
            let count = |level: char| {
                imported
                    .summary
                    .iter()
                    .filter(|l| l.starts_with(level))
                    .count()
            };
            eprintln!(
                "toolgate: imported {} operations: {} level 1 (query), {} level 2 (modify), {} level 3 (delete)",
                imported.summary.len(),
                count('1'),
                count('2'),
                count('3')
            );
            for line in &imported.summary {
                eprintln!("  {line}");
            }
            Ok(exit::OK)
        }
        Command::Config(ConfigCommand::Check { file }) => {
            let text = config_text(file)?;
            policy
                .engine(&text)
                .with_context(|| format!("configuration {}", file.display()))?;
            writeln!(out, "ok")?;
            Ok(exit::OK)
        }
        Command::Guidance { lang } => {
            write!(out, "{}", policy.guidance(lang)?)?;
            Ok(exit::OK)
        }
        Command::Audit(AuditCommand::Verify {
            file,
            key_file,
            head,
        }) => {
            let log = read_text(Some(file))?;
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
                        toolgate_printable(head)
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
                    Ok(exit::OK)
                }
                Err(toolgate::AuditError::Broken { line, reason }) => {
                    writeln!(out, "broken: line {line}: {reason}")?;
                    Ok(exit::BROKEN)
                }
                Err(other) => Err(other.into()),
            }
        }
        Command::Approvals(ApprovalsCommand::List {
            dir,
            key_file,
            unsigned,
        }) => {
            let key = match key_file {
                Some(path) => Some(read_key(path)?),
                None => None,
            };
            let mut builder =
                toolgate::Gate::builder(&policy).store(toolgate::gate::store::DirStore::new(dir));
            if let Some(key) = key {
                builder = builder.key(key);
            } else if *unsigned {
                builder = builder.unsigned();
            }
            let gate = builder.build()?;
            let mut refused = false;
            for item in gate.pending()? {
                match item {
                    Ok(request) => writeln!(out, "{}", serde_json::to_string(&request)?)?,
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
    }
}

/// A key file's bytes (one trailing newline ignored); an empty or short key
/// is an error, never a key.
fn read_key(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut key = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
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
            path.display(),
            key.len(),
            toolgate::gate::MIN_KEY_LEN
        );
    }
    Ok(key)
}

/// `text` with control characters written as `\u{…}`, for a terminal.
fn toolgate_printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
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

/// The error of a `check` input line that is not UTF-8 (the same in both CLIs).
const NOT_UTF8: &str = "the line is not valid UTF-8";

/// Decides every call of a JSON Lines input. Each line is read by the policy
/// component itself (any supported call format), so every runtime reads it alike.
fn check(
    policy: &Policy,
    engine: &Engine,
    file: Option<&Path>,
    out: &mut impl Write,
) -> anyhow::Result<u8> {
    let reader: Box<dyn BufRead> = match file {
        Some(path) if path != Path::new("-") => Box::new(std::io::BufReader::new(
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
        )),
        _ => Box::new(std::io::stdin().lock()),
    };
    let mut actions = Vec::new();
    let mut counts = [0usize; 3];
    let mut malformed = 0usize;
    for (index, bytes) in reader.split(b'\n').enumerate() {
        let mut bytes = bytes.context("cannot read input")?;
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let number = index + 1;
        // A line that is not UTF-8 is malformed like any other unreadable line:
        // reported, and the lines around it still decided.
        let Ok(line) = String::from_utf8(bytes) else {
            malformed += 1;
            let error = serde_json::json!({ "line": number, "error": NOT_UTF8 });
            writeln!(out, "{error}")?;
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        match policy.parse_call(&line) {
            Ok(call) => {
                let decision = engine.assess(&call.tool, &call.args);
                let slot = match decision.action {
                    Action::Allow => 0,
                    Action::Confirm => 1,
                    Action::Deny => 2,
                };
                if let Some(count) = counts.get_mut(slot) {
                    *count += 1;
                }
                actions.push(decision.action);
                writeln!(out, "{}", decision.to_json())?;
            }
            Err(toolgate::Error::Rejected(reason)) => {
                malformed += 1;
                let error = serde_json::json!({ "line": number, "error": reason });
                writeln!(out, "{error}")?;
            }
            Err(fault) => return Err(fault.into()),
        }
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
