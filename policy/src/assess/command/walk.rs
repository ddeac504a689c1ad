//! Walks a parsed command line: every simple command, wherever it stands (in a
//! pipeline, a group, a loop, a substitution, a here-document, a function
//! body), is judged; compound commands add what they are (loops may not end,
//! `for` binds a variable); words are resolved to what the program receives,
//! with computed parts marked so no check mistakes them for a plain file name.

use super::builtins::harmless_expansion;
use super::capabilities::Capability;
use super::destroys::{destruction, destruction_in_words};
use super::judgement::{Outcome, Report};
use super::names::{base_name, is_assignment, is_interpreter, safe_loop_variable};
use super::paths::{Places, COMPUTED, LOOP_VALUE};
use super::syntax::{self, Command, Compound, Heredoc, Part, Pipeline, Redirect, Script, Word};
use super::words::{check_words, find_names_safe, Shape};
use super::{budget, capabilities, floor, programs, table, unbounded};
use crate::codes;
use crate::text::preview;
use std::collections::BTreeSet;

/// Judges a command line at a `bash -c` nesting depth, from the given places.
pub(super) fn judge_line(line: &str, depth: usize, places: &Places) -> Outcome {
    let mut outcome = Outcome {
        report: Report::default(),
        destroys: None,
        commands: 0,
    };
    let parsed = match syntax::parse_nested(line, depth) {
        Ok(parsed) => parsed,
        Err(e) => {
            let code = if e.is_unsupported() {
                codes::COMMAND_UNSUPPORTED_SYNTAX
            } else if matches!(
                e,
                syntax::SyntaxError::TrailingEscape
                    | syntax::SyntaxError::Unterminated("single quote" | "double quote")
            ) {
                codes::COMMAND_PARSE_ERROR
            } else {
                codes::COMMAND_SYNTAX
            };
            outcome
                .report
                .unproven(code, format!("the command could not be parsed: {e}"));
            outcome.destroys = destruction_in_words(line);
            return outcome;
        }
    };
    let mut walk = Walk {
        heredocs: &parsed.heredocs,
        report: Report::default(),
        destroys: None,
        commands: 0,
        places: places.clone(),
        loops: Vec::new(),
        functions: BTreeSet::new(),
        current_function: None,
        depth,
        names_safe: false,
        assigned: BTreeSet::new(),
        called_in_functions: BTreeSet::new(),
        brace_bytes: 0.0,
    };
    walk.script(&parsed.script);
    if walk
        .called_in_functions
        .iter()
        .any(|n| walk.functions.contains(n))
    {
        // Functions that call functions defined after them may call each
        // other without end (`a(){ b|b& }; b(){ a|a& }; a`).
        walk.destroy(Some(String::from(
            "functions call each other: they may recurse without end (a fork bomb)",
        )));
        walk.report.unproven(
            codes::COMMAND_UNBOUNDED,
            String::from("functions call each other and may recurse without end"),
        );
    }
    outcome.report = walk.report;
    outcome.destroys = walk.destroys;
    outcome.commands = walk.commands;
    outcome
}

/// A word as the program receives it.
#[derive(Default)]
struct Arg {
    /// The value; computed parts are [`COMPUTED`].
    text: String,
    /// Any expansion (glob, brace, variable, substitution).
    expands: bool,
    /// A substitution or a variable of unknown value.
    computed: bool,
    /// It starts with computed text that may begin with `-`.
    may_be_option: bool,
}

struct Walk<'a> {
    heredocs: &'a [Heredoc],
    report: Report,
    destroys: Option<String>,
    commands: usize,
    places: Places,
    /// Loop variables in scope, and whether every value is a safe operand.
    loops: Vec<(String, bool)>,
    functions: BTreeSet<String>,
    current_function: Option<String>,
    depth: usize,
    /// Variables assigned earlier in the line.
    assigned: BTreeSet<String>,
    /// Names a function body calls that were not defined yet.
    called_in_functions: BTreeSet<String>,
    /// The command being judged reads file names from a `find` whose names are
    /// all harmless.
    names_safe: bool,
    /// Bytes the line's brace expansions make so far, at most (words made
    /// times the word's length), so that words each within the bound cannot
    /// add up past it.
    brace_bytes: f64,
}

impl Walk<'_> {
    fn destroy(&mut self, what: Option<String>) {
        if self.destroys.is_none() {
            self.destroys = what;
        }
    }

    fn script(&mut self, script: &Script) {
        for (and_or, _background) in &script.items {
            for pipeline in &and_or.pipelines {
                self.pipeline(pipeline);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        let mut safe_names = false;
        for (i, command) in pipeline.commands.iter().enumerate() {
            // Only a `head` right after a producer ends it: `sort` between
            // them would read forever.
            let bounded = pipeline
                .commands
                .get(i + 1)
                .map_or(unbounded::Bound::None, head_bound);
            self.names_safe = safe_names;
            self.command(command, i > 0, bounded);
            self.names_safe = false;
            safe_names = feeds_safe_names(command, &self.places);
        }
    }

    fn command(&mut self, command: &Command, piped: bool, bounded: unbounded::Bound) {
        match command {
            Command::Simple(simple) => {
                self.simple(&simple.words, &simple.redirects, piped, bounded)
            }
            Command::Function(name, body) => {
                self.functions.insert(name.clone());
                let outer = self.current_function.replace(name.clone());
                self.command(body, false, unbounded::Bound::None);
                self.current_function = outer;
            }
            Command::Compound(compound, redirects) => {
                let mut stdin = Vec::new();
                let mut fed = piped;
                for redirect in redirects {
                    self.redirect(redirect, &mut stdin, &mut fed);
                }
                self.compound(compound);
            }
        }
    }

    fn compound(&mut self, compound: &Compound) {
        match compound {
            Compound::Group(script) | Compound::Subshell(script) => self.script(script),
            Compound::If(scripts) => {
                for script in scripts {
                    self.script(script);
                }
            }
            Compound::Loop { until, cond, body } => {
                self.report.unproven(
                    codes::COMMAND_UNBOUNDED,
                    format!(
                        "a `{}` loop may never end",
                        if *until { "until" } else { "while" }
                    ),
                );
                self.script(cond);
                self.script(body);
            }
            Compound::ArithFor { header, body } => {
                self.report.unproven(
                    codes::COMMAND_UNBOUNDED,
                    format!("`for (({}))` may never end", preview(header, 40)),
                );
                self.script(body);
            }
            Compound::For { var, words, body } => {
                if !safe_loop_variable(var) {
                    self.report.unproven(
                        codes::COMMAND_ENV_ASSIGNMENT,
                        format!("the loop sets `{}`", preview(var, 40)),
                    );
                }
                let mut safe = true;
                // How often the body runs, for the line's time: known only
                // from a list of literal words.
                let mut runs = Some(0usize);
                for word in words.iter().flatten() {
                    let arg = self.resolve(word);
                    safe &= !arg.computed
                        && !arg.text.starts_with('-')
                        && !arg.text.contains(char::is_whitespace)
                        && self.places.secret(&arg.text, word.glob).is_none();
                    runs =
                        runs.filter(|_| !arg.computed && !arg.expands && !word.glob && !word.brace);
                    runs = runs.map(|n| n + 1);
                }
                if words.is_none() {
                    runs = None;
                }
                self.loops.push((var.clone(), safe));
                let before = unbounded::enter_loop(runs);
                self.script(body);
                unbounded::leave_loop(before);
                self.loops.pop();
            }
            Compound::Case { word, arms } => {
                self.resolve(word);
                for (patterns, body) in arms {
                    for pattern in patterns {
                        self.resolve(pattern);
                    }
                    self.script(body);
                }
            }
            Compound::Arith(text) => self.arith(text),
            Compound::Cond(words) => {
                // `[[ X -eq Y ]]` evaluates X and Y as arithmetic: a subscript
                // in them runs (`'a[$(cmd)]'`), quoted or not.
                let arithmetic = words.iter().any(|w| {
                    w.literal().is_some_and(|t| {
                        matches!(t.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")
                    })
                });
                for word in words {
                    let arg = self.resolve(word);
                    if arithmetic && arg.text.contains('[') {
                        self.destroy(Some(format!(
                            "`[[ … {} … ]]` evaluates its operand as arithmetic, which runs the code in a subscript",
                            preview(&arg.text, 30)
                        )));
                    }
                    if arg.text.contains('[') || matches!(arg.text.as_str(), "-v" | "-R") {
                        self.report.unproven(
                            codes::COMMAND_SHELL_STATE,
                            format!(
                                "`[[ … {} … ]]` may evaluate a subscript or test a variable",
                                preview(&arg.text, 30)
                            ),
                        );
                    }
                }
            }
            Compound::Coproc(inner) => {
                self.report.unproven(
                    codes::COMMAND_SHELL_STATE,
                    String::from("`coproc` runs a command in the background"),
                );
                self.command(inner, false, unbounded::Bound::None);
            }
        }
    }

    fn arith(&mut self, text: &str) {
        let literal = text
            .chars()
            .all(|c| c.is_ascii_digit() || " \t+-*/%()<>=!&|^~?:".contains(c));
        if !literal {
            // Substitutions inside run too; the floor reads the words.
            self.destroy(destruction_in_words(text));
            self.report.unproven(
                codes::COMMAND_UNSUPPORTED_SYNTAX,
                format!(
                    "arithmetic `{}` is not literal (it may assign or run a subscript)",
                    preview(text, 40)
                ),
            );
        }
    }

    /// A redirection: what it writes or reads. Adds what it feeds on standard
    /// input to `stdin` (for the floor's database and shell checks).
    fn redirect(&mut self, redirect: &Redirect, stdin: &mut Vec<String>, fed: &mut bool) {
        if let Some(index) = redirect.heredoc {
            *fed = true;
            if let Some(heredoc) = self.heredocs.get(index) {
                let body = self.resolve(&heredoc.body);
                stdin.push(body.text);
            }
            return;
        }
        let target = self.resolve(&redirect.target);
        let op = redirect.op;
        if op == "<<<" {
            *fed = true;
            stdin.push(target.text);
            return;
        }
        // `/dev/tcp/host/port` is a connection, not a file: a shell whose
        // streams go there is a shell handed to the other end.
        let lower = target.text.to_ascii_lowercase();
        if lower.starts_with("/dev/tcp/") || lower.starts_with("/dev/udp/") {
            self.destroy(Some(format!(
                "`{op}` connects a stream to `{}`, a network socket: it can hand the shell to the other end",
                shown(&target.text)
            )));
        }
        let duplicates = matches!(op, "<&" | ">&")
            && (target.text == "-"
                || (!target.text.is_empty() && target.text.bytes().all(|b| b.is_ascii_digit())));
        if duplicates {
            return;
        }
        if op == "<" {
            *fed = true;
            if let Some(why) = self.places.secret(&target.text, redirect.target.glob) {
                self.report.unproven(
                    codes::COMMAND_SENSITIVE_PATH,
                    format!("`<` reads `{}`, which {why}", shown(&target.text)),
                );
            }
            stdin.push(target.text);
            return;
        }
        let harmless = !target.expands
            && matches!(
                target.text.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr"
            );
        if !harmless && crate::assess::file::runs_later(&target.text) {
            self.destroy(Some(format!(
                "`{op}` writes `{}`, a place that runs code later (start-up files, hooks, cron)",
                shown(&target.text)
            )));
        }
        if !harmless {
            if let Some(why) = self.places.secret(&target.text, redirect.target.glob) {
                self.report.unproven(
                    codes::COMMAND_SENSITIVE_PATH,
                    format!("`{op}` writes `{}`, which {why}", shown(&target.text)),
                );
            }
            self.report.unproven(
                codes::COMMAND_REDIRECT_WRITE,
                format!(
                    "`{}{op}` writes to `{}`",
                    redirect.fd.as_deref().unwrap_or(""),
                    shown(&target.text)
                ),
            );
        }
    }

    /// Resolves a word, judging every command inside it.
    fn resolve(&mut self, word: &Word) -> Arg {
        if word.brace {
            // A brace beside an expansion (`{${a,b}{a,b}…`) is counted
            // too: bash expands the braces first, whatever the expansion
            // later gives, so each expansion stands in as one letter.
            let text = word
                .literal_with_patterns()
                .unwrap_or_else(|| brace_text(word));
            let made = brace_words_made(&text);
            let before = self.brace_bytes;
            self.brace_bytes += made * text.len() as f64;
            // bash expands the braces first, then each word's substitutions:
            // `$(date){a,b}…` runs `date` once per word made (fifteen lists
            // ran it 32,768 times, past the time bound under the oracle).
            if syntax::runs_commands(&word.parts) && made > MAX_BRACE_RUNS {
                self.report.unproven(
                    codes::COMMAND_UNBOUNDED,
                    format!(
                        "the brace expansion `{}` runs its command substitution once per word, {made} times",
                        shown(&text)
                    ),
                );
            } else if made > MAX_BRACE_WORDS {
                self.report.unproven(
                    codes::COMMAND_UNBOUNDED,
                    format!(
                        "the brace expansion `{}` makes a flood of words",
                        shown(&text)
                    ),
                );
            } else if before <= MAX_BRACE_BYTES && self.brace_bytes > MAX_BRACE_BYTES {
                self.report.unproven(
                    codes::COMMAND_UNBOUNDED,
                    String::from("the line's brace expansions add up to a flood of words"),
                );
            }
        }
        let mut arg = Arg {
            expands: word.glob || word.brace,
            ..Arg::default()
        };
        for (i, part) in word.parts.iter().enumerate() {
            // `$HOME` is `~` only where a `/` or the word's end follows it:
            // bash reads `$HOME-x/y` as `/home/u-x/y` and `$HOME.x` as
            // `/home/u.x`, paths beside the home that `~-x/y` (the previous
            // directory) and `~.x` (a user's home) would misname, so such a
            // word is a value the line does not spell.
            if matches!(part, Part::Param { name, op, prefix: None, .. } if name == "HOME" && op.is_empty())
                && !home_ends(word.parts.get(i + 1))
            {
                arg.expands = true;
                arg.computed = true;
                arg.text.push(COMPUTED);
                continue;
            }
            self.part(part, &mut arg);
        }
        arg
    }

    fn part(&mut self, part: &Part, arg: &mut Arg) {
        match part {
            Part::Lit(text) | Part::Quoted(text) => arg.text.push_str(text),
            Part::Param {
                name,
                op,
                inner,
                prefix,
                ..
            } => {
                // A plain `$HOME` (or `${HOME}`) opening a word, or the
                // value of an assignment, is `~` spelt another way: the
                // user's home, one absolute path set by the login, not by
                // the line or the repository, so it adds no option and no
                // word (`find $HOME -mtime 0`, find's manual;
                // `LOCPATH=$HOME/.locale`, locale's). Every other variable
                // may.
                let home = name == "HOME"
                    && op.is_empty()
                    && prefix.is_none()
                    && (arg.text.is_empty() || arg.text.ends_with('=') && is_assignment(&arg.text))
                    && !self.assigned.contains(name)
                    && !self.loops.iter().any(|(v, _)| v == name);
                if !home {
                    arg.expands = true;
                }
                if name.is_empty() {
                    // `$"…"`: a translated string, otherwise double quotes.
                    for part in inner {
                        self.part(part, arg);
                    }
                    return;
                }
                let mut scratch = Arg::default();
                for part in inner {
                    self.part(part, &mut scratch);
                }
                if let Some(why) = param_operator(op, *prefix) {
                    self.report.unproven(
                        codes::COMMAND_EXPANSION,
                        format!("`${{{name}{}}}` {why}", preview(op, 30)),
                    );
                    arg.computed = true;
                    arg.text.push(COMPUTED);
                    return;
                }
                let positional = name.len() == 1 && "123456789@*".contains(name.as_str())
                    || name.bytes().all(|b| b.is_ascii_digit()) && name != "0";
                let transformed = !op.is_empty() && !op.starts_with(":-") && !op.starts_with('-');
                if self.assigned.contains(name) || transformed || positional {
                    // A value set earlier in the line, changed by an operator,
                    // or an argument (of a function, or of however the host
                    // runs the line): unknown here.
                    arg.computed = true;
                    arg.text.push(COMPUTED);
                } else if let Some((_, safe)) = self.loops.iter().rev().find(|(v, _)| v == name) {
                    if *safe {
                        arg.text.push_str("loop-value");
                    } else {
                        arg.computed = true;
                        arg.text.push(LOOP_VALUE);
                    }
                } else if harmless_expansion(name) {
                    // The value as a path, so the secret checks see where it points.
                    match name.as_str() {
                        "HOME" => arg.text.push('~'),
                        "PWD" => arg.text.push('.'),
                        "XDG_CONFIG_HOME" => arg.text.push_str("~/.config"),
                        "XDG_DATA_HOME" => arg.text.push_str("~/.local/share"),
                        "XDG_CACHE_HOME" => arg.text.push_str("~/.cache"),
                        "TMPDIR" => arg.text.push_str("/tmp"),
                        "OLDPWD" | "XDG_RUNTIME_DIR" => {
                            arg.computed = true;
                            arg.text.push(COMPUTED);
                        }
                        _ => {
                            arg.text.push('$');
                            arg.text.push_str(name);
                        }
                    }
                } else {
                    self.report.unproven(
                        codes::COMMAND_ENVIRONMENT,
                        format!("`${name}` expands a variable that may hold a secret or any value"),
                    );
                    arg.computed = true;
                    arg.text.push(COMPUTED);
                }
            }
            Part::Subst { script, .. } => {
                if arg.text.is_empty() && !never_an_option(script) {
                    arg.may_be_option = true;
                }
                self.script(script);
                arg.expands = true;
                arg.computed = true;
                arg.text.push(COMPUTED);
            }
            Part::Arith(text) => {
                self.arith(text);
                arg.expands = true;
                arg.text.push('0');
            }
            Part::Process { script, output } => {
                self.script(script);
                if *output {
                    // A program that reads the path opens the pipe's write
                    // side for reading and waits for a writer that never
                    // comes (`cat >(true)` never ends); one that writes it
                    // feeds the command. Neither is a bounded read.
                    self.report.unproven(
                        codes::COMMAND_UNBOUNDED,
                        String::from(
                            "`>(…)` is a pipe into a command: a program that reads it waits for ever, one that writes it feeds the command",
                        ),
                    );
                }
                arg.text.push_str("process-substitution");
            }
            Part::AnsiC(text) => {
                self.report.unproven(
                    codes::COMMAND_UNSUPPORTED_SYNTAX,
                    format!(
                        "ANSI-C quoting (`$'{}'`) is not analysed",
                        preview(text, 30)
                    ),
                );
                arg.expands = true;
                arg.computed = true;
                arg.text.push(COMPUTED);
            }
        }
    }

    fn simple(
        &mut self,
        words: &[Word],
        redirects: &[Redirect],
        piped: bool,
        bounded: unbounded::Bound,
    ) {
        self.commands += 1;
        let expanded = brace_expanded(words);
        let words = expanded.as_deref().unwrap_or(words);
        let mut stdin = Vec::new();
        let mut fed = piped;
        for redirect in redirects {
            self.redirect(redirect, &mut stdin, &mut fed);
        }
        let mut args: Vec<Arg> = words.iter().map(|w| self.resolve(w)).collect();
        if let (Some(word), Some(arg)) = (words.last(), args.last_mut()) {
            if let [Part::Subst { script }] = word.parts.as_slice() {
                if words.len() > 1 && prints_one_pid_list(script) {
                    // The last word is one comma list of process IDs (or
                    // nothing, which leaves no word after it to shift): the
                    // largest ID Linux gives stands for it, so a bound that
                    // reads it as a number sees the worst case.
                    *arg = Arg {
                        text: String::from(MAX_PID),
                        ..Arg::default()
                    };
                }
            }
        }
        budget::count(args.iter().map(|a| a.text.len() + 1).sum());
        let texts: Vec<String> = args.iter().map(|a| a.text.clone()).collect();
        let program_at = texts.iter().position(|w| !is_assignment(w));
        for text in texts
            .get(..program_at.unwrap_or(texts.len()))
            .unwrap_or_default()
        {
            if let Some((name, _)) = text.split_once('=') {
                self.assigned.insert(name.to_owned());
            }
        }
        self.truncation(&texts, program_at, redirects);
        let Some(at) = program_at else {
            // Only assignments: judged as such.
            let shape = Shape {
                names_safe: false,
                expands: args.iter().any(|a| a.expands),
                globbed: None,
                places: &self.places,
                judge_line,
            };
            if let Err((code, message)) = check_words(&texts, &shape, self.depth, false) {
                self.report.unproven(code, message);
                // A variable the environment already holds (`HOME`, `PATH`,
                // upper case by convention) is passed on changed to every
                // later program: `HOME=.; git log` is `HOME=. git log`.
                let exported: Vec<String> = texts
                    .iter()
                    .filter(|t| {
                        t.split_once('=').is_some_and(|(name, _)| {
                            !safe_loop_variable(name.strip_suffix('+').unwrap_or(name))
                        })
                    })
                    .cloned()
                    .collect();
                self.destroy(capabilities::capability(&exported));
            }
            return;
        };
        let (Some(word), Some(arg)) = (words.get(at), args.get(at)) else {
            return;
        };
        if word.literal().is_none() {
            self.report.unproven(
                codes::COMMAND_EXPANSION,
                format!(
                    "the program name `{}` is computed by the shell",
                    shown(&arg.text)
                ),
            );
            if arg.computed {
                self.destroy(Some(String::from(
                    "runs a program whose name a substitution or variable computes",
                )));
            } else {
                // A glob or brace can spell any program (`r[m]`, `{r,}m`,
                // `r[[:alpha:]]`): the floor assumes the worst.
                self.destroy(Some(format!(
                    "the program name `{}` is a pattern that may name a program that destroys",
                    shown(&arg.text)
                )));
            }
            return;
        }
        let program = base_name(&arg.text).to_owned();
        if self.current_function.as_deref() == Some(program.as_str()) {
            self.destroy(Some(format!(
                "the function `{}` calls itself: a fork bomb or endless recursion",
                preview(&program, 30)
            )));
            self.report.unproven(
                codes::COMMAND_UNBOUNDED,
                format!("the function `{}` calls itself", preview(&program, 30)),
            );
            return;
        }
        if program != "echo" && args.iter().skip(at + 1).any(|a| a.may_be_option) {
            self.report.unproven(
                codes::COMMAND_SUBSTITUTION,
                format!(
                    "the output of a substitution may become an option of `{}`",
                    preview(&program, 30)
                ),
            );
        }
        let globbed: BTreeSet<String> = words
            .iter()
            .zip(&args)
            .filter(|(w, _)| w.glob || w.brace)
            .map(|(_, a)| a.text.clone())
            .collect();
        let is_function = self.functions.contains(&program);
        if self.current_function.is_some() && !is_function {
            self.called_in_functions.insert(program.clone());
        }
        if !is_function {
            let shape = Shape {
                names_safe: self.names_safe,
                expands: args.iter().any(|a| a.expands),
                globbed: Some(&globbed),
                places: &self.places,
                judge_line,
            };
            if let Err((code, message)) = check_words(&texts, &shape, self.depth, false) {
                // A client the read-only grammar did not prove is still read
                // for where it goes and what it sends, for the floor.
                if !codes::SENSITIVE.contains(&code) {
                    self.client_floor(&program, texts.get(at + 1..).unwrap_or_default());
                }
                if let Some(why) = unread_files(code, &texts, at) {
                    self.report
                        .unproven(codes::COMMAND_UNREAD_FILES, format!("{why}: {message}"));
                }
                self.report.unproven(code, message);
                // Whatever the program, known or not, every word is read.
                self.word_floor(&program, &texts, at, &globbed, &stdin);
            }
            if let Some(why) = unbounded::unbounded(&texts, &stdin, bounded) {
                self.report.unproven(codes::COMMAND_UNBOUNDED, why);
            }
        }
        if program == "cd" || program == "pushd" {
            let target = args.get(at + 1..).and_then(|rest| {
                rest.iter()
                    .find(|a| !a.text.starts_with('-') || a.text == "-")
            });
            match target {
                None => self.places.cd(Some("~")),
                Some(a) if a.computed => self.places.cd(None),
                Some(a) => self.places.cd(Some(&a.text)),
            }
        }
        let rest = texts.get(at + 1..).unwrap_or_default();
        if let Some(what) = floor::prints_credentials(&program, rest) {
            self.report.unproven(codes::COMMAND_CREDENTIALS, what);
        }
        let destroys = destruction(&texts, self.depth, judge_line)
            .or_else(|| {
                table::destruction(&program, rest, &stdin).map(|w| format!("`{program}` {w}"))
            })
            .or_else(|| {
                let runs_input = (programs::is_shell(&program)
                    && !rest
                        .iter()
                        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c')))
                    || is_interpreter(&program);
                (fed && runs_input).then(|| {
                    format!("`{program}` runs the text piped or redirected into it as a program")
                })
            });
        self.destroy(destroys);
    }

    /// The floor's reading of a command the read-only grammar did not
    /// prove, whatever its program: what it can do beyond what the line
    /// names (the capability column), a secret file or an internal host in
    /// any word and any spelling (`--opt=F`, `@F`, `file://F`, `-TF`, a
    /// `--resolve` value), and paths no reading can resolve.
    fn word_floor(
        &mut self,
        program: &str,
        texts: &[String],
        at: usize,
        globbed: &BTreeSet<String>,
        stdin: &[String],
    ) {
        self.destroy(capabilities::capability(texts));
        if self.places.moved()
            && texts.iter().skip(at).take(16).any(|w| {
                // Also inside a script it is given (`sh -c 'git status'`).
                w.split(|c: char| c.is_whitespace() || ";&|()'\"`{}$<>".contains(c))
                    .take(64)
                    .any(|t| base_name(t) == "git")
            })
        {
            // git runs the configuration of the repository it finds from
            // where it starts: after a `cd`, a nested or other repository's
            // `core.fsmonitor`, pager, hooks and drivers (`git -C` is the
            // table's row for the same capability).
            self.destroy(Some(String::from(
                "`git` after a `cd` may run in another repository and runs code the line does not name (its `core.fsmonitor`, pager, hooks: git-config(1))",
            )));
        }
        let args = texts.get(at + 1..).unwrap_or_default();
        budget::count(args.len() + stdin.len());
        // Text fed on standard input (here-documents and -strings) is read
        // too: a client runs it (`sqlite3 <<EOF .import ~/.ssh/id_rsa …`);
        // so are the values of the assignments before the program
        // (`MAGIC=.env file x`).
        let assigned = texts.get(..at).unwrap_or_default();
        let fed: Vec<&String> = args
            .iter()
            .take(256)
            .chain(stdin.iter().take(16))
            .chain(assigned.iter().take(16))
            .collect();
        if let Some((word, why)) = fed.iter().copied().find_map(|word| {
            let globbed = globbed.contains(word);
            floor::secret_in_word(word, globbed, |path, globbed| {
                self.places.secret(path, globbed)
            })
            .map(|why| (word, why))
        }) {
            self.report.unproven(
                codes::COMMAND_SENSITIVE_PATH,
                format!("`{program}` is given `{}`, which {why}", shown(word)),
            );
        }
        let reached = self
            .report
            .findings
            .iter()
            .any(|f| f.code == codes::HTTP_LOCAL_TARGET || f.code == codes::HTTP_DENIED_HOST);
        if let Some(finding) = fed
            .iter()
            .find_map(|w| floor::internal_target(w))
            .filter(|_| !reached)
        {
            self.report
                .unproven(codes::HTTP_LOCAL_TARGET, format!("`{program}`: {finding}"));
        }
        if let Some(token) = args
            .iter()
            .take(256)
            .flat_map(|w| capabilities::tokens(w).take(64))
            .find(|t| !t.contains([COMPUTED, LOOP_VALUE]) && crate::assess::file::runs_later(t))
        {
            self.destroy(Some(format!(
                "`{program}` is given `{}`, a place that runs code later (start-up files, hooks, cron)",
                shown(token)
            )));
        }
        if let Some(word) = args.iter().take(256).find(|w| floor::unresolvable_path(w)) {
            self.report.unproven(
                codes::COMMAND_UNRESOLVABLE_PATH,
                format!(
                    "`{program}` is given `{}`, a path whose place a program could read differently (a variable the shell does not expand, another user's home)",
                    shown(word)
                ),
            );
        }
    }

    /// An HTTP client's uploads of secret files and targets inside the
    /// network, reported as the read-only checks would (the floor reads them
    /// whatever the model's rating).
    fn client_floor(&mut self, program: &str, args: &[String]) {
        let Some(words) = floor::client_words(program, args) else {
            return;
        };
        for file in &words.files {
            if let Some(why) = self.places.secret(file, false) {
                self.report.unproven(
                    codes::COMMAND_SENSITIVE_PATH,
                    format!("`{program}` sends `{}`, which {why}", shown(file)),
                );
            }
        }
        let rule = super::net::rule();
        for word in &words.urls {
            let url = if word.contains("://") {
                word.clone()
            } else {
                format!("http://{word}")
            };
            // The first finding the floor reads, with its stable code.
            let found =
                crate::assess::urls::url_problems(&url, &rule.allow_hosts, &rule.deny_hosts)
                    .unwrap_or_default()
                    .into_iter()
                    .find_map(|f| {
                        let code = codes::SENSITIVE.iter().find(|c| **c == f.code)?;
                        Some((*code, f.message))
                    });
            if let Some((code, message)) = found {
                self.report
                    .unproven(code, format!("`{program}`: {message}"));
            }
        }
    }

    /// `: > file`, `> file`: a redirection that empties a file, or any write
    /// onto a disk device.
    fn truncation(&mut self, texts: &[String], program_at: Option<usize>, redirects: &[Redirect]) {
        let empty_output = match program_at.and_then(|at| texts.get(at..)) {
            None => true,
            Some([program, rest @ ..]) => {
                matches!(base_name(program), ":" | "true" | "false")
                    || (base_name(program) == "echo" && rest.iter().all(|a| a == "-n" || a == "-e"))
                    || (base_name(program) == "printf" && rest.iter().all(String::is_empty))
                    || (base_name(program) == "cat" && rest.iter().all(|a| a == "/dev/null"))
            }
            Some([]) => true,
        };
        for redirect in redirects {
            let Some(target) = redirect.target.literal() else {
                continue;
            };
            let writes = matches!(redirect.op, ">" | ">|" | "&>" | "<>" | ">>" | "&>>");
            let disk = [
                "/dev/sd",
                "/dev/nvme",
                "/dev/hd",
                "/dev/vd",
                "/dev/xvd",
                "/dev/mmcblk",
                "/dev/disk",
                "/dev/mapper",
                // The kernel's triggers and settings: `echo c >
                // /proc/sysrq-trigger` crashes the machine, `/proc/sys/…`
                // and `/sys/…` change it, `/dev/mem` is its memory.
                "/proc/sysrq-trigger",
                "/proc/sys/",
                "/sys/",
                "/dev/mem",
                "/dev/kmem",
                "/dev/port",
            ]
            .iter()
            .any(|d| target.starts_with(d));
            let truncates = matches!(redirect.op, ">" | ">|" | "&>")
                && empty_output
                && !matches!(target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr");
            if writes && disk {
                self.destroy(Some(format!(
                    "writes onto the disk device or kernel file `{}`",
                    shown(&target)
                )));
            } else if truncates {
                self.destroy(Some(format!(
                    "`{}` empties `{}`",
                    redirect.op,
                    shown(&target)
                )));
            }
        }
    }
}

/// Why a `${…}` operator is not a plain read, if it is not.
fn param_operator(op: &str, prefix: Option<char>) -> Option<&'static str> {
    if prefix == Some('!') {
        return Some("is an indirect expansion: it reads a variable named by another");
    }
    if op.is_empty() {
        return None;
    }
    if op.contains("@P") {
        return Some("is a prompt expansion, which runs substitutions in the value");
    }
    if op.starts_with(":=") || op.starts_with('=') {
        return Some("assigns a variable");
    }
    if op.starts_with('[') {
        return Some("evaluates a subscript");
    }
    if op.starts_with('@') {
        return Some("transforms the value in a way not analysed");
    }
    let plain = [":-", "-", ":+", "+", "#", "%", ":?", "?", "^", ",", "/"]
        .iter()
        .any(|p| op.starts_with(p));
    let substring = op.starts_with(':')
        && op
            .chars()
            .skip(1)
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | ':' | '-' | '}'));
    if plain || substring {
        None
    } else {
        Some("uses an operator that is not analysed")
    }
}

/// Most words the brace expansions of one word may make (bash builds them
/// all in memory, some 300 bytes each, before the program runs).
const MAX_BRACE_WORDS: f64 = 100_000.0;

/// Most words a brace expansion may make from a word holding a command or
/// process substitution: each word runs it again.
const MAX_BRACE_RUNS: f64 = 64.0;

/// Most bytes the brace expansions of a whole line may make, counted as words
/// made times the length of the word that makes them.
const MAX_BRACE_BYTES: f64 = 4.0 * 1024.0 * 1024.0;

/// A word's text for counting its braces: its literal and quoted text, each
/// expansion standing in as one letter (bash makes the braces' words before
/// it expands parameters, commands and arithmetic).
fn brace_text(word: &Word) -> String {
    word.parts
        .iter()
        .map(|part| match part {
            Part::Lit(text) | Part::Quoted(text) => text.as_str(),
            _ => "x",
        })
        .collect()
}

/// How many words the braces of a word may make, at most: the product over
/// its braces of a range's span (`{1..9}`; 26 for letters) or a comma list's
/// alternatives (`{a,b}`). Comma lists multiply exactly as ranges do: twenty
/// `{a,b}` make a million words, 22 MB from `echo` and 300 MB of bash's
/// memory (bash 5.2 run here), twenty-seven exhaust the memory. Nested braces
/// are counted as if side by side, which counts at least as many words.
fn brace_words_made(text: &str) -> f64 {
    let mut product = 1.0f64;
    for piece in text.split('{').skip(1) {
        let inner = piece.split('}').next().unwrap_or("");
        let mut ends = inner.split("..");
        let span = match (ends.next(), ends.next()) {
            (Some(a), Some(b)) => match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(a), Ok(b)) => (b - a).abs() + 1.0,
                _ => 26.0,
            },
            _ => inner.matches(',').count() as f64 + 1.0,
        };
        product *= span;
    }
    product
}

/// The words of a simple command with bash's brace expansion made where each
/// brace is a plain comma list ([`Word::brace_words`]), so each word is judged
/// as the program receives it (`file -s /dev/hda{,1,2}`, file's manual, is
/// `file -s /dev/hda /dev/hda1 /dev/hda2`; `file {-C,x}` is `file -C x`).
/// Only the words after the program name: a program spelt with braces stays
/// a pattern, and assignments before it are not brace-expanded by bash.
/// `None` when nothing changes.
fn brace_expanded(words: &[Word]) -> Option<Vec<Word>> {
    let program = words
        .iter()
        .position(|w| !w.literal().is_some_and(|t| is_assignment(&t)))?;
    let (head, rest) = words.split_at_checked(program + 1)?;
    if !rest.iter().any(|w| w.brace_words().is_some()) {
        return None;
    }
    let mut out = head.to_vec();
    for word in rest {
        match word.brace_words() {
            Some(made) => out.extend(made),
            None => out.push(word.clone()),
        }
    }
    Some(out)
}

/// Whether a substitution's output can never start with `-`: one simple
/// command of literal words that prints a path, a name, a number or fixed text.
fn never_an_option(script: &Script) -> bool {
    let [(and_or, false)] = script.items.as_slice() else {
        return false;
    };
    let [pipeline] = and_or.pipelines.as_slice() else {
        return false;
    };
    let [Command::Simple(simple)] = pipeline.commands.as_slice() else {
        return false;
    };
    let Some(words) = simple
        .words
        .iter()
        .map(Word::literal)
        .collect::<Option<Vec<String>>>()
    else {
        return false;
    };
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    table::lookup(program)
        .and_then(|entry| entry.prints_no_option)
        .is_some_and(|when| when.holds(args, &[]))
}

/// The largest process ID Linux hands out (`PID_MAX_LIMIT` on 64-bit).
const MAX_PID: &str = "4194304";

/// Whether a substitution prints one word of process IDs joined by commas
/// and nothing else: `pgrep -d, PATTERN` with options that only choose
/// processes (`ps -fp $(pgrep -d, -x xterm)`, pgrep's manual; procps 4.0.2
/// run here prints `5945,5947`, or nothing with exit 1). Not `-l`/`-a`
/// (names and command lines, which any process sets), `-w`, `-F` (reads a
/// file), `-c`, a delimiter other than a comma (a space splits, a digit
/// joins IDs into a larger number, `*` globs), or anything not literal.
fn prints_one_pid_list(script: &Script) -> bool {
    let [(and_or, false)] = script.items.as_slice() else {
        return false;
    };
    let [pipeline] = and_or.pipelines.as_slice() else {
        return false;
    };
    let [Command::Simple(simple)] = pipeline.commands.as_slice() else {
        return false;
    };
    if !simple.redirects.is_empty() {
        return false;
    }
    let Some(words) = simple
        .words
        .iter()
        .map(Word::literal)
        .collect::<Option<Vec<String>>>()
    else {
        return false;
    };
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    if program != "pgrep" {
        return false;
    }
    let (mut comma, mut pattern) = (false, false);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-d," | "--delimiter=," => comma = true,
            "-d" | "--delimiter" => {
                if rest.next().map(String::as_str) != Some(",") {
                    return false;
                }
                comma = true;
            }
            "-x" | "--exact" | "-f" | "--full" | "-n" | "--newest" | "-o" | "--oldest" | "-i"
            | "--ignore-case" | "-v" | "--inverse" => {}
            "-u" | "--euid" | "-U" | "--uid" | "-g" | "--pgroup" | "-G" | "--group" | "-P"
            | "--parent" | "-s" | "--session" | "-t" | "--terminal" => {
                if rest.next().is_none() {
                    return false;
                }
            }
            other if !other.starts_with('-') && !pattern => pattern = true,
            _ => return false,
        }
    }
    comma
}

/// Whether a command is a `find` that prints only harmless file names.
fn feeds_safe_names(command: &Command, places: &Places) -> bool {
    let Command::Simple(simple) = command else {
        return false;
    };
    let Some(words) = simple
        .words
        .iter()
        .map(Word::literal)
        .collect::<Option<Vec<String>>>()
    else {
        return false;
    };
    match words.split_first() {
        Some((program, args)) if base_name(program) == "find" => {
            !args
                .iter()
                .any(|a| a.starts_with("-exec") || a.starts_with("-ok") || a.starts_with("-fprint"))
                && find_names_safe(args, places)
        }
        _ => false,
    }
}

/// The program a command runs when it is a simple command with a literal name.
/// How a `head` that reads a command's output ends it: a byte count ends any
/// producer; a line count only one that prints lines (`/dev/zero` has none).
fn head_bound(next: &Command) -> unbounded::Bound {
    if program_word(next).as_deref() != Some("head") {
        return unbounded::Bound::None;
    }
    let Command::Simple(simple) = next else {
        return unbounded::Bound::None;
    };
    // Every word literal, and a count small enough to end the producer soon.
    let words: Option<Vec<String>> = simple.words.iter().skip(1).map(Word::literal).collect();
    let Some(words) = words else {
        return unbounded::Bound::None;
    };
    match unbounded::head_take(&words) {
        (true, Some(n)) if n <= unbounded::MAX_HEAD_BYTES => unbounded::Bound::Bytes,
        (false, Some(n)) if n <= unbounded::MAX_HEAD_LINES => unbounded::Bound::Lines,
        _ => unbounded::Bound::None,
    }
}

fn program_word(command: &Command) -> Option<String> {
    let Command::Simple(simple) = command else {
        return None;
    };
    simple
        .words
        .iter()
        .filter_map(Word::literal)
        .find(|w| !is_assignment(w))
        .map(|w| base_name(&w).to_owned())
}

/// A value for messages: computed parts shown as `…`.
fn shown(text: &str) -> String {
    preview(&text.replace([COMPUTED, LOOP_VALUE], "…"), 60)
}

/// Why a refused command is a reading the code layer could not make, if it
/// is one: a program that prints the files it reads handed words the line
/// does not hold (`ls -a | xargs grep KEY` printed `.env`, `cat $F`), or a
/// reader with no writing or sending form given an option or argument
/// outside its grammar (`rg -uu KEY src`, `diff -rq . backend` and `zgrep
/// -r KEY .` read ignored and hidden files). Through `xargs` and wrappers the programs they run count.
/// A program with a writing or sending form (`gzip -k`, `tar -c`, `curl -X
/// POST`) is left to the model's rating: an unknown option of it is a form
/// the low may choose, and its capabilities are read by the floor anyway.
fn unread_files(code: &str, texts: &[String], at: usize) -> Option<&'static str> {
    let programs = || texts.iter().skip(at).take(16).map(|w| base_name(w));
    let reads = |p: &str| table::lookup(p).is_some_and(|e| e.reads_contents);
    if code == codes::COMMAND_EXPANSION && programs().any(reads) {
        return Some(
            "a program that prints the files it reads is handed names the line does not hold",
        );
    }
    let pure = |p: &str| {
        table::lookup(p).is_some_and(|e| {
            e.reads_contents
                && !e.capabilities.iter().any(|r| {
                    matches!(
                        r.capability,
                        Capability::Overwrites | Capability::Transfers | Capability::Persistence
                    )
                })
        })
    };
    (code == codes::COMMAND_OPTION && programs().any(pure))
        .then_some("a reader is given an option outside its grammar, so which files it reads is unread")
        .or_else(|| {
            (code == codes::COMMAND_UNSAFE_ARGUMENT && programs().any(pure)).then_some(
                "a reader is given an argument its grammar does not prove, so which files it reads is unread",
            )
        })
}

/// Whether what follows a `$HOME` ends the home's name: nothing, or text
/// that starts with `/`.
fn home_ends(next: Option<&Part>) -> bool {
    match next {
        None => true,
        Some(Part::Lit(text) | Part::Quoted(text)) => text.starts_with('/'),
        Some(_) => false,
    }
}
