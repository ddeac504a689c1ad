//! The command line's grammar, help and usage errors, derived from the one
//! declaration every CLI reads: `shapes/cli.json` (`toolgate_shapes::cli`). The
//! JavaScript bin (`host-js/bin/toolgate.js`) and the Python CLI
//! (`host-py/src/toolgate/cli.py`) follow the same rules over the same file, so
//! the three answer every argument list alike (their parity tests run them
//! over a table of argument lists). The rules, in the order they apply:
//!
//! 1. Every argument must be UTF-8 and must not hold U+FFFD: a runtime that
//!    decodes arguments lossily (Node) turns invalid bytes into U+FFFD, so
//!    refusing both is the one rule every runtime can keep. Never a guess:
//!    `assess`'s ARGS_JSON with invalid bytes is a usage error, not a call.
//! 2. Arguments are read left to right. `--` ends the options; after it, and
//!    for `-` and anything not starting with `-`, an argument is positional
//!    (the command's words, then its operands). An option whose action is
//!    `help` prints the help at once (exit 0); arguments after it are not read.
//! 3. Options may stand anywhere before `--`, before or after the command. A
//!    value follows its option (`--config FILE`) or is joined by `=`
//!    (`--config=FILE`); it is taken verbatim and must not be empty. A flag
//!    takes no `=value`. Each option may be given once. Unknown options are
//!    errors.
//! 4. The `version` action prints `toolgate VERSION`, the policy component's
//!    version (with `--component`, that component's), whatever the command.
//! 5. Then the command: required; its words are matched against the declared
//!    commands' (a parent word needs a subcommand); its options must be its own
//!    or global; its operands are counted (the first missing one, or the first
//!    extra one, is named); then, in declaration order, its required options,
//!    its `one_of` groups and each option's `requires`.
//!
//! A usage error is printed as the grammar's `errors.report` says (standard
//! error, exit 2); arguments echoed in a message have their control characters
//! written as `\u{…}`.

use std::ffi::OsString;
use toolgate_shapes::cli::{Action, CommandSpec, Grammar, OptionSpec};

/// What the arguments ask for.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "made once per process, from the command line"
)]
pub enum Parsed {
    /// `--help`: the help text.
    Help(String),
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
        /// `--context`, `--permissions`, `--roles`, `--groups`.
        context: ContextArgs,
        tool: String,
        args_json: String,
    },
    /// `check`.
    Check {
        config: Option<String>,
        context: ContextArgs,
        file: Option<String>,
    },
    /// `discover`.
    Discover {
        config: Option<String>,
        category: Option<String>,
        /// `--limit N`, as given (checked when run).
        limit: Option<String>,
        intent: String,
    },
    /// `tool-prompt`.
    ToolPrompt {
        config: Option<String>,
        lang: String,
        tools: Vec<String>,
    },
    /// `build-request`.
    BuildRequest {
        config: Option<String>,
        /// `--context` and `--default-group`.
        context: ContextArgs,
        /// `--now MS`, as given (checked when run).
        now: Option<String>,
        tool: String,
        args_json: String,
    },
    /// `read-response`.
    ReadResponse {
        config: Option<String>,
        /// `--status CODE`, as given (checked when run).
        status: Option<String>,
        tool: String,
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
    /// `approvals approve` and `approvals reject`.
    ApprovalsAnswer {
        dir: String,
        id: String,
        /// Approve (else reject).
        approve: bool,
        /// `--message`: the rejection's reason for the model.
        message: Option<String>,
    },
    /// `mcp-proxy`.
    McpProxy {
        config: Option<String>,
        /// `--name`: the server's name for the policy.
        name: Option<String>,
        augment: bool,
        audit: Option<String>,
        pins: Option<String>,
        /// `--listen ADDR`: serve clients over Streamable HTTP.
        listen: Option<String>,
        /// `--token-file`: the bearer token HTTP clients must send.
        token_file: Option<String>,
        /// `--allow-origin`: the browser origins allowed.
        allow_origin: Vec<String>,
        /// `--remote`: COMMAND is a Streamable HTTP server's URL.
        remote: bool,
        /// `--remote-token-file`: the bearer token the remote server wants.
        remote_token_file: Option<String>,
        /// `--approvals DIR`: where calls wait for a person's approval.
        approvals: Option<String>,
        /// `--audit-results`: `hash` (the default) or `full`.
        audit_results: Option<String>,
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

/// The caller's context as the command line gives it: a file and the flags
/// that set parts of it (see `context_text` in main.rs).
#[derive(Debug, Default, Clone)]
pub struct ContextArgs {
    /// `--context FILE`.
    pub file: Option<String>,
    /// `--permissions LIST`.
    pub permissions: Option<Vec<String>>,
    /// `--roles LIST`.
    pub roles: Option<Vec<String>>,
    /// `--groups LIST`: the business groups the user owns.
    pub groups: Option<Vec<String>>,
    /// `--default-group ID`: the user's default business group.
    pub default_group: Option<String>,
}

/// A usage error's message.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

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

/// `template` with each `{name}` replaced by its value, in one pass (a value
/// is never read as a hole).
pub fn fill(template: &str, holes: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let hole = after
            .get(1..)
            .and_then(|inner| inner.find('}').map(|close| (inner, close)))
            .and_then(|(inner, close)| {
                let name = inner.get(..close)?;
                let value = holes.iter().find(|(key, _)| *key == name)?.1;
                Some((value, close + 2))
            });
        match hole {
            Some((value, used)) => {
                out.push_str(value);
                rest = after.get(used..).unwrap_or_default();
            }
            None => {
                out.push('{');
                rest = after.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
}

/// The committed grammar; a grammar that does not read is reported as a usage
/// error naming it (the shapes crate's tests read it, so a release never does).
pub fn grammar() -> Result<Grammar, UsageError> {
    Grammar::load().map_err(|e| {
        UsageError(format!(
            "the command line's grammar (shapes/cli.json) cannot be read: {e}"
        ))
    })
}

/// How an option is shown in a synopsis and in messages: `--config FILE`.
fn display(option: &OptionSpec) -> String {
    match &option.value {
        Some(value) => format!("{} {value}", option.name),
        None => option.name.clone(),
    }
}

/// Words laid out after `first`, each line at most `width` characters (a
/// word longer than a line stands alone), continued lines after `indent`.
fn wrap<'a>(
    words: impl IntoIterator<Item = &'a str>,
    first: &str,
    indent: &str,
    width: usize,
) -> String {
    let mut out = String::new();
    let mut line = first.to_owned();
    let mut fresh = true;
    for word in words {
        if !fresh && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}{word}");
        } else {
            if !fresh {
                line.push(' ');
            }
            line.push_str(word);
        }
        fresh = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// A command's synopsis, as groups that stay on one line: each option in
/// brackets unless required, an option that `requires` another inside that
/// one's brackets, a `one_of` group in parentheses, then `--` when its
/// operands follow it, the required operands and the optional ones in brackets.
fn synopsis(command: &CommandSpec) -> Vec<String> {
    let options = &command.options;
    let mut groups = Vec::new();
    for option in options {
        let nested = option
            .requires
            .as_ref()
            .is_some_and(|required| options.iter().any(|o| &o.name == required));
        if nested {
            continue;
        }
        if let Some(group) = command.one_of.iter().find(|g| g.contains(&option.name)) {
            if group.first() == Some(&option.name) {
                let shown: Vec<String> = group
                    .iter()
                    .filter_map(|name| options.iter().find(|o| &o.name == name))
                    .map(display)
                    .collect();
                groups.push(format!("({})", shown.join(" | ")));
            }
            continue;
        }
        let mut inner = display(option);
        for dependent in options
            .iter()
            .filter(|o| o.requires.as_ref() == Some(&option.name))
        {
            inner.push_str(&format!(" [{}]", display(dependent)));
        }
        groups.push(if option.required {
            inner
        } else {
            format!("[{inner}]")
        });
    }
    if command.dashes {
        groups.push(String::from("--"));
    }
    groups.extend(command.operands.iter().cloned());
    groups.extend(command.optional.iter().map(|o| format!("[{o}]")));
    groups
}

/// The help text, laid out from the grammar.
pub fn help(grammar: &Grammar) -> String {
    let width = grammar.width;
    let mut out = format!("{}\n\n{}\n\nCommands:\n", grammar.about, grammar.usage);
    for command in &grammar.commands {
        let groups = synopsis(command);
        out.push_str(&wrap(
            std::iter::once(command.name.as_str()).chain(groups.iter().map(String::as_str)),
            "  ",
            &" ".repeat(12),
            width,
        ));
        let mut text = command.help.clone();
        if let Some([only]) = command.hosts.as_deref() {
            if let Some(host) = grammar.hosts.get(only) {
                text.push_str(&format!(" ({host} only)"));
            }
        }
        let indent = " ".repeat(10);
        out.push_str(&wrap(text.split(' '), &indent, &indent, width));
    }
    out.push_str("\nOptions:\n");
    for option in &grammar.options {
        let left = match &option.short {
            Some(short) => format!("{short}, {}", display(option)),
            None => display(option),
        };
        let text = option.help.as_deref().unwrap_or_default();
        out.push_str(&wrap(
            text.split(' '),
            &format!("  {left:<18}"),
            &" ".repeat(20),
            width,
        ));
    }
    out.push('\n');
    for line in &grammar.notes {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("\nExit codes:\n");
    for exit in &grammar.exits {
        out.push_str(&format!("  {:<4}{}\n", exit.code, exit.help));
    }
    out
}

/// What the grammar's words name: the command and how many words it took.
fn command<'g>(
    grammar: &'g Grammar,
    positional: &[String],
) -> Result<(&'g CommandSpec, usize), UsageError> {
    let errors = &grammar.errors;
    let mut parent = String::new();
    for (index, word) in positional.iter().enumerate() {
        let candidate = if parent.is_empty() {
            word.clone()
        } else {
            format!("{parent} {word}")
        };
        // A word is one word: `'config check'` as one argument names nothing.
        if !word.contains(' ') {
            if let Some(found) = grammar.commands.iter().find(|c| c.name == candidate) {
                return Ok((found, index + 1));
            }
            let prefix = format!("{candidate} ");
            if grammar.commands.iter().any(|c| c.name.starts_with(&prefix)) {
                parent = candidate;
                continue;
            }
        }
        let shown = if parent.is_empty() {
            printable(word)
        } else {
            format!("{parent} {}", printable(word))
        };
        return Err(UsageError(fill(
            &errors.unknown_command,
            &[("command", &shown)],
        )));
    }
    if parent.is_empty() {
        return Err(UsageError(errors.no_command.clone()));
    }
    let prefix = format!("{parent} ");
    let mut subs: Vec<&str> = Vec::new();
    for name in grammar.commands.iter().map(|c| c.name.as_str()) {
        if let Some(sub) = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split(' ').next())
        {
            if !subs.contains(&sub) {
                subs.push(sub);
            }
        }
    }
    Err(UsageError(fill(
        &errors.needs_subcommand,
        &[("command", &parent), ("choices", &subs.join(" or "))],
    )))
}

/// What the arguments give a command, by the grammar's names.
struct Matches {
    given: Vec<(String, Option<String>)>,
    operands: Vec<String>,
}

impl Matches {
    /// An option's value (`None` when not given or a flag).
    fn value(&self, name: &str) -> Option<String> {
        self.given
            .iter()
            .find(|(seen, _)| seen == name)
            .and_then(|(_, value)| value.clone())
    }

    /// Whether an option was given.
    fn flag(&self, name: &str) -> bool {
        self.given.iter().any(|(seen, _)| seen == name)
    }

    /// The operand at `index`.
    fn operand(&self, index: usize) -> Option<String> {
        self.operands.get(index).cloned()
    }
}

/// Reads the arguments after the program's name.
pub fn parse(raw: impl IntoIterator<Item = OsString>) -> Result<Parsed, UsageError> {
    let grammar = grammar()?;
    let errors = &grammar.errors;
    let usage = |template: &str, holes: &[(&str, &str)]| UsageError(fill(template, holes));
    let mut args = Vec::new();
    for (index, arg) in raw.into_iter().enumerate() {
        match arg.into_string() {
            Ok(text) if !text.contains('\u{fffd}') => args.push(text),
            _ => {
                return Err(usage(
                    &errors.not_utf8,
                    &[("index", &(index + 1).to_string())],
                ))
            }
        }
    }
    let global = &grammar.options;
    let every = global
        .iter()
        .chain(grammar.commands.iter().flat_map(|c| c.options.iter()))
        .filter(|o| o.action.is_none());
    let known: Vec<&OptionSpec> = every.collect();
    let mut given: Vec<(String, Option<String>)> = Vec::new();
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
        let action = global
            .iter()
            .find(|o| o.action.is_some() && (o.name == arg || o.short.as_deref() == Some(&arg)));
        if let Some(option) = action {
            match option.action {
                Some(Action::Help) => return Ok(Parsed::Help(help(&grammar))),
                _ => {
                    if version {
                        return Err(usage(&errors.given_twice, &[("name", &option.name)]));
                    }
                    version = true;
                    continue;
                }
            }
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if arg.starts_with("--") => {
                (name.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let Some(option) = known.iter().find(|o| o.name == name) else {
            return Err(usage(
                &errors.unknown_option,
                &[("name", &printable(&name))],
            ));
        };
        let value = if option.value.is_some() {
            match inline.or_else(|| rest.next()) {
                Some(value) if !value.is_empty() => Some(value),
                _ => return Err(usage(&errors.needs_value, &[("name", &name)])),
            }
        } else if inline.is_some() {
            return Err(usage(&errors.takes_no_value, &[("name", &name)]));
        } else {
            None
        };
        if given.iter().any(|(seen, _)| *seen == name) {
            return Err(usage(&errors.given_twice, &[("name", &name)]));
        }
        given.push((name, value));
    }
    let matches = Matches {
        given,
        operands: Vec::new(),
    };
    let globals = Globals {
        component: matches.value("--component"),
        no_cache: matches.flag("--no-cache"),
    };
    if version {
        return Ok(Parsed::Version(globals));
    }
    let (spec, words) = command(&grammar, &positional)?;
    let own = |name: &str| spec.options.iter().find(|o| o.name == name);
    for (name, _) in &matches.given {
        if !global.iter().any(|o| &o.name == name) && own(name).is_none() {
            return Err(usage(
                &errors.not_applicable,
                &[("name", name), ("command", &spec.name)],
            ));
        }
    }
    let operands = positional.get(words..).unwrap_or_default().to_vec();
    if let Some(missing) = spec.operands.get(operands.len()) {
        return Err(usage(
            &errors.needs,
            &[("subject", &spec.name), ("what", missing)],
        ));
    }
    if let Some(extra) = operands
        .get(spec.operands.len() + spec.optional.len())
        .filter(|_| !spec.variadic)
    {
        return Err(usage(
            &errors.unexpected,
            &[("argument", &printable(extra))],
        ));
    }
    for option in spec.options.iter().filter(|o| o.required) {
        if !matches.flag(&option.name) {
            return Err(usage(
                &errors.needs,
                &[("subject", &spec.name), ("what", &display(option))],
            ));
        }
    }
    for group in &spec.one_of {
        let shown: Vec<String> = group.iter().filter_map(|n| own(n)).map(display).collect();
        let choices = shown.join(" or ");
        let count = group.iter().filter(|n| matches.flag(n)).count();
        if count > 1 {
            return Err(usage(
                &errors.not_both,
                &[("subject", &spec.name), ("choices", &choices)],
            ));
        }
        if count == 0 {
            return Err(usage(
                &errors.needs,
                &[("subject", &spec.name), ("what", &choices)],
            ));
        }
    }
    for option in &spec.options {
        let Some(required) = option.requires.as_deref().and_then(own) else {
            continue;
        };
        if matches.flag(&option.name) && !matches.flag(&required.name) {
            return Err(usage(
                &errors.needs,
                &[("subject", &option.name), ("what", &display(required))],
            ));
        }
    }
    let matches = Matches {
        given: matches.given,
        operands,
    };
    Ok(Parsed::Run(globals, build(&spec.name, &matches)?))
}

/// The typed command the Rust host runs, from what the grammar matched.
fn build(name: &str, m: &Matches) -> Result<Command, UsageError> {
    let config = m.value("--config");
    let list = |name: &str| -> Vec<String> {
        m.value(name)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let given_list = |name: &str| m.value(name).map(|_| list(name));
    let context = ContextArgs {
        file: m.value("--context"),
        permissions: given_list("--permissions"),
        roles: given_list("--roles"),
        groups: given_list("--groups"),
        default_group: m.value("--default-group"),
    };
    Ok(match name {
        "assess" => Command::Assess {
            config,
            json: m.flag("--json"),
            context,
            tool: m.operand(0).unwrap_or_default(),
            args_json: m.operand(1).unwrap_or_else(|| String::from("{}")),
        },
        "check" => Command::Check {
            config,
            context,
            file: m.operand(0),
        },
        "discover" => Command::Discover {
            config,
            category: m.value("--category"),
            limit: m.value("--limit"),
            intent: m.operand(0).unwrap_or_default(),
        },
        "tool-prompt" => Command::ToolPrompt {
            config,
            lang: m.value("--lang").unwrap_or_else(|| String::from("en")),
            tools: m.operands.clone(),
        },
        "build-request" => Command::BuildRequest {
            config,
            context,
            now: m.value("--now"),
            tool: m.operand(0).unwrap_or_default(),
            args_json: m.operand(1).unwrap_or_else(|| String::from("{}")),
        },
        "read-response" => Command::ReadResponse {
            config,
            status: m.value("--status"),
            tool: m.operand(0).unwrap_or_default(),
            file: m.operand(1),
        },
        "augment" => Command::Augment {
            config,
            format: m.value("--format"),
            file: m.operand(0),
        },
        "hook" => Command::Hook {
            config,
            format: m.operand(0).unwrap_or_default(),
        },
        "guidance" => Command::Guidance {
            lang: m.value("--lang").unwrap_or_else(|| String::from("en")),
        },
        "import-openapi" => Command::ImportOpenapi {
            file: m.operand(0),
            only: list("--only"),
            exclude: list("--exclude"),
            category: m.value("--category"),
        },
        "config explain" => Command::ConfigExplain {
            managed: m.value("--managed"),
            project: m.operand(0),
            user: m.value("--user"),
        },
        "config check" => Command::ConfigCheck {
            file: m.operand(0).unwrap_or_default(),
        },
        "audit verify" => Command::AuditVerify {
            file: m.operand(0).unwrap_or_default(),
            key_file: m.value("--key-file"),
            head: m.value("--head"),
        },
        "mcp-proxy" => Command::McpProxy {
            config,
            name: m.value("--name"),
            augment: m.flag("--augment"),
            audit: m.value("--audit"),
            pins: m.value("--pins"),
            listen: m.value("--listen"),
            token_file: m.value("--token-file"),
            allow_origin: list("--allow-origin"),
            remote: m.flag("--remote"),
            remote_token_file: m.value("--remote-token-file"),
            approvals: m.value("--approvals"),
            audit_results: m.value("--audit-results"),
            command: m.operand(0).unwrap_or_default(),
            args: m.operands.get(1..).unwrap_or_default().to_vec(),
        },
        "exec" => Command::Exec {
            config,
            json: m.flag("--json"),
            confine_only: m.flag("--confine-only"),
            writable: m.flag("--writable"),
            line: m.operands.join(" "),
        },
        "mcp pins list" => Command::McpPinsList {
            pins: m.value("--pins"),
        },
        "mcp pins approve" => Command::McpPinsApprove {
            pins: m.value("--pins"),
            server: m.operand(0).unwrap_or_default(),
            tool: m.operand(1).unwrap_or_default(),
        },
        "grants list" => Command::GrantsList {
            dir: m.operand(0).unwrap_or_default(),
            key_file: m.value("--key-file").unwrap_or_default(),
        },
        "grants revoke" => Command::GrantsRevoke {
            dir: m.operand(0).unwrap_or_default(),
            id: m.operand(1).unwrap_or_default(),
            key_file: m.value("--key-file").unwrap_or_default(),
            audit: m.value("--audit"),
            audit_key_file: m.value("--audit-key-file"),
        },
        "approvals list" => Command::ApprovalsList {
            dir: m.operand(0).unwrap_or_default(),
            key_file: m.value("--key-file"),
            unsigned: m.flag("--unsigned"),
        },
        "approvals approve" | "approvals reject" => Command::ApprovalsAnswer {
            dir: m.operand(0).unwrap_or_default(),
            id: m.operand(1).unwrap_or_default(),
            approve: name == "approvals approve",
            message: m.value("--message"),
        },
        // Declared, but not a command this CLI runs (the grammar test holds
        // every command declared for the Rust CLI to one of the above).
        other => return Err(UsageError(format!("'{other}' is not implemented"))),
    })
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
            Ok(Parsed::Help(_))
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

    #[test]
    fn every_command_declared_for_this_cli_is_built() {
        let grammar = grammar().unwrap();
        for spec in &grammar.commands {
            let here = spec
                .hosts
                .as_ref()
                .is_none_or(|hosts| hosts.iter().any(|h| h == "rust"));
            let built = build(
                &spec.name,
                &Matches {
                    given: Vec::new(),
                    operands: Vec::new(),
                },
            );
            assert_eq!(built.is_ok(), here, "{}", spec.name);
        }
    }

    #[test]
    fn the_exit_codes_are_the_grammars() {
        let grammar = grammar().unwrap();
        let code = |name: &str| grammar.exits.iter().find(|e| e.name == name).unwrap().code;
        assert_eq!(code("OK"), crate::exit::OK);
        assert_eq!(code("ERROR"), crate::exit::ERROR);
        assert_eq!(code("USAGE"), crate::exit::USAGE);
        assert_eq!(code("MALFORMED"), crate::exit::MALFORMED);
        assert_eq!(code("BROKEN"), crate::exit::BROKEN);
        assert_eq!(code("CONFIRM"), crate::exit::CONFIRM);
        assert_eq!(code("DENY"), crate::exit::DENY);
        assert_eq!(
            grammar.exits.len(),
            7,
            "an exit code the Rust CLI does not name"
        );
    }

    #[test]
    fn the_help_is_laid_out_from_the_grammar() {
        let grammar = grammar().unwrap();
        let text = help(&grammar);
        // Each command's synopsis and description lines fit the width (the
        // about line and the exit codes' table rows are printed as written).
        let body = text
            .split("\nCommands:\n")
            .nth(1)
            .and_then(|rest| rest.split("\nExit codes:\n").next())
            .unwrap();
        for line in body.lines() {
            assert!(line.chars().count() <= grammar.width, "{line}");
        }
        for spec in &grammar.commands {
            assert!(
                text.contains(&format!("\n  {} ", spec.name)),
                "{}",
                spec.name
            );
        }
        assert!(text.contains(
            "  grants revoke --key-file FILE [--audit FILE [--audit-key-file FILE]] DIR ID\n"
        ));
        assert!(text.contains("  approvals list (--key-file FILE | --unsigned) DIR\n"));
        assert!(text.contains(
            "\n            [--approvals DIR] [--audit-results hash|full] -- COMMAND [ARGS...]\n"
        ));
        assert!(text.contains("  -h, --help        Print this help\n"));
        assert!(text.ends_with("  11  at least one call denied\n"));
    }

    #[test]
    fn holes_are_filled_once() {
        assert_eq!(
            fill(
                "'{subject}' needs {what}",
                &[("subject", "{what}"), ("what", "X")]
            ),
            "'{what}' needs X"
        );
        assert_eq!(fill("{unknown} {", &[]), "{unknown} {");
    }

    #[test]
    fn one_word_names_no_command_of_two() {
        assert_eq!(
            error(&["config check", "f"]),
            "unknown command 'config check'"
        );
        assert_eq!(error(&["config", ""]), "unknown command 'config '");
        assert_eq!(error(&["--help=1"]), "unknown option '--help'");
        assert_eq!(
            error(&["-V", "-V"]),
            "option '--version' given more than once"
        );
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
