//! The command line's grammar, help and usage errors: one specification that
//! the JavaScript bin (`host-js/bin/toolgate.js`) follows to the byte, so the
//! two CLIs answer every argument list alike (`host-js/test/cli.test.js` runs
//! both over a table of argument lists). The rules, in the order they apply:
//!
//! 1. Every argument must be UTF-8 and must not hold U+FFFD: a runtime that
//!    decodes arguments lossily (Node) turns invalid bytes into U+FFFD, so
//!    refusing both is the one rule both runtimes can keep. Never a guess:
//!    `assess`'s ARGS_JSON with invalid bytes is a usage error, not a call.
//! 2. Arguments are read left to right. `--` ends the options; after it, and
//!    for `-` and anything not starting with `-`, an argument is positional
//!    (the command, its subcommand, then its operands). `-h`/`--help` prints
//!    the help at once (exit 0); arguments after it are not read.
//! 3. Options may stand anywhere before `--`, before or after the command. A
//!    value follows its option (`--config FILE`) or is joined by `=`
//!    (`--config=FILE`); it is taken verbatim and must not be empty. A flag
//!    takes no `=value`. Each option may be given once. Unknown options are
//!    errors.
//! 4. `-V`/`--version` prints `toolgate VERSION`, the policy component's
//!    version (with `--component`, that component's), whatever the command.
//! 5. Then the command: required; its options must be its own or global; its
//!    operands are counted (the first missing one, or the first extra one, is
//!    named).
//!
//! A usage error prints `toolgate: usage error: MESSAGE` and `Try 'toolgate
//! --help'.` on standard error and exits 2; arguments echoed in a message have
//! their control characters written as `\u{…}`.

use std::ffi::OsString;

/// The help text, identical in the JavaScript bin.
pub const HELP: &str = "\
toolgate: one risk policy for every LLM tool call: allow, confirm or deny, with reasons.

Usage: toolgate [OPTIONS] COMMAND [ARGS]

Commands:
  assess [--config FILE] [--json] TOOL [ARGS_JSON]
          Decide one tool call. ARGS_JSON is the call's arguments exactly as the
          model sent them ({} when not given; - reads them from standard input)
  check [--config FILE] [FILE|-]
          Decide every call of a JSON Lines file (standard input when not given):
          one {\"tool\": …, \"args\": …} a line, or a tool call in any supported
          format (OpenAI, Anthropic, MCP, Gemini). One decision (or error object)
          a line, in order; a summary on standard error
  augment [--config FILE] [--format FORMAT] [FILE|-]
          Add the optional risk_level parameter to tool definitions (FORMAT:
          openai-chat, openai-responses, anthropic, mcp, gemini; recognised per
          tool when not given); tools left alone are listed on standard error
  hook [--config FILE] FORMAT
          Answer one coding agent's before-tool hook event, read from standard
          input, in that agent's output shape (FORMAT: claude-code, gemini-cli):
          allow, ask or deny with the summary as the reason, exit 0; an event
          that cannot be read, or a tool with no mapping, is answered ask. Exit
          2 (the agents block the tool) when no answer can be made
  exec [--config FILE] [--json] [--confine-only] [--writable] -- COMMAND_LINE
          Decide a command line as execute_command; if allowed, run it with bash
          inside the confinement (docs/confinement.md), passing its output and
          exit status through; confirm and deny exit as assess does and nothing
          runs. --confine-only runs it confined without deciding, --writable
          (with it) with an approved command's rights; --json prints one result
          object. What the confinement stopped goes to standard error (Rust CLI
          only)
  guidance [--lang en|zh]
          Print the prompt guidance that tells the model how to rate its calls
  audit verify [--key-file FILE] [--head HASH] FILE
          Verify a gate's hash-chained audit log: the record count and head hash,
          or the first broken line (exit 4); --key-file for a keyed chain, --head
          for the head hash kept elsewhere
  import-openapi [--only LIST] [--exclude LIST] [--category NAME] [FILE|-]
          Registry entries and tool definitions from an OpenAPI 3 or Swagger 2
          document, JSON or YAML: the tools and definitions as JSON, a summary
          on standard error. LIST: tags or operation ids, comma-separated
  config check FILE
          Check a configuration file, JSON or TOML (read by its content)
  config explain [--managed FILE] [--user FILE] [FILE]
          Merge the managed, project (FILE) and user layers and print each
          effective setting and rule with the layer it came from
  approvals list (--key-file FILE | --unsigned) DIR
          List the pending approvals of a checkpoint directory (Rust CLI only)
  grants list --key-file FILE DIR
          List the grants (approvals given \"always\") kept in a checkpoint
          directory; a forged, unsigned or expired one is listed with why (exit 4)
  grants revoke --key-file FILE [--audit FILE [--audit-key-file FILE]] DIR ID
          Revoke a grant: no later call is decided with it; --audit appends the
          revocation's record to that audit log (--audit-key-file: a keyed chain)
  mcp-proxy [--config FILE] [--name SERVER] [--augment] [--audit FILE]
            [--pins FILE] -- COMMAND [ARGS...]
          Run an MCP server over stdio with the policy in between: tools/call
          allowed, denied, or confirmed through the client's elicitation; tool
          definitions pinned; --augment adds risk_level to the tools' schemas.
          Audit log and pins file by default in $XDG_STATE_HOME/toolgate
          (~/.local/state/toolgate) (Rust CLI only)
  mcp pins list [--pins FILE]
          List the pinned MCP tools, one JSON object a line; a changed
          definition waits for approval (Rust CLI only)
  mcp pins approve [--pins FILE] SERVER TOOL
          Approve the changed definition of a pinned tool (Rust CLI only)

Options:
  --component FILE  Load this policy component instead of the embedded one
  --no-cache        Compile the component now instead of using the cache of
                    compiled components (the JavaScript CLI keeps none)
  -h, --help        Print this help
  -V, --version     Print the policy's version

Options may stand anywhere before --; a value follows its option or is joined
by = (--config=FILE) and must not be empty; each option may be given once.
After --, every argument is an operand (a TOOL or FILE that starts with -).
Arguments must be UTF-8 and must not hold U+FFFD.

Exit codes:
  0   every call allowed (or the command succeeded)
  1   error: unreadable file or configuration, policy fault
  2   usage error
  3   check: some input lines were malformed (see the error objects in the output)
  4   audit verify, approvals list, grants list: a record failed verification
  10  at least one call needs confirmation, none denied
  11  at least one call denied
";

/// Options valid with every command.
const GLOBAL: &[&str] = &["--component", "--no-cache"];

/// The commands whose last operands are any number of arguments.
const VARIADIC: &[&str] = &["mcp-proxy", "exec"];

/// Every option, and whether it takes a value.
const OPTIONS: &[(&str, bool)] = &[
    ("--component", true),
    ("--no-cache", false),
    ("--config", true),
    ("--json", false),
    ("--format", true),
    ("--lang", true),
    ("--key-file", true),
    ("--head", true),
    ("--unsigned", false),
    ("--only", true),
    ("--exclude", true),
    ("--category", true),
    ("--audit", true),
    ("--audit-key-file", true),
    ("--managed", true),
    ("--user", true),
    ("--name", true),
    ("--augment", false),
    ("--pins", true),
    ("--confine-only", false),
    ("--writable", false),
];

/// What the arguments ask for.
#[derive(Debug)]
pub enum Parsed {
    /// `--help`.
    Help,
    /// `--version`.
    Version(Globals),
    /// A command.
    Run(Globals, Command),
}

/// The options every command takes.
#[derive(Debug, Default)]
pub struct Globals {
    /// `--component FILE`.
    pub component: Option<String>,
    /// `--no-cache`.
    pub no_cache: bool,
}

/// A command and its operands.
#[derive(Debug)]
pub enum Command {
    /// `assess`.
    Assess {
        config: Option<String>,
        json: bool,
        tool: String,
        args_json: String,
    },
    /// `check`.
    Check {
        config: Option<String>,
        file: Option<String>,
    },
    /// `augment`.
    Augment {
        config: Option<String>,
        format: Option<String>,
        file: Option<String>,
    },
    /// `hook`.
    Hook {
        config: Option<String>,
        format: String,
    },
    /// `guidance`.
    Guidance { lang: String },
    /// `import-openapi`.
    ImportOpenapi {
        file: Option<String>,
        /// `--only`: tags or operation ids, comma-separated.
        only: Vec<String>,
        /// `--exclude`: tags or operation ids, comma-separated.
        exclude: Vec<String>,
        /// `--category`.
        category: Option<String>,
    },
    /// `config check`.
    ConfigCheck { file: String },
    /// `config explain`.
    ConfigExplain {
        /// `--managed`: the organisation's layer.
        managed: Option<String>,
        /// The project's layer.
        project: Option<String>,
        /// `--user`: the user's layer.
        user: Option<String>,
    },
    /// `audit verify`.
    AuditVerify {
        file: String,
        key_file: Option<String>,
        head: Option<String>,
    },
    /// `grants list`.
    GrantsList { dir: String, key_file: String },
    /// `grants revoke`.
    GrantsRevoke {
        dir: String,
        id: String,
        key_file: String,
        audit: Option<String>,
        audit_key_file: Option<String>,
    },
    /// `approvals list`.
    ApprovalsList {
        dir: String,
        key_file: Option<String>,
        unsigned: bool,
    },
    /// `mcp-proxy`.
    McpProxy {
        config: Option<String>,
        /// `--name`: the server's name for the policy.
        name: Option<String>,
        augment: bool,
        audit: Option<String>,
        pins: Option<String>,
        /// The server's program and its arguments.
        command: String,
        args: Vec<String>,
    },
    /// `exec`.
    Exec {
        config: Option<String>,
        json: bool,
        /// `--confine-only`: run without deciding.
        confine_only: bool,
        /// `--writable`: an approved command's rights.
        writable: bool,
        /// The operands after `--`, joined by spaces: the line bash runs.
        line: String,
    },
    /// `mcp pins list`.
    McpPinsList { pins: Option<String> },
    /// `mcp pins approve`.
    McpPinsApprove {
        pins: Option<String>,
        server: String,
        tool: String,
    },
}

/// A usage error's message.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

fn usage<T>(message: String) -> Result<T, UsageError> {
    Err(UsageError(message))
}

/// `text` with control characters written as `\u{…}`, for a terminal.
pub fn printable(text: &str) -> String {
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

/// One command's shape: its name, options, required and optional operands.
struct Shape {
    name: &'static str,
    options: &'static [&'static str],
    required: &'static [&'static str],
    optional: &'static [&'static str],
}

fn shape(words: &[String]) -> Result<(Shape, usize), UsageError> {
    let Some(first) = words.first() else {
        return usage(String::from("a command is required"));
    };
    let single = |name, options, required, optional| {
        Ok((
            Shape {
                name,
                options,
                required,
                optional,
            },
            1,
        ))
    };
    let nested = |parent: &str, sub: &'static str, shape: Shape| match words.get(1) {
        None => usage(format!("'{parent}' needs a subcommand: {sub}")),
        Some(word) if word == sub => Ok((shape, 2)),
        Some(word) => usage(format!("unknown command '{parent} {}'", printable(word))),
    };
    let grants = || match words.get(1).map(String::as_str) {
        None => usage(String::from("'grants' needs a subcommand: list or revoke")),
        Some("list") => Ok((
            Shape {
                name: "grants list",
                options: &["--key-file"],
                required: &["DIR"],
                optional: &[],
            },
            2,
        )),
        Some("revoke") => Ok((
            Shape {
                name: "grants revoke",
                options: &["--key-file", "--audit", "--audit-key-file"],
                required: &["DIR", "ID"],
                optional: &[],
            },
            2,
        )),
        Some(word) => usage(format!("unknown command 'grants {}'", printable(word))),
    };
    let mcp = || match words.get(1).map(String::as_str) {
        None => usage(String::from("'mcp' needs a subcommand: pins")),
        Some("pins") => match words.get(2).map(String::as_str) {
            None => usage(String::from(
                "'mcp pins' needs a subcommand: list or approve",
            )),
            Some("list") => Ok((
                Shape {
                    name: "mcp pins list",
                    options: &["--pins"],
                    required: &[],
                    optional: &[],
                },
                3,
            )),
            Some("approve") => Ok((
                Shape {
                    name: "mcp pins approve",
                    options: &["--pins"],
                    required: &["SERVER", "TOOL"],
                    optional: &[],
                },
                3,
            )),
            Some(word) => usage(format!("unknown command 'mcp pins {}'", printable(word))),
        },
        Some(word) => usage(format!("unknown command 'mcp {}'", printable(word))),
    };
    match first.as_str() {
        "assess" => single("assess", &["--config", "--json"], &["TOOL"], &["ARGS_JSON"]),
        "check" => single("check", &["--config"], &[], &["FILE"]),
        "augment" => single("augment", &["--config", "--format"], &[], &["FILE"]),
        "hook" => single("hook", &["--config"], &["FORMAT"], &[]),
        "guidance" => single("guidance", &["--lang"], &[], &[]),
        "import-openapi" => single(
            "import-openapi",
            &["--only", "--exclude", "--category"],
            &[],
            &["FILE"],
        ),
        "config" => match words.get(1).map(String::as_str) {
            None => usage(String::from(
                "'config' needs a subcommand: check or explain",
            )),
            Some("check") => Ok((
                Shape {
                    name: "config check",
                    options: &[],
                    required: &["FILE"],
                    optional: &[],
                },
                2,
            )),
            Some("explain") => Ok((
                Shape {
                    name: "config explain",
                    options: &["--managed", "--user"],
                    required: &[],
                    optional: &["FILE"],
                },
                2,
            )),
            Some(word) => usage(format!("unknown command 'config {}'", printable(word))),
        },
        "audit" => nested(
            "audit",
            "verify",
            Shape {
                name: "audit verify",
                options: &["--key-file", "--head"],
                required: &["FILE"],
                optional: &[],
            },
        ),
        "approvals" => nested(
            "approvals",
            "list",
            Shape {
                name: "approvals list",
                options: &["--key-file", "--unsigned"],
                required: &["DIR"],
                optional: &[],
            },
        ),
        "grants" => grants(),
        "mcp-proxy" => single(
            "mcp-proxy",
            &["--config", "--name", "--augment", "--audit", "--pins"],
            &["COMMAND"],
            &[],
        ),
        "mcp" => mcp(),
        "exec" => single(
            "exec",
            &["--config", "--json", "--confine-only", "--writable"],
            &["COMMAND_LINE"],
            &[],
        ),
        other => usage(format!("unknown command '{}'", printable(other))),
    }
}

/// Reads the arguments after the program's name.
pub fn parse(raw: impl IntoIterator<Item = OsString>) -> Result<Parsed, UsageError> {
    let mut args = Vec::new();
    for (index, arg) in raw.into_iter().enumerate() {
        match arg.into_string() {
            Ok(text) if !text.contains('\u{fffd}') => args.push(text),
            _ => {
                return usage(format!(
                    "argument {} is not valid UTF-8 or holds U+FFFD",
                    index + 1
                ))
            }
        }
    }
    let mut given: Vec<(&'static str, Option<String>)> = Vec::new();
    let mut positional = Vec::new();
    let mut version = false;
    let mut ended = false;
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        if ended || arg == "-" || !arg.starts_with('-') {
            positional.push(arg);
            continue;
        }
        if arg == "--" {
            ended = true;
            continue;
        }
        if arg == "-h" || arg == "--help" {
            return Ok(Parsed::Help);
        }
        if arg == "-V" || arg == "--version" {
            if version {
                return usage(String::from("option '--version' given more than once"));
            }
            version = true;
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if arg.starts_with("--") => {
                (name.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let Some(&(name, takes_value)) = OPTIONS.iter().find(|(known, _)| *known == name) else {
            return usage(format!("unknown option '{}'", printable(&name)));
        };
        let value = if takes_value {
            match inline.or_else(|| rest.next()) {
                Some(value) if !value.is_empty() => Some(value),
                _ => return usage(format!("option '{name}' needs a value")),
            }
        } else if inline.is_some() {
            return usage(format!("option '{name}' takes no value"));
        } else {
            None
        };
        if given.iter().any(|(seen, _)| *seen == name) {
            return usage(format!("option '{name}' given more than once"));
        }
        given.push((name, value));
    }
    let option = |name: &str| {
        given
            .iter()
            .find(|(seen, _)| *seen == name)
            .map(|(_, value)| value.clone())
    };
    let globals = Globals {
        component: option("--component").flatten(),
        no_cache: option("--no-cache").is_some(),
    };
    if version {
        return Ok(Parsed::Version(globals));
    }
    let (shape, words) = shape(&positional)?;
    for (name, _) in &given {
        if !GLOBAL.contains(name) && !shape.options.contains(name) {
            return usage(format!(
                "option '{name}' does not apply to '{}'",
                shape.name
            ));
        }
    }
    let operands = positional.get(words..).unwrap_or_default();
    if let Some(missing) = shape.required.get(operands.len()) {
        return usage(format!("'{}' needs {missing}", shape.name));
    }
    // `mcp-proxy`'s operands after COMMAND are the server's arguments.
    let variadic = VARIADIC.contains(&shape.name);
    if let Some(extra) = operands
        .get(shape.required.len() + shape.optional.len())
        .filter(|_| !variadic)
    {
        return usage(format!("unexpected argument '{}'", printable(extra)));
    }
    let operand = |index: usize| operands.get(index).cloned();
    let config = option("--config").flatten();
    let command = match shape.name {
        "assess" => Command::Assess {
            config,
            json: option("--json").is_some(),
            tool: operand(0).unwrap_or_default(),
            args_json: operand(1).unwrap_or_else(|| String::from("{}")),
        },
        "check" => Command::Check {
            config,
            file: operand(0),
        },
        "augment" => Command::Augment {
            config,
            format: option("--format").flatten(),
            file: operand(0),
        },
        "hook" => Command::Hook {
            config,
            format: operand(0).unwrap_or_default(),
        },
        "guidance" => Command::Guidance {
            lang: option("--lang")
                .flatten()
                .unwrap_or_else(|| String::from("en")),
        },
        "import-openapi" => {
            let list = |name: &str| -> Vec<String> {
                option(name)
                    .flatten()
                    .map(|v| {
                        v.split(',')
                            .map(str::trim)
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            Command::ImportOpenapi {
                file: operand(0),
                only: list("--only"),
                exclude: list("--exclude"),
                category: option("--category").flatten(),
            }
        }
        "config explain" => Command::ConfigExplain {
            managed: option("--managed").flatten(),
            project: operand(0),
            user: option("--user").flatten(),
        },
        "config check" => Command::ConfigCheck {
            file: operand(0).unwrap_or_default(),
        },
        "audit verify" => Command::AuditVerify {
            file: operand(0).unwrap_or_default(),
            key_file: option("--key-file").flatten(),
            head: option("--head").flatten(),
        },
        "mcp-proxy" => Command::McpProxy {
            config,
            name: option("--name").flatten(),
            augment: option("--augment").is_some(),
            audit: option("--audit").flatten(),
            pins: option("--pins").flatten(),
            command: operand(0).unwrap_or_default(),
            args: operands.get(1..).unwrap_or_default().to_vec(),
        },
        "exec" => {
            let confine_only = option("--confine-only").is_some();
            let writable = option("--writable").is_some();
            if writable && !confine_only {
                return usage(String::from("'--writable' needs --confine-only"));
            }
            Command::Exec {
                config,
                json: option("--json").is_some(),
                confine_only,
                writable,
                line: operands.join(" "),
            }
        }
        "mcp pins list" => Command::McpPinsList {
            pins: option("--pins").flatten(),
        },
        "mcp pins approve" => Command::McpPinsApprove {
            pins: option("--pins").flatten(),
            server: operand(0).unwrap_or_default(),
            tool: operand(1).unwrap_or_default(),
        },
        "grants list" | "grants revoke" => {
            // Stored grants are always signed: no key, no grants.
            let Some(key_file) = option("--key-file").flatten() else {
                return usage(format!("'{}' needs --key-file FILE", shape.name));
            };
            if option("--audit-key-file").is_some() && option("--audit").is_none() {
                return usage(String::from("'--audit-key-file' needs --audit FILE"));
            }
            if shape.name == "grants list" {
                Command::GrantsList {
                    dir: operand(0).unwrap_or_default(),
                    key_file,
                }
            } else {
                Command::GrantsRevoke {
                    dir: operand(0).unwrap_or_default(),
                    id: operand(1).unwrap_or_default(),
                    key_file,
                    audit: option("--audit").flatten(),
                    audit_key_file: option("--audit-key-file").flatten(),
                }
            }
        }
        _ => {
            let key_file = option("--key-file").flatten();
            let unsigned = option("--unsigned").is_some();
            if key_file.is_some() && unsigned {
                return usage(String::from(
                    "'approvals list' takes --key-file FILE or --unsigned, not both",
                ));
            }
            if key_file.is_none() && !unsigned {
                return usage(String::from(
                    "'approvals list' needs --key-file FILE or --unsigned",
                ));
            }
            Command::ApprovalsList {
                dir: operand(0).unwrap_or_default(),
                key_file,
                unsigned,
            }
        }
    };
    Ok(Parsed::Run(globals, command))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Parsed, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    fn error(args: &[&str]) -> String {
        match parse_strs(args) {
            Err(UsageError(message)) => message,
            Ok(parsed) => panic!("{args:?} parsed as {parsed:?}"),
        }
    }

    #[test]
    fn grants_take_a_key_and_their_operands() {
        assert_eq!(
            error(&["grants"]),
            "'grants' needs a subcommand: list or revoke"
        );
        assert_eq!(error(&["grants", "show"]), "unknown command 'grants show'");
        assert_eq!(
            error(&["grants", "list", "d"]),
            "'grants list' needs --key-file FILE"
        );
        assert_eq!(
            error(&["grants", "revoke", "--key-file", "k", "d"]),
            "'grants revoke' needs ID"
        );
        assert_eq!(
            error(&["grants", "list", "--audit", "a", "--key-file", "k", "d"]),
            "option '--audit' does not apply to 'grants list'"
        );
        assert!(matches!(
            parse_strs(&["grants", "revoke", "--audit=a", "--key-file", "k", "d", "g-1"]),
            Ok(Parsed::Run(_, Command::GrantsRevoke { ref id, ref audit, .. }))
                if id == "g-1" && audit.as_deref() == Some("a")
        ));
    }

    #[test]
    fn mcp_commands_take_the_server_command_after_the_double_dash() {
        assert!(matches!(
            parse_strs(&["mcp-proxy", "--augment", "--name", "fs", "--", "node", "s.js", "--root", "/tmp"]),
            Ok(Parsed::Run(_, Command::McpProxy { ref command, ref args, augment: true, ref name, .. }))
                if command == "node" && args == &["s.js", "--root", "/tmp"] && name.as_deref() == Some("fs")
        ));
        assert_eq!(error(&["mcp-proxy"]), "'mcp-proxy' needs COMMAND");
        assert_eq!(error(&["mcp"]), "'mcp' needs a subcommand: pins");
        assert_eq!(error(&["mcp", "tools"]), "unknown command 'mcp tools'");
        assert_eq!(
            error(&["mcp", "pins"]),
            "'mcp pins' needs a subcommand: list or approve"
        );
        assert_eq!(
            error(&["mcp", "pins", "approve", "fs"]),
            "'mcp pins approve' needs TOOL"
        );
        assert_eq!(
            error(&["mcp", "pins", "list", "--augment"]),
            "option '--augment' does not apply to 'mcp pins list'"
        );
    }

    #[test]
    fn exec_takes_the_line_after_the_double_dash() {
        assert!(matches!(
            parse_strs(&["exec", "--json", "--", "ls", "-la", "--json"]),
            Ok(Parsed::Run(_, Command::Exec { ref line, json: true, confine_only: false, .. }))
                if line == "ls -la --json"
        ));
        assert!(matches!(
            parse_strs(&["exec", "--confine-only", "--writable", "--", "make"]),
            Ok(Parsed::Run(
                _,
                Command::Exec {
                    confine_only: true,
                    writable: true,
                    ..
                }
            ))
        ));
        assert_eq!(error(&["exec"]), "'exec' needs COMMAND_LINE");
        assert_eq!(
            error(&["exec", "--writable", "--", "make"]),
            "'--writable' needs --confine-only"
        );
        assert_eq!(
            error(&["exec", "--format", "x", "--", "ls"]),
            "option '--format' does not apply to 'exec'"
        );
    }

    #[test]
    fn usage_errors_name_the_problem() {
        assert_eq!(error(&[]), "a command is required");
        assert_eq!(error(&["frobnicate"]), "unknown command 'frobnicate'");
        assert_eq!(error(&["assess"]), "'assess' needs TOOL");
        assert_eq!(
            error(&["assess", "a", "{}", "x"]),
            "unexpected argument 'x'"
        );
        assert_eq!(
            error(&["assess", "--json", "--json", "a"]),
            "option '--json' given more than once"
        );
        assert_eq!(
            error(&["check", "--config="]),
            "option '--config' needs a value"
        );
        assert_eq!(
            error(&["check", "--config"]),
            "option '--config' needs a value"
        );
        assert_eq!(
            error(&["check", "--json"]),
            "option '--json' does not apply to 'check'"
        );
        assert_eq!(
            error(&["check", "--json=1"]),
            "option '--json' takes no value"
        );
        assert_eq!(error(&["check", "--bogus=1"]), "unknown option '--bogus'");
        assert_eq!(error(&["audit"]), "'audit' needs a subcommand: verify");
        assert_eq!(error(&["audit", "list"]), "unknown command 'audit list'");
        assert_eq!(
            error(&["approvals", "list", "d"]),
            "'approvals list' needs --key-file FILE or --unsigned"
        );
        assert_eq!(error(&["x\u{7}"]), "unknown command 'x\\u{7}'");
    }

    #[test]
    fn operands_after_the_double_dash() {
        let Ok(Parsed::Run(
            _,
            Command::Assess {
                tool,
                args_json,
                json,
                ..
            },
        )) = parse_strs(&["assess", "--json", "--", "-t", "--json"])
        else {
            panic!("not an assess");
        };
        assert_eq!(
            (tool.as_str(), args_json.as_str(), json),
            ("-t", "--json", true)
        );
    }

    #[test]
    fn help_wins_where_it_stands_and_version_ignores_the_command() {
        assert!(matches!(
            parse_strs(&["assess", "--help", "--bogus"]),
            Ok(Parsed::Help)
        ));
        assert_eq!(error(&["--bogus", "--help"]), "unknown option '--bogus'");
        assert!(matches!(parse_strs(&["--version"]), Ok(Parsed::Version(_))));
        assert!(matches!(
            parse_strs(&["nonsense", "-V"]),
            Ok(Parsed::Version(_))
        ));
        // After --, --help is an operand.
        assert!(matches!(
            parse_strs(&["assess", "--", "--help"]),
            Ok(Parsed::Run(_, Command::Assess { .. }))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn arguments_that_are_not_utf8_are_refused() {
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(b"{\"sql\":\"\xff\"}".to_vec());
        let parsed = parse([OsString::from("assess"), OsString::from("execute_sql"), bad]);
        assert_eq!(
            parsed.err(),
            Some(UsageError(String::from(
                "argument 3 is not valid UTF-8 or holds U+FFFD"
            )))
        );
        assert_eq!(
            error(&["assess", "x", "\u{fffd}"]),
            "argument 3 is not valid UTF-8 or holds U+FFFD"
        );
    }
}
