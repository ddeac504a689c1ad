//! Work that never ends or floods its output: following, watching, infinite
//! devices and loops, detaching. A tool call should return; these are
//! confirmed (`command.unbounded`) even when every program only reads.

use super::names::is_assignment;
use super::table;
use std::cell::Cell;

thread_local! {
    /// Seconds the line's `sleep`s and `timeout` limits add up to so far,
    /// each counted as often as the loops around it run.
    static SLEPT: Cell<f64> = const { Cell::new(0.0) };
    /// How often the command being judged runs: the product of the
    /// iteration counts of the `for` loops around it (infinite when a loop's
    /// list is computed or a glob).
    static FACTOR: Cell<f64> = const { Cell::new(1.0) };
}

/// Starts the tallies of one assessment (the line is bounded as a whole).
pub fn start_line() {
    SLEPT.with(|s| s.set(0.0));
    FACTOR.with(|f| f.set(1.0));
}

/// Enters a `for` loop of `iterations` runs (`None`: not known from the
/// line); returns what [`leave_loop`] restores.
pub fn enter_loop(iterations: Option<usize>) -> f64 {
    FACTOR.with(|f| {
        let before = f.get();
        #[allow(clippy::cast_precision_loss, reason = "a count of words")]
        let runs = iterations.map_or(f64::INFINITY, |n| n as f64);
        f.set(before * runs);
        before
    })
}

/// Leaves a loop entered with [`enter_loop`].
pub fn leave_loop(before: f64) {
    FACTOR.with(|f| f.set(before));
}

/// Adds `seconds` (once per run of the command) to the line's time; whether
/// the line's total is still within [`MAX_SLEEP`].
fn add_time(seconds: f64) -> bool {
    let runs = FACTOR.with(Cell::get);
    let added = if seconds > 0.0 { seconds * runs } else { 0.0 };
    SLEPT.with(|s| {
        let total = s.get() + added;
        s.set(total);
        total <= MAX_SLEEP
    })
}

/// The widest field a format or option may ask for (`date +%10000Y`,
/// `printf %10000d`, `expand -t`, `nl -w`, `numfmt --padding`, `pr -w`):
/// wider fields are padding the line does not bound (awk's limit too).
pub const MAX_WIDTH: f64 = 10_000.0;

/// Devices that never end.
const ENDLESS_DEVICES: &[&str] = &[
    "/dev/zero",
    "/dev/urandom",
    "/dev/random",
    "/dev/full",
    "/dev/kmsg",
    "/dev/tty",
    "/dev/stdin",
];

/// The longest the line's `sleep`s and `timeout` limits may add up to, in
/// seconds, over all its segments and loop iterations (`sleep 50; sleep 50`
/// and `for i in 1 2 3; do sleep 30; done` are over): a short pause, well
/// inside the command oracle's bound on one line (90 s), which caught
/// `sleep 6\00` (600 s) still running when this was ten minutes.
const MAX_SLEEP: f64 = 60.0;

/// The largest `seq` bound accepted.
const MAX_SEQ: f64 = 10_000_000.0;

/// The most bytes a `head -c` may take from an endless source (16 MiB).
pub const MAX_HEAD_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

/// The most lines a `head -n` may take from an endless source.
pub const MAX_HEAD_LINES: f64 = 1_000_000.0;

/// The most retries a client may make (each may wait for its timeout).
const MAX_RETRIES: f64 = 5.0;

/// A count with `head`'s and `dd`'s suffixes (`10G`, `1MiB`, `5kB`, `2b`),
/// `None` when it is not one (negative, a variable, text).
pub fn count(text: &str) -> Option<f64> {
    let digits = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let n: f64 = number.parse().ok()?;
    let k = match suffix {
        "" => 1.0,
        "b" => 512.0,
        "kB" | "KB" => 1e3,
        "K" | "k" | "KiB" => 1024.0,
        "MB" => 1e6,
        "M" | "MiB" => 1024f64.powi(2),
        "GB" => 1e9,
        "G" | "GiB" => 1024f64.powi(3),
        "TB" => 1e12,
        "T" | "TiB" => 1024f64.powi(4),
        _ => 1024f64.powi(8),
    };
    Some(n * k)
}

/// The value of a short or long option in any spelling (`-c 5`, `-c5`,
/// `--bytes=5`, `--bytes 5`), the last one given.
fn option_value<'a>(args: &'a [String], short: &str, long: &str) -> Option<&'a str> {
    let mut found = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == short || (!long.is_empty() && word == long) {
            found = words.next().map(String::as_str);
        } else if let Some(v) = word
            .strip_prefix(short)
            .filter(|v| !v.is_empty() && short.len() == 2)
        {
            found = Some(v);
        } else if let Some(v) = word
            .strip_prefix(long)
            .and_then(|v| v.strip_prefix('='))
            .filter(|_| !long.is_empty())
        {
            found = Some(v);
        }
    }
    found
}

/// What `head` takes: `(bytes, count)`, the count `None` when it is not a
/// plain non-negative number (`-n -5` prints all but the last five lines).
pub fn head_take(args: &[String]) -> (bool, Option<f64>) {
    if let Some(v) = option_value(args, "-c", "--bytes") {
        return (true, count(v));
    }
    if let Some(v) = option_value(args, "-n", "--lines") {
        return (false, count(v));
    }
    if let Some(n) = args
        .iter()
        .find_map(|a| a.strip_prefix('-').and_then(count))
    {
        return (false, Some(n));
    }
    (false, Some(10.0))
}

/// What a `head` right after a command in its pipeline bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// No `head` follows.
    None,
    /// `head -n N`: ends a producer of lines.
    Lines,
    /// `head -c N`: ends any producer.
    Bytes,
}

/// When a program may not end, or floods its output: a condition over the
/// words after it, the files redirected into it, and what a `head` after it
/// in the pipeline bounds. Short options are letters of a bundle before any
/// `=` (`-o=wide` is `-o` with a value); long options match any prefix of
/// their name longer than `--x` (getopt_long's abbreviations).
#[derive(Clone, Copy, Debug)]
pub enum Until {
    /// Any use of the program.
    Always,
    /// A short option bundle holding this letter.
    Short(char),
    /// This long option or an abbreviation of it, with or without `=value`.
    Long(&'static str),
    /// A word equal to one of these.
    Word(&'static [&'static str]),
    /// No `head` after it in the pipeline.
    Unlimited,
    /// The condition does not hold.
    Not(&'static Until),
    /// Every condition holds.
    All(&'static [Until]),
    /// Some condition holds.
    Any(&'static [Until]),
    /// A reading of the words a variant cannot say (a width, a duration, a
    /// root operand), named in the row; a reading of durations adds them to
    /// the line's time.
    Check(fn(&[String]) -> bool),
    /// A reading of the words and the files redirected into it.
    Reads(fn(&[String], &[String]) -> bool),
}

impl Until {
    fn holds(&self, args: &[String], inputs: &[String], bound: Bound) -> bool {
        match self {
            Until::Always => true,
            Until::Short(letter) => args.iter().any(|a| {
                a.starts_with('-')
                    && !a.starts_with("--")
                    && a.split('=').next().unwrap_or(a).contains(*letter)
            }),
            Until::Long(name) => args.iter().any(|a| {
                let option = a.split('=').next().unwrap_or(a);
                option.len() > 3 && option.starts_with("--") && name.starts_with(option)
            }),
            Until::Word(words) => args.iter().any(|a| words.contains(&a.as_str())),
            Until::Unlimited => bound == Bound::None,
            Until::Not(until) => !until.holds(args, inputs, bound),
            Until::All(all) => all.iter().all(|u| u.holds(args, inputs, bound)),
            Until::Any(any) => any.iter().any(|u| u.holds(args, inputs, bound)),
            Until::Check(check) => check(args),
            Until::Reads(reads) => reads(args, inputs),
        }
    }
}

/// One row of whether a program ends: the `ends` of its entry in the
/// program table, read in order; the first whose condition holds decides.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    /// When the row decides.
    pub when: Until,
    /// Why the program may not end (after its name); `None`: it ends, and
    /// no later row or endless input is read (`timeout 5`, `head -n 3`).
    pub what: Option<&'static str>,
}

/// A row saying why a program may not end.
pub const fn never(when: Until, what: &'static str) -> Ends {
    Ends {
        when,
        what: Some(what),
    }
}

/// A row saying a program ends.
pub const fn ends(when: Until) -> Ends {
    Ends { when, what: None }
}

/// Why a simple command (words with quotes removed, assignments included) may
/// never end: the first row of the `ends` of its entry in the program table
/// that holds, else an endless device it reads with no byte count after it.
/// `inputs` are the files redirected into it; `bound` is what a later `head`
/// in the same pipeline ends.
pub fn unbounded(words: &[String], inputs: &[String], bound: Bound) -> Option<String> {
    let start = words.iter().position(|w| !is_assignment(w))?;
    let (first, args) = words.get(start..)?.split_first()?;
    let program = first.rsplit('/').next().unwrap_or(first);
    let rows = table::lookup(program).map_or(&[][..], |entry| entry.ends);
    let reason = match rows.iter().find(|row| row.when.holds(args, inputs, bound)) {
        Some(row) => row.what?,
        None if bound != Bound::Bytes && reads_endless(args, inputs) => "reads an endless device",
        None => return None,
    };
    Some(format!("`{program}` {reason}"))
}

/// `timeout DURATION …` with a duration that fits in the line's time (added
/// to it).
pub fn timeout_counted(args: &[String]) -> bool {
    args.iter()
        .find(|a| !a.starts_with('-'))
        .is_some_and(|d| sleep_seconds(d).is_some_and(add_time))
}

/// A walk from the root that is not held to the operands by `-maxdepth`.
/// A walk of the whole file system takes minutes and reads every mount (the
/// command oracle timed out on `du … /.`). `find / -maxdepth 0` (or 1) only
/// looks at the operands (and their entries): GNU, BSD and BusyBox find read
/// `-maxdepth` as global wherever it stands, so every `-maxdepth` given must
/// be 0 or 1.
pub fn find_walks_root(args: &[String]) -> bool {
    names_root(args) && !find_shallow(args)
}

/// An operand that is the root of the file system.
pub fn names_root(args: &[String]) -> bool {
    args.iter().any(|a| is_root(a))
}

/// Sleeps that do not add up to a duration within the line's time.
pub fn sleep_too_long(args: &[String]) -> bool {
    args.iter()
        .map(|a| sleep_seconds(a))
        .try_fold(0.0, |sum, s| s.map(|s| sum + s))
        .is_none_or(|total| total > MAX_SLEEP)
}

/// Sleeps that, added to the line's other sleeps and loops, pass its time.
pub fn sleep_passes_line(args: &[String]) -> bool {
    !add_time(args.iter().filter_map(|a| sleep_seconds(a)).sum::<f64>())
}

/// `date +FORMAT` with a field wider than [`MAX_WIDTH`].
pub fn date_too_wide(args: &[String]) -> bool {
    args.iter()
        .any(|a| a.starts_with('+') && too_wide_format(a))
}

/// `nl -w` wider than [`MAX_WIDTH`].
pub fn nl_too_wide(args: &[String]) -> bool {
    option_value(args, "-w", "--number-width").is_some_and(too_wide_number)
}

/// `numfmt --padding` or `--format` wider than [`MAX_WIDTH`].
pub fn numfmt_too_wide(args: &[String]) -> bool {
    option_value(args, "", "--padding").is_some_and(too_wide_number)
        || option_value(args, "", "--format").is_some_and(too_wide_format)
}

/// `pr` pages wider or longer than [`MAX_WIDTH`].
pub fn pr_too_wide(args: &[String]) -> bool {
    ["-w", "-W", "-l", "-o"]
        .iter()
        .zip(["--width", "--page-width", "--length", "--indent"])
        .any(|(s, l)| option_value(args, s, l).is_some_and(too_wide_number))
}

/// `seq -f` with a field wider than [`MAX_WIDTH`].
pub fn seq_format_too_wide(args: &[String]) -> bool {
    option_value(args, "-f", "--format").is_some_and(too_wide_format)
}

/// `seq` operands past [`MAX_SEQ`] or not numbers.
pub fn seq_huge(args: &[String]) -> bool {
    seq_operands(args).iter().any(|a| {
        a.parse::<f64>()
            .map_or(true, |n| n.is_nan() || n.abs() > MAX_SEQ)
    })
}

/// `curl` limiting its rate or retrying beyond the bounds.
pub fn curl_waits(args: &[String]) -> bool {
    Until::Long("--limit-rate").holds(args, &[], Bound::None)
        || option_value(args, "", "--retry")
            .is_some_and(|v| count(v).is_none_or(|n| n > MAX_RETRIES))
        || option_value(args, "", "--retry-delay")
            .is_some_and(|v| count(v).is_none_or(|n| n > 10.0))
        || option_value(args, "", "--retry-max-time")
            .is_some_and(|v| count(v).is_none_or(|n| n > MAX_SLEEP))
}

/// `find -exec` of a command that sleeps or may not end.
pub fn find_exec_unbounded(args: &[String]) -> bool {
    exec_commands(args).into_iter().any(|inner| {
        inner
            .first()
            .is_some_and(|p| p.rsplit('/').next() == Some("sleep"))
            || unbounded(inner, &[], Bound::None).is_some()
    })
}

/// A sampler given an interval and no count (`vmstat 1`).
pub fn samples_forever(args: &[String]) -> bool {
    args.iter().filter(|a| is_number(a)).count() == 1
}

/// An awk program with a loop that need not end.
pub fn awk_loops(args: &[String]) -> bool {
    args.iter().any(|a| {
        let compact: String = a.chars().filter(|c| !c.is_whitespace()).collect();
        compact.contains("while") || compact.contains("for(;;)") || compact.contains("do{")
    })
}

/// `head` taking more than [`MAX_HEAD_BYTES`] of an endless device.
pub fn head_too_many(args: &[String], inputs: &[String]) -> bool {
    reads_endless(args, inputs) && head_take(args).1.is_none_or(|n| n > MAX_HEAD_BYTES)
}

/// The operands GNU `seq` (coreutils 9.1, run here) reads: the values of
/// `-f`, `-s` and their long names (attached, bundled last or the next word,
/// a unique prefix of the long name) are not operands (`seq -f %g 3` prints
/// three numbers), a word that reads as a number is one even with a minus
/// (`seq -5 -1`), and after `--` every word is one.
fn seq_operands(args: &[String]) -> Vec<&str> {
    const VALUED: [&str; 2] = ["format", "separator"];
    const FLAGS: [&str; 3] = ["equal-width", "help", "version"];
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let numeric = word
            .strip_prefix('-')
            .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit() || c == '.'));
        if word == "--" {
            out.extend(words.map(String::as_str));
            break;
        }
        if numeric || !word.starts_with('-') || word == "-" {
            out.push(word.as_str());
        } else if let Some(long) = word.strip_prefix("--") {
            let takes_next = !long.contains('=')
                && VALUED.iter().any(|n| n.starts_with(long))
                && !FLAGS.iter().any(|n| n.starts_with(long));
            if takes_next {
                words.next();
            }
        } else if let Some(at) = word.get(1..).and_then(|s| s.find(['f', 's'])) {
            if at + 2 == word.len() {
                words.next();
            }
        }
    }
    out
}

/// Whether a number (a width, a tab stop, a padding; signed) is wider than
/// [`MAX_WIDTH`] or not a plain number at all.
fn too_wide_number(text: &str) -> bool {
    let digits = text.trim_start_matches(['-', '+', '/']);
    digits.parse::<f64>().is_ok_and(|n| n > MAX_WIDTH)
        || !digits.chars().all(|c| c.is_ascii_digit())
}

/// Whether a printf-like format (`%10d`, `%-_0^#+ '5Y`) asks for a field
/// wider than [`MAX_WIDTH`], or for a width from an argument (`%*d`).
fn too_wide_format(format: &str) -> bool {
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            continue;
        }
        while chars.next_if(|c| "-_0^#+ '".contains(*c)).is_some() {}
        if chars.peek() == Some(&'*') {
            return true;
        }
        let width: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_digit))
            .take(24)
            .collect();
        if width.len() > 5 || width.parse::<f64>().is_ok_and(|w| w > MAX_WIDTH) {
            return true;
        }
    }
    false
}

/// `expand`/`unexpand` tab stops (`-t 4`, `-t4,8`, `--tabs=1,/8`, `-8`)
/// past [`MAX_WIDTH`].
pub fn expand_too_wide(args: &[String]) -> bool {
    let listed = option_value(args, "-t", "--tabs").is_some_and(|list| {
        list.split([',', ' '])
            .filter(|s| !s.is_empty())
            .any(too_wide_number)
    });
    listed
        || args.iter().any(|a| {
            a.strip_prefix('-').is_some_and(|n| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && too_wide_number(n)
            })
        })
}

/// Whether a `ping` with a count or deadline may still run past a minute:
/// each packet waits its interval (one second unless `-i`), a deadline `-w`
/// ends it, a reply timeout `-W` is waited for at the end.
pub fn ping_too_long(args: &[String]) -> bool {
    let interval = option_value(args, "-i", "").map_or(Some(1.0), count);
    let Some(interval) = interval else {
        return true;
    };
    if option_value(args, "-W", "").is_some_and(|w| count(w).is_none_or(|w| w > MAX_SLEEP)) {
        return true;
    }
    if let Some(deadline) = option_value(args, "-w", "") {
        return count(deadline).is_none_or(|d| d > MAX_SLEEP);
    }
    option_value(args, "-c", "").is_none_or(|c| count(c).is_none_or(|c| c * interval > MAX_SLEEP))
}

/// The commands `find -exec`, `-execdir`, `-ok` and `-okdir` run, up to
/// their `;` or `+`.
fn exec_commands(args: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i;
            while args.get(i).is_some_and(|w| w != ";" && w != "+") {
                i += 1;
            }
            if let Some(inner) = args.get(start..i) {
                out.push(inner);
            }
        }
    }
    out
}

pub fn reads_endless(args: &[String], inputs: &[String]) -> bool {
    args.iter().chain(inputs).any(|a| {
        let path = a.split_once('=').map_or(a.as_str(), |(_, v)| v);
        endless_device(path)
    })
}

/// Whether a path names an endless device however it is spelled: repeated
/// slashes and `.` are one directory (`/dev//urandom`, `/dev/./zero`), and a
/// relative path that climbs (`../../dev/zero`) may reach `/dev` from any
/// directory.
fn endless_device(path: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    let mut climbs = false;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                climbs = true;
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let absolute = path.starts_with('/');
    let normal = format!("/{}", parts.join("/"));
    let tail = match parts.as_slice() {
        [.., dir, name] => format!("/{dir}/{name}"),
        _ => String::new(),
    };
    ENDLESS_DEVICES.contains(&normal.as_str()) && (absolute || climbs)
        || (climbs && ENDLESS_DEVICES.contains(&tail.as_str()))
        || matches!(normal.as_str(), "/dev/fd/0" | "/proc/self/fd/0") && absolute
}

/// Whether a `find` line sets a depth of at most 1 with every `-maxdepth`
/// it gives (a later one replaces an earlier one in GNU find; all must hold).
fn find_shallow(args: &[String]) -> bool {
    let depths: Vec<Option<&String>> = args
        .iter()
        .enumerate()
        .filter(|(_, a)| a.as_str() == "-maxdepth")
        .map(|(i, _)| args.get(i + 1))
        .collect();
    !depths.is_empty()
        && depths
            .iter()
            .all(|d| d.is_some_and(|d| d == "0" || d == "1"))
}

/// Whether an operand names the root directory (`/`, `//`, `/.`, `/./..`).
fn is_root(arg: &str) -> bool {
    arg.starts_with('/') && arg.split('/').all(|part| matches!(part, "" | "." | ".."))
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// Seconds of a `sleep` operand (`10`, `1.5m`, `2h`), `None` when not a plain
/// duration (`infinity`, options).
fn sleep_seconds(arg: &str) -> Option<f64> {
    let (number, unit) = match arg.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (arg.get(..i)?, c),
        _ => (arg, 's'),
    };
    let value: f64 = number.parse().ok()?;
    let factor = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => return None,
    };
    let seconds = value * factor;
    seconds.is_finite().then_some(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str) -> bool {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        unbounded(&words, &[], Bound::None).is_some()
    }

    #[test]
    fn endless_forms() {
        for line in [
            "sleep infinity",
            "sleep 1d",
            "tail -f app.log",
            "tail -F x",
            "tail --follow=name x",
            "cat /dev/zero",
            "yes",
            "top -b",
            "watch ls",
            "kubectl get pods -w",
            "setsid -f sleep 1",
            "nohup ls",
            "ping example.com",
            "awk BEGIN{while(1)print}",
            "vmstat 1",
            "seq inf",
            "seq nan",
            "seq -f %g 100000000",
            "seq -s , -- -100000000 1",
            "seq -100000000 -1",
            "seq --format %g 1e9",
        ] {
            assert!(check(line), "{line}");
        }
        for line in [
            "sleep 1",
            "tail -n 5 x",
            "cat x",
            "top -b -n 1",
            "ping -c 3 example.com",
            "head -c 16 /dev/urandom",
            "seq 1 10",
            "seq -f %g 3",
            "seq -f%g 3",
            "seq -w -s , 3",
            "seq --format=%g -5 -1",
            "seq --sep : 3",
            "vmstat 1 5",
            "timeout 5 tail -f x",
        ] {
            assert!(!check(line), "{line}");
        }
    }
}
