//! The floor's recogniser: whether a command positively destroys something.
//! It may over-match, never allow: under guarded trust a model's `low` cannot
//! wave through what it finds.

use super::judgement::{JudgeLine, MAX_DEPTH};
use super::names::{base_name, is_assignment, is_interpreter, is_wrapper};
use super::paths::{self, Places, COMPUTED};
use super::{budget, floor, programs, table};

/// Whether a simple command positively destroys something, looking through
/// assignments, wrappers, `find -exec`/`-delete`, `eval` and `sh -c '…'`. Used
/// for the guarded floor only; it may over-match, never allow. A line nested
/// in the command is judged by `judge_line`.
pub(super) fn destruction(words: &[String], depth: usize, judge_line: JudgeLine) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    if !budget::spend(1 + words.len().min(WINDOW)) {
        return Some(String::from(
            "the command is too complex for the floor to analyse",
        ));
    }
    // Assignments and the reserved words that can precede a command
    // (`do rm x` inside a loop, `then`, `!`).
    let start = words.iter().position(|w| {
        !is_assignment(w)
            && !matches!(
                w.as_str(),
                "do" | "then" | "else" | "elif" | "if" | "while" | "until" | "!" | "{"
            )
    })?;
    let rest = words.get(start..)?;
    let (first, args) = rest.split_first()?;
    if first.contains([COMPUTED, paths::LOOP_VALUE]) {
        // `nice $(echo rm -rf /)`: word splitting makes the output the program.
        return Some(String::from(
            "runs a program whose name a substitution or variable computes",
        ));
    }
    let program = base_name(first);
    if let Some(what) = table::destruction(program, args, &[]) {
        return Some(format!("`{program}` {what}"));
    }
    if program == "env" {
        // `env -S 'rm -rf ~'` splits its string into a command.
        if let Some(i) = args.iter().position(|a| {
            a.starts_with("-S") || a.starts_with("--split-string") || a.starts_with("--sp")
        }) {
            let arg = args.get(i).map_or("", String::as_str);
            let attached = arg
                .split_once('=')
                .map(|(_, v)| v)
                .or_else(|| arg.strip_prefix("-S").filter(|v| !v.is_empty()));
            let mut line = String::from(attached.unwrap_or(""));
            for word in args.get(i + 1..).unwrap_or_default().iter().take(WINDOW) {
                line.push(' ');
                line.push_str(word);
            }
            if let Some(what) = destruction_in_line(&line, depth + 1, judge_line) {
                return Some(what);
            }
        }
    }
    if let Some(what) = http_delete(program, args) {
        return Some(format!("`{program}` {what}"));
    }
    if let Some(what) = windows_line(first, args) {
        return Some(what);
    }
    if program == "xargs" || program == "parallel" {
        let runs_code = args.iter().take(WINDOW).any(|a| {
            let name = base_name(a);
            programs::is_shell(name) || is_interpreter(name)
        });
        if runs_code {
            return Some(format!("`{program}` runs its input as commands"));
        }
    }
    if floor::inline_code(program) {
        let code = args
            .iter()
            .take(WINDOW)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(what) = destruction_in_words(&code) {
            return Some(format!("`{program}` runs code that {what}"));
        }
        if let Some(call) = floor::destroying_call(&code) {
            return Some(format!(
                "`{program}` runs code that calls `{call}` (deletes, overwrites or runs commands)"
            ));
        }
    }
    if floor::runs_arguments(program, args) {
        // The remote or inner shell reads the words joined into a line.
        for i in 0..args.len().min(WINDOW) {
            let end = (i + WINDOW).min(args.len());
            let line = args.get(i..end).unwrap_or_default().join(" ");
            if let Some(what) = destruction_in_line(&line, depth + 1, judge_line) {
                return Some(what);
            }
        }
        if args.len() > WINDOW {
            return Some(format!("`{program}` runs a command too long to analyse"));
        }
    }
    if program == "find" {
        if args.iter().any(|a| a == "-delete") {
            return Some(String::from("`find -delete` deletes files"));
        }
        for (i, arg) in args.iter().enumerate() {
            if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let inner = args.get(i + 1..(i + 1 + WINDOW).min(args.len()));
                if let Some(what) =
                    inner.and_then(|inner| destruction(inner, depth + 1, judge_line))
                {
                    return Some(what);
                }
                // Once per file found: a permission change over a tree.
                if let Some(changer) = inner
                    .and_then(|inner| inner.first())
                    .map(|p| base_name(p))
                    .filter(|p| MASS_CHANGERS.contains(p))
                {
                    return Some(format!(
                        "`find -exec {changer}` changes every file it finds"
                    ));
                }
            }
        }
    }
    if is_wrapper(program) {
        // Options of wrappers may take values; trying every position over-matches
        // harmlessly and cannot miss the wrapped program.
        if rest.len() > WINDOW {
            return Some(format!("`{program}` wraps a command too long to analyse"));
        }
        return (1..rest.len()).find_map(|i| {
            rest.get(i..)
                .and_then(|inner| destruction(inner, depth + 1, judge_line))
        });
    }
    let computed = |a: &String| a.contains([COMPUTED, paths::LOOP_VALUE]);
    let runs_stream =
        |a: &String| matches!(a.as_str(), "process-substitution" | "/dev/stdin" | "-");
    if program == "eval" {
        if args.iter().any(computed) {
            return Some(String::from("`eval` runs text the shell computes"));
        }
        return destruction_in_line(&args.join(" "), depth + 1, judge_line);
    }
    if matches!(program, "source" | ".") && args.iter().any(|a| computed(a) || runs_stream(a)) {
        return Some(format!(
            "`{program}` runs a stream or computed file as commands"
        ));
    }
    if programs::is_shell(program) || is_interpreter(program) {
        let script_at = args.iter().position(|a| {
            a.starts_with('-') && !a.starts_with("--") && (a.contains('c') || a.contains('e'))
        });
        let Some(script) = script_at.and_then(|i| args.get(i + 1)) else {
            // `bash <(curl …)`, `sh /dev/stdin`: a script from a stream.
            return args
                .iter()
                .find(|a| !a.starts_with('-'))
                .filter(|a| runs_stream(a) || computed(a))
                .map(|_| format!("`{program}` runs a script from a stream or computed name"));
        };
        if computed(script) {
            return Some(format!("`{program}` runs a script the shell computes"));
        }
        if programs::is_shell(program) {
            return destruction_in_line(script, depth + 1, judge_line);
        }
    }
    None
}

/// Programs that change files' permissions, owners or attributes: run once
/// per file by `find -exec` or `xargs`, they change a whole tree.
const MASS_CHANGERS: &[&str] = &[
    "chmod", "chown", "chgrp", "chattr", "setfacl", "chcon", "setfattr", "touch",
];

/// HTTP clients that send a DELETE: `curl -X DELETE`, `-XDELETE`,
/// `--request=delete`, `wget --method=DELETE`, `http DELETE …`, or a method
/// override header naming DELETE. Read loosely: the floor may over-match.
fn http_delete(program: &str, args: &[String]) -> Option<&'static str> {
    const CLIENTS: &[&str] = &[
        "curl",
        "wget",
        "wget2",
        "http",
        "https",
        "httpie",
        "xh",
        "xhs",
        "curlie",
        "aria2c",
        "lwp-request",
        "HEAD",
        "GET",
        "POST",
    ];
    if !CLIENTS.contains(&program) {
        return None;
    }
    let names_delete = |text: &str| {
        let upper = text.trim().to_ascii_uppercase();
        let value = [
            "--REQUEST=",
            "--METHOD=",
            "-X",
            "--REQUEST",
            "--METHOD",
            "-M",
        ]
        .iter()
        .find_map(|p| upper.strip_prefix(p))
        .unwrap_or(&upper)
        .trim_start_matches('=')
        .trim();
        value == "DELETE" || (upper.contains("METHOD") && upper.contains("DELETE"))
    };
    args.iter()
        .take(WINDOW * 4)
        .any(|a| names_delete(a))
        .then_some("sends an HTTP DELETE")
}

/// A Windows command interpreter (`cmd /c`, PowerShell) given a line: any of
/// its words that names a Windows command or cmdlet that deletes, formats,
/// stops or runs text as code. Words are compared without regard to case.
fn windows_line(first: &str, args: &[String]) -> Option<String> {
    let name = first
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(first)
        .to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    if !matches!(name, "cmd" | "powershell" | "pwsh" | "command.com") {
        return None;
    }
    let line = args
        .iter()
        .take(WINDOW * 4)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    line.split(|c: char| c.is_whitespace() || ";&|(){}'\"`".contains(c))
        .filter(|w| !w.is_empty())
        .find(|w| {
            let w = w.strip_suffix(".exe").unwrap_or(w);
            programs::WINDOWS_DESTROYERS
                .iter()
                .any(|d| d.eq_ignore_ascii_case(w))
                || table::destruction(&w.to_ascii_lowercase(), &[], &[]).is_some()
        })
        .map(|w| format!("`{name}` runs `{w}`, which deletes, stops or runs text as code"))
}

/// How many words the floor tries as the start of a wrapped command: a
/// bound that keeps it linear (longer wrappers are destructive for the floor).
pub(super) const WINDOW: usize = 32;

/// Whether any command of a whole command line (or of a substitution inside
/// it) positively destroys something.
pub(super) fn destruction_in_line(
    line: &str,
    depth: usize,
    judge_line: JudgeLine,
) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    if !budget::spend(line.len()) {
        return Some(String::from(
            "the command is too complex for the floor to analyse",
        ));
    }
    judge_line(line, depth, &Places::default()).destroys
}

/// For text the parser could not read: whether any word of it, wherever it
/// stands, names a destructive program. A shell would refuse the text, but a
/// tool might run it some other way, so the floor over-matches here.
pub(super) fn destruction_in_words(line: &str) -> Option<String> {
    let words: Vec<String> = line
        .split(|c: char| c.is_whitespace() || ";&|()'\"`{}$<>".contains(c))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    (0..words.len()).find_map(|i| {
        budget::count(WINDOW);
        let (first, args) = words.get(i..(i + WINDOW).min(words.len()))?.split_first()?;
        let program = base_name(first);
        table::destruction(program, args, &[]).map(|what| format!("`{program}` {what}"))
    })
}
