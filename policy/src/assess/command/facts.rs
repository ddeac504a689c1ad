//! The facts a command rule is judged on (see [`crate::assess::facts`]):
//! the line's top-level simple commands with their literal argv, and every
//! simple command anywhere in it for deny and ask rules.
//!
//! A segment is judged alone for its read-only proof, after the directory
//! changes before it (`cd ~/.ssh && cat id_rsa` is judged as a whole, so a
//! rule for `cd` cannot make the `cat` of a key read-only). A line holding
//! anything but flat lists of simple commands is not flat, and then no allow
//! rule covers it.

use super::names::{base_name, is_assignment};
use super::syntax::{self, Command, Compound, Heredoc, Part, Script, Simple, Word};
use super::{assess_argv, assess_command, MAX_LINE_BYTES};
use crate::assess::facts::{CommandFacts, Segment};
use crate::assess::Verdict;

/// The most top-level commands a flat line may hold: each is judged with
/// the directory changes before it, so the work grows with their product.
const MAX_SEGMENTS: usize = 64;

/// The most simple commands collected for deny and ask rules.
const MAX_EVERYWHERE: usize = 4096;

/// How deep `sh -c` scripts and `eval` texts are read for deny and ask rules.
const MAX_DEPTH: usize = 4;

/// Builtins that change what later commands do (or run text as commands):
/// a line holding one is not flat.
const SHELL_STATE: &[&str] = &[
    "export",
    "set",
    "unset",
    "alias",
    "unalias",
    "source",
    ".",
    "eval",
    "exec",
    "declare",
    "typeset",
    "local",
    "readonly",
    "shopt",
    "trap",
    "enable",
    "builtin",
    "hash",
    "ulimit",
    "umask",
    "read",
    "mapfile",
    "readarray",
    "let",
    "shift",
    "getopts",
    "function",
    "coproc",
];

/// Builtins that change the directory later commands run in: kept in a flat
/// line, and judged with every segment after them.
const DIRECTORY: &[&str] = &["cd", "pushd", "popd"];

/// Shells whose `-c` takes a script.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox",
];

/// The facts of a command line.
pub fn command_facts(line: &str) -> CommandFacts {
    if line.len() > MAX_LINE_BYTES {
        return CommandFacts::default();
    }
    let Ok(parsed) = syntax::parse_nested(line, 0) else {
        return CommandFacts::default();
    };
    let mut everywhere = Vec::new();
    collect_script(&parsed.script, &parsed.heredocs, 0, &mut everywhere);
    let segments = flat_segments(&parsed.script);
    let flat = segments.is_some();
    let mut segments = segments.unwrap_or_default();
    judge_segments(&mut segments);
    CommandFacts {
        flat,
        segments,
        everywhere,
    }
}

/// The facts of an argv run without a shell.
pub fn argv_facts(argv: &[String]) -> CommandFacts {
    if argv.is_empty() {
        return CommandFacts::default();
    }
    let verdict = assess_argv(argv).verdict;
    let words: Vec<Option<String>> = argv.iter().cloned().map(Some).collect();
    let mut everywhere = Vec::new();
    scripts_in(&words, 0, &mut everywhere);
    everywhere.insert(0, words);
    CommandFacts {
        flat: true,
        segments: vec![Segment {
            argv: Some(argv.to_vec()),
            redirected: false,
            assigns: false,
            read_only: verdict == Verdict::ReadOnly,
            destructive: verdict == Verdict::Destructive,
        }],
        everywhere,
    }
}

/// The top-level simple commands, when the line is nothing else.
fn flat_segments(script: &Script) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    for (and_or, background) in &script.items {
        if *background {
            return None;
        }
        for pipeline in &and_or.pipelines {
            for command in &pipeline.commands {
                let Command::Simple(simple) = command else {
                    return None;
                };
                out.push(segment(simple)?);
                if out.len() > MAX_SEGMENTS {
                    return None;
                }
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// One simple command as a segment; `None` when it makes the line not flat.
fn segment(simple: &Simple) -> Option<Segment> {
    let mut redirected = false;
    for redirect in &simple.redirects {
        if redirect.heredoc.is_some() || redirect.op == "<<<" {
            return None;
        }
        let target = redirect.target.literal();
        let duplicates = matches!(redirect.op, "<&" | ">&")
            && target.as_deref().is_some_and(|t| {
                t == "-" || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            });
        let discarded = matches!(redirect.op, ">" | ">>" | ">|" | "&>" | "&>>" | ">&")
            && target.as_deref() == Some("/dev/null");
        let fd_plain = redirect
            .fd
            .as_deref()
            .is_none_or(|fd| fd.bytes().all(|b| b.is_ascii_digit()));
        if !(fd_plain && (duplicates || discarded)) {
            redirected = true;
        }
    }
    let texts: Vec<Option<String>> = simple.words.iter().map(Word::literal).collect();
    let program_at = simple.words.iter().position(|w| !assignment_word(w))?;
    let assigns = program_at > 0;
    let program = texts.get(program_at).cloned().flatten();
    if program.as_deref().is_some_and(|p| SHELL_STATE.contains(&p)) {
        return None;
    }
    let argv: Option<Vec<String>> = texts.get(program_at..)?.iter().cloned().collect();
    Some(Segment {
        argv,
        redirected,
        assigns,
        read_only: false,
        destructive: false,
    })
}

/// Whether a word is a leading `NAME=value` (as the walk reads it).
fn assignment_word(word: &Word) -> bool {
    match word.parts.first() {
        Some(Part::Lit(text) | Part::Quoted(text)) => is_assignment(text),
        _ => false,
    }
}

/// Proves each coverable segment alone, after the directory changes before it.
fn judge_segments(segments: &mut [Segment]) {
    let mut before: Vec<String> = Vec::new();
    let mut lost = false;
    for segment in segments.iter_mut() {
        let Some(argv) = &segment.argv else {
            // It may be `cd "$X"`: no later segment is proven from where it runs.
            lost = true;
            continue;
        };
        if segment.redirected || segment.assigns || lost {
            continue;
        }
        let own = quoted(argv);
        let text = if before.is_empty() {
            own.clone()
        } else {
            format!("{} && {own}", before.join(" && "))
        };
        let verdict = assess_command(&text).verdict;
        segment.read_only = verdict == Verdict::ReadOnly;
        segment.destructive = verdict == Verdict::Destructive;
        if argv
            .first()
            .is_some_and(|p| DIRECTORY.contains(&p.as_str()))
        {
            before.push(own);
        }
    }
}

/// The argv as shell words, each single-quoted.
fn quoted(argv: &[String]) -> String {
    argv.iter()
        .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

fn collect_script(
    script: &Script,
    heredocs: &[Heredoc],
    depth: usize,
    out: &mut Vec<Vec<Option<String>>>,
) {
    for (and_or, _) in &script.items {
        for pipeline in &and_or.pipelines {
            for command in &pipeline.commands {
                collect_command(command, heredocs, depth, out);
            }
        }
    }
}

fn collect_command(
    command: &Command,
    heredocs: &[Heredoc],
    depth: usize,
    out: &mut Vec<Vec<Option<String>>>,
) {
    if out.len() >= MAX_EVERYWHERE {
        return;
    }
    match command {
        Command::Simple(simple) => {
            for word in &simple.words {
                collect_word(word, heredocs, depth, out);
            }
            for redirect in &simple.redirects {
                collect_word(&redirect.target, heredocs, depth, out);
                if let Some(body) = redirect.heredoc.and_then(|i| heredocs.get(i)) {
                    collect_word(&body.body, heredocs, depth, out);
                    // A here-document fed to a shell is a script.
                    if let Some(text) = body.body.literal_with_patterns() {
                        collect_text(&text, depth + 1, out);
                    }
                }
            }
            let words: Vec<Option<String>> = simple
                .words
                .iter()
                .skip_while(|w| assignment_word(w))
                .map(Word::literal)
                .collect();
            if !words.is_empty() {
                scripts_in(&words, depth, out);
                out.push(words);
            }
        }
        Command::Function(_, body) => collect_command(body, heredocs, depth, out),
        Command::Compound(compound, redirects) => {
            for redirect in redirects {
                collect_word(&redirect.target, heredocs, depth, out);
            }
            match compound {
                Compound::Group(s) | Compound::Subshell(s) => {
                    collect_script(s, heredocs, depth, out)
                }
                Compound::If(scripts) => {
                    for s in scripts {
                        collect_script(s, heredocs, depth, out);
                    }
                }
                Compound::Loop { cond, body, .. } => {
                    collect_script(cond, heredocs, depth, out);
                    collect_script(body, heredocs, depth, out);
                }
                Compound::For { words, body, .. } => {
                    for word in words.iter().flatten() {
                        collect_word(word, heredocs, depth, out);
                    }
                    collect_script(body, heredocs, depth, out);
                }
                Compound::ArithFor { body, .. } => collect_script(body, heredocs, depth, out),
                Compound::Case { word, arms } => {
                    collect_word(word, heredocs, depth, out);
                    for (patterns, body) in arms {
                        for p in patterns {
                            collect_word(p, heredocs, depth, out);
                        }
                        collect_script(body, heredocs, depth, out);
                    }
                }
                Compound::Cond(words) => {
                    for word in words {
                        collect_word(word, heredocs, depth, out);
                    }
                }
                Compound::Coproc(inner) => collect_command(inner, heredocs, depth, out),
                Compound::Arith(_) => {}
            }
        }
    }
}

fn collect_word(
    word: &Word,
    heredocs: &[Heredoc],
    depth: usize,
    out: &mut Vec<Vec<Option<String>>>,
) {
    collect_parts(&word.parts, heredocs, depth, out);
}

fn collect_parts(
    parts: &[Part],
    heredocs: &[Heredoc],
    depth: usize,
    out: &mut Vec<Vec<Option<String>>>,
) {
    for part in parts {
        match part {
            Part::Subst { script } | Part::Process { script, .. } => {
                collect_script(script, heredocs, depth, out)
            }
            Part::Param { inner, .. } => collect_parts(inner, heredocs, depth, out),
            Part::Lit(_) | Part::Quoted(_) | Part::Arith(_) | Part::AnsiC(_) => {}
        }
    }
}

/// The scripts a command runs from its words: a shell's `-c` script, and
/// the text `eval` joins.
fn scripts_in(words: &[Option<String>], depth: usize, out: &mut Vec<Vec<Option<String>>>) {
    if depth >= MAX_DEPTH {
        return;
    }
    for (at, word) in words.iter().enumerate() {
        let Some(word) = word else { continue };
        let program = base_name(word);
        if program == "eval" {
            let rest: Option<Vec<String>> = words
                .get(at + 1..)
                .unwrap_or_default()
                .iter()
                .cloned()
                .collect();
            if let Some(rest) = rest {
                collect_text(&rest.join(" "), depth + 1, out);
            }
            return;
        }
        if SHELLS.contains(&program) {
            let flag = words.iter().skip(at + 1).position(|w| {
                w.as_deref()
                    .is_some_and(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
            });
            if let Some(script) = flag.and_then(|f| words.get(at + 2 + f)).cloned().flatten() {
                collect_text(&script, depth + 1, out);
            }
            return;
        }
    }
}

fn collect_text(text: &str, depth: usize, out: &mut Vec<Vec<Option<String>>>) {
    if depth > MAX_DEPTH || text.len() > MAX_LINE_BYTES {
        return;
    }
    if let Ok(parsed) = syntax::parse_nested(text, depth) {
        collect_script(&parsed.script, &parsed.heredocs, depth, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(line: &str) -> Option<Vec<Option<Vec<String>>>> {
        let facts = command_facts(line);
        facts
            .flat
            .then(|| facts.segments.into_iter().map(|s| s.argv).collect())
    }

    fn words(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flat_lines_and_their_argv() {
        assert_eq!(
            argvs("npm test && cargo build"),
            Some(vec![
                Some(words(&["npm", "test"])),
                Some(words(&["cargo", "build"]))
            ])
        );
        assert_eq!(
            argvs("\"npm\" 'test'"),
            Some(vec![Some(words(&["npm", "test"]))])
        );
        assert_eq!(argvs("npm test $(x)"), Some(vec![None]));
        assert_eq!(argvs("npm test *.js"), Some(vec![None]));
        for line in [
            "(npm test)",
            "{ npm test; }",
            "npm test &",
            "for x in a; do npm test; done",
            "export A=1; npm test",
            "cat <<EOF\nx\nEOF",
            "f(){ npm test; }; f",
            "A=1",
        ] {
            assert_eq!(argvs(line), None, "{line}");
        }
        let f = command_facts("npm test > out.txt 2>&1; npm test 2>/dev/null");
        assert!(f.segments[0].redirected);
        assert!(!f.segments[1].redirected);
        assert!(command_facts("A=1 npm test").segments[0].assigns);
    }

    #[test]
    fn segments_are_judged_after_directory_changes() {
        let f = command_facts("cd ~/.ssh && cat id_rsa");
        assert!(!f.segments[1].read_only);
        let f = command_facts("cd src && cat main.rs | head");
        assert!(f.segments.iter().all(|s| s.read_only));
        let f = command_facts("npm test && rm -rf /");
        assert!(!f.segments[0].read_only && f.segments[1].destructive);
        let f = command_facts("npm test | sh");
        assert!(!f.segments[1].read_only);
    }

    #[test]
    fn deny_rules_see_everything() {
        let f = command_facts("echo $(sudo rm -rf /) && bash -c 'git push --force'");
        let flat: Vec<Vec<Option<String>>> = f.everywhere;
        assert!(flat.iter().any(|w| w.first() == Some(&Some("sudo".into()))));
        assert!(flat.iter().any(|w| w
            == &vec![
                Some("git".into()),
                Some("push".into()),
                Some("--force".into())
            ]));
    }
}
