//! The floor's recogniser: whether a command positively destroys something.
//! It may over-match, never allow: under guarded trust a model's `low` cannot
//! wave through what it finds.

use super::judgement::{JudgeLine, MAX_DEPTH};
use super::names::{base_name, is_assignment, is_interpreter, is_wrapper};
use super::paths::{self, Places, COMPUTED};
use super::{budget, floor, programs};

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
    if let Some(what) = programs::destructive(program, args) {
        return Some(format!("`{program}` {what}"));
    }
    if let Some(what) = floor::infrastructure(program, args, &[]) {
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
                if let Some(what) = args
                    .get(i + 1..(i + 1 + WINDOW).min(args.len()))
                    .and_then(|inner| destruction(inner, depth + 1, judge_line))
                {
                    return Some(what);
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
        programs::destructive(program, args)
            .or_else(|| floor::infrastructure(program, args, &[]))
            .map(|what| format!("`{program}` {what}"))
    })
}
