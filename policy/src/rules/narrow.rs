//! The narrowest rules that cover an approved call, for an answer given
//! "for this session" or "always".
//!
//! The generalisation per kind:
//! - command: per segment not proven read-only (all segments when every one
//!   is), the argv up to the first path-like or free argument, then `*`;
//!   the exact argv when that prefix or the program alone is proven
//!   read-only (a reader held back by its arguments: `cat .env`,
//!   `sort -o out in`), for a segment the floor finds
//!   destructive, for a program
//!   that runs other programs (wrappers, shells, interpreters). Nothing when
//!   the line pipes into a shell or interpreter (rules cover segments one by
//!   one, so its parts would recombine), when any segment has a
//!   substitution, expansion, assignment or redirection, or when the line is
//!   not flat.
//! - sql: per statement not proven read-only (all when every one is), its
//!   kind on its tables.
//! - file: the operation on the exact normalised path.
//! - http: the methods, the host and the exact path.
//! - api, mcp and other tools: the tool's name.
//!
//! Every rule names the tool. Nothing is returned when the call is denied,
//! its arguments are not one clean JSON object, or the rules would not let
//! the call run unasked (an ask rule, `always_confirm`, strict or read-only
//! mode): the result is checked against the engine before it is returned.

use super::{Effect, FileMatch, HttpMatch, Rule, SqlMatch};
use crate::assess::facts::{CommandFacts, Facts, FileFacts, HttpFacts, SqlFacts};
use crate::config::ToolKind;
use crate::context::Context;
use crate::decision::Action;
use crate::engine::Engine;

/// Programs that run other programs or code: a grant names them exactly.
const RUNS_OTHERS: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "ssh",
    "env",
    "nohup",
    "nice",
    "ionice",
    "time",
    "timeout",
    "xargs",
    "exec",
    "command",
    "builtin",
    "stdbuf",
    "setsid",
    "chrt",
    "taskset",
    "watch",
    "strace",
    "ltrace",
    "unbuffer",
    "flock",
    "caffeinate",
    "eval",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "busybox",
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "lua",
    "pwsh",
    "powershell",
    "deno",
    "bun",
    "npx",
    "bunx",
    "find",
    "awk",
    "gawk",
    "sed",
    "parallel",
    "script",
    "expect",
    "docker",
    "kubectl",
    "chroot",
    "systemd-run",
];

/// The narrowest rules that, given as allow grants, would let this call run
/// unasked; empty when no grant may (see the module documentation).
pub fn narrowest(engine: &Engine, tool: &str, args: &str) -> Vec<Rule> {
    let rules = candidates(engine, tool, args);
    // Only rules that do let the call run are offered.
    if rules.is_empty()
        || engine
            .assess_granted(tool, args, &Context::default(), &rules)
            .action
            != Action::Allow
    {
        return Vec::new();
    }
    rules
}

/// The generalisation alone, before the engine confirms that the rules let
/// the call run (kept apart so tests can check the generalisation itself).
pub(crate) fn candidates(engine: &Engine, tool: &str, args: &str) -> Vec<Rule> {
    let context = Context::default();
    let Ok(parsed) = crate::args::parse_object(args, engine.config().max_args_bytes) else {
        return Vec::new();
    };
    if engine.assess_granted(tool, args, &context, &[]).action == Action::Deny {
        return Vec::new();
    }
    let kind = engine.config().kind_of(tool);
    let facts = engine.facts_of(tool, &parsed);
    let rule = |command, sql, file, http| Rule {
        effect: Effect::Allow,
        tool: Some(tool.to_owned()),
        command,
        sql,
        file,
        http,
        ..Rule::default()
    };
    let rules: Option<Vec<Rule>> = match (kind, &facts) {
        (Some(ToolKind::Command), Facts::Command(f)) => command(f).map(|all| {
            all.into_iter()
                .map(|w| rule(Some(w), None, None, None))
                .collect()
        }),
        (Some(ToolKind::Sql), Facts::Sql(f)) => sql(f).map(|all| {
            all.into_iter()
                .map(|m| rule(None, Some(m), None, None))
                .collect()
        }),
        (Some(ToolKind::File), Facts::File(f)) => {
            file(f).map(|m| vec![rule(None, None, Some(m), None)])
        }
        (Some(ToolKind::Http), Facts::Http(f)) => {
            http(f).map(|m| vec![rule(None, None, None, Some(m))])
        }
        (Some(ToolKind::Command | ToolKind::Sql | ToolKind::File | ToolKind::Http), _) => None,
        _ => Some(vec![rule(None, None, None, None)]),
    };
    rules.unwrap_or_default()
}

fn command(f: &CommandFacts) -> Option<Vec<Vec<String>>> {
    if !f.flat {
        return None;
    }
    let mut argvs = Vec::new();
    for s in &f.segments {
        if s.redirected || s.assigns {
            return None;
        }
        argvs.push((s.argv.as_ref()?, s.read_only, s.destructive));
    }
    let all_read = argvs.iter().all(|(_, read_only, _)| *read_only);
    // A line that pipes into a shell or interpreter runs what the others
    // print: nothing of it is remembered. Rules cover segments one by one,
    // so even exact rules for `curl URL` and `sh` would later cover
    // `curl URL | sh` with whatever the URL serves then.
    let feeds_code = argvs.iter().any(|(argv, _, _)| {
        argv.first()
            .is_some_and(|p| runs_others(p) && argv.iter().skip(1).all(|w| w.starts_with('-')))
    });
    if feeds_code {
        return None;
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    for (argv, read_only, destructive) in argvs {
        if read_only && !all_read {
            continue;
        }
        let exact = destructive || argv.first().is_some_and(|p| runs_others(p));
        let words = if exact {
            argv.clone()
        } else {
            generalise(argv)
        };
        // A reader (`cat`, `grep`) not proven read-only is held back by its
        // arguments (a secret path, an output option): those are named.
        let words = match words.split_last() {
            Some((last, head)) if last == "*" && (reads(head) || reads(argv.get(..1)?)) => {
                argv.clone()
            }
            _ => words,
        };
        if !out.contains(&words) {
            out.push(words);
        }
    }
    Some(out)
}

/// Whether an argv alone is proven read-only: a reader, whose other uses
/// differ from this one only by their arguments.
fn reads(argv: &[String]) -> bool {
    crate::assess::command::assess_argv(argv).verdict == crate::assess::Verdict::ReadOnly
}

fn runs_others(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    RUNS_OTHERS.contains(&name) || name.starts_with("python")
}

/// The argv up to the first path-like or free argument, then `*`.
fn generalise(argv: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, word) in argv.iter().enumerate() {
        if at == 0 || subcommand(word) || flag(word) {
            out.push(word.clone());
        } else {
            out.push(String::from("*"));
            return out;
        }
    }
    out
}

/// A word that names a subcommand or target (`test`, `build`, `origin`).
fn subcommand(word: &str) -> bool {
    let mut chars = word.chars();
    word.len() <= 32
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | ':'))
        && word != "*"
}

/// A plain option without a value (`-q`, `--release`).
fn flag(word: &str) -> bool {
    let body = word
        .strip_prefix("--")
        .or_else(|| word.strip_prefix('-'))
        .unwrap_or("");
    word.len() <= 32
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && body.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

fn sql(f: &SqlFacts) -> Option<Vec<SqlMatch>> {
    if f.statements.is_empty() {
        return None;
    }
    let all_read = f.statements.iter().all(|s| s.read_only);
    let mut out: Vec<SqlMatch> = Vec::new();
    for s in &f.statements {
        if s.read_only && !all_read {
            continue;
        }
        let kind = s.kind?;
        if !s.clean || s.tables.is_empty() {
            return None;
        }
        let mut tables = Vec::new();
        for t in &s.tables {
            // A name a rule cannot spell (a quoted upper-case name, a dot or a
            // star inside a name) gets no grant.
            let plain = |p: &str| !p.contains('*') && p.to_lowercase() == p;
            if !plain(&t.name) || t.name.contains('.') || !t.schema.as_deref().is_none_or(plain) {
                return None;
            }
            tables.push(t.to_string());
        }
        let m = SqlMatch {
            statements: vec![kind.to_owned()],
            tables,
        };
        if !out.contains(&m) {
            out.push(m);
        }
    }
    Some(out)
}

fn file(f: &FileFacts) -> Option<FileMatch> {
    (f.clean && !f.path.contains('*')).then(|| FileMatch {
        operations: vec![f.operation.clone()],
        paths: vec![f.path.clone()],
    })
}

fn http(f: &HttpFacts) -> Option<HttpMatch> {
    let host = f.host.as_ref().filter(|h| !h.contains('*'))?;
    let path = f.path.as_ref().filter(|p| !p.contains('*'))?;
    if f.methods.iter().any(|m| m == "?") {
        return None;
    }
    let mut methods = f.methods.clone();
    methods.dedup();
    Some(HttpMatch {
        methods,
        hosts: vec![host.clone()],
        paths: vec![path.clone()],
    })
}
