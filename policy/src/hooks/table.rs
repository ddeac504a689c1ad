//! Each agent's tools as toolgate calls: a data table per format, and the
//! resolution of an event's tool onto a built-in assessor, a configured MCP
//! tool, or the tool's own name.
//!
//! The agents' tools do not declare toolgate's `risk_level` parameter, so a
//! `risk_level` found in their input was not the model's answer to toolgate's
//! guidance: it is dropped rather than trusted.

use crate::codes;
use crate::config::{Config, ToolKind};
use serde_json::{Map, Value};

/// What an agent's tool is, for toolgate.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    /// A shell command line (`execute_command`) in the named field.
    Command {
        /// The input field holding the command line.
        field: &'static str,
    },
    /// A file operation (`file_operations`) on the path in the first of
    /// `fields` present.
    File {
        /// The operation, as `file_operations` names it.
        operation: &'static str,
        /// The input fields that may hold the path, in order.
        fields: &'static [&'static str],
        /// Whether a missing path means the working directory (a search or
        /// listing "here") rather than an unreadable call.
        here: bool,
    },
    /// A search of the files under a path (`execute_command`, as the
    /// ripgrep command line the tool amounts to): the agents' search tools
    /// are ripgrep or work as it does, reading every file under the path
    /// (or, for a file-name search, listing them), so they meet the same
    /// proofs as `rg` and `grep -r`: a parent of secret locations
    /// (`/home/u`, `/etc`) or a glob that picks secret files (`.env`) is
    /// confirmed where `rg` over it would be.
    Search {
        /// The input field holding the regular expression searched for;
        /// `None` for a file-name search (`rg --files`).
        pattern: Option<&'static str>,
        /// The input fields that may hold the path, in order (missing: the
        /// working directory).
        paths: &'static [&'static str],
        /// The input fields holding file-name globs that narrow the search.
        globs: &'static [&'static str],
        /// The input fields holding ripgrep file types (`--type`).
        types: &'static [&'static str],
    },
    /// An HTTP GET (`http_request`) of the URL in the named field.
    Get {
        /// The input field holding the URL.
        field: &'static str,
    },
    /// Judged under its own name: the configuration decides (a rule, an
    /// auto-approval, a denial), else the policy's default, confirm.
    Own,
    /// One of the agent's own tools that acts on nothing but the agent's
    /// state (its to-do list, a subagent whose every call meets the hook in
    /// turn, a background shell's output or its end): allowed, unless the
    /// configuration names the tool in a denial, an ask or deny rule,
    /// `always_confirm` or strict mode. Modes do not hold it back: planning
    /// (read-only) still keeps a to-do list.
    Agent,
    /// A tool whose prompt is itself a person's decision (approving a plan,
    /// answering the agent's question): the hook gives no opinion, so the
    /// agent asks as it always does; an allow would answer for the person.
    /// Only a denial by the configuration is passed on.
    NoOpinion,
    /// Codex's `apply_patch`: the patch text in the first of `fields`
    /// present; each file it adds, updates, deletes or moves to is judged as
    /// a `file_operations` call, and the answer is the strictest.
    Patch {
        /// The input fields that may hold the patch text, in order.
        fields: &'static [&'static str],
    },
}

/// The tools of the `claude-code` format (its tools reference names them and
/// their input fields). `description`, `timeout` and `run_in_background` of
/// `Bash` change nothing about what the command does, so only `command` is
/// judged.
pub(super) const CLAUDE_CODE: &[(&str, Target)] = &[
    ("Bash", Target::Command { field: "command" }),
    (
        "Read",
        Target::File {
            operation: "read",
            fields: &["file_path"],
            here: false,
        },
    ),
    (
        "Write",
        Target::File {
            operation: "write",
            fields: &["file_path"],
            here: false,
        },
    ),
    (
        "Edit",
        Target::File {
            operation: "edit",
            fields: &["file_path"],
            here: false,
        },
    ),
    (
        "MultiEdit",
        Target::File {
            operation: "edit",
            fields: &["file_path"],
            here: false,
        },
    ),
    (
        "NotebookEdit",
        Target::File {
            operation: "edit",
            fields: &["notebook_path"],
            here: false,
        },
    ),
    (
        "Glob",
        Target::Search {
            pattern: None,
            paths: &["path"],
            globs: &["pattern"],
            types: &[],
        },
    ),
    (
        "Grep",
        Target::Search {
            pattern: Some("pattern"),
            paths: &["path"],
            globs: &["glob"],
            types: &["type"],
        },
    ),
    (
        "LS",
        Target::File {
            operation: "list",
            fields: &["path"],
            here: true,
        },
    ),
    ("WebFetch", Target::Get { field: "url" }),
    ("WebSearch", Target::Own),
    // Its tools reference: the to-do list, subagents, background shells.
    ("TodoWrite", Target::Agent),
    ("Task", Target::Agent),
    ("Agent", Target::Agent),
    ("BashOutput", Target::Agent),
    ("KillShell", Target::Agent),
    ("KillBash", Target::Agent),
    // Approving the plan, answering the agent's questions: a person's.
    ("ExitPlanMode", Target::NoOpinion),
    ("AskUserQuestion", Target::NoOpinion),
];

/// The tools of the `gemini-cli` format (its tools reference: the shell,
/// file-system and web tools). Older releases named some paths `path` or
/// `absolute_path`; both are read.
pub(super) const GEMINI_CLI: &[(&str, Target)] = &[
    ("run_shell_command", Target::Command { field: "command" }),
    (
        "read_file",
        Target::File {
            operation: "read",
            fields: &["file_path", "absolute_path"],
            here: false,
        },
    ),
    (
        "write_file",
        Target::File {
            operation: "write",
            fields: &["file_path"],
            here: false,
        },
    ),
    (
        "replace",
        Target::File {
            operation: "edit",
            fields: &["file_path"],
            here: false,
        },
    ),
    (
        "list_directory",
        Target::File {
            operation: "list",
            fields: &["dir_path", "path"],
            here: true,
        },
    ),
    (
        "glob",
        Target::Search {
            pattern: None,
            paths: &["dir_path", "path"],
            globs: &["pattern"],
            types: &[],
        },
    ),
    (
        "search_file_content",
        Target::Search {
            pattern: Some("pattern"),
            paths: &["dir_path", "path"],
            globs: &["include"],
            types: &[],
        },
    ),
    (
        "grep_search",
        Target::Search {
            pattern: Some("pattern"),
            paths: &["dir_path", "path"],
            globs: &["include"],
            types: &[],
        },
    ),
    ("google_web_search", Target::Own),
    // Its tools reference: the to-do list.
    ("write_todos", Target::Agent),
];

/// The tools of the `codex` format (its hooks reference: the shell reaches
/// the hook as `Bash` with `command`, file edits as `apply_patch` with the
/// patch text, MCP tools as `mcp__SERVER__TOOL`).
pub(super) const CODEX: &[(&str, Target)] = &[
    ("Bash", Target::Command { field: "command" }),
    (
        "apply_patch",
        Target::Patch {
            fields: &["command", "input", "patch"],
        },
    ),
    ("update_plan", Target::Agent),
];

/// The target of an agent's tool in a format's table.
pub(super) fn target(table: &[(&str, Target)], tool: &str) -> Option<Target> {
    table
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, t)| *t)
}

/// The files a Codex patch touches, as `(operation, path)`: `*** Add File:`
/// creates, `*** Update File:` edits, `*** Delete File:` deletes and
/// `*** Move to:` writes the new path (the format of Codex's `apply_patch`
/// tool, `codex-rs/apply-patch`).
pub(super) fn patch_files(patch: &str) -> Vec<(&'static str, String)> {
    const HEADERS: &[(&str, &str)] = &[
        ("*** Add File: ", "create"),
        ("*** Update File: ", "edit"),
        ("*** Delete File: ", "delete"),
        ("*** Move to: ", "write"),
    ];
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim_end_matches('\r');
            HEADERS.iter().find_map(|(header, operation)| {
                line.strip_prefix(header)
                    .map(|path| (*operation, path.trim().to_owned()))
            })
        })
        .collect()
}

/// The `file_operations` calls of a patch's files, each path made absolute
/// against `cwd`.
pub(super) fn patch_calls(
    files: &[(&'static str, String)],
    cwd: Option<&str>,
) -> Result<Vec<Call>, Unresolved> {
    files
        .iter()
        .map(|(operation, path)| {
            let mut args = Map::new();
            args.insert(String::from("operation"), Value::from(*operation));
            args.insert(String::from("path"), Value::from(absolute(path, cwd)?));
            Ok(called("file_operations", args, true))
        })
        .collect()
}

/// The prefix of MCP tool names in both formats: `mcp__SERVER__TOOL`.
const MCP_PREFIX: &str = "mcp__";

/// A toolgate call for an event's tool.
#[derive(Debug, PartialEq)]
pub(super) struct Call {
    /// The tool toolgate judges.
    pub tool: String,
    /// Its arguments.
    pub args: Value,
    /// Whether the tool is mapped or configured; an unknown tool is never
    /// allowed.
    pub known: bool,
}

/// A path that could not be resolved: the message for people.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unresolved(pub String);

/// Resolves an event's tool and input onto a toolgate call.
pub(super) fn resolve(
    table: &[(&str, Target)],
    config: &Config,
    tool: &str,
    input: &Map<String, Value>,
    cwd: Option<&str>,
) -> Result<Call, Unresolved> {
    let mut own = input.clone();
    own.remove("risk_level");
    // A denial of the agent's own tool name holds whatever it maps onto.
    if config.denied_tools.contains(tool) {
        return Ok(called(tool, own, true));
    }
    if let Some(target) = table
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, t)| *t)
    {
        return mapped(target, tool, own, input, cwd);
    }
    if let Some(rest) = tool.strip_prefix(MCP_PREFIX) {
        if let Some(name) = mcp_tool(config, rest, tool) {
            return Ok(called(&name, own, true));
        }
        // Undeclared: judged under the name the MCP gateway gives the same
        // tool, `mcp:SERVER/TOOL`, so a rule, denial or auto-approval written
        // for the gateway's tool holds for the agent's event too (and the
        // agent's own name still applies, as the alias).
        if let Some((server, name)) = rest.split_once("__") {
            if !server.is_empty() && !name.is_empty() {
                return Ok(called(&gateway_name(server, name), own, false));
            }
        }
    }
    Ok(called(tool, own, false))
}

fn called(tool: &str, args: Map<String, Value>, known: bool) -> Call {
    Call {
        tool: tool.to_owned(),
        args: Value::Object(args),
        known,
    }
}

fn mapped(
    target: Target,
    tool: &str,
    own: Map<String, Value>,
    input: &Map<String, Value>,
    cwd: Option<&str>,
) -> Result<Call, Unresolved> {
    let mut args = Map::new();
    let builtin = match target {
        // The agent's own tools and the person's decisions are answered
        // before resolution; judged here under their own name, they can
        // only be confirmed.
        Target::Own | Target::Agent | Target::NoOpinion | Target::Patch { .. } => {
            return Ok(called(tool, own, true))
        }
        Target::Command { field } => {
            if let Some(command) = input.get(field) {
                args.insert(String::from("command"), command.clone());
            }
            "execute_command"
        }
        Target::Search {
            pattern,
            paths,
            globs,
            types,
        } => {
            args.insert(
                String::from("command"),
                search_command(pattern, paths, globs, types, input, cwd)?,
            );
            "execute_command"
        }
        Target::Get { field } => {
            args.insert(String::from("method"), Value::from("GET"));
            if let Some(url) = input.get(field) {
                args.insert(String::from("url"), url.clone());
            }
            "http_request"
        }
        Target::File {
            operation,
            fields,
            here,
        } => {
            args.insert(String::from("operation"), Value::from(operation));
            let given = fields.iter().find_map(|f| input.get(*f));
            let path = match given {
                Some(Value::String(path)) => Some(Value::from(absolute(path, cwd)?)),
                // Not a string: passed as it is, and the file assessor
                // answers confirm for a path it cannot read.
                Some(other) => Some(other.clone()),
                None if here => Some(Value::from(working_directory(cwd)?)),
                None => None,
            };
            if let Some(path) = path {
                args.insert(String::from("path"), path);
            }
            "file_operations"
        }
    };
    Ok(called(builtin, args, true))
}

/// The ripgrep command line a search tool's input amounts to: `rg`
/// (`--files` for a file-name search), a `--glob=` per glob, a `--type=` per
/// type, `-e PATTERN`, `--` and the path, every value single-quoted (a home
/// path keeps its `~` unquoted, so the shell's reading is the tool's). A
/// value that is not a string, or a `~` path the shell would not read as
/// the tool does, is no command line: `null`, which the command assessor
/// refuses (confirm).
fn search_command(
    pattern: Option<&str>,
    paths: &[&str],
    globs: &[&str],
    types: &[&str],
    input: &Map<String, Value>,
    cwd: Option<&str>,
) -> Result<Value, Unresolved> {
    let text = |field: &str| -> Option<Result<&str, ()>> {
        input.get(field).map(|v| v.as_str().ok_or(()))
    };
    let mut line = String::from("rg");
    if pattern.is_none() {
        line.push_str(" --files");
    }
    for (flag, fields) in [("--glob=", globs), ("--type=", types)] {
        for field in fields {
            match text(field) {
                Some(Ok(value)) => {
                    line.push(' ');
                    line.push_str(flag);
                    line.push_str(&quoted(value));
                }
                Some(Err(())) => return Ok(Value::Null),
                None => {}
            }
        }
    }
    if let Some(field) = pattern {
        match text(field) {
            Some(Ok(value)) => {
                line.push_str(" -e ");
                line.push_str(&quoted(value));
            }
            // No pattern: the tool refuses it; so does the assessor.
            _ => return Ok(Value::Null),
        }
    }
    let path = match paths.iter().find_map(|f| text(f)) {
        Some(Ok(path)) => absolute(path, cwd)?,
        Some(Err(())) => return Ok(Value::Null),
        None => working_directory(cwd)?,
    };
    let Some(path) = shell_path(&path) else {
        return Ok(Value::Null);
    };
    line.push_str(" -- ");
    line.push_str(&path);
    Ok(Value::from(line))
}

/// `value` as one single-quoted shell word.
fn quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// A path as a shell word the shell reads as the tool does: quoted, but a
/// leading `~` or `~user` left bare so the shell expands it as the tool
/// does; `None` for a `~` prefix that is not a plain user name.
fn shell_path(path: &str) -> Option<String> {
    let Some(rest) = path.strip_prefix('~') else {
        return Some(quoted(path));
    };
    let (user, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if !user
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return None;
    }
    Some(if tail.is_empty() {
        format!("~{user}")
    } else {
        format!("~{user}{}", quoted(tail))
    })
}

/// The configured MCP tool `SERVER__TOOL` names: a tool of kind `mcp` whose
/// `server` is SERVER, configured under TOOL or under the full name.
/// The name the MCP gateway gives tool `name` of server `server` (the
/// gateway's `--name`), as `host-rs/src/mcp/declare.rs` writes it.
fn gateway_name(server: &str, name: &str) -> String {
    format!("mcp:{server}/{name}")
}

fn mcp_tool(config: &Config, rest: &str, full: &str) -> Option<String> {
    let (server, name) = rest.split_once("__")?;
    let gateway = gateway_name(server, name);
    config
        .tools
        .iter()
        .find(|(configured, settings)| {
            (configured.as_str() == name
                || configured.as_str() == full
                || configured.as_str() == gateway)
                && config.kind_of(configured) == Some(ToolKind::Mcp)
                && settings.server.as_deref() == Some(server)
        })
        .map(|(configured, _)| configured.clone())
}

/// Whether a path is absolute on a POSIX or Windows system. `~` paths are
/// the tools' own shorthand for the home directory and are not joined.
fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('~')
        || path.starts_with("\\\\")
        || matches!(bytes, [drive, b':', b'\\' | b'/', ..] if drive.is_ascii_alphabetic())
}

/// The working directory, which must be absolute to stand for a path.
fn working_directory(cwd: Option<&str>) -> Result<String, Unresolved> {
    match cwd {
        Some(cwd) if is_absolute(cwd) && !cwd.starts_with('~') => Ok(cwd.to_owned()),
        Some(_) => Err(Unresolved(String::from(
            "the event's cwd is not an absolute path",
        ))),
        None => Err(Unresolved(String::from("the event carries no cwd"))),
    }
}

/// `path` made absolute against the event's working directory.
fn absolute(path: &str, cwd: Option<&str>) -> Result<String, Unresolved> {
    if is_absolute(path) {
        return Ok(path.to_owned());
    }
    let base = working_directory(cwd)
        .map_err(|Unresolved(why)| Unresolved(format!("relative path '{path}', and {why}")))?;
    let separator = if base.ends_with(['/', '\\']) { "" } else { "/" };
    Ok(format!("{base}{separator}{path}"))
}

/// The finding code of an unresolved path, for the decision that confirms it.
pub(super) const UNRESOLVED_CODE: &str = codes::HOOK_CWD;
