//! The command oracle's generator: lines built from the grammars the policy
//! declares (`toolgate_policy::assess::command::forms`), so that every form a
//! grammar declares is executed, not only the forms our vectors happen to use.
//!
//! For every program with an option grammar it makes:
//! - **singles**: each declared option once, with a value where it takes one
//!   and an existing readable operand (`-NUM` too where the grammar reads it);
//! - **pairs**: a pairwise covering design over the options as on/off
//!   factors (a greedy all-pairs construction): every two options appear
//!   together in some line, and each without the other;
//! - **operand kinds** (programs that read files): a file, a directory, a
//!   glob, `-`, a secret, a device, a symbolic link (the fixture's link to a
//!   secret) and names another program produced;
//! - **spellings**: a seeded sample of the spellings the real programs
//!   accept and our grammars read differently or not at all: GNU long-option
//!   abbreviations, `--opt=value`, bundled short options, attached values,
//!   `--` before the operands.
//!
//! Every line is only a candidate: the runner runs those the policy allows
//! and judges them like any other line. Programs read by a dedicated parser
//! (find, sed, …) have no option list to generate from; the vectors run
//! them. Where the parser lists its subcommands' grammars (git), each
//! subcommand is planned like a program of its own (`git log`).

use std::collections::BTreeSet;
use toolgate_policy::readings::{declared, Declared, Operands, Options};

use crate::rng::Rng;

/// What a generated line exercises.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Purpose {
    /// One declared option.
    Single,
    /// A row of the pairwise covering design.
    Pairs,
    /// An operand of one kind (`file`, `directory`, …).
    Operand(&'static str),
    /// A spelling of the real program's parser (`abbreviation`, …).
    Spelling(&'static str),
}

/// One generated line.
#[derive(Clone, Debug)]
pub struct Line {
    /// The program it runs.
    pub program: &'static str,
    /// The shell line.
    pub text: String,
    /// The declared forms (options, canonical `-x` / `--name` / `-NUM`) it
    /// holds.
    pub forms: Vec<String>,
    /// Why it was made.
    pub purpose: Purpose,
    /// Other spellings of the same forms, tried in order when the policy
    /// refuses `text`: the value attached (`-f1`, `--name=v`), and the line
    /// under `timeout 5` (a follow or a repeat is bounded only so). A form
    /// is executed in the first spelling the policy proves.
    pub alternates: Vec<String>,
}

/// One program's plan: its declared forms and the lines that exercise them.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The program.
    pub program: &'static str,
    /// Whether a dedicated parser reads it (no option list to generate from).
    pub dedicated: bool,
    /// Every declared form, canonical.
    pub forms: Vec<String>,
    /// The lines.
    pub lines: Vec<Line>,
}

/// How many spellings to sample per program (the full run takes more).
pub const SPELLINGS: usize = 4;
/// How many spellings the full run samples per program.
pub const SPELLINGS_FULL: usize = 16;

/// Plans for every program on the read-only list.
pub fn plans(seed: u64, spellings: usize) -> Vec<Plan> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for d in declared() {
        // A checker that lists the program's own grammar (words "") makes
        // it a program with an option list; otherwise its plan says that
        // the dedicated parser reads it.
        if !d.subcommands.iter().any(|s| s.words.is_empty()) {
            out.push(plan(&d, &mut rng, spellings));
        }
        // A subcommand's forms are a program of their own in the plan
        // (`git log`): its lines start with both words. The name is made
        // once per run and lives as long as the plans.
        for sub in &d.subcommands {
            let program: &'static str = if sub.words.is_empty() {
                d.program
            } else {
                Box::leak(format!("{} {}", d.program, sub.words).into_boxed_str())
            };
            out.push(plan_of(program, &sub.options, &mut rng, spellings));
        }
    }
    out
}

/// One declared option.
#[derive(Clone, Debug)]
enum Opt {
    Short(char, Value),
    Long(&'static str, Value),
    /// A whole word as written (`find`'s `-name`, `(`).
    Word(&'static str, Value),
    Number,
}

/// What an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    None,
    Text,
    Path,
    Optional,
}

impl Opt {
    fn form(&self) -> String {
        match self {
            Opt::Short(c, _) => format!("-{c}"),
            Opt::Long(n, _) => format!("--{n}"),
            Opt::Word(w, _) => (*w).to_owned(),
            Opt::Number => String::from("-NUM"),
        }
    }

    /// The option's words, with a value that the program reads as valid
    /// where one is known.
    fn words(&self, program: &str) -> Vec<String> {
        let form = self.form();
        match self {
            Opt::Short(_, Value::None | Value::Optional) | Opt::Long(_, Value::None) => {
                vec![form]
            }
            Opt::Long(_, Value::Optional) => vec![form],
            Opt::Short(_, Value::Text) | Opt::Long(_, Value::Text) => {
                vec![form.clone(), quote(value(program, &form))]
            }
            Opt::Short(_, Value::Path) | Opt::Long(_, Value::Path) => {
                vec![form.clone(), quote(path_value(program, &form))]
            }
            Opt::Word(w, Value::Text) => vec![quote(w), quote(value(program, &form))],
            Opt::Word(w, _) => vec![quote(w)],
            Opt::Number => vec![String::from("-3")],
        }
    }
}

fn options(o: &Options) -> Vec<Opt> {
    let mut out = Vec::new();
    out.extend(o.flags.iter().map(|c| Opt::Short(*c, Value::None)));
    out.extend(o.valued.iter().map(|c| Opt::Short(*c, Value::Text)));
    out.extend(o.path_valued.iter().map(|c| Opt::Short(*c, Value::Path)));
    out.extend(
        o.optional_attached
            .iter()
            .map(|c| Opt::Short(*c, Value::Optional)),
    );
    out.extend(o.long_flags.iter().map(|n| Opt::Long(n, Value::None)));
    out.extend(o.long_valued.iter().map(|n| Opt::Long(n, Value::Text)));
    out.extend(o.long_paths.iter().map(|n| Opt::Long(n, Value::Path)));
    out.extend(
        o.long_optional
            .iter()
            .map(|n| Opt::Long(n, Value::Optional)),
    );
    out.extend(o.words.iter().map(|w| Opt::Word(w, Value::None)));
    out.extend(o.valued_words.iter().map(|w| Opt::Word(w, Value::Text)));
    if o.number_option {
        out.push(Opt::Number);
    }
    // One form once: a letter declared twice (a flag on one platform, valued
    // on another is never declared) counts as one.
    let mut seen = BTreeSet::new();
    out.retain(|opt| seen.insert(opt.form()));
    out
}

fn plan(d: &Declared, rng: &mut Rng, spellings: usize) -> Plan {
    match &d.options {
        Some(o) => plan_of(d.program, o, rng, spellings),
        None => Plan {
            program: d.program,
            dedicated: true,
            forms: vec![String::from("(dedicated parser)")],
            lines: Vec::new(),
        },
    }
}

/// The plan of a program (or a subcommand, `git log`) with an option list.
fn plan_of(program: &'static str, o: &Options, rng: &mut Rng, spellings: usize) -> Plan {
    let opts = options(o);
    let base = base(program, o);
    // An expression program (`find`) takes its operands first, then the
    // words of its expression.
    let expression = o.operands_first;
    // Options that are whole words (`find -name`, `xxd -cols`) have one
    // spelling each: no abbreviations, bundles or `=value`.
    let whole_words = !o.words.is_empty() || !o.valued_words.is_empty();
    let line = |words: &[String], operand: &str| -> String {
        let mut text = String::from(program);
        let operands = base.replace("{F}", operand);
        if expression && !operands.is_empty() {
            text.push(' ');
            text.push_str(&operands);
        }
        for w in words {
            text.push(' ');
            text.push_str(w);
        }
        if !expression && !operands.is_empty() {
            text.push(' ');
            text.push_str(&operands);
        }
        text
    };
    let mut lines = Vec::new();
    // The program alone (its base operands): the form every other builds on.
    lines.push(Line {
        program,
        text: line(&[], "a.txt"),
        forms: vec![String::from("(operands)")],
        purpose: Purpose::Single,
        alternates: vec![format!("timeout 5 {}", line(&[], "a.txt"))],
    });
    for opt in &opts {
        // An option that gives a searcher its pattern takes the pattern
        // operand's place.
        let gives_pattern = matches!(opt.form().as_str(), "-e" | "-f" | "--regexp" | "--file");
        let text = match base.strip_prefix("alpha ") {
            Some(rest) if gives_pattern => {
                let mut words = vec![program.to_owned()];
                words.extend(opt.words(program));
                words.push(rest.replace("{F}", "a.txt"));
                words.join(" ")
            }
            _ => line(&opt.words(program), "a.txt"),
        };
        let mut alternates = Vec::new();
        if let Some(attached) = attached(opt, program) {
            alternates.push(line(&[attached], "a.txt"));
        }
        // An option that makes a searcher list files (`rg --files`) reads
        // every operand as a path: without the pattern.
        if let Some(rest) = base.strip_prefix("alpha ") {
            let mut words = vec![program.to_owned()];
            words.extend(opt.words(program));
            words.push(rest.replace("{F}", "a.txt"));
            alternates.push(words.join(" "));
        }
        alternates.push(format!("timeout 5 {text}"));
        lines.push(Line {
            program,
            text,
            forms: vec![opt.form()],
            purpose: Purpose::Single,
            alternates,
        });
    }
    // An option after the operands: GNU getopt permutes it to the front, a
    // parser that stops at the first operand (xxd, BSD tools) reads it as
    // another operand, perhaps the file it writes (`xxd a.txt -a` writes
    // the dump into `-a`).
    let operands = base.replace("{F}", "a.txt");
    let flag = opts.iter().find(|o| {
        matches!(
            o,
            Opt::Short(_, Value::None) | Opt::Long(_, Value::None) | Opt::Word(_, Value::None)
        )
    });
    if let (false, false, Some(flag)) = (expression, operands.is_empty(), flag) {
        lines.push(Line {
            program,
            text: format!("{program} {operands} {}", flag.form()),
            forms: vec![flag.form()],
            purpose: Purpose::Spelling("option after the operands"),
            alternates: Vec::new(),
        });
    }
    for row in covering(opts.len(), rng) {
        let chosen: Vec<&Opt> = row.iter().filter_map(|i| opts.get(*i)).collect();
        if chosen.len() < 2 {
            continue;
        }
        let words: Vec<String> = chosen.iter().flat_map(|o| o.words(program)).collect();
        lines.push(Line {
            program,
            text: line(&words, "a.txt"),
            forms: chosen.iter().map(|o| o.form()).collect(),
            purpose: Purpose::Pairs,
            alternates: Vec::new(),
        });
    }
    if o.operands == Operands::Files && base.contains("{F}") {
        for (kind, operand) in OPERAND_KINDS {
            lines.push(Line {
                program,
                text: line(&[], operand),
                forms: Vec::new(),
                purpose: Purpose::Operand(kind),
                alternates: Vec::new(),
            });
        }
        lines.push(Line {
            program,
            text: format!("ls *.txt | xargs {}", line(&[], "").trim_end()),
            forms: Vec::new(),
            purpose: Purpose::Operand("produced name (xargs)"),
            alternates: Vec::new(),
        });
    }
    if !whole_words {
        lines.extend(spelling_sample(program, &opts, rng, spellings, &line));
    }
    Plan {
        program,
        dedicated: false,
        forms: std::iter::once(String::from("(operands)"))
            .chain(opts.iter().map(Opt::form))
            .collect(),
        lines,
    }
}

/// The operand kinds a file reader is tried with.
const OPERAND_KINDS: &[(&str, &str)] = &[
    ("file", "a.txt"),
    ("directory", "a"),
    ("glob", "*.txt"),
    ("standard input", "-"),
    ("secret", ".env"),
    ("nested secret", "backend/.env"),
    ("device", "/dev/null"),
    ("symbolic link", "link.txt"),
    ("produced name", "$(ls *.txt)"),
    ("option-like name", "./-n"),
];

/// The option with its value attached in one word (`-f1`, `--name=v`), for
/// an option that takes a value.
fn attached(opt: &Opt, program: &str) -> Option<String> {
    let form = opt.form();
    match opt {
        Opt::Short(_, Value::Text) => Some(format!("{form}{}", quote(value(program, &form)))),
        Opt::Short(_, Value::Path) => Some(format!("{form}{}", quote(path_value(program, &form)))),
        Opt::Long(_, Value::Text) => Some(format!("{form}={}", quote(value(program, &form)))),
        Opt::Long(_, Value::Path) => Some(format!("{form}={}", quote(path_value(program, &form)))),
        _ => None,
    }
}

/// A seeded sample of spellings the real parsers accept.
fn spelling_sample(
    program: &'static str,
    opts: &[Opt],
    rng: &mut Rng,
    count: usize,
    line: &dyn Fn(&[String], &str) -> String,
) -> Vec<Line> {
    let mut candidates: Vec<(&'static str, Vec<String>, Vec<String>)> = Vec::new();
    let longs: Vec<&'static str> = opts
        .iter()
        .filter_map(|o| match o {
            Opt::Long(n, _) => Some(*n),
            _ => None,
        })
        .collect();
    for o in opts {
        match o {
            Opt::Long(name, v) => {
                // The shortest prefix that no other declared long option
                // shares: GNU getopt resolves it to this option (or to one
                // we never declared).
                if let Some(abbrev) = (1..name.len())
                    .filter_map(|n| name.get(..n))
                    .find(|p| longs.iter().filter(|l| l.starts_with(p)).count() == 1)
                {
                    let mut words = vec![format!("--{abbrev}")];
                    if matches!(v, Value::Text | Value::Path) {
                        words.extend(o.words(program).into_iter().skip(1));
                    }
                    candidates.push(("abbreviation", words, vec![o.form()]));
                }
                if matches!(v, Value::Text | Value::Path | Value::Optional) {
                    let value = match v {
                        Value::Path => path_value(program, &o.form()),
                        _ => value(program, &o.form()),
                    };
                    candidates.push((
                        "--opt=value",
                        vec![format!("--{name}={}", quote(value))],
                        vec![o.form()],
                    ));
                }
            }
            Opt::Short(c, Value::Text) => {
                candidates.push((
                    "attached value",
                    vec![format!("-{c}{}", quote(value(program, &o.form())))],
                    vec![o.form()],
                ));
            }
            _ => {}
        }
    }
    let flags: Vec<char> = opts
        .iter()
        .filter_map(|o| match o {
            Opt::Short(c, Value::None) => Some(*c),
            _ => None,
        })
        .collect();
    if flags.len() >= 2 {
        for _ in 0..4 {
            let n = 2 + rng.below(flags.len().min(4) - 1);
            let mut bundle = String::from("-");
            let mut forms = Vec::new();
            for _ in 0..n {
                if let Some(c) = flags.get(rng.below(flags.len())) {
                    if !bundle.contains(*c) {
                        bundle.push(*c);
                        forms.push(format!("-{c}"));
                    }
                }
            }
            candidates.push(("bundled short options", vec![bundle], forms));
        }
    }
    candidates.push((
        "-- before the operands",
        vec![String::from("--")],
        Vec::new(),
    ));
    let mut out = Vec::new();
    while out.len() < count && !candidates.is_empty() {
        let (kind, words, forms) = candidates.swap_remove(rng.below(candidates.len()));
        out.push(Line {
            program,
            text: line(&words, "a.txt"),
            forms,
            purpose: Purpose::Spelling(kind),
            alternates: Vec::new(),
        });
    }
    out
}

/// A pairwise covering design over `k` on/off factors: rows (the options
/// switched on) such that every two factors take all four combinations in
/// some row. Greedy, as AETG builds them: each row is the best of a few
/// random candidates at covering what is not covered yet.
fn covering(k: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    if k < 2 {
        return Vec::new();
    }
    // uncovered[(i, j, a, b)] for i < j: factor i at a, j at b.
    let mut uncovered: BTreeSet<(usize, usize, bool, bool)> = BTreeSet::new();
    for i in 0..k {
        for j in i + 1..k {
            for a in [false, true] {
                for b in [false, true] {
                    uncovered.insert((i, j, a, b));
                }
            }
        }
    }
    let mut rows = Vec::new();
    while !uncovered.is_empty() && rows.len() < 200 {
        let mut best: Option<(usize, Vec<bool>)> = None;
        for _ in 0..24 {
            // Seed the candidate with one uncovered pair so it always covers
            // something, then draw the rest.
            let mut row: Vec<bool> = (0..k).map(|_| rng.below(2) == 1).collect();
            if let Some((i, j, a, b)) = uncovered.iter().nth(rng.below(uncovered.len())) {
                if let Some(x) = row.get_mut(*i) {
                    *x = *a;
                }
                if let Some(x) = row.get_mut(*j) {
                    *x = *b;
                }
            }
            let gain = uncovered
                .iter()
                .filter(|(i, j, a, b)| row.get(*i) == Some(a) && row.get(*j) == Some(b))
                .count();
            if best.as_ref().is_none_or(|(g, _)| gain > *g) {
                best = Some((gain, row));
            }
        }
        let Some((_, row)) = best else { break };
        uncovered.retain(|(i, j, a, b)| !(row.get(*i) == Some(a) && row.get(*j) == Some(b)));
        rows.push(
            row.iter()
                .enumerate()
                .filter(|(_, on)| **on)
                .map(|(i, _)| i)
                .collect(),
        );
    }
    rows
}

/// A shell word for `text`: bare when it holds only plain characters,
/// single-quoted otherwise.
fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._,/:=+-%@".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The operands that make a plain run of `program` succeed, with `{F}`
/// where a file operand goes (the operand kinds replace it).
fn base(program: &str, o: &Options) -> String {
    let fixed = match program {
        "cmp" | "comm" | "diff" | "join" | "paste" => "{F} b.txt",
        "grep" | "egrep" | "fgrep" | "rg" => "alpha {F}",
        "zgrep" | "zegrep" | "zfgrep" => "alpha {F}",
        "zcat" => "a.txt.gz",
        "bzcat" => "a.txt.bz2",
        "xzcat" => "a.txt.xz",
        "zstdcat" => "a.txt.zst",
        "gzip" => "-c a.txt.gz",
        "xz" => "-c a.txt.xz",
        "zstd" => "-c a.txt.zst",
        "seq" => "3",
        "sleep" => "0",
        "expr" => "1 + 1",
        "basename" | "dirname" => "a/one.txt",
        "which" | "whereis" | "type" => "ls",
        "getconf" => "PAGESIZE",
        "look" => "al a.txt",
        "printf" => "'%s\\n' x",
        "getent" => "passwd root",
        "printenv" => "PATH",
        // A name, not a loopback address: the policy refuses a local
        // target. The sandbox has no network; the lookup is the line's own.
        "ping" | "ping6" => "-c 1 example.com",
        "tsort" => "pairs.txt",
        "numfmt" => "1000",
        "pathchk" => "a.txt",
        "cd" => "a",
        "id" | "groups" => "",
        // Without `-n` lsof looks up the name of every network address it
        // lists: only its numeric form is proven.
        "lsof" => "-n",
        // Operands the programs need (the triage of non-zero exits found
        // them missing): a file to name, a process to match, sets for tr.
        "file" | "stat" | "readlink" | "realpath" => "a.txt",
        "pgrep" => "bash",
        "tr" => "a b",
        // bzip2 compresses unless told to decompress, and refuses a .bz2.
        "bzip2" => "-dc a.txt.bz2",
        // git's subcommands in the fixture's repository (two commits).
        "git blame" | "git annotate" | "git check-ignore" => "a.txt",
        "git check-attr" => "diff a.txt",
        "git merge-base" => "HEAD HEAD~1",
        "git range-diff" => "HEAD~1..HEAD HEAD~1..HEAD",
        "git name-rev" | "git cherry" | "git diff-tree" | "git ls-tree" | "git rev-list"
        | "git rev-parse" | "git diff-index" => "HEAD",
        "git cat-file" => "-t HEAD",
        "git describe" => "--always",
        "git grep" => "alpha",
        "git config" => "user.name",
        "sed" => "p a.txt",
        "awk" | "gawk" | "mawk" | "nawk" => "'{print}' a.txt",
        "jq" | "yq" => ". data.json",
        // Subcommands naming a container, image, volume, network or
        // context (the sandbox has no daemon: the client reads the options,
        // then fails to connect).
        "docker logs"
        | "docker top"
        | "docker port"
        | "docker history"
        | "docker diff"
        | "docker container logs"
        | "docker container top"
        | "docker container port"
        | "docker container diff"
        | "docker image inspect"
        | "docker image history"
        | "docker volume inspect"
        | "docker network inspect"
        | "docker context inspect" => "x",
        "kubectl get" | "kubectl describe" | "kubectl explain" => "pods",
        "kubectl logs" => "x",
        "kubectl top" => "pod",
        "kubectl auth can-i" => "get pods",
        "pip show" => "pip",
        "find" => ".",
        // A listing of the archive the test plants (`-t` is required).
        "tar" => "-t -f a.tar",
        // Names, not loopback addresses (the policy refuses a local
        // target); the sandbox has no network, the lookup is the line's own.
        "curl" => "https://example.com/",
        "host" => "example.com",
        // An object to show; the one interface the sandbox has.
        "ip" => "addr",
        "ifconfig" => "lo",
        // One try of one second each: the sandbox's resolver does not answer.
        "dig" => "+time=1 +tries=1 example.com",
        "nslookup" => "-timeout=1 -retry=1 example.com",
        // The archive the test plants.
        "unzip" => "a.zip",
        _ => match o.operands {
            Operands::Files => "{F}",
            Operands::Text | Operands::Urls => "",
        },
    };
    fixed.to_owned()
}

/// A value each text-valued option reads as valid (a count, a field list, a
/// format): `1` unless the option wants something else.
fn value(program: &str, form: &str) -> &'static str {
    match (program, form) {
        ("sed", "-e" | "--expression") => "p",
        ("xxd", _) => "16",
        // ip's selectors in the verb's place (the sandbox has only `lo`).
        (p, "dev" | "label") if p.starts_with("ip ") => "lo",
        (p, "scope") if p.starts_with("ip ") => "host",
        (p, "table") if p.starts_with("ip ") => "main",
        (p, "type") if p.starts_with("ip ") => "loopback",
        // ps: a command, a user, a column, a process, a terminal.
        ("ps", "-C") => "bash",
        ("ps", "-G" | "-u" | "-U" | "U" | "--user" | "--User" | "--group" | "--Group") => "root",
        ("ps", "-o" | "-O" | "-k" | "o" | "O" | "k" | "--format" | "--sort") => "pid",
        ("ps", "-t" | "t" | "--tty") => "-",
        ("ps", "--cols" | "--columns" | "--width") => "80",
        // dig: a record type, a class, a name, an address.
        ("dig", "-t") => "A",
        ("dig", "-c") => "IN",
        ("dig", "-q") => "example.com",
        ("dig", "-x") => "93.184.215.14",
        ("find", "-name" | "-iname" | "-lname" | "-ilname") => "*.txt",
        ("find", "-path" | "-ipath" | "-wholename" | "-iwholename") => "./a*",
        ("find", "-regex" | "-iregex") => ".*txt",
        ("find", "-type" | "-xtype") => "f",
        ("find", "-size") => "-1k",
        ("find", "-perm") => "-444",
        ("find", "-user" | "-group") => "root",
        ("find", "-uid" | "-gid") => "0",
        ("find", "-regextype") => "posix-extended",
        ("find", "-fstype") => "ext4",
        ("find", "-printf") => "%p\\n",
        ("find", "-newer" | "-anewer" | "-cnewer" | "-samefile") => "a.txt",
        ("find", "-neweraa" | "-newermm" | "-newercc") => "a.txt",
        ("find", "-newermt" | "-newerct") => "2020-01-01",
        ("curl", "-o" | "--output" | "-D" | "--dump-header") => "/dev/null",
        ("curl", "-X" | "--request") => "GET",
        ("curl", "-b" | "--cookie") => "name=value",
        ("curl", "--url") => "https://example.com/",
        (p, "-o" | "--output") if p.starts_with("kubectl ") => "json",
        ("awk" | "gawk" | "mawk" | "nawk", "-v" | "--assign") => "x=1",
        ("cut", "-d" | "--delimiter") | ("sort" | "join", "-t" | "--field-separator") => ",",
        ("column", "-s" | "--separator" | "-o" | "--output-separator") => ",",
        ("paste", "-d" | "--delimiters") => ",",
        ("cut", "-f" | "-b" | "-c" | "--fields" | "--bytes" | "--characters") => "1",
        ("ls", "--sort") => "size",
        ("ls", "--time-style") => "iso",
        ("ls", "--format") => "long",
        ("ls", "--indicator-style") => "slash",
        ("ls", "--time") => "ctime",
        ("ls" | "tree" | "du", "--ignore" | "--hide" | "-I" | "-P" | "--exclude") => "*.md",
        ("ls", "--quoting-style") => "literal",
        ("ls" | "du" | "df", "--block-size" | "-B") => "1K",
        ("ls" | "tree" | "grep" | "rg" | "diff", "--color" | "--colour") => "never",
        ("date", "-d" | "--date") => "2020-01-01",
        ("date", "-r" | "--reference") => "a.txt",
        ("getent", "-s" | "--service") => "files",
        ("last", "-t" | "--until" | "-s" | "--since") => "2020-01-01",
        ("lspci", "-d") => "8086:",
        ("lsusb", "-d") => "1d6b:",
        ("lsusb", "-s") => "001:",
        ("numfmt", "-d" | "--delimiter") => ",",
        ("od", "--endian") => "little",
        ("date", "-I" | "--iso-8601") => "seconds",
        ("date", "--rfc-3339") => "date",
        ("od", "-t" | "--format") => "x1",
        ("od", "-A" | "--address-radix") => "d",
        ("hexdump", "-e") => "\"%x\"",
        ("stat" | "find", "-c" | "--format" | "--printf") => "%n",
        ("df", "--output") => "source",
        ("df", "-t" | "-x" | "--type" | "--exclude-type") => "tmpfs",
        ("du", "--time") => "mtime",
        ("du", "--time-style") => "iso",
        ("numfmt", "--to" | "--from") => "si",
        ("numfmt", "--format") => "%f",
        ("numfmt", "--round") => "up",
        ("numfmt", "--invalid") => "ignore",
        ("sort", "-k" | "--key") => "1",
        ("sort", "--sort") => "numeric",
        ("sort", "-S" | "--buffer-size") => "1M",
        ("sort", "--batch-size") => "2",
        ("sort", "-T" | "--temporary-directory") => "/tmp",
        ("uniq", "--group" | "--all-repeated") => "separate",
        ("diff", "--line-format") => "%L",
        ("diff", "--label") => "x",
        ("diff", "-I" | "--ignore-matching-lines") => "x",
        ("grep" | "egrep" | "fgrep" | "zgrep" | "zegrep" | "zfgrep", f) => match f {
            "-e" | "--regexp" => "alpha",
            "--include" => "*.txt",
            "--exclude" | "--exclude-dir" => "x",
            "--devices" | "-D" => "skip",
            "--directories" | "-d" => "skip",
            "--binary-files" => "text",
            "--label" => "x",
            _ => "1",
        },
        ("rg", f) => match f {
            "-e" | "--regexp" => "alpha",
            "-g" | "--glob" | "--iglob" => "*.txt",
            "-t" | "--type" | "-T" | "--type-not" => "txt",
            "--sort" | "--sortr" => "path",
            "-E" | "--encoding" => "utf-8",
            "-r" | "--replace" => "x",
            "--type-add" => "foo:*.foo",
            "--engine" => "default",
            "--color" | "--colors" => "never",
            _ => "1",
        },
        ("tr", _) => "a",
        ("lsblk", "-o" | "--output") => "NAME",
        ("lsblk", "-I" | "-e" | "--include" | "--exclude") => "8",
        ("ps" | "pgrep", "-u" | "-U" | "--uid" | "--euid") => "0",
        (
            "pgrep",
            "-g" | "-G" | "-P" | "-s" | "--pgroup" | "--group" | "--parent" | "--session",
        ) => "1",
        ("lsof", "-i") => "TCP",
        ("lsof", "-p") => "1",
        ("lsof", "-F") => "p",
        ("lsof", "-D") => "i",
        ("ss" | "netstat", "-A" | "--query") => "tcp",
        ("ss", "-f" | "--family") => "inet",
        ("dmesg", "-l" | "--level") => "err",
        ("dmesg", "-f" | "--facility") => "kern",
        ("dmesg", "--time-format") => "iso",
        ("lscpu", "-e" | "-p" | "--extended" | "--parse") => "CPU",
        ("free", "-s" | "-c" | "--seconds" | "--count") => "1",
        ("last", "-n" | "--limit") => "1",
        ("vmstat", "-S" | "--unit") => "k",
        ("vmstat", "-c" | "--count") => "1",
        ("top", "-n") => "1",
        ("top", "-d") => "0.1",
        ("top", "-o") => "PID",
        ("uptime", _) => "1",
        ("file", "-m" | "--magic-file") => "/usr/share/misc/magic",
        ("file", "-e" | "--exclude") => "elf",
        ("file", "-P" | "--parameter") => "bytes=10",
        ("file", "-F" | "--separator") => ":",
        ("tree", "--sort") => "name",
        ("tree", "--charset") => "ascii",
        ("tree", "--timefmt") => "%Y",
        ("locale", _) => "LANG",
        ("getconf", _) => "PAGESIZE",
        ("who", _) | ("w", _) => "1",
        ("hostname", _) => "1",
        ("mount", "-t" | "--types") => "proc",
        ("mount", "-l") => "1",
        ("b2sum", "-l" | "--length") => "256",
        ("cksum", "-a" | "--algorithm") => "md5",
        ("cksum", "-l" | "--length") => "256",
        ("base64" | "base32", "-w" | "--wrap") => "76",
        (
            "nl",
            "-b" | "-h" | "-f" | "--body-numbering" | "--header-numbering" | "--footer-numbering",
        ) => "a",
        ("nl", "-n" | "--number-format") => "ln",
        ("nl", "-s" | "--number-separator") => ":",
        ("nl", "-d" | "--section-delimiter") => "xy",
        ("tail" | "head", "-s" | "--sleep-interval") => "1",
        ("tail", "--pid") => "1",
        ("join", "-o") => "auto",
        ("join", "-a" | "-v" | "-1" | "-2" | "-j") => "1",
        ("join", "-e") => "x",
        ("printf", _) => "1",
        ("seq", "-f" | "--format") => "%g",
        ("seq", "-s" | "--separator") => ",",
        ("expand" | "unexpand", "-t" | "--tabs") => "4",
        ("split", _) => "1",
        ("strings", "-t" | "--radix") => "d",
        ("strings", "-e" | "--encoding") => "s",
        ("strings", "-n" | "--bytes") => "4",
        ("shuf", "-i" | "--input-range") => "1-3",
        ("shuf", "-e") => "x",
        ("shuf", "--random-source") => "a.txt",
        ("uname", _) => "1",
        ("id", _) => "1",
        ("lsb_release", _) => "1",
        ("ulimit", _) => "1",
        ("readlink" | "realpath", "--relative-to" | "--relative-base") => ".",
        ("sleep", _) => "0",
        ("cal", _) => "1",
        ("xz", "-T" | "--threads") => "1",
        ("xz", "-F" | "--format") => "xz",
        ("xz", "-M" | "--memlimit" | "--memlimit-decompress") => "64MiB",
        ("zstd", "-T" | "--threads") => "1",
        ("zstd", "-M" | "--memory") => "64MB",
        ("gzip" | "bzip2" | "xz" | "zstd", "-S" | "--suffix") => ".gz",
        _ => "1",
    }
}

/// A readable file each path-valued option reads as valid.
fn path_value(program: &str, form: &str) -> &'static str {
    match (program, form) {
        ("grep" | "egrep" | "fgrep" | "zgrep" | "zegrep" | "zfgrep" | "rg", "-f" | "--file") => {
            "a.txt"
        }
        ("rg", "--ignore-file") => "b.txt",
        ("file", "-m" | "--magic-file") => "/usr/share/misc/magic",
        ("date", "-r" | "--reference") => "a.txt",
        ("tar", "-f" | "--file") => "a.tar",
        _ => "a.txt",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_covering_design_covers_every_pair_both_ways() {
        let mut rng = Rng(7);
        for k in [2, 3, 9, 40] {
            let rows = covering(k, &mut rng);
            for i in 0..k {
                for j in i + 1..k {
                    for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
                        assert!(
                            rows.iter()
                                .any(|r| r.contains(&i) == a && r.contains(&j) == b),
                            "k={k}: {i}={a} {j}={b} not covered"
                        );
                    }
                }
            }
            assert!(rows.len() < 30, "k={k}: {} rows", rows.len());
        }
    }

    #[test]
    fn every_option_of_every_grammar_has_a_single() {
        for plan in plans(1, SPELLINGS) {
            for form in &plan.forms {
                if plan.dedicated {
                    continue;
                }
                assert!(
                    plan.lines
                        .iter()
                        .any(|l| l.purpose == Purpose::Single && l.forms.contains(form)),
                    "{} {form}",
                    plan.program
                );
            }
        }
    }
}
