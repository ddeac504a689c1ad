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
    // The tool's name as a literal: a tool the model named `*` or
    // `execute_*` is granted as itself, never as a glob.
    let rule = |command, sql, file, http| Rule {
        effect: Effect::Allow,
        tool: Some(super::literal_name(tool)),
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
    // Nor any line in which some command runs a program it reads from its
    // standard input, a file descriptor or a file it names (`python3
    // /dev/stdin`, `bash -s`, `source ./env.sh`): a rule names the words,
    // never the program they would run next time.
    if feeds_code || f.everywhere.iter().any(|words| reads_program(words)) {
        return None;
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    for (argv, read_only, destructive) in argvs {
        if read_only && !all_read {
            continue;
        }
        let exact = destructive || argv.first().is_some_and(|p| runs_others(p));
        let (words, prefix) = if exact {
            (argv.clone(), false)
        } else {
            generalise(argv)
        };
        // A reader (`cat`, `grep`) not proven read-only is held back by its
        // arguments (a secret path, an output option): those are named.
        let prefix = prefix && {
            let head = words.get(..words.len().saturating_sub(1)).unwrap_or(&[]);
            !(reads(head) || reads(argv.get(..1)?))
        };
        // Exact words are written as literals: a word `*` of the argv is
        // `\*` in the rule, never the wildcard that would make an exact rule
        // a prefix (`docker '*'`).
        let words: Vec<String> = if prefix {
            let head = words.get(..words.len().saturating_sub(1)).unwrap_or(&[]);
            head.iter()
                .map(|w| super::escape_word(w))
                .chain(std::iter::once(String::from("*")))
                .collect()
        } else {
            argv.iter().map(|w| super::escape_word(w)).collect()
        };
        if !out.contains(&words) {
            out.push(words);
        }
    }
    Some(out)
}

/// How an interpreter is told its program inline (the rest of its program
/// sources are standard input, a descriptor or a file it names): the short
/// option letters that take the program (alone or at the end of a cluster,
/// `-ec`, `-lne`), the long options that do, the options that end the run
/// without running a program, and the options that take a value.
struct Inline {
    letters: &'static str,
    long: &'static [&'static str],
    exits: &'static [&'static str],
    valued: &'static [&'static str],
    /// Short options whose value is the rest of their cluster (`-MFoo`).
    attached: &'static str,
}

/// Interpreters by the program names they run as, and how each is told its
/// program inline. From each one's manual: sh/dash/bash/zsh/ksh (`-c`,
/// `-s` reads standard input, an operand is a script file), fish
/// (`-c`/`--command`), python (`-c`, `-m` runs an installed module, `-`
/// or a file operand), perl and ruby (`-e`, `-E`), node (`-e`/`--eval`,
/// `-p`/`--print`), php (`-r`), lua (`-e`), pwsh (`-Command`, `-c`), awk
/// and sed (the program is an argument unless `-f`/`--file` names a file),
/// jq (`-f`/`--from-file`), Rscript (`-e`), osascript (`-e`).
const INTERPRETERS: &[(&[&str], Inline)] = &[
    (
        &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash"],
        Inline {
            letters: "c",
            long: &[],
            exits: &["--version", "--help"],
            valued: &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
            attached: "",
        },
    ),
    (
        &["fish"],
        Inline {
            letters: "c",
            long: &["--command"],
            exits: &["--version", "-v", "--help", "-h"],
            valued: &[
                "-C",
                "--init-command",
                "-d",
                "--debug",
                "-o",
                "--debug-output",
            ],
            attached: "",
        },
    ),
    (
        &["python", "pypy", "pypy3"],
        Inline {
            letters: "cm",
            long: &[],
            exits: &["--version", "-V", "--help", "-h"],
            valued: &["-W", "-X", "-Q"],
            attached: "WXQ",
        },
    ),
    (
        &["perl"],
        Inline {
            letters: "eE",
            long: &[],
            exits: &["--version", "-v", "--help", "-h", "-V"],
            valued: &["-I", "-M", "-m", "-x"],
            attached: "MmIxilC0dD",
        },
    ),
    (
        &["ruby"],
        Inline {
            letters: "e",
            long: &[],
            exits: &["--version", "-v", "--help", "-h"],
            valued: &["-I", "-r", "-C", "-E", "--encoding"],
            attached: "IrCEFKTWxl0",
        },
    ),
    (
        &["node", "nodejs"],
        Inline {
            letters: "ep",
            long: &["--eval", "--print"],
            exits: &["--version", "-v", "--help", "-h"],
            valued: &["-r", "--require", "--import", "--loader", "--input-type"],
            attached: "",
        },
    ),
    (
        &["php"],
        Inline {
            letters: "r",
            long: &[],
            exits: &["--version", "-v", "--help", "-h", "-m", "-i"],
            valued: &["-d", "-c"],
            attached: "dc",
        },
    ),
    (
        &["lua", "luajit"],
        Inline {
            letters: "e",
            long: &[],
            exits: &["-v"],
            valued: &["-l"],
            attached: "l",
        },
    ),
    (
        &["pwsh", "powershell"],
        Inline {
            letters: "",
            long: &["-command", "-c", "--command"],
            exits: &["-version", "--version", "-v", "-help", "-h", "-?"],
            valued: &["-executionpolicy", "-ep", "-workingdirectory", "-wd"],
            attached: "",
        },
    ),
    (
        &["rscript"],
        Inline {
            letters: "e",
            long: &[],
            exits: &["--version", "--help"],
            valued: &[],
            attached: "",
        },
    ),
    (
        &["osascript"],
        Inline {
            letters: "e",
            long: &[],
            exits: &[],
            valued: &["-l", "-s"],
            attached: "ls",
        },
    ),
];

/// Programs whose program is their first operand unless an option names a
/// file to read it from: those options.
const SCRIPT_FILE_OPTIONS: &[(&[&str], &[&str])] = &[
    (
        &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        &["-f", "--file", "-E", "--exec"],
    ),
    (&["sed", "gsed"], &["-f", "--file"]),
    (&["jq", "gojq", "yq"], &["-f", "--from-file"]),
];

/// Whether a simple command (its words, `None` where not a plain literal)
/// runs a program it reads from its standard input, a descriptor or a file
/// it names, in any word position (after a wrapper, `timeout 5 python3 -`;
/// a word that only names such a program is read the same way, so a line
/// that merely mentions one gets no proposal: a person approves it once).
pub(crate) fn reads_program(words: &[Option<String>]) -> bool {
    for (at, word) in words.iter().enumerate() {
        let Some(word) = word else { continue };
        let name = word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase();
        let rest = words.get(at + 1..).unwrap_or(&[]);
        if at == 0 && matches!(name.as_str(), "source" | ".") {
            return true;
        }
        if name == "eval" && rest.iter().any(Option::is_none) {
            return true;
        }
        let versioned = |base: &str| {
            name.strip_prefix(base)
                .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        };
        if let Some((_, inline)) = INTERPRETERS
            .iter()
            .find(|(names, _)| names.iter().any(|n| versioned(n)))
        {
            if !inline_program(rest, inline) {
                return true;
            }
        }
        if let Some((_, options)) = SCRIPT_FILE_OPTIONS
            .iter()
            .find(|(names, _)| names.contains(&name.as_str()))
        {
            let from_file = rest.iter().any(|w| {
                w.as_deref().is_none_or(|w| {
                    options.iter().any(|o| {
                        w == *o
                            || (w.starts_with(o) && !o.starts_with("--"))
                            || w.starts_with(&format!("{o}="))
                    })
                })
            });
            if from_file {
                return true;
            }
        }
    }
    false
}

/// Whether an interpreter's arguments give it its program inline (or end
/// its run before it reads one): anything else reads it from standard
/// input, a descriptor or a file.
fn inline_program(args: &[Option<String>], inline: &Inline) -> bool {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(word) = word.as_deref() else {
            return false;
        };
        let lower = word.to_ascii_lowercase();
        if inline.exits.contains(&word) {
            return true;
        }
        if inline.long.contains(&lower.as_str())
            || inline
                .long
                .iter()
                .any(|l| lower.starts_with(&format!("{l}=")))
        {
            return true;
        }
        if inline.valued.contains(&word) {
            words.next();
            continue;
        }
        if word == "--" || word == "-" || !(word.starts_with('-') || word.starts_with('+')) {
            // The program's source is this operand (or what follows `--`).
            return false;
        }
        if word.starts_with("--") {
            continue;
        }
        let letters = word.get(1..).unwrap_or("");
        // `-s` (a shell reading its standard input) wins over `-c`.
        if inline.letters == "c" && letters.contains('s') {
            return false;
        }
        for c in letters.chars() {
            if inline.letters.contains(c) {
                return true;
            }
            if inline.attached.contains(c) {
                break;
            }
        }
    }
    // No program given at all: it is read from standard input.
    false
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

/// The argv up to the first path-like or free argument, then `*` (and
/// `true`); the argv itself (and `false`) when it has no such argument.
fn generalise(argv: &[String]) -> (Vec<String>, bool) {
    let mut out: Vec<String> = Vec::new();
    for (at, word) in argv.iter().enumerate() {
        if at == 0 || subcommand(word) || flag(word) {
            out.push(word.clone());
        } else {
            out.push(String::from("*"));
            return (out, true);
        }
    }
    (out, false)
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
