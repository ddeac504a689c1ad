//! The read-only programs, each with the grammar that keeps it read-only.
//!
//! A program is on this list only if, with the options and operands its
//! grammar declares, it cannot write or delete a file, run another program,
//! read a secret or change the system. Every option, operand shape and
//! subcommand that is not declared needs confirmation: an allow rests on the
//! declaration, never on the absence of a known danger.

use super::grammar::{parse, Grammar, Kind};
use super::refusal::Refusal;
use super::table::{self, Reach, Rule};

/// How a read-only program's arguments are checked.
#[derive(Clone, Copy, Debug)]
pub enum Args {
    /// An option grammar (see `grammar.rs`).
    Grammar(&'static str, Grammar),
    /// A dedicated parser for a syntax that is not getopt's, or a program
    /// with subcommands; `Err` names what is not proven.
    Check(&'static str, fn(&[String]) -> Result<(), Refusal>),
}

impl Args {
    /// Whether words the shell expands or `xargs` appends are harmless here:
    /// only for programs none of whose options on any platform writes,
    /// executes or reads a file it was not given.
    pub fn tolerates_expansion(&self) -> bool {
        match self {
            // A glob may become several words: a program that reads a bounded
            // number of operands sets or writes with the next one (`hostname`).
            Args::Grammar(_, grammar) => grammar.tolerant && grammar.max_operands == usize::MAX,
            Args::Check(program, _) => *program == "echo",
        }
    }
}

impl Args {
    /// Whether `xargs` may append words read from its input: only for a
    /// tolerant program whose operands are not files it reads (`xargs cat`
    /// reads files nobody named in the command).
    pub fn tolerates_appended_words(&self) -> bool {
        match self {
            Args::Grammar(_, grammar) => {
                // Any number of words may come: with a bounded operand count
                // the next one is a value to set (`echo evil | xargs hostname`).
                grammar.tolerant
                    && grammar.operands == Kind::Text
                    && grammar.then.is_none()
                    && grammar.max_operands == usize::MAX
            }
            Args::Check(program, _) => *program == "echo",
        }
    }
}

/// `find`'s arguments before its first action (`-exec`, `-print`, `-ls`,
/// …): find evaluates left to right, so only the tests before an action
/// choose the files it acts on (`find . -exec cat {} + -name '*.txt'` cats
/// every file). With no action, the whole expression.
pub fn before_first_action(find_args: &[String]) -> &[String] {
    const ACTIONS: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-print", "-print0", "-printf", "-ls", "-fprint",
        "-fprint0", "-fprintf", "-fls", "-delete", "-quit",
    ];
    let end = find_args
        .iter()
        .position(|a| ACTIONS.contains(&a.as_str()))
        .unwrap_or(find_args.len());
    find_args.get(..end).unwrap_or(find_args)
}

/// The path `find` substitutes for `{}`, as far as its expression proves it:
/// with a single `-name '*.EXT'` test (no `-o`, `!`, `-not`, no second name
/// test), a representative `found.EXT`, judged like any path; otherwise a
/// path that could be any file (a key or `.env` included), which is refused.
pub fn found_path(find_args: &[String]) -> String {
    const UNKNOWN: &str = "{}";
    let find_args = before_first_action(find_args);
    let branches = find_args
        .iter()
        .any(|a| matches!(a.as_str(), "-o" | "-or" | "!" | "-not" | ","));
    let names: Vec<&String> = find_args
        .iter()
        .zip(find_args.iter().skip(1))
        .filter(|(test, _)| matches!(test.as_str(), "-name" | "-iname"))
        .map(|(_, pattern)| pattern)
        .collect();
    let starts_hidden = find_args
        .iter()
        .take_while(|a| !a.starts_with('-'))
        .any(|start| start.starts_with('/') || start.starts_with('~'));
    match names.as_slice() {
        [pattern] if !branches && !starts_hidden => {
            let ext = pattern.strip_prefix("*.").unwrap_or("");
            if !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()) {
                format!("found.{ext}")
            } else {
                String::from(UNKNOWN)
            }
        }
        _ => String::from(UNKNOWN),
    }
}

/// The read-only programs: those whose entry in the program table has a
/// rule. A program that is not there is not proven read-only.
pub fn read_only(program: &str) -> Option<Args> {
    let entry = table::lookup(program)?;
    match entry.rule? {
        Rule::Grammar(grammar) => Some(Args::Grammar(entry.name, *grammar)),
        Rule::Check(check) => Some(Args::Check(entry.name, check)),
    }
}

/// Checks a read-only program's arguments against its rule, then hands the
/// host names its entry says the proven words reach to the egress rule.
pub fn check_args(rule: Args, args: &[String]) -> Result<(), Refusal> {
    let (program, parsed) = match rule {
        Args::Grammar(program, grammar) => (program, Some(parse(program, &grammar, args)?)),
        Args::Check(program, check) => (program, check(args).map(|()| None)?),
    };
    let reach = table::lookup(program).and_then(|entry| entry.reaches);
    match (reach, &parsed) {
        (Some(Reach::Parsed(read)), Some(parsed)) => {
            read(parsed).map_or(Ok(()), |names| super::net::names(program, &names))
        }
        (Some(Reach::Words(read)), None) => read(args).map_or(Ok(()), |hosts| {
            let names: Vec<&str> = hosts.iter().map(String::as_str).collect();
            super::net::names(program, &names)
        }),
        _ => Ok(()),
    }
}

/// Windows commands and PowerShell cmdlets (and their aliases) that delete,
/// format, stop or run text as code: the floor reads every word of a
/// `cmd /c` or PowerShell line against them, in any case.
pub const WINDOWS_DESTROYERS: &[&str] = &[
    "del",
    "erase",
    "rd",
    "rmdir",
    "format",
    "format.com",
    "diskpart",
    "cipher",
    "takeown",
    "vssadmin",
    "wbadmin",
    "bcdedit",
    "taskkill",
    "reg",
    "sc",
    "wmic",
    "icacls",
    "cacls",
    "Remove-Item",
    "ri",
    "rm",
    "Remove-ItemProperty",
    "Clear-Content",
    "clc",
    "Clear-Item",
    "cli",
    "Clear-ItemProperty",
    "Clear-RecycleBin",
    "Format-Volume",
    "Clear-Disk",
    "Initialize-Disk",
    "Remove-Partition",
    "Stop-Process",
    "spps",
    "kill",
    "Stop-Computer",
    "Restart-Computer",
    "Stop-Service",
    "Remove-Service",
    "Set-Content",
    "sc.exe",
    "Out-File",
    "Move-Item",
    "mi",
    "move",
    "Rename-Item",
    "rni",
    "ren",
    "Invoke-Expression",
    "iex",
    "Remove-LocalUser",
    "Remove-ADUser",
    "Uninstall-Package",
    "Remove-AppxPackage",
    "Disable-LocalUser",
    "Remove-SmbShare",
    "Remove-Variable",
    "Remove-WmiObject",
    "Remove-CimInstance",
    "Invoke-WmiMethod",
    "Invoke-CimMethod",
    "Start-Process",
    "saps",
    "start",
    "Remove-Job",
    "Unregister-ScheduledTask",
    "Register-ScheduledTask",
    "schtasks",
    "Set-ExecutionPolicy",
    "EncodedCommand",
    "-EncodedCommand",
    "-enc",
    "-e",
    "-ec",
];

/// Whether a sed command line edits in place or its script writes a file
/// (`w file`, `W file`, the `s///w` flag) or runs one (`e`): read loosely,
/// since the floor may over-match.
/// How many operands GNU `uniq` (coreutils 9.1, run here) reads in `args`:
/// the values of `-f`, `-s`, `-w` and their long names (attached, bundled
/// last or the next word, a unique prefix of the long name too) are not
/// operands, `-` is one (standard input), and after `--` every word is one.
/// An obsolete `+N` (skip N characters) is counted as an operand: uniq reads
/// it as a file under `_POSIX2_VERSION`, and a count too high only keeps a
/// write refused.
pub fn uniq_operands(args: &[String]) -> usize {
    const VALUED: [&str; 3] = ["skip-fields", "skip-chars", "check-chars"];
    const FLAGS: [&str; 9] = [
        "count",
        "repeated",
        "all-repeated",
        "group",
        "ignore-case",
        "unique",
        "zero-terminated",
        "help",
        "version",
    ];
    let mut operands = 0;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            operands += words.len();
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            // A prefix of a valued name and of no flag takes the next word.
            let takes_next = !long.contains('=')
                && VALUED.iter().any(|n| n.starts_with(long))
                && !FLAGS.iter().any(|n| n.starts_with(long));
            if takes_next {
                words.next();
            }
        } else if let Some(short) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            // The first of f, s, w takes the rest of the word, or the next
            // word when it ends the bundle.
            if let Some(at) = short.find(['f', 's', 'w']) {
                if at + 1 == short.len() {
                    words.next();
                }
            }
        } else {
            operands += 1;
        }
    }
    operands
}

pub fn sed_writes(args: &[String]) -> bool {
    let in_place = args.iter().any(|a| {
        a.starts_with("--in-place")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
    });
    // A script command `w`/`W`/`e` or the `s///w` flag: the letter after a
    // separator or an address, then a space, `;` or the end.
    let writes = args.iter().filter(|a| !a.starts_with('-')).any(|a| {
        let chars: Vec<char> = a.chars().collect();
        chars.iter().enumerate().any(|(i, c)| {
            matches!(c, 'w' | 'W' | 'e')
                && (i == 0
                    || chars
                        .get(i.wrapping_sub(1))
                        .is_some_and(|p| !p.is_alphanumeric() || p.is_ascii_digit()))
                && chars
                    .get(i + 1)
                    .is_none_or(|n| n.is_whitespace() || *n == ';')
        })
    });
    in_place || writes
}

/// `uniq IN OUT` writes OUT.
pub fn uniq_writes(args: &[String]) -> bool {
    uniq_operands(args) >= 2
}

/// `sort -o FILE`, `-oFILE`, `--output`: writes the file it is given.
pub fn sort_writes(args: &[String]) -> bool {
    args.iter().any(|a| {
        a == "-o" || a.starts_with("--output") || (a.starts_with("-o") && !a.starts_with("--"))
    })
}

/// Programs that only run the command given in their arguments (the
/// entry's `shell`).
pub fn is_shell(program: &str) -> bool {
    table::has(program, |entry| entry.shell)
}

/// `echo WORDS` whose text holds no word starting with `-` (after echo's own
/// `-n`, `-e`, `-E`): its output never starts with one.
pub fn echo_prints_no_option(args: &[String]) -> bool {
    let text = args
        .iter()
        .skip_while(|a| matches!(a.as_str(), "-n" | "-e" | "-E"))
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    !text.split_whitespace().any(|w| w.starts_with('-'))
}

/// `printf FORMAT` with no conversion and no word starting with `-`.
pub fn printf_prints_no_option(args: &[String]) -> bool {
    args.first()
        .is_some_and(|f| !f.contains('%') && !f.split_whitespace().any(|w| w.starts_with('-')))
}

/// `basename NAME`: the operand's last component, which must not start
/// with `-`.
pub fn basename_prints_no_option(args: &[String]) -> bool {
    args.iter()
        .all(|a| !a.starts_with('-') && !a.rsplit('/').next().unwrap_or(a).starts_with('-'))
}

/// `git branch --show-current` and `git rev-parse HEAD` (and its path and
/// name forms): a branch name, an object name or a path.
pub fn git_prints_no_option(args: &[String]) -> bool {
    matches!(
        args.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["branch", "--show-current"]
            | [
                "rev-parse",
                "HEAD" | "--short" | "--show-toplevel" | "--abbrev-ref" | "--git-dir",
                ..
            ]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(program: &str, line: &str) -> bool {
        let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        read_only(program).is_some_and(|rule| check_args(rule, &args).is_ok())
    }

    #[test]
    fn everyday_reads() {
        for (program, line) in [
            ("ls", "-la"),
            ("ls", "-lah /var/log"),
            ("grep", "-rn foo --include=*.rs src"),
            ("head", "-n 20 f"),
            ("head", "-20 f"),
            ("sort", "-u f"),
            ("sort", "-t, -k2 -n data.csv"),
            ("find", ". -name *.rs"),
            ("uniq", "-c f"),
            ("date", "+%Y-%m-%d"),
            ("date", "-u -d yesterday"),
            ("hostname", "-s"),
            ("xxd", "file.bin"),
            ("xxd", "-c 16 -s 0x10 f"),
            ("python3", "--version"),
            ("ps", "aux"),
            ("ps", "-ef"),
            ("ps", "-eo pid,comm"),
            ("tar", "-tzf a.tgz"),
            ("tar", "tvf a.tar"),
            ("gzip", "-dc a.gz"),
            ("test", "-f Cargo.toml"),
            ("[", "-d src ]"),
            ("printf", "%s\\n a b"),
            ("seq", "1 10"),
            ("ping", "-c 1 example.com"),
            ("getent", "passwd root"),
            ("dig", "+short example.com"),
            ("printenv", "PATH"),
        ] {
            assert!(ok(program, line), "{program} {line}");
        }
    }

    #[test]
    fn undeclared_and_dangerous() {
        for (program, line) in [
            ("sort", "-ro out f"),
            ("sort", "--output=out"),
            ("sort", "--out=out"),
            ("sort", "--compress-prog=sh"),
            ("sed", "--i s/a/b/ f"),
            ("base64", "-o out f"),
            ("ss", "-D dump"),
            ("tree", "-R -H . -o x"),
            ("tree", "-R -H ."),
            ("gzip", "-S.x f"),
            ("gzip", "-cS.x f"),
            ("xz", "-Cx f"),
            ("uniq", "in out"),
            ("date", "-s 2020-01-01"),
            ("date", "--se=2020"),
            ("date", "-f dates.txt"),
            ("date", "0101120026"),
            ("hostname", "evil"),
            ("xxd", "-r dump out"),
            ("xxd", "-rev dump"),
            ("xxd", "in out"),
            ("wc", "--files0-from=list"),
            ("file", "-f names"),
            ("file", "--files-from names"),
            ("tsort", "/etc/shadow"),
            ("getent", "shadow"),
            ("getent", "gshadow root"),
            ("dig", "-f queries"),
            ("dig", "@10.0.0.1 example.com"),
            ("ps", "eww"),
            ("ps", "auxe"),
            ("ps", "-E"),
            ("printf", "-v PATH x"),
            ("test", "-v a[$(id)]"),
            ("[", "-v x ]"),
            ("[", "-f x"),
            ("find", ". -delete"),
            ("find", ". -fprint out"),
            ("find", ". -files0-from list"),
            ("printenv", ""),
            ("printenv", "AWS_SECRET_ACCESS_KEY"),
            ("cat", "/etc/shadow"),
            ("head", "--lines"),
            ("ls", "--al"),
            ("grep", "-f /home/u/.ssh/id_rsa x"),
            ("sleep", "infinity"),
            ("seq", "inf"),
            ("ping", "example.com"),
            ("top", "-b"),
            ("python3", "-v"),
            ("cargo", "--version"),
            ("make", "-V X"),
            ("shuf", "-i 1-1000000000"),
            ("strings", "@opts"),
        ] {
            assert!(!ok(program, line), "{program} {line}");
        }
    }

    /// GNU uniq's operands as it reads them (coreutils 9.1 run here: `uniq
    /// -f 1 a.txt` prints, `uniq a.txt -f 1 out` writes `out`).
    #[test]
    fn uniq_writes_only_a_second_operand() {
        let count = |line: &str| {
            let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            uniq_operands(&args)
        };
        for line in [
            "-f 1 a.txt",
            "-f1 a.txt",
            "-cf 1 a.txt",
            "-s 2 -w 3 a.txt",
            "--skip-fields 1 a.txt",
            "--skip-f 1 a.txt",
            "--check-chars=2 a.txt",
            "-2 a.txt",
            "-c a.txt",
        ] {
            assert_eq!(count(line), 1, "{line}");
            let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            assert!(
                super::table::destruction("uniq", &args, &[]).is_none(),
                "{line}"
            );
        }
        for line in [
            "in out",
            "- out",
            "-f 1 in out",
            "a.txt -f 1 out",
            "-- -f out",
            "-c in out",
            "+1 in",
        ] {
            assert_eq!(count(line), 2, "{line}");
            let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            assert!(
                super::table::destruction("uniq", &args, &[]).is_some(),
                "{line}"
            );
        }
    }

    #[test]
    fn unknown_programs_are_not_read_only() {
        for program in [
            "rm", "mv", "LS", "cats", "tee", "wget", "xargs", "bash", "sudo",
        ] {
            assert!(read_only(program).is_none(), "{program}");
        }
    }

    #[test]
    fn every_program_with_a_rule_is_read_only() {
        let mut count = 0;
        for entry in table::TABLE.iter().filter(|e| e.rule.is_some()) {
            assert!(read_only(entry.name).is_some(), "{}", entry.name);
            count += 1;
        }
        // The 162 programs of the read-only list, every one kept.
        assert!(count >= 162, "{count}");
    }
}
