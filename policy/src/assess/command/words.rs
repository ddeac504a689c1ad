//! Judging one simple command: its assignments, its program and that
//! program's arguments, looking through wrappers (`env`, `timeout`, `xargs`,
//! …), `find -exec` and `sh -c` to the commands they run.

use super::judgement::{JudgeLine, MAX_DEPTH};
use super::names::{base_name, harmless_variable, is_assignment, program_name};
use super::paths::{self, Places, COMPUTED};
use super::refusal::Refusal;
use super::{builtins, programs};
use crate::codes;
use crate::text::preview;
use std::collections::BTreeSet;

/// How the shell may change a command's words, and where it runs.
#[derive(Clone, Copy)]
pub(super) struct Shape<'a> {
    /// The names on standard input are known to be harmless files (a `find`
    /// whose names are all of plain source types feeds this `xargs`).
    pub(super) names_safe: bool,
    /// The shell may expand the words (so they may hold other options than written).
    pub(super) expands: bool,
    /// The words with an unquoted glob or brace (the shell expands them).
    pub(super) globbed: Option<&'a BTreeSet<String>>,
    /// The directories the command may run in.
    pub(super) places: &'a Places,
    /// How a line nested in the command (`sh -c SCRIPT`) is judged.
    pub(super) judge_line: JudgeLine,
}

/// Checks a program and its arguments under `shape`. `from_stdin`: `xargs`
/// will append words read from standard input.
pub(super) fn check_words(
    words: &[String],
    shape: &Shape<'_>,
    depth: usize,
    from_stdin: bool,
) -> Result<(), (&'static str, String)> {
    let expands = shape.expands;
    if depth > MAX_DEPTH {
        return Err((
            codes::COMMAND_UNSUPPORTED_SYNTAX,
            String::from("wrappers are nested too deeply to analyse"),
        ));
    }
    // `IFS= read -r line` sets the separators for `read` alone.
    let program_is_read = words
        .iter()
        .find(|w| !is_assignment(w))
        .is_some_and(|w| w == "read");
    let mut start = 0;
    while let Some(word) = words.get(start) {
        let Some((name, value)) = word.split_once('=').filter(|_| is_assignment(word)) else {
            break;
        };
        if !(harmless_variable(name)
            || name == "IFS" && program_is_read
            || locale_data_in_home(name, value))
        {
            return Err((
                codes::COMMAND_ENV_ASSIGNMENT,
                format!(
                    "`{}` sets a variable for the program it runs",
                    preview(word, 60)
                ),
            ));
        }
        start += 1;
    }
    let Some((first, args)) = words.get(start..).and_then(<[String]>::split_first) else {
        // Only harmless assignments.
        return Ok(());
    };
    if expands && first.contains(['$', '*', '?', '[', '{', '~']) {
        return Err((
            codes::COMMAND_EXPANSION,
            format!(
                "the program name `{}` is expanded by the shell",
                preview(first, 60)
            ),
        ));
    }
    let Some(name) = program_name(first) else {
        return Err((
            codes::COMMAND_UNKNOWN_PROGRAM,
            format!(
                "`{}` is not a system program on the read-only list",
                preview(first, 60)
            ),
        ));
    };
    if let Some(result) = builtins::check(name, args) {
        return result;
    }
    if SHELLS.contains(&name) {
        if from_stdin {
            return Err((
                codes::COMMAND_EXPANSION,
                format!("`xargs` adds words from its input to `{name}`"),
            ));
        }
        return check_shell(name, args, shape, depth);
    }
    if let Some(inner) = unwrap(name, args)? {
        let inner_from_stdin = from_stdin || name == "xargs";
        // `xargs -a FILE` reads the names from a file, not from the pipe.
        let from_file = name == "xargs"
            && args
                .iter()
                .any(|a| a.starts_with("-a") || a.starts_with("--arg"));
        let inner_shape = Shape {
            names_safe: shape.names_safe && !from_file,
            ..*shape
        };
        return match inner {
            Some(inner) => check_words(inner, &inner_shape, depth + 1, inner_from_stdin),
            // The command itself comes from `xargs`'s input: `echo rm -rf / |
            // xargs nice`, `… | xargs env`, `… | xargs xargs` (the inner `xargs`
            // runs the words it is given as a command).
            None if from_stdin => Err((
                codes::COMMAND_EXPANSION,
                format!("`xargs` gives `{name}` the command it runs, from its input"),
            )),
            None if name == "env" => Err((
                codes::COMMAND_ENVIRONMENT,
                String::from("`env` prints the environment, which may hold tokens and keys"),
            )),
            // `xargs` with no command runs `echo`.
            None => Ok(()),
        };
    }
    if name == "find" {
        return check_find(args, shape, depth, from_stdin);
    }
    let Some(rule) = programs::read_only(name) else {
        return Err((
            codes::COMMAND_UNKNOWN_PROGRAM,
            format!("`{name}` is not on the read-only list"),
        ));
    };
    if from_stdin && !rule.tolerates_appended_words() {
        return Err((
            codes::COMMAND_EXPANSION,
            format!(
                "`xargs` adds arguments to `{name}` from its input, which could add options or name files it reads"
            ),
        ));
    }
    if expands && !rule.tolerates_expansion() {
        return Err((
            codes::COMMAND_EXPANSION,
            format!("`{name}` has arguments the shell expands, which could add options"),
        ));
    }
    programs::check_args(rule, args).map_err(Refusal::into_pair)?;
    if name == "git" && shape.places.moved() {
        // git runs the configuration of the repository it finds from where
        // it starts: after a `cd`, that may be a nested or other repository
        // whose drivers, hooks, fsmonitor and pagers are another author's
        // code (SECURITY.md, "Commands"). Only the working tree's own is the
        // user's.
        return Err((
            codes::COMMAND_UNSAFE_ARGUMENT,
            String::from(
                "`git` after a `cd` may run in another repository, whose configuration runs programs",
            ),
        ));
    }
    if from_stdin && !shape.names_safe && prints_content(words.get(start..).unwrap_or_default()) {
        return Err((
            codes::COMMAND_SENSITIVE_PATH,
            format!(
                "`xargs` gives `{name}` file names from its input, which may name a secret file"
            ),
        ));
    }
    check_secret_reads(name, args, shape)
}

/// `LOCPATH` naming `~/.locale`, the directory locale's manual compiles a
/// locale into (`LOCPATH=$HOME/.locale LC_ALL=fi_SE.UTF-8 date`): glibc
/// reads compiled locale data from there instead of the system's (glibc
/// 2.36 run here: date printed its time in the locale compiled into it).
/// Locale files are data checked by their magic number, not code, and that
/// directory is the user's, like their start-up files. Any other directory
/// may be a working tree's (a repository's files, parsed by glibc's loader,
/// which is not hardened against hostile files and so ignores `LOCPATH` in
/// set-user-ID programs), and a list or a computed value may be anything:
/// not proven.
fn locale_data_in_home(name: &str, value: &str) -> bool {
    name == "LOCPATH" && matches!(value, "~/.locale" | "~/.locale/")
}

/// The stable code a finding of a nested line carries.
pub(super) fn static_code(code: &str) -> &'static str {
    [
        codes::COMMAND_EMPTY,
        codes::COMMAND_PARSE_ERROR,
        codes::COMMAND_UNKNOWN_PROGRAM,
        codes::COMMAND_UNSAFE_ARGUMENT,
        codes::COMMAND_SENSITIVE_PATH,
        codes::COMMAND_REDIRECT_WRITE,
        codes::COMMAND_SUBSTITUTION,
        codes::COMMAND_EXPANSION,
        codes::COMMAND_ENV_ASSIGNMENT,
        codes::COMMAND_UNSUPPORTED_SYNTAX,
        codes::COMMAND_SYNTAX,
        codes::COMMAND_UNBOUNDED,
        codes::COMMAND_ENVIRONMENT,
        codes::COMMAND_CREDENTIALS,
        codes::COMMAND_HISTORY,
        codes::COMMAND_SHELL_STATE,
        codes::HTTP_LOCAL_TARGET,
        codes::HTTP_USERINFO,
        codes::HTTP_SECRET_URL,
        codes::HTTP_DENIED_HOST,
    ]
    .into_iter()
    .find(|c| *c == code)
    .unwrap_or(codes::COMMAND_UNSUPPORTED_SYNTAX)
}

/// Shells whose `-c SCRIPT` is parsed and judged like the line itself. Not
/// `zsh`: it reads `.zshenv` (and `/etc/zsh/zshenv`, even with `-f`) before
/// any script, code the line does not show.
pub(super) const SHELLS: &[&str] = &["sh", "bash", "dash"];

/// `bash -c 'SCRIPT'` (with `-e`, `-u`, `-x` alongside): the script is
/// judged as a command line one level deeper. Not `-l`/`--login` (or `-i`):
/// a login or interactive shell first runs the start-up files
/// (`/etc/profile`, `~/.bash_profile`, `~/.profile`, `~/.bashrc`), code the
/// line does not show and a home may hold anything. A script the outer shell
/// expands, extra arguments (which become `$0`, `$1`… inside), or a script
/// read from standard input or a file are not proven.
pub(super) fn check_shell(
    name: &str,
    args: &[String],
    shape: &Shape<'_>,
    depth: usize,
) -> Result<(), (&'static str, String)> {
    let refuse = |why: String| Err((codes::COMMAND_UNSAFE_ARGUMENT, why));
    let mut script = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if matches!(arg.as_str(), "--noprofile" | "--norc") {
            continue;
        }
        let Some(letters) = arg
            .strip_prefix('-')
            .filter(|l| !l.is_empty() && !l.starts_with('-'))
        else {
            return refuse(format!("`{name} {}` is not analysed", preview(arg, 40)));
        };
        if !letters.chars().all(|c| "ceux".contains(c)) {
            return refuse(format!("`{name} {}` is not analysed", preview(arg, 40)));
        }
        if letters.contains('c') {
            script = args.get(i);
            i += 1;
            break;
        }
    }
    let Some(script) = script else {
        return refuse(format!("`{name}` runs a script that is not on the line"));
    };
    if i < args.len() {
        return refuse(format!("`{name} -c` passes arguments to its script"));
    }
    if script.contains("{}") {
        // `find -exec sh -c 'cat {}'`, `xargs -I{} sh -c '…{}…'`: a file name
        // or an input line is pasted into the script as code.
        return Err((
            codes::COMMAND_EXPANSION,
            format!("the script of `{name} -c` has `{{}}` replaced by data"),
        ));
    }
    if shape.expands || script.contains([COMPUTED, paths::LOOP_VALUE]) {
        return Err((
            codes::COMMAND_EXPANSION,
            format!("the script of `{name} -c` is expanded by the shell first"),
        ));
    }
    let outcome = (shape.judge_line)(script, depth + 1, shape.places);
    // The finding the floor reads (a secret, a credential, an internal
    // target) is the one to carry out of the script; otherwise the first.
    let findings = outcome.report.findings;
    let sensitive = findings
        .iter()
        .position(|f| codes::SENSITIVE.contains(&f.code.as_str()));
    match findings.into_iter().nth(sensitive.unwrap_or(0)) {
        Some(finding) if outcome.report.unproven => Err((
            static_code(&finding.code),
            format!("inside `{name} -c`: {}", finding.message),
        )),
        _ => Ok(()),
    }
}

/// Programs that print the content of the files they are given (the
/// entry's `reads_contents` in the program table): reading a key, a
/// credentials file or another process's environment with them is not an
/// everyday read, and is confirmed just as `file_operations` would confirm it.
fn reads_contents(program: &str) -> bool {
    super::table::has(program, |entry| entry.reads_contents)
}

/// Refuses a content reader whose arguments name a secret file (`~/.ssh/id_rsa`,
/// `.env`, `/proc/self/environ`), also as an option's value (`--file=.env`).
pub(super) fn check_secret_reads(
    name: &str,
    args: &[String],
    shape: &Shape<'_>,
) -> Result<(), (&'static str, String)> {
    if !reads_contents(name) {
        return Ok(());
    }
    // The git subcommands whose operands are revisions and pathspecs (a
    // branch or tag pattern is neither).
    let pathspecs = name == "git"
        && args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|sub| {
                matches!(
                    sub.as_str(),
                    "log"
                        | "show"
                        | "diff"
                        | "grep"
                        | "blame"
                        | "annotate"
                        | "ls-files"
                        | "ls-tree"
                        | "cat-file"
                        | "whatchanged"
                        | "shortlog"
                        | "diff-tree"
                        | "diff-index"
                        | "diff-files"
                        | "archive"
                        | "status"
                        | "reflog"
                )
            });
    for arg in args {
        let candidate = match arg.split_once('=') {
            Some((option, value)) if option.starts_with('-') => value,
            _ => arg.as_str(),
        };
        // `git show REV:path` prints a committed file; a pathspec may carry
        // magic (`:(icase).ENV`, `:/x` from the top, `:!x` excludes) and is
        // a glob to git itself (`'*.env'`, `'.en?'`, quoted or not).
        let (candidate, git_glob) = if pathspecs {
            match git_pathspec(candidate) {
                Some(spec) => spec,
                None => continue,
            }
        } else if name == "git" {
            (
                candidate
                    .rsplit_once(':')
                    .map_or(candidate, |(_, path)| path),
                false,
            )
        } else {
            (candidate, false)
        };
        if candidate.starts_with('-') && name != "git" {
            continue;
        }
        let globbed = git_glob
            || shape
                .globbed
                .is_some_and(|words| words.contains(arg) || words.contains(candidate));
        if let Some(why) = shape.places.secret(candidate, globbed) {
            let code = if candidate.contains(COMPUTED) {
                codes::COMMAND_SUBSTITUTION
            } else {
                codes::COMMAND_SENSITIVE_PATH
            };
            return Err((
                code,
                format!(
                    "`{name}` would print `{}`, which {why}",
                    preview(&candidate.replace([COMPUTED, paths::LOOP_VALUE], "…"), 60)
                ),
            ));
        }
    }
    Ok(())
}

/// The path a git word names, and whether git reads it as a glob: `REV:path`
/// names `path`; a pathspec's magic is taken off (`:(top,icase)x`, `:/x`),
/// and one that excludes (`:!x`, `:^x`, `:(exclude)x`) names nothing read
/// (`None`). Magic the check does not know (`attr:`) is judged as `*`.
fn git_pathspec(word: &str) -> Option<(&str, bool)> {
    let globby = |s: &str| s.contains(['*', '?', '[']);
    if let Some(rest) = word.strip_prefix(":(") {
        let (magic, path) = rest.split_once(')').unwrap_or((rest, ""));
        let words: Vec<&str> = magic.split(',').map(str::trim).collect();
        if words.iter().any(|m| matches!(*m, "exclude")) {
            return None;
        }
        if words
            .iter()
            .any(|m| !matches!(*m, "top" | "icase" | "literal" | "glob"))
        {
            return Some(("*", true));
        }
        let literal = words.contains(&"literal");
        return Some((path, !literal && globby(path)));
    }
    if let Some(rest) = word.strip_prefix(':') {
        if rest.starts_with(['!', '^']) {
            return None;
        }
        if let Some(path) = rest.strip_prefix('/') {
            return Some((path, globby(path)));
        }
    }
    let path = word.rsplit_once(':').map_or(word, |(_, path)| path);
    Some((path, globby(path)))
}

/// `find`: its own options (without `-delete`, `-fprint`…), and every command
/// it runs with `-exec`, `-execdir`, `-ok` or `-okdir`, judged on its own with
/// `{}` standing for a found path.
pub(super) fn check_find(
    args: &[String],
    shape: &Shape<'_>,
    depth: usize,
    from_stdin: bool,
) -> Result<(), (&'static str, String)> {
    let expands = shape.expands;
    let mut own = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let inner_start = i + 1;
            let end = args
                .iter()
                .skip(inner_start)
                .position(|a| a == ";" || a == "+")
                .map(|n| inner_start + n)
                .ok_or((
                    codes::COMMAND_PARSE_ERROR,
                    format!("`find {arg}` has no terminating `;` or `+`"),
                ))?;
            let inner = args.get(inner_start..end).unwrap_or_default();
            if inner.is_empty() {
                return Err((
                    codes::COMMAND_PARSE_ERROR,
                    format!("`find {arg}` runs nothing"),
                ));
            }
            let reader = prints_content(inner);
            if reader && !find_names_safe(args, shape.places) {
                return Err((
                    codes::COMMAND_SENSITIVE_PATH,
                    format!(
                        "`find {arg}` gives every file it finds to `{}`, which may be a secret file",
                        preview(inner.first().map_or("", String::as_str), 30)
                    ),
                ));
            }
            // `{}` is a found path: a representative one if the expression
            // proves its name, otherwise an unknown path that is refused.
            let found = programs::found_path(args);
            let inner: Vec<String> = inner
                .iter()
                .map(|w| if w == "{}" { found.clone() } else { w.clone() })
                .collect();
            check_words(&inner, shape, depth + 1, from_stdin)?;
            i = end + 1;
        } else {
            own.push(arg.clone());
            i += 1;
        }
    }
    let rule = programs::read_only("find").ok_or((
        codes::COMMAND_UNKNOWN_PROGRAM,
        String::from("`find` is not on the read-only list"),
    ))?;
    if expands || from_stdin {
        return Err((
            codes::COMMAND_EXPANSION,
            String::from("`find` has arguments the shell or `xargs` could turn into options"),
        ));
    }
    programs::check_args(rule, &own).map_err(Refusal::into_pair)
}

/// Whether a command prints the content of the files it is given (a search
/// that prints only names or counts, `grep -l`, does not).
pub(super) fn prints_content(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let program = base_name(program);
    if !reads_contents(program) {
        return false;
    }
    let names_only = matches!(program, "grep" | "egrep" | "fgrep" | "rg")
        && args.iter().any(|a| {
            matches!(
                a.as_str(),
                "-l" | "-L"
                    | "-c"
                    | "-q"
                    | "--files-with-matches"
                    | "--files-without-match"
                    | "--count"
                    | "--quiet"
            )
        });
    !names_only
}

/// Whether every file a `find` can name is harmless to print: its start
/// directories hold no secrets and every `-name`/`-iname` test is a pattern
/// of plain source or text files (no negation, no path or regex tests).
pub(super) fn find_names_safe(args: &[String], places: &Places) -> bool {
    // find evaluates its expression left to right: a test after the first
    // action (`-exec cat {} + -name '*.txt'`) filters nothing the action saw.
    let args = programs::before_first_action(args);
    let starts = args
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!" | ")"));
    for start in starts {
        if start.contains(['*', '?', '[']) || places.secret(&format!("{start}/x"), false).is_some()
        {
            return false;
        }
    }
    let mut named = false;
    for (i, arg) in args.iter().enumerate() {
        match arg.as_str() {
            "!" | "-not" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
            | "-iregex" | "-lname" | "-ilname" => return false,
            "-name" | "-iname" => {
                let Some(pattern) = args.get(i + 1) else {
                    return false;
                };
                if !pattern.contains('*') || places.secret(pattern, true).is_some() {
                    return false;
                }
                named = true;
            }
            _ => {}
        }
    }
    named
}

pub(super) type Unwrapped<'a> = Result<Option<Option<&'a [String]>>, (&'static str, String)>;

/// For a wrapper that only runs another command, the command it runs:
/// `Ok(None)` if `name` is not such a wrapper, `Ok(Some(None))` if it runs
/// nothing (and only prints), `Err` for options it cannot pass safely.
pub(super) fn unwrap<'a>(name: &str, args: &'a [String]) -> Unwrapped<'a> {
    let refuse = |arg: &str| {
        Err((
            codes::COMMAND_UNSAFE_ARGUMENT,
            format!("`{name} {}` is not analysed", preview(arg, 40)),
        ))
    };
    // Options of each wrapper that take the next word as their value.
    let (with_value, flags): (&[&str], &[&str]) = match name {
        "env" => (
            &["-u", "--unset", "-C", "--chdir"],
            &["-i", "--ignore-environment", "-0", "--null", "-"],
        ),
        "timeout" => (
            &["-s", "--signal", "-k", "--kill-after"],
            &["--preserve-status", "--foreground", "-v", "--verbose"],
        ),
        "nice" => (&["-n", "--adjustment"], &[]),
        "nohup" | "setsid" => (&[], &["-f", "--fork", "-w", "--wait"]),
        "time" => (
            &["-f", "--format"],
            &["-p", "--portability", "-v", "--verbose"],
        ),
        "command" => (&[], &["-p"]),
        "stdbuf" => (&["-i", "-o", "-e", "--input", "--output", "--error"], &[]),
        "xargs" => (
            &[
                "-I",
                "-i",
                "-n",
                "-P",
                "-d",
                "-E",
                "-e",
                "-s",
                "-L",
                "-l",
                "--max-args",
                "--max-procs",
                "--delimiter",
                "--eof",
                "--max-chars",
                "--max-lines",
                "--replace",
            ],
            &[
                "-0",
                "--null",
                "-r",
                "--no-run-if-empty",
                "-t",
                "--verbose",
                "-x",
                "--exit",
            ],
        ),
        _ => return Ok(None),
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if name == "env" && is_assignment(arg) {
            match arg.split_once('=') {
                Some((var, _)) if harmless_variable(var) => {
                    i += 1;
                    continue;
                }
                _ => {
                    return Err((
                        codes::COMMAND_ENV_ASSIGNMENT,
                        format!(
                            "`env {}` sets a variable for the program it runs",
                            preview(arg, 40)
                        ),
                    ))
                }
            }
        }
        if !arg.starts_with('-') || arg == "-" && name != "env" {
            break;
        }
        if name == "command" && (arg == "-v" || arg == "-V") {
            // `command -v git` looks a program up; it runs nothing.
            return Ok(Some(None));
        }
        if flags.contains(&arg.as_str()) {
            i += 1;
        } else if with_value.contains(&arg.as_str()) {
            i += 2;
        } else if with_value.iter().any(|o| {
            (o.starts_with("--") && arg.starts_with(&format!("{o}=")))
                || (!o.starts_with("--") && arg.len() > 2 && arg.starts_with(o))
        }) || (name == "nice"
            && arg.len() > 1
            && arg[1..].bytes().all(|b| b.is_ascii_digit()))
        {
            i += 1;
        } else {
            // `env -S` splits a string into a command, `time -o` writes a file…
            return refuse(arg);
        }
    }
    if name == "timeout" {
        // The duration: zero (in any spelling) means no limit at all.
        let duration = args.get(i).map_or("", String::as_str);
        let number = duration.trim_end_matches(['s', 'm', 'h', 'd']);
        if number
            .parse::<f64>()
            .map_or(true, |n| n <= 0.0 || n.is_nan())
        {
            return refuse(duration);
        }
        i += 1;
    }
    match args.get(i..) {
        Some(rest) if !rest.is_empty() => Ok(Some(Some(rest))),
        _ if matches!(name, "env" | "nice" | "xargs") => Ok(Some(None)),
        _ => refuse(args.last().map_or("", String::as_str)),
    }
}
