//! Programs whose syntax is not getopt's: `echo` and `test` (shell builtins),
//! `xxd` (single-dash words matched by prefix), `ps` (BSD letters without a
//! dash), `find` (an expression), `tar` (a bundle of letters), `unzip`, and
//! the DNS tools (`+options`, `@server`). Each is still an allowlist: what is
//! not declared is refused.

use super::forms::{view, Operands, Options, Subcommand};
use super::grammar::{check_path, parse, Grammar, BASE};
use super::refusal::Refusal;

/// `echo`: bash's builtin reads leading words made only of `n`, `e`, `E` as
/// options and prints everything else; no option does anything but format.
pub fn echo(_args: &[String]) -> Result<(), Refusal> {
    Ok(())
}

/// `test` / `[`: the unary and binary operators that only look at files,
/// strings and integers. Not `-v` (bash evaluates an array subscript in the
/// name: `-v 'a[$(id)]'` runs `id`) or `-R`; `[` must end with `]`.
pub fn test(args: &[String]) -> Result<(), Refusal> {
    bracket_test("test", args)
}

/// `[ … ]`.
pub fn bracket(args: &[String]) -> Result<(), Refusal> {
    match args.split_last() {
        Some((last, inner)) if last == "]" => bracket_test("[", inner),
        _ => Err(Refusal::argument("[", "", "does not end with `]`")),
    }
}

fn bracket_test(program: &str, args: &[String]) -> Result<(), Refusal> {
    const OPERATORS: &[&str] = &[
        "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-L", "-n", "-O", "-G", "-N", "-p",
        "-r", "-s", "-S", "-t", "-u", "-w", "-x", "-z", "-o", "-eq", "-ne", "-lt", "-le", "-gt",
        "-ge", "-nt", "-ot", "-ef",
    ];
    for arg in args {
        let negative_number = arg
            .strip_prefix('-')
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if arg.starts_with('-')
            && arg != "-"
            && !negative_number
            && !OPERATORS.contains(&arg.as_str())
        {
            return Err(Refusal::option(program, arg));
        }
    }
    Ok(())
}

/// xxd's options without a value (xxd(1), vim 9.0).
const XXD_FLAGS: &[&str] = &[
    "-a",
    "-autoskip",
    "-b",
    "-bits",
    "-e",
    "-u",
    "-uppercase",
    "-p",
    "-ps",
    "-postscript",
    "-plain",
    "-i",
    "-include",
    "-C",
    "-capitalize",
    "-E",
    "-EBCDIC",
    "-d",
];
/// xxd's options that take a number.
const XXD_VALUED: &[&str] = &[
    "-c",
    "-cols",
    "-g",
    "-groupsize",
    "-l",
    "-len",
    "-o",
    "-s",
    "-seek",
    "-n",
    "-name",
];

/// `xxd`: its own parser matches options by their first two characters, so
/// only exact, declared words are accepted; `-r` (any word starting with it)
/// turns a dump back into a file, and a second operand is written.
pub fn xxd(args: &[String]) -> Result<(), Refusal> {
    let mut operands = 0;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "-" || !arg.starts_with('-') {
            operands += 1;
            if operands > 1 {
                return Err(Refusal::argument("xxd", arg, "is the file xxd writes"));
            }
            check_path("xxd", arg)?;
            continue;
        }
        // xxd reads options only before its file (its loop stops at the
        // first word without a dash): after it, a word is the file it
        // writes (`xxd a.txt -a` writes the dump into `-a`).
        if operands > 0 {
            return Err(Refusal::argument(
                "xxd",
                arg,
                "comes after the file, where xxd reads it as the file it writes",
            ));
        }
        if XXD_FLAGS.contains(&arg.as_str()) {
            continue;
        }
        if XXD_VALUED.contains(&arg.as_str()) {
            match args.get(i) {
                Some(value) if number_like(value) => i += 1,
                _ => return Err(Refusal::argument("xxd", arg, "lacks a numeric value")),
            }
            continue;
        }
        // An attached number: `-c16`, `-s+32`, `-l0x100`.
        let attached = arg.get(1..2).is_some_and(|l| "cglosn".contains(l))
            && arg.get(2..).is_some_and(number_like);
        if !attached {
            return Err(Refusal::option("xxd", arg));
        }
    }
    Ok(())
}

/// xxd's options, for the forms oracle (whole words, before the file).
pub fn xxd_forms() -> Vec<Subcommand> {
    Subcommand::own(Options::of_words(
        XXD_FLAGS,
        XXD_VALUED,
        Operands::Files,
        false,
        1,
    ))
}

fn number_like(text: &str) -> bool {
    let body = text.trim_start_matches(['+', '-']);
    !body.is_empty() && body.chars().all(|c| c.is_ascii_hexdigit() || c == 'x')
}

/// `ps` short options with a dash that take a value (attached or the next word).
pub const PS_UNIX_VALUED: &str = "CGgpstuUoOqk";
/// `ps` long options that take a value (`--name=value` or the next word).
pub const PS_LONG_VALUED: &[&str] = &[
    "sort", "pid", "ppid", "user", "User", "group", "Group", "cols", "columns", "format", "tty",
    "sid", "lines", "width",
];
/// `ps` BSD letters (no dash) each of which takes the next word as its value.
pub const PS_BSD_VALUED: &str = "oOpUtk";

/// `ps`'s UNIX options (with a dash).
const PS_UNIX: Grammar = Grammar {
    flags: "AadefFHjlLMNTwxyZ",
    valued: PS_UNIX_VALUED,
    long_flags: &["forest", "no-headers", "headers", "help"],
    long_valued: PS_LONG_VALUED,
    ..BASE
};
/// `ps` BSD letters (no dash) without a value. `Z` adds the security-label
/// column (procps 4.0.2 `ps axZ`, run here).
const PS_BSD_FLAGS: &str = "auxjlsvfwrTScHmnhXZ";

/// `ps`'s forms, for the forms oracle: its UNIX options, and each BSD letter
/// as a word of its own (a value letter with its value after it).
pub fn ps_forms() -> Vec<Subcommand> {
    let letters = |all: &'static str| -> Vec<&'static str> {
        (0..all.len()).filter_map(|i| all.get(i..=i)).collect()
    };
    let mut options = view(&PS_UNIX);
    options.words = letters(PS_BSD_FLAGS);
    options.valued_words = letters(PS_BSD_VALUED);
    options.max_operands = 0;
    Subcommand::own(options)
}

/// `ps`: UNIX options with a dash, or BSD letters without one. Not BSD `e`
/// (shows every process's environment), `-E` (macOS: the same), `-o` or `O`
/// keywords outside plain columns, `-w`/`w` widening with `e`. FreeBSD reads
/// `-e` as "environment" too; Linux, macOS and BusyBox read it as "every
/// process", the form everyone types (`ps -ef`): it is declared, and the
/// FreeBSD reading is a documented exception.
pub fn ps(args: &[String]) -> Result<(), Refusal> {
    const UNIX: Grammar = PS_UNIX;
    const BSD_FLAGS: &str = PS_BSD_FLAGS;
    const BSD_VALUED: &str = PS_BSD_VALUED;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg.starts_with('-') {
            // FreeBSD reads `-u`, `-g`, `-C`, `-s` as flags, so an attached
            // "value" (`-uxe`) is more letters there, and `e` shows the
            // environment: a dash word with an `e`/`E` after its first value
            // letter is refused.
            let cluster = arg
                .strip_prefix('-')
                .filter(|c| !c.starts_with('-'))
                .unwrap_or("");
            if let Some(at) = cluster.find(|c: char| UNIX.valued.contains(c)) {
                if cluster
                    .get(at + 1..)
                    .is_some_and(|rest| rest.contains(['e', 'E']))
                {
                    return Err(Refusal::option("ps", arg));
                }
            }
            let parsed = parse("ps", &UNIX, std::slice::from_ref(arg));
            match parsed {
                Ok(p) if p.operands.is_empty() => {}
                // A value given as the next word.
                Err(r) if r.code == crate::codes::COMMAND_UNSAFE_ARGUMENT => {
                    let pair = [arg.clone(), args.get(i).cloned().unwrap_or_default()];
                    parse("ps", &UNIX, &pair)?;
                    i += 1;
                }
                Err(r) => return Err(r),
                Ok(_) => return Err(Refusal::option("ps", arg)),
            }
            continue;
        }
        // BSD letters; a value letter takes the next word.
        for letter in arg.chars() {
            if BSD_FLAGS.contains(letter) {
                continue;
            }
            if BSD_VALUED.contains(letter) {
                i += 1;
                continue;
            }
            return Err(Refusal::option("ps", &letter.to_string()));
        }
    }
    let shown: Vec<&String> = args.iter().collect();
    if shown.iter().any(|a| a.to_ascii_lowercase().contains("env")) {
        return Err(Refusal::new(
            crate::codes::COMMAND_ENVIRONMENT,
            String::from("`ps` would print processes' environments"),
        ));
    }
    Ok(())
}

/// `find`'s words without a value: read-only actions, operators, tests
/// and global options (GNU findutils and BSD find).
const FIND_WORDS: &[&str] = &[
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "-true",
    "-false",
    "-not",
    "!",
    "(",
    ")",
    "-a",
    "-and",
    "-o",
    "-or",
    ",",
    "-empty",
    "-readable",
    "-writable",
    "-executable",
    "-depth",
    "-xdev",
    "-mount",
    "-follow",
    "-nouser",
    "-nogroup",
    "-daystart",
    "-noleaf",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-L",
    "-H",
    "-P",
    "-d",
    "-x",
    "-E",
    "-s",
    "-X",
];
/// `find`'s tests and options that take the next word as their value.
const FIND_VALUED: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-type",
    "-xtype",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-links",
    "-inum",
    "-maxdepth",
    "-mindepth",
    "-lname",
    "-ilname",
    "-regextype",
    "-fstype",
    "-printf",
    "-newer",
    "-anewer",
    "-cnewer",
    "-samefile",
    "-newermt",
    "-newerct",
    "-neweraa",
    "-newermm",
    "-newercc",
    "-used",
];

/// `find`'s expression: tests, read-only actions and operators. Not
/// `-delete`, `-exec`/`-execdir`/`-ok`/`-okdir` (judged separately by the
/// caller), `-fprint*`/`-fls` (write), `-files0-from` (reads a list).
pub fn find(args: &[String]) -> Result<(), Refusal> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if FIND_WORDS.contains(&arg.as_str()) {
            continue;
        }
        if FIND_VALUED.contains(&arg.as_str()) {
            if args.get(i).is_none() {
                return Err(Refusal::argument("find", arg, "lacks its value"));
            }
            i += 1;
            continue;
        }
        if arg.starts_with('-') || arg.starts_with('+') {
            return Err(Refusal::option("find", arg));
        }
        // A starting point: listed, not read.
    }
    Ok(())
}

/// `find`'s expression words, for the forms oracle (starting points are
/// operands; the words follow them).
pub fn find_forms() -> Vec<Subcommand> {
    Subcommand::own(Options::of_words(
        FIND_WORDS,
        FIND_VALUED,
        Operands::Files,
        true,
        usize::MAX,
    ))
}

/// tar's listing options (checked against GNU tar 1.34).
const TAR: Grammar = Grammar {
    flags: "tvzjJ",
    path_valued: "f",
    long_flags: &[
        "list",
        "verbose",
        "gzip",
        "gunzip",
        "bzip2",
        "xz",
        "wildcards",
        "no-wildcards",
        "numeric-owner",
        "full-time",
    ],
    long_paths: &["file"],
    long_valued: &["exclude"],
    ..BASE
};

/// tar's options, for the forms oracle (a listing: `-t` is required).
pub fn tar_forms() -> Vec<Subcommand> {
    Subcommand::own(view(&TAR))
}

/// `tar`: listing only (`t`), never extracting, creating or running a
/// program; the archive is a local file (`host:file` goes through a remote
/// shell). The first word may be a bundle of letters without a dash.
pub fn tar(args: &[String]) -> Result<(), Refusal> {
    let mut words: Vec<String> = args.to_vec();
    if let Some(first) = words.first_mut() {
        if !first.starts_with('-') {
            *first = format!("-{first}");
        }
    }
    let parsed = parse("tar", &TAR, &words)?;
    if !(parsed.has("-t") || parsed.has("--list")) {
        return Err(Refusal::argument("tar", "", "is not a listing (`-t`)"));
    }
    // Old-style bundles (`tfz host:a.tar`) hand the archive to `f` in an
    // order we do not model: no word may name a `host:file` archive.
    let words: Vec<&str> = parsed
        .values("-f")
        .chain(parsed.values("--file"))
        .chain(parsed.operands.iter().map(String::as_str))
        .collect();
    if let Some(remote) = words.iter().find(|a| a.contains(':')) {
        return Err(Refusal::argument(
            "tar",
            remote,
            "names a remote archive, reached through a remote shell",
        ));
    }
    Ok(())
}

/// `unzip -l`/`-v`/`-t`/`-Z`: listing or testing, never extracting. The
/// first word selects the mode; then the archive and member names, or `-x`
/// and names to leave out.
pub fn unzip(args: &[String]) -> Result<(), Refusal> {
    let Some((first, rest)) = args.split_first() else {
        return Err(Refusal::argument("unzip", "", "has no arguments"));
    };
    if !unzip_mode(first) {
        return Err(Refusal::option("unzip", first));
    }
    for (n, arg) in rest.iter().enumerate() {
        if arg.starts_with('-') && arg != "-x" {
            return Err(Refusal::option("unzip", arg));
        }
        if n == 0 {
            check_path("unzip", arg)?;
        }
    }
    Ok(())
}

/// unzip's listing and testing modes as a first word, for the forms oracle:
/// each mode letter, and the quiet letter with and without its negation
/// (`unzip_mode` reads the letters; a test holds each of these to it).
const UNZIP_MODES: &[&str] = &["-l", "-t", "-v", "-Z", "-lq", "-tqq", "-l-q"];

/// `unzip`'s forms, for the forms oracle: a mode, then the archive (and
/// the members to list).
pub fn unzip_forms() -> Vec<Subcommand> {
    Subcommand::own(Options::of_words(
        UNZIP_MODES,
        &[],
        Operands::Files,
        false,
        usize::MAX,
    ))
}

/// Whether unzip's first word selects a listing or testing mode. unzip 6.0
/// reads a `-` inside an option word as "negate the next letter" (`-l-q`,
/// `--ql`: list, one quiet level less; unzip.c `uz_opts`), so a `-` may only
/// negate `q`: a negated `l`, `t`, `v` or `Z` could fall back to extracting.
fn unzip_mode(word: &str) -> bool {
    let Some(letters) = word.strip_prefix('-') else {
        return false;
    };
    let (mut negating, mut mode) = (false, false);
    for c in letters.chars() {
        match c {
            '-' => negating = true,
            'q' => negating = false,
            'l' | 't' | 'v' | 'Z' if !negating => mode = true,
            _ => return false,
        }
    }
    mode && !negating
}

/// dig's `+options` that only shape the query and its output, as DiG 9.18
/// (run here) reads them (`+json` is newer: not declared).
const DIG_PLUS: &[&str] = &[
    "+short",
    "+noall",
    "+all",
    "+answer",
    "+noanswer",
    "+authority",
    "+noauthority",
    "+additional",
    "+noadditional",
    "+question",
    "+noquestion",
    "+comments",
    "+nocomments",
    "+stats",
    "+nostats",
    "+cmd",
    "+nocmd",
    "+trace",
    "+notrace",
    "+multiline",
    "+nomultiline",
    "+tcp",
    "+notcp",
    "+dnssec",
    "+nodnssec",
    "+recurse",
    "+norecurse",
    "+ttlid",
    "+nottlid",
    "+ttlunits",
    "+identify",
    "+cdflag",
    "+adflag",
    "+nssearch",
    "+yaml",
    "+noedns",
    "+rrcomments",
    "+norrcomments",
    "+nocrypto",
    "+search",
    "+nosearch",
];
/// dig's numeric `+options`, each with a value dig reads as valid (the
/// forms oracle runs these words); any number is accepted.
const DIG_NUMERIC: &[&str] = &[
    "+time=1",
    "+tries=1",
    "+retry=0",
    "+ndots=1",
    "+bufsize=1232",
];

/// `dig`'s forms, for the forms oracle: its options and its `+options`.
pub fn dig_forms() -> Vec<Subcommand> {
    let mut options = view(&DIG);
    options.words = DIG_PLUS.iter().chain(DIG_NUMERIC).copied().collect();
    Subcommand::own(options)
}

/// `dig`: names, types and classes, and `+options` that only shape the query
/// and its output. Not `@server` (another server, perhaps internal), `-f FILE`
/// (a batch of queries read from a file), `-k`/`-y` (keys), `-b` (binding).
pub fn dig(args: &[String]) -> Result<(), Refusal> {
    let mut rest = Vec::new();
    for arg in args {
        if arg.starts_with('+') {
            let name = arg.split('=').next().unwrap_or(arg);
            let numeric = DIG_NUMERIC
                .iter()
                .any(|n| n.split('=').next() == Some(name));
            if DIG_PLUS.contains(&name) || numeric {
                continue;
            }
            return Err(Refusal::option("dig", arg));
        }
        if arg.starts_with('@') {
            return Err(Refusal::argument(
                "dig",
                arg,
                "asks a server named on the command line, which may be internal",
            ));
        }
        rest.push(arg.clone());
    }
    parse("dig", &DIG, &rest).map(|_| ())
}

/// The names `dig` looks up (its entry's reach): its operands other than
/// record types and classes, and the values of `-q` and `-x`.
/// Without a name dig asks the root servers for theirs (`Some` of none).
pub fn dig_names(args: &[String]) -> Option<Vec<String>> {
    let rest: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('+'))
        .cloned()
        .collect();
    let Ok(parsed) = parse("dig", &DIG, &rest) else {
        return Some(Vec::new());
    };
    // dig reads an operand that names a record type or class as one.
    let names = parsed
        .operands
        .iter()
        .map(String::as_str)
        .filter(|o| !DNS_WORDS.iter().any(|w| w.eq_ignore_ascii_case(o)))
        .chain(parsed.values("-q"))
        .chain(parsed.values("-x"))
        .map(str::to_owned)
        .collect();
    Some(names)
}

/// `dig`'s own options (its `+options` are read before them).
const DIG: Grammar = Grammar {
    flags: "46rmu",
    valued: "tcqx",
    ..BASE
};

/// Record types and classes: operands `dig` and `host -t` read as such, not as names.
const DNS_WORDS: &[&str] = &[
    "A", "AAAA", "MX", "NS", "TXT", "CNAME", "SOA", "PTR", "SRV", "CAA", "ANY", "DS", "DNSKEY",
    "HTTPS", "SVCB", "NAPTR", "TLSA", "SSHFP", "IN", "CH", "HS",
];

/// `host NAME`: one name; a second operand names the server to ask.
pub const HOST: Grammar = Grammar {
    flags: "av46CrTdl",
    valued: "tcWRN",
    max_operands: 1,
    then: Some(one_name),
    ..BASE
};

fn one_name(parsed: &super::grammar::Parsed) -> Result<(), Refusal> {
    if parsed.operands.len() == 1 {
        Ok(())
    } else {
        Err(Refusal::argument(
            &parsed.program,
            "",
            "needs exactly one name (without one it reads commands from its input)",
        ))
    }
}

/// The names `host`, `ping` and `ping6` contact (their entries' reach): their
/// operands, of which their grammars' checks allow one.
pub fn operand_names(parsed: &super::grammar::Parsed) -> Option<Vec<&str>> {
    Some(parsed.operands.iter().map(String::as_str).collect())
}

/// nslookup's options without a value.
const NSLOOKUP_FLAGS: &[&str] = &[
    "-debug",
    "-nodebug",
    "-vc",
    "-novc",
    "-recurse",
    "-norecurse",
];
/// nslookup's options that take a value (always attached with `=`), each
/// with one nslookup reads as valid (the forms oracle runs these words).
const NSLOOKUP_VALUED: &[&str] = &[
    "-type=A",
    "-query=A",
    "-q=A",
    "-t=A",
    "-timeout=1",
    "-retry=1",
    "-class=IN",
    "-port=53",
];

/// `nslookup`'s forms, for the forms oracle: each option as written, and one
/// name.
pub fn nslookup_forms() -> Vec<Subcommand> {
    let words: Vec<&'static str> = NSLOOKUP_FLAGS
        .iter()
        .chain(NSLOOKUP_VALUED)
        .copied()
        .collect();
    Subcommand::own(Options::of_words(&words, &[], Operands::Text, false, 1))
}

/// `nslookup NAME` with `-type=…` style options; a second operand is a server.
pub fn nslookup(args: &[String]) -> Result<(), Refusal> {
    let mut names = Vec::new();
    for arg in args {
        if arg.starts_with('-') {
            let name = arg.split('=').next().unwrap_or(arg);
            let valued = arg.contains('=')
                && NSLOOKUP_VALUED
                    .iter()
                    .any(|v| v.split('=').next() == Some(name));
            if valued || NSLOOKUP_FLAGS.contains(&arg.as_str()) {
                continue;
            }
            return Err(Refusal::option("nslookup", arg));
        }
        names.push(arg.as_str());
    }
    if names.len() == 1 {
        Ok(())
    } else {
        Err(Refusal::argument(
            "nslookup",
            &args.join(" "),
            "needs exactly one name (a second names the server; none reads commands)",
        ))
    }
}

/// The name `nslookup` looks up (its entry's reach): its one word that is
/// not an option.
pub fn nslookup_names(args: &[String]) -> Option<Vec<String>> {
    Some(
        args.iter()
            .filter(|a| !a.starts_with('-'))
            .cloned()
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &[&str]) -> Vec<String> {
        line.iter().map(|w| (*w).to_owned()).collect()
    }

    /// The words listed for the forms oracle are the words the checkers
    /// read: each is accepted where it is listed, so a form the oracle runs
    /// is a form the policy proves.
    #[test]
    fn listed_forms_are_read_by_their_checkers() {
        for mode in UNZIP_MODES {
            assert!(unzip_mode(mode), "{mode}");
        }
        for plus in DIG_PLUS.iter().chain(DIG_NUMERIC) {
            assert!(dig(&words(&[plus, "example.com"])).is_ok(), "{plus}");
        }
        assert!(dig(&words(&["+nosuch", "example.com"])).is_err());
        for option in NSLOOKUP_FLAGS.iter().chain(NSLOOKUP_VALUED) {
            assert!(
                nslookup(&words(&[option, "example.com"])).is_ok(),
                "{option}"
            );
        }
        assert!(nslookup(&words(&["-type", "example.com"])).is_err());
        let forms = ps_forms();
        let options = &forms[0].options;
        for letter in &options.words {
            assert!(ps(&words(&[letter])).is_ok(), "{letter}");
        }
        for letter in &options.valued_words {
            assert!(ps(&words(&[letter, "1"])).is_ok(), "{letter}");
        }
        assert!(ps(&words(&["e"])).is_err());
    }
}
