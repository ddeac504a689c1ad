//! Programs that run a little program of their own: `sed`, `awk`, `jq`, `yq`.
//! Their options go through a grammar like any other program's; their
//! programs are read just enough to refuse what writes files, runs commands,
//! reads other files or the environment, or never ends.

use super::forms::{view, Subcommand};
use super::grammar::{check_path, parse, Grammar, Kind, Parsed, BASE};
use super::refusal::Refusal;
use crate::codes;

/// `sed`. Not `-i`/`--in-place` (GNU in-place), `-I` (BSD in-place), `-f`/
/// `--file` (a script file we cannot read), `-a`.
pub const SED: Grammar = Grammar {
    // BSD `-l` is a flag (GNU's takes a length): as a flag, the letters
    // after it are still checked (`-li.bak` is BSD's in-place edit).
    flags: "nErszul",
    valued: "e",
    long_flags: &[
        "quiet",
        "silent",
        "regexp-extended",
        "separate",
        "null-data",
        "zero-terminated",
        "unbuffered",
        "posix",
        "debug",
        "sandbox",
    ],
    long_valued: &["expression", "line-length"],
    then: Some(sed_scripts),
    ..BASE
};

/// `awk`, `gawk`, `mawk`, `nawk`. Only `-F` and `-v`: not `-f` (a program
/// file), `-E`/`--exec`, `-i`/`--include`, `-l`/`--load`, `-o`/`-p`/`-d`
/// (gawk writes a pretty print, profile or variable dump).
pub const AWK: Grammar = Grammar {
    valued: "Fv",
    long_valued: &["field-separator", "assign"],
    then: Some(awk_program),
    ..BASE
};

/// `jq`, after its two-word options are taken out. Not `-f`/`--from-file`
/// (a program file), `-L` (modules).
const JQ: Grammar = Grammar {
    flags: "rjcnesSCMaR",
    long_flags: &[
        "raw-output",
        "join-output",
        "compact-output",
        "null-input",
        "exit-status",
        "slurp",
        "sort-keys",
        "color-output",
        "monochrome-output",
        "ascii-output",
        "raw-input",
        "tab",
        "seq",
        "stream",
        "unbuffered",
    ],
    long_valued: &["indent"],
    ..BASE
};

/// `yq` as installed here (the jq wrapper, which hands jq the options it
/// does not read itself). Not `-i` (in place), `-s`, `--from-file`,
/// `--split-exp`; not the Go implementation's `-P`, `-N`, `--prettyPrint`,
/// `--unwrapScalar`, `--colors`, `--no-colors`, `--no-doc`, which this one
/// refuses (a reading not checked by running is not declared).
const YQ: Grammar = Grammar {
    flags: "rCMeyYjc",
    valued: "opI",
    long_flags: &["exit-status", "raw-output", "compact-output", "yaml-output"],
    long_valued: &["output-format", "input-format", "indent"],
    ..BASE
};

/// `jq`'s option grammar for the forms oracle: the one `jq` parses with
/// once its two-word options (`--arg`, `--slurpfile`, …) are taken out.
pub fn jq_grammar() -> Vec<Subcommand> {
    Subcommand::own(view(&JQ))
}

/// `yq`'s option grammar for the forms oracle: the one `yq` parses with.
pub fn yq_grammar() -> Vec<Subcommand> {
    Subcommand::own(view(&YQ))
}

fn sed_scripts(parsed: &Parsed) -> Result<(), Refusal> {
    let mut scripts: Vec<&str> = parsed
        .values("-e")
        .chain(parsed.values("--expression"))
        .collect();
    let mut files = parsed.operands.iter();
    if scripts.is_empty() {
        match files.next() {
            Some(script) => scripts.push(script),
            None => return Err(Refusal::argument("sed", "", "has no script")),
        }
    }
    for script in &scripts {
        sed_script(script)?;
    }
    // sed joins its `-e` scripts into one, line by line: a label of one and
    // a branch of another meet there (`-e ':x' -e 's/a/aa/' -e 'tx'`).
    if scripts.len() > 1 {
        sed_script(&scripts.join("\n"))?;
    }
    files.try_for_each(|f| check_path("sed", f))
}

/// The most a sed script's substitutions may multiply a line's length.
const MAX_SED_GROWTH: f64 = 100_000.0;

/// Parses a sed script command by command; unknown commands fail closed.
/// `w`/`W` and the `w` flag write, `e` and the `e` flag run commands; `r`/`R`
/// read a file, which must not hold secrets.
fn sed_script(script: &str) -> Result<(), Refusal> {
    let refuse = |why: &str| Err(Refusal::argument("sed", script, why));
    let chars: Vec<char> = script.chars().collect();
    // Labels defined so far, and whether a line was read since each.
    let mut labels: Vec<(String, bool)> = Vec::new();
    // `D` restarts the cycle without reading input while a newline is left:
    // with a command that can put one back (`s`, `G`, `g`, `x`) and none that
    // reads the next line (`N`), it may loop for ever (`s/^/x\n/;D`).
    let (mut restarts, mut refills, mut reads) = (false, false, false);
    // How many times longer the substitutions may make a line.
    let mut growth = 1.0_f64;
    // How many copies of the hold space at the start of a cycle the pattern
    // and hold spaces may hold at the end of it, every command taken as run
    // or skipped (an address or a branch may skip it). Two or more in the
    // hold space double it each line: `H;g;H`, `G;x;G;x` or `H;x;H;x;H;x;H`
    // over 22 lines held 22 GB (GNU sed 4.9 run here, killed by the kernel).
    // The idioms that keep one copy stay bounded by the input: `1!G;h;$p`
    // (tac) and `H;${x;s/\n/,/g;p}` (join).
    let (mut in_pattern, mut in_hold) = (0_u32, 1_u32);
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    loop {
        while matches!(at(i), Some(' ' | '\t' | '\n' | ';' | '{' | '}')) {
            i += 1;
        }
        if at(i).is_none() {
            if in_hold >= 2 {
                return Err(Refusal::new(
                    codes::COMMAND_UNBOUNDED,
                    format!(
                        "`sed` script `{}` appends the hold space to itself: it may double with every line",
                        crate::text::preview(script, 40)
                    ),
                ));
            }
            if restarts && refills && !reads {
                return Err(Refusal::new(
                    codes::COMMAND_UNBOUNDED,
                    format!(
                        "`sed` script `{}` restarts its cycle with `D` and can refill the pattern space: it may loop for ever",
                        crate::text::preview(script, 40)
                    ),
                ));
            }
            return Ok(());
        }
        for _ in 0..2 {
            match at(i) {
                Some(c) if c.is_ascii_digit() => {
                    while at(i).is_some_and(|c| c.is_ascii_digit() || c == '~') {
                        i += 1;
                    }
                }
                Some('$') => i += 1,
                Some('/') => match skip_regex(&chars, i + 1, '/') {
                    Some(next) => i = next,
                    None => return refuse("has an unterminated address"),
                },
                Some('\\') => {
                    let Some(delim) = at(i + 1) else {
                        return refuse("has an unterminated address");
                    };
                    if delim == '\n' || delim == '\\' {
                        return refuse("has an address with an unusual delimiter");
                    }
                    match skip_regex(&chars, i + 2, delim) {
                        Some(next) => i = next,
                        None => return refuse("has an unterminated address"),
                    }
                }
                _ => break,
            }
            while matches!(at(i), Some(' ' | 'I' | 'M')) {
                i += 1;
            }
            if at(i) == Some(',') {
                i += 1;
                if at(i) == Some('+') || at(i) == Some('~') {
                    i += 1;
                }
            } else {
                break;
            }
        }
        while matches!(at(i), Some(' ' | '!')) {
            i += 1;
        }
        let Some(command) = at(i) else {
            return refuse("has an address without a command");
        };
        i += 1;
        restarts |= command == 'D';
        let (pattern_after, hold_after) = match command {
            'g' => (in_hold, in_hold),
            'G' => (in_pattern.saturating_add(in_hold), in_hold),
            'h' => (in_pattern, in_pattern),
            'H' => (in_pattern, in_hold.saturating_add(in_pattern)),
            'x' => (in_hold, in_pattern),
            _ => (in_pattern, in_hold),
        };
        in_pattern = in_pattern.max(pattern_after);
        in_hold = in_hold.max(hold_after);
        refills |= matches!(command, 's' | 'G' | 'g' | 'x');
        reads |= command == 'N';
        if matches!(command, 'N' | 'n') {
            labels.iter_mut().for_each(|(_, read)| *read = true);
        }
        match command {
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | '=' | 'l' | 'z'
            | 'F' | 'q' | 'Q' => {
                while at(i).is_some_and(|c| c.is_ascii_digit() || c == ' ') {
                    i += 1;
                }
            }
            // GNU ends a label at whitespace or `;` and reads what follows
            // as more commands; other seds take more of the line into the
            // label, so reading the rest as commands covers every reading.
            ':' | 'b' | 't' | 'T' => {
                while matches!(at(i), Some(' ' | '\t')) {
                    i += 1;
                }
                let start = i;
                while at(i).is_some_and(|c| !c.is_whitespace() && c != ';') {
                    i += 1;
                }
                let label: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
                // GNU sed 4.9 also ends a label at `#` (what follows is a
                // comment: `:a;ba#x` loops), where other seds keep it in the
                // label: a label is compared in both readings.
                let readings = |label: &str| -> Vec<String> {
                    let mut out = vec![label.to_owned()];
                    if let Some((head, _)) = label.split_once('#') {
                        out.push(head.to_owned());
                    }
                    out
                };
                // A branch back to a label already defined can loop for ever
                // on one line (`:a;ba`, `:x;s/a/aa/;tx`): not proven to end,
                // unless the loop reads a line (`N`, `n`) each time round
                // (`:a;N;$!ba`), which the input ends. A label-less branch,
                // or one forward, ends the cycle.
                if command == ':' {
                    labels.extend(readings(&label).into_iter().map(|l| (l, false)));
                } else if !label.is_empty()
                    && readings(&label)
                        .iter()
                        .any(|b| !b.is_empty() && labels.iter().any(|(l, reads)| l == b && !reads))
                {
                    return Err(Refusal::new(
                        codes::COMMAND_UNBOUNDED,
                        format!(
                            "`sed` script `{}` branches back to `{label}`: it may loop for ever",
                            crate::text::preview(script, 40)
                        ),
                    ));
                }
            }
            // Text to the end of the line (GNU reads `;` as text here).
            'a' | 'i' | 'c' => {
                while at(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            }
            // A file to read, to the end of the line.
            'r' | 'R' => {
                let start = i;
                while at(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
                let name: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
                let name = name.trim_start();
                if name.is_empty() {
                    return refuse("reads a file it does not name");
                }
                check_path("sed", name)?;
                // BSD and GNU differ on where the name ends; the whole rest
                // of the line was checked as one name, and any second
                // reading (ending at `;` or `}`) is checked too.
                if let Some(short) = name.split([';', '}']).next() {
                    check_path("sed", short.trim_end())?;
                }
            }
            's' => {
                let Some(delim) = at(i) else {
                    return refuse("has an unterminated `s` command");
                };
                if delim == '\n' || delim == '\\' {
                    return refuse("has an `s` command with an unusual delimiter");
                }
                let pattern_end = skip_regex(&chars, i + 1, delim);
                let Some(next) = pattern_end.and_then(|j| skip_delimited(&chars, j, delim)) else {
                    return refuse(
                        "has an `s` command whose end sed implementations read differently",
                    );
                };
                // How much a substitution may grow what it matched: each
                // `&` and back-reference copies the match, other characters
                // are literal. Across the script the growths multiply
                // (`s/a/&&/g` eight times is 2^8 times the line).
                let replacement = chars
                    .get(pattern_end.unwrap_or(next)..next.saturating_sub(1))
                    .unwrap_or(&[]);
                let copies = replacement
                    .iter()
                    .zip(std::iter::once(&' ').chain(replacement.iter()))
                    .filter(|(c, before)| {
                        **c == '&' && **before != '\\' || before == &&'\\' && c.is_ascii_digit()
                    })
                    .count();
                #[allow(clippy::cast_precision_loss, reason = "a character count")]
                let factor = (copies.max(1) + replacement.len().saturating_sub(copies)) as f64;
                growth *= factor.max(1.0);
                in_pattern =
                    in_pattern.saturating_mul(u32::try_from(copies.max(1)).unwrap_or(u32::MAX));
                if growth > MAX_SED_GROWTH {
                    return Err(Refusal::new(
                        codes::COMMAND_UNBOUNDED,
                        format!(
                            "`sed` script `{}` multiplies each line more than {MAX_SED_GROWTH} times over its substitutions",
                            crate::text::preview(script, 40)
                        ),
                    ));
                }
                i = next;
                while let Some(flag) = at(i) {
                    match flag {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                        'w' | 'W' => return refuse("writes a file (`s///w`)"),
                        'e' => return refuse("runs the pattern space as a command (`s///e`)"),
                        _ => break,
                    }
                }
            }
            'y' => {
                let Some(delim) = at(i) else {
                    return refuse("has an unterminated `y` command");
                };
                let Some(next) = skip_delimited(&chars, i + 1, delim)
                    .and_then(|j| skip_delimited(&chars, j, delim))
                else {
                    return refuse("has an unterminated `y` command");
                };
                i = next;
            }
            // A block after an address: its commands are read next.
            '{' => {}
            'w' | 'W' => return refuse("writes a file (`w`)"),
            'e' => return refuse("runs a command (`e`)"),
            _ => return refuse("uses a command that is not proven read-only"),
        }
    }
}

/// The index just past the next unescaped `delim`, starting at `start`, as
/// GNU sed reads it: `\\` escapes the next character, a bare newline is an
/// error (`None`).
fn skip_delimited(chars: &[char], start: usize, delim: char) -> Option<usize> {
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 2,
            '\n' => return None,
            c if c == delim => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of a regex (an address or an `s` pattern). GNU sed ends it at the
/// first unescaped `delim`; BSD sed skips bracket expressions (`[/]`,
/// `[]/]`, `[^]/]`, `[[:alpha:]/]`) where the delimiter is literal. Both
/// readings must end at the same place, else `None` (not proven).
fn skip_regex(chars: &[char], start: usize, delim: char) -> Option<usize> {
    let gnu = skip_delimited(chars, start, delim)?;
    let bsd = skip_bracketed(chars, start, delim)?;
    (gnu == bsd).then_some(gnu)
}

/// BSD sed's reading of a regex: as [`skip_delimited`], but a `[` (unless it
/// is the delimiter) opens a bracket expression read to its closing `]`, with
/// `\\` literal inside it.
fn skip_bracketed(chars: &[char], start: usize, delim: char) -> Option<usize> {
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 2,
            '\n' => return None,
            c if c == delim => return Some(i + 1),
            '[' => {
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                loop {
                    match *chars.get(i)? {
                        ']' => break,
                        '\n' => return None,
                        '[' if matches!(chars.get(i + 1), Some('.' | ':' | '=')) => {
                            let kind = *chars.get(i + 1)?;
                            i += 2;
                            while !(chars.get(i) == Some(&kind) && chars.get(i + 1) == Some(&']')) {
                                if chars.get(i).is_none_or(|c| *c == '\n') {
                                    return None;
                                }
                                i += 1;
                            }
                            i += 2;
                        }
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// The identifiers in a program's text (letters, digits, `_`, a leading `$`
/// or `@` kept), strings included: a name inside a string is refused too,
/// which is the safe side.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '@'))
        .filter(|w| !w.is_empty())
}

/// Why a C-style `for` of an awk program (whitespace removed) may not end
/// soon, if it may. Proven: `for(i=A;i<B;i++)` (or `<=`, `+=` a positive
/// constant; `>`/`>=` with `--`/`-=`) where the bound is a constant up to ten
/// million, `NF` or a `length`, and no other statement assigns the counter
/// (no user function either: it could).
fn awk_counted_loops(compact: &str) -> Option<&'static str> {
    const MAX: f64 = 10_000_000.0;
    // Every `for(…)` header, to its matching parenthesis.
    let mut headers: Vec<&str> = Vec::new();
    let mut from = 0;
    while let Some(at) = compact.get(from..).and_then(|r| r.find("for(")) {
        let start = from + at + 4;
        let mut depth = 1usize;
        let mut end = None;
        for (i, c) in compact.get(start..).unwrap_or("").char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return Some("has a loop it cannot read");
        };
        headers.push(compact.get(start..end).unwrap_or(""));
        from = end;
    }
    // The program without the loop headers: where a counter may be changed.
    let mut stripped = compact.to_owned();
    for header in &headers {
        stripped = stripped.replacen(&format!("for({header})"), "for()", 1);
    }
    let functions = compact.contains("function") || compact.contains("func");
    for header in headers {
        // `for(k in a)` walks an array: finite.
        if !header.contains(';') {
            continue;
        }
        let parts: Vec<&str> = header.splitn(3, ';').collect();
        let [init, cond, step] = parts.as_slice() else {
            return Some("has a loop it cannot read");
        };
        let Some((var, _)) = init.split_once('=') else {
            return Some("has a loop whose counter is not set");
        };
        if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Some("has a loop whose counter is not a plain variable");
        }
        let compared = |ops: [&str; 2]| {
            cond.strip_prefix(var)
                .and_then(|c| c.strip_prefix(ops[0]).or_else(|| c.strip_prefix(ops[1])))
        };
        let (upward, bound) = match (compared(["<=", "<"]), compared([">=", ">"])) {
            (Some(b), _) => (true, b),
            (_, Some(b)) => (false, b),
            _ => return Some("has a loop whose condition is not a bound on its counter"),
        };
        let bounded = bound == "NF"
            || bound.starts_with("length(")
            || bound == "length"
            || bound.parse::<f64>().is_ok_and(|n| n.abs() <= MAX);
        if !bounded {
            return Some("has a loop bounded by a value it cannot prove small");
        }
        let (sign, add) = if upward { ('+', "+=") } else { ('-', "-=") };
        let steps = *step == format!("{var}{sign}{sign}")
            || *step == format!("{sign}{sign}{var}")
            || step
                .strip_prefix(&format!("{var}{add}"))
                .and_then(|n| n.parse::<f64>().ok())
                .is_some_and(|n| n > 0.0);
        if !steps {
            return Some("has a loop whose counter does not step toward its bound");
        }
        if functions || assigns(&stripped, var) {
            return Some("has a loop whose counter may be changed in its body");
        }
    }
    None
}

/// Why an awk program's text may build a string that grows
/// exponentially, if it may: an assignment whose right side holds the
/// assigned variable twice, or two variables that each depend on the other
/// (`s=s s`, `a=a b;b=b a`, `b=a a;a=b`), or a substitution whose
/// replacement repeats the match (`gsub(/./,"&&",s)`). Each run of it
/// doubles the string, so a counted loop of forty builds a terabyte (the
/// command oracle measured 18 GB resident for `for(i=0;i<40;i++) s=s s`
/// before its time bound). Growth by a constant (`s=s "x"`) stays linear.
fn awk_growth(text: &str) -> Option<&'static str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    // Every assignment: the variable (an array's name for `a[i]=`) and the
    // identifiers of its right side, to the next `;`, `}` or newline.
    let chars: Vec<char> = text.chars().collect();
    let blank = |j: usize| chars.get(j).is_some_and(|c| *c == ' ' || *c == '\t');
    let mut assignments: Vec<(String, Vec<String>)> = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        if *c != '=' {
            continue;
        }
        let mut end = i;
        while let Some(j) = end.checked_sub(1).filter(|j| blank(*j)) {
            end = j;
        }
        let before = end.checked_sub(1).and_then(|j| chars.get(j)).copied();
        if chars.get(i + 1) == Some(&'=') || before.is_some_and(|b| "=!<>+-*/%^~".contains(b)) {
            continue;
        }
        if before == Some(']') {
            let mut depth = 0usize;
            while let Some(j) = end.checked_sub(1) {
                end = j;
                match chars.get(j) {
                    Some(']') => depth += 1,
                    Some('[') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut start = end;
        while let Some(j) = start.checked_sub(1) {
            if chars.get(j).is_some_and(|c| ident(*c)) {
                start = j;
            } else {
                break;
            }
        }
        let var: String = chars.get(start..end).unwrap_or(&[]).iter().collect();
        if var.is_empty() || var.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let rhs: String = chars
            .get(i + 1..)
            .unwrap_or(&[])
            .iter()
            .take_while(|c| !matches!(c, ';' | '}' | '\n'))
            .collect();
        let ids = identifiers(&rhs)
            .filter(|w| !w.starts_with(|c: char| c.is_ascii_digit()))
            .map(str::to_owned)
            .collect();
        assignments.push((var, ids));
    }
    // Whether `from` reaches `to` through the assignments' dependencies.
    let reaches = |from: &str, to: &str| -> bool {
        let mut seen: Vec<&str> = Vec::new();
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if seen.contains(&v) {
                continue;
            }
            seen.push(v);
            for (var, ids) in &assignments {
                if var == v {
                    stack.extend(ids.iter().map(String::as_str));
                }
            }
        }
        false
    };
    let doubling = assignments
        .iter()
        .any(|(var, ids)| ids.iter().filter(|id| reaches(id, var)).count() >= 2);
    if doubling {
        return Some("builds a string that may double each time an assignment runs");
    }
    // A substitution whose replacement holds the match twice or more.
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut from = 0;
    while let Some(at) = compact.get(from..).and_then(|r| r.find("sub(")) {
        let start = from + at + 4;
        let mut depth = 1usize;
        let mut amps = 0;
        let mut prev = ' ';
        for c in compact.get(start..).unwrap_or("").chars() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                '&' if prev != '\\' => amps += 1,
                _ => {}
            }
            prev = c;
        }
        if amps >= 2 {
            return Some("has a substitution whose replacement repeats the match");
        }
        from = start;
    }
    None
}

/// Whether awk text (whitespace removed) assigns, increments or decrements
/// the variable `var` anywhere.
fn assigns(text: &str, var: &str) -> bool {
    let bytes = text.as_bytes();
    let word_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    text.match_indices(var).any(|(i, _)| {
        let end = i + var.len();
        let before = i.checked_sub(1).and_then(|j| bytes.get(j)).copied();
        let after = bytes.get(end).copied();
        if before.is_some_and(word_char) || after.is_some_and(word_char) {
            return false;
        }
        let rest = text.get(end..).unwrap_or("");
        let pre = text.get(..i).unwrap_or("");
        (rest.starts_with('=') && !rest.starts_with("=="))
            || ["+=", "-=", "*=", "/=", "%=", "^=", "++", "--"]
                .iter()
                .any(|op| rest.starts_with(op))
            || pre.ends_with("++")
            || pre.ends_with("--")
    })
}

/// Why a format string of an awk program may print a huge field, if it may:
/// a width or precision taken from an argument (`%*d`, `%.*s`) or written
/// over ten thousand (`%1000000000d`), inside a string literal.
fn awk_wide_format(text: &str) -> Option<&'static str> {
    const MAX_WIDTH: f64 = 10_000.0;
    for (n, literal) in text.split('"').enumerate() {
        if n % 2 == 0 {
            continue;
        }
        let mut rest = literal;
        while let Some(at) = rest.find('%') {
            let spec = rest.get(at + 1..).unwrap_or("");
            let spec = spec.trim_start_matches(['-', '+', ' ', '#', '0']);
            if spec.starts_with('*') || spec.find(".*").is_some_and(|i| i < 24) {
                return Some("prints a field whose width comes from its arguments");
            }
            let digits: String = spec
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            if digits
                .split('.')
                .any(|d| d.parse::<f64>().is_ok_and(|w| w > MAX_WIDTH))
            {
                return Some("prints a field more than ten thousand characters wide");
            }
            rest = rest.get(at + 1..).unwrap_or("");
        }
    }
    None
}

/// awk variables whose assignment or use reaches beyond the input: `ARGV`/
/// `ARGC` name the files read, `ENVIRON` is the environment.
const AWK_SPECIAL: &[&str] = &["ARGV", "ARGC", "ENVIRON", "PROCINFO"];

fn awk_program(parsed: &Parsed) -> Result<(), Refusal> {
    let program = &parsed.program;
    for assignment in parsed.values("-v").chain(parsed.values("--assign")) {
        let name = assignment.split('=').next().unwrap_or(assignment);
        if AWK_SPECIAL.contains(&name) {
            return Err(Refusal::argument(
                program,
                assignment,
                "sets a variable that names files or the environment",
            ));
        }
    }
    let mut operands = parsed.operands.iter();
    let Some(text) = operands.next() else {
        return Err(Refusal::argument(program, "", "has no program"));
    };
    awk_text(program, text)?;
    for operand in operands {
        match operand.split_once('=') {
            Some((name, _))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                if AWK_SPECIAL.contains(&name) {
                    return Err(Refusal::argument(
                        program,
                        operand,
                        "sets a variable that names files or the environment",
                    ));
                }
            }
            _ => check_path(program, operand)?,
        }
    }
    Ok(())
}

/// Refuses an awk program that runs commands (`system`, `|`), redirects
/// output (`print > file`), reads other files (`getline`, `ARGV`), reads the
/// environment (`ENVIRON`), loads extensions (`@load`), or may loop forever
/// (`while`, `do`, `for(;;)`).
fn awk_text(program: &str, text: &str) -> Result<(), Refusal> {
    let refuse = |why: &str| Err(Refusal::argument(program, text, why));
    for word in identifiers(text) {
        match word {
            "system" => return refuse("runs a command (`system`)"),
            "getline" => return refuse("reads a command's output or another file (`getline`)"),
            "ENVIRON" | "PROCINFO" => {
                return Err(Refusal::new(
                    codes::COMMAND_ENVIRONMENT,
                    format!("`{program}` reads the environment (`{word}`)"),
                ))
            }
            "ARGV" | "ARGC" => return refuse("changes which files are read (`ARGV`)"),
            "while" | "do" => return refuse("has a loop that may never end"),
            w if w.starts_with('@') => return refuse("loads or includes code (`@`)"),
            _ => {}
        }
    }
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains(";;)") {
        return refuse("has a loop without a condition");
    }
    if let Some(why) = awk_wide_format(text) {
        return Err(Refusal::new(
            codes::COMMAND_UNBOUNDED,
            format!("`{program}` {why}"),
        ));
    }
    if let Some(why) = awk_counted_loops(&compact).or_else(|| awk_growth(text)) {
        return Err(Refusal::new(
            codes::COMMAND_UNBOUNDED,
            format!("`{program}` {why}"),
        ));
    }
    // A lexer that reads strings, regex literals (a `/` starts one where
    // awk expects an operand, else it divides), comments and line
    // continuations as awk does; outside them a single `|` is a pipe to or
    // from a command, and a `>` inside a `print`/`printf` statement (not in
    // brackets) is a redirection. What it cannot place is not proven.
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut in_print = false;
    let mut depth = 0usize;
    // What the previous token lets a `/` be.
    #[derive(Clone, Copy, PartialEq)]
    enum Before {
        Operand,
        Operator,
        Unsure,
    }
    let mut before = Before::Operator;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            let start = i - 1;
            while chars
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            {
                i += 1;
            }
            let word: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
            before = match word.as_str() {
                "print" | "printf" => {
                    in_print = true;
                    depth = 0;
                    Before::Unsure
                }
                "return" | "in" | "case" | "else" | "do" | "exit" | "delete" | "getline"
                | "BEGIN" | "END" => Before::Unsure,
                _ => Before::Operand,
            };
            continue;
        }
        match c {
            ' ' | '\t' | '\r' => continue,
            '\\' if chars.get(i) == Some(&'\n') => {
                i += 1;
                continue;
            }
            '#' => {
                while chars.get(i).is_some_and(|c| *c != '\n') {
                    i += 1;
                }
                continue;
            }
            '"' => {
                loop {
                    match chars.get(i) {
                        Some('\\') => i += 2,
                        Some('"') => break,
                        Some('\n') | None => return refuse("has an unterminated string"),
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                before = Before::Operand;
                continue;
            }
            '/' if before == Before::Unsure => {
                return refuse("has a `/` that may divide or start a regex")
            }
            '/' if before == Before::Operator => {
                let plain = awk_regex_end(&chars, i, false);
                let bracketed = awk_regex_end(&chars, i, true);
                match (plain, bracketed) {
                    (Some(a), Some(b)) if a == b => i = a,
                    _ => {
                        return refuse("has a regex whose end awk implementations read differently")
                    }
                }
                before = Before::Operand;
                continue;
            }
            '|' => {
                if chars.get(i) == Some(&'|') {
                    i += 1;
                } else {
                    return refuse("pipes to or from a command (`|`)");
                }
            }
            '+' | '-' if chars.get(i) == Some(&c) => {
                i += 1;
                before = Before::Unsure;
                continue;
            }
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                before = Before::Operand;
                continue;
            }
            ';' | '\n' | '}' | '{' => in_print = false,
            '>' if in_print && depth == 0 => {
                return refuse("redirects output into a file (`print >`)")
            }
            _ => {}
        }
        before = Before::Operator;
    }
    Ok(())
}

/// The index just past the `/` that ends a regex literal starting at
/// `start`: a `\\` escapes the next character; with `brackets`, a `/` inside
/// a bracket expression (`[/]`, `[]/]`, `[[:alpha:]/]`) does not end it (gawk
/// reads it so, other awks may not). A newline or the end of the text: `None`.
fn awk_regex_end(chars: &[char], start: usize, brackets: bool) -> Option<usize> {
    let mut i = start;
    let mut bracket: Option<usize> = None;
    loop {
        let c = *chars.get(i)?;
        match c {
            '\n' => return None,
            '\\' => {
                i += 2;
                continue;
            }
            '/' if bracket.is_none() => return Some(i + 1),
            '[' if brackets && bracket.is_none() => {
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                bracket = Some(i);
                continue;
            }
            '[' if bracket.is_some() && matches!(chars.get(i + 1), Some(':' | '.' | '=')) => {
                let kind = *chars.get(i + 1)?;
                i += 2;
                while !(chars.get(i) == Some(&kind) && chars.get(i + 1) == Some(&']')) {
                    if chars.get(i).is_none_or(|c| *c == '\n') {
                        return None;
                    }
                    i += 1;
                }
                i += 2;
                continue;
            }
            ']' if bracket.is_some() => bracket = None,
            _ => {}
        }
        i += 1;
    }
}

/// jq and yq names that read the environment or files, load modules, or
/// may never end.
fn query_text(program: &str, text: &str, extra: &[&str]) -> Result<(), Refusal> {
    for word in identifiers(text) {
        let bare = word.trim_start_matches('$');
        if matches!(bare, "env" | "ENV" | "__prog_args") || matches!(word, "strenv" | "envsubst") {
            return Err(Refusal::new(
                codes::COMMAND_ENVIRONMENT,
                format!("`{program}` reads the environment (`{word}`)"),
            ));
        }
        let refused = matches!(
            word,
            "import"
                | "include"
                | "modulemeta"
                | "repeat"
                | "while"
                | "until"
                | "def"
                | "input_filename"
                | "combinations"
        ) || extra.contains(&word);
        if refused {
            return Err(Refusal::argument(
                program,
                text,
                &format!("uses `{word}`, which reads other files or may never end"),
            ));
        }
    }
    // `recurse(f)` and `range(…)` may not end; `range` with small literal
    // bounds does.
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("recurse(") {
        return Err(Refusal::argument(
            program,
            text,
            "uses `recurse(…)`, which may never end",
        ));
    }
    // A repetition or an index by a large number builds a huge value
    // (`"x" * 1e9`, `.[1e9] = 1`): a number after `*` over ten thousand, or
    // an index over a million.
    let number_after = |at: usize| -> Option<f64> {
        let tail = compact.get(at..).unwrap_or("");
        let text: String = tail
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
            .take(32)
            .collect();
        text.parse::<f64>().ok()
    };
    // A multiplication repeats a string as often as its number says (`"x" *
    // 1e9`, `"x" * pow(10;9)`, `.a * .b` with `.a` a string of the input):
    // bounded only with a small literal count on one side, or as the deep
    // merge of two object literals (`{…} * {…}`).
    let mut in_string = false;
    let mut escaped = false;
    let mut last = ' ';
    for (at, c) in compact.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            last = c;
            continue;
        }
        if c == '"' {
            in_string = true;
            last = c;
            continue;
        }
        let small = |n: f64| n.abs() <= 10_000.0;
        let huge = match c {
            '*' => {
                let before: String = compact
                    .get(..at)
                    .unwrap_or("")
                    .chars()
                    .rev()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .take(32)
                    .collect::<Vec<char>>()
                    .into_iter()
                    .rev()
                    .collect();
                let left_small = before.parse::<f64>().is_ok_and(small);
                let after = compact.get(at + 1..).unwrap_or("");
                let right_small = number_after(at + 1).is_some_and(small)
                    || after.starts_with('=') && number_after(at + 2).is_some_and(small);
                let merge = last == '}' && after.starts_with('{');
                !(left_small || right_small || merge)
            }
            '[' => number_after(at + 1).is_some_and(|n| n > 1_000_000.0),
            _ => false,
        };
        last = c;
        if huge {
            return Err(Refusal::new(
                codes::COMMAND_UNBOUNDED,
                format!("`{program}` builds a value from a huge repetition or index"),
            ));
        }
    }
    let mut rest = compact.as_str();
    while let Some(at) = rest.find("range(") {
        let after = rest.get(at + 6..).unwrap_or("");
        // A bounded look (linear time): small bounds are short.
        let inside: String = after.chars().take_while(|c| *c != ')').take(16).collect();
        let small = inside.split(';').all(|n| {
            !n.is_empty() && n.len() <= 6 && n.chars().all(|c| c.is_ascii_digit() || c == '-')
        });
        if !small {
            return Err(Refusal::argument(
                program,
                text,
                "uses `range` without small literal bounds",
            ));
        }
        rest = after;
    }
    Ok(())
}

/// Checks `jq`'s arguments: the two-word options, then the grammar, the
/// filter and the files.
pub fn jq(args: &[String]) -> Result<(), Refusal> {
    let mut rest = Vec::new();
    let mut positional_values = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        match arg.as_str() {
            "--arg" | "--argjson" => {
                if args.get(i + 1).is_none() {
                    return Err(Refusal::argument("jq", arg, "lacks its name and value"));
                }
                i += 2;
            }
            "--slurpfile" | "--rawfile" => {
                let Some(file) = args.get(i + 1) else {
                    return Err(Refusal::argument("jq", arg, "lacks its name and file"));
                };
                check_path("jq", file)?;
                i += 2;
            }
            "--args" | "--jsonargs" => positional_values = true,
            _ => rest.push(arg.clone()),
        }
    }
    let parsed = parse("jq", &JQ, &rest)?;
    let mut operands = parsed.operands.iter();
    let filter = if parsed.operands.is_empty() {
        "."
    } else {
        operands.next().map_or(".", String::as_str)
    };
    query_text("jq", filter, &[])?;
    if !positional_values {
        operands.try_for_each(|f| check_path("jq", f))?;
    }
    Ok(())
}

/// Checks `yq`'s arguments (either implementation): `load*` reads files.
pub fn yq(args: &[String]) -> Result<(), Refusal> {
    let parsed = parse("yq", &YQ, args)?;
    let mut operands = parsed.operands.iter().peekable();
    if operands
        .peek()
        .is_some_and(|w| matches!(w.as_str(), "e" | "eval" | "ea" | "eval-all"))
    {
        operands.next();
    }
    if let Some(filter) = operands.next() {
        query_text(
            "yq",
            filter,
            &[
                "load",
                "load_str",
                "load_xml",
                "load_props",
                "load_base64",
                "eval",
                "from_file",
                "system",
            ],
        )?;
    }
    operands.try_for_each(|f| super::grammar::check_value("yq", Kind::Path, f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    /// `sed`'s arguments through its entry's grammar.
    fn sed(args: &[String]) -> Result<(), Refusal> {
        parse("sed", &SED, args).map(|_| ())
    }

    /// An awk's arguments through its entry's grammar.
    fn awk(program: &str, args: &[String]) -> Result<(), Refusal> {
        parse(program, &AWK, args).map(|_| ())
    }

    #[test]
    fn sed_reads_and_refuses() {
        for ok in [
            "-n 1,10p f",
            "s/a/b/g f",
            "-e s/a/b/ -e /x/d f",
            "-E s|a|b|2",
            "$!N;P;D",
            "10q",
            "--expression=s/a/b/ f",
            "y/abc/xyz/",
            "-n $=",
            "1rnotes.txt",
        ] {
            assert!(sed(&words(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "-i s/a/b/ f",
            "-i.bak s/a/b/ f",
            "--in-place s/a/b/ f",
            "--i s/a/b/ f",
            "--expr=1e",
            "s/a/b/w out",
            "s/.*/id/e",
            "w out",
            "1e id",
            "-f x.sed",
            "-I x s/a/b/",
            "1r/etc/shadow",
            "R/home/u/.ssh/id_rsa",
            "--quiet=x p",
            "",
        ] {
            assert!(sed(&words(bad)).is_err(), "{bad}");
        }
        let one = |s: &str| vec![String::from("-n"), String::from(s), String::from("f")];
        for ok in [
            ":a;N;$!ba;p",
            ":a\nN\nba",
            "s/[/]/x/",
            "/[]x]/p",
            "s/[[:alpha:]]/x/g",
            "s|a\\|b|x|2",
            "\\%a%p",
            "/a/,/b/{p;}",
            "t x",
            "s[a[b[g",
        ] {
            // `s/[/]/x/` reads alike only when the bracket holds no delimiter.
            let expect = ok != "s/[/]/x/";
            assert_eq!(sed(&one(ok)).is_ok(), expect, "{ok}");
        }
        for bad in [
            ":a e id",
            ":a w /root/.bashrc",
            ":x;t x e id",
            "b end\te id",
            "T x w out",
            "s/[/]/p/w /tmp/o2",
            "s/[^]/]/p/w o",
            "/[/]/w o",
            "\\%[%]%w o",
            "s/[[:alpha:]/]/x/w o",
            "s/a\nb/x/",
            "y/a/b/;e id",
        ] {
            assert!(sed(&one(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn awk_programs() {
        assert!(awk("awk", &words("{print$1} f")).is_ok());
        assert!(awk("awk", &words("$3>100{print$1} f")).is_ok());
        assert!(awk("awk", &words("-F: {print$1} /etc/passwd")).is_ok());
        assert!(awk("awk", &words("-v n=3 NR<=n")).is_ok());
        assert!(awk(
            "awk",
            &[
                String::from("{a[$1]++}END{for(k in a)print k,a[k]}"),
                String::from("f")
            ]
        )
        .is_ok());
        for ok in [
            "$0~/\"/{print}",
            "{n=NF/2;print(n>1)}",
            "/a|b/{print}",
            "{gsub(/[\\/]/,\"x\");print}",
            "{x=$1/$2}\n/y/{print x}",
            "# \"|\n{print}",
        ] {
            assert!(
                awk("awk", &[String::from(ok), String::from("f")]).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "BEGIN{x=/\"/;print\"id\"|\"sh\"}",
            "BEGIN{x=/\"/;print\"p\">\"/root/.bashrc\"}",
            "BEGIN{x=/[/]\"/;print\"id\"|\"sh\"}",
            "BEGIN{x=\"a\\\"|\";print|\"sh\"}",
            "#\"\n{print|\"sh\"}",
            "{print(1)>\"f\"}",
            "{x=a++/2;print|\"sh\"}",
            "BEGIN{x=\"a",
        ] {
            assert!(awk("awk", &[String::from(bad)]).is_err(), "{bad}");
        }
        for bad in [
            "BEGIN{system(\"id\")}",
            "{print>\"out\"}",
            "{print|\"sh\"}",
            "BEGIN{\"id\"|getline}",
            "-f p.awk",
            "@load\"x\"",
            "BEGIN{print(ENVIRON[\"HOME\"])}",
            "BEGIN{ARGV[1]=\"/etc/shadow\";ARGC=2}{print}",
            "BEGIN{while(1);}",
            "BEGIN{for(;;);}",
            "{print} ARGV=x",
            "-v ARGC=3 {print}",
            "{print} /etc/shadow",
        ] {
            assert!(awk("awk", &words(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn jq_filters() {
        assert!(jq(&words("-r .version package.json")).is_ok());
        assert!(jq(&words("--arg x 1 .a f")).is_ok());
        assert!(jq(&words("[range(5)]")).is_ok());
        for bad in [
            "env",
            "$ENV.HOME",
            "-n [repeat(1)]",
            "[range(1e9)]",
            "def f: f; f",
            "-f p.jq",
            "-L x .",
            "--rawfile k /home/u/.ssh/id_rsa .",
            "import \"a\" as a; .",
            ". /etc/shadow",
        ] {
            assert!(jq(&words(bad)).is_err(), "{bad}");
        }
        assert!(yq(&words(".spec deploy.yaml")).is_ok());
        assert!(yq(&words("e .a f.yaml")).is_ok());
        for bad in [
            "-i .a=1 f",
            "load(\"/etc/shadow\")",
            "strenv(HOME)",
            "-s .a f",
        ] {
            assert!(yq(&words(bad)).is_err(), "{bad}");
        }
    }
}
