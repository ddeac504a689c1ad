//! The program table: everything the command assessor knows about a
//! program, in one entry per program, found by one lookup. The read-only
//! proof (`words`, through `programs::read_only`), the guarded floor
//! (`capabilities`, `floor`, `destroys`, `walk`) and the command oracle's
//! generator (`forms`) read the same entry; none keeps a list of program
//! names of its own.
//!
//! An entry holds:
//! - `name`: the program as a command line names it (its base name). Spellings
//!   that are programs of their own on some system (`egrep`, `gawk`, `pip3`)
//!   are entries of their own, so each can record what it is.
//! - `checked`: what was installed on the machine the readings were checked
//!   against (`prog --version`, or the Debian package that ships it, on
//!   Debian 12), or empty when the program is not installed there: a reading
//!   of a version nobody ran stays fail-closed.
//! - `rule`: how its arguments are proven read-only, if they can be: its
//!   option grammar, written in the entry (with the check of the parsed
//!   whole it names, in `whole`), or a dedicated checker (subcommands, a
//!   syntax that is not getopt's, version queries, refusals with their
//!   reason). A
//!   grammar's `operands`, `path_valued` and `long_paths` say which operands
//!   are files it reads; a directory or produced name is refused there.
//! - `reads_contents`: its operands are files whose contents it prints, so a
//!   secret file named anywhere in its arguments is refused.
//! - `shell`, `interpreter`, `inline_code`: it runs the command, the program
//!   or the inline code it is given (the floor reads what it runs);
//!   `wrapper`: it runs the command after its options (judged instead);
//!   `runs_arguments`: when it runs its arguments elsewhere (ssh, chroot,
//!   su always; container tools given `exec`, `run` or `debug`);
//! - `destroys`: what it destroys, deletes or stops, and in which forms,
//!   each row citing the manual that says so; the guarded floor reads the
//!   rows in order and names the first that holds (a database client's
//!   statements, given or piped in, are one such row).
//! - `client`: for an HTTP client, how its words name the files it sends
//!   and the hosts it reaches (the floor reads them).
//! - `prints_no_option`: when its output never starts with `-`, so a
//!   substitution of it cannot become an option.
//! - `credentials`: the words after which it prints a stored credential.
//! - `capabilities`: what its forms can do beyond what the line names, each
//!   row citing GTFOBins or the program's manual.
//!
//! - `ends`: whether it ends and within which bounds (time, widths, counts,
//!   endless sources, following and watching), read in order by
//!   `unbounded`, which adds the line's sleeps and loops together.
//!
//! - `subcommands`: for a program with a dedicated checker, the grammars
//!   that checker parses with (a subcommand table's rows, the program's own
//!   options, an expression's words), listed from the checker's constants
//!   for the forms oracle.
//!
//! - `reaches`: what it contacts on the network in the forms its rule
//!   proves: the host names among its words (handed to the deployment's
//!   egress rule, the rule `http_request` follows), or the server its own
//!   configuration names. A URL operand or option value is declared in the
//!   grammar itself (`Kind::Url`) and goes to the same rule. A program with
//!   neither contacts nothing: the command oracle's judge flags any lookup
//!   it makes.
//!
//! The checkers that list no grammar (`echo`, `test`, `[`, `history`) read
//! an expression or text, not options: the oracle runs those through the
//! vectors.

/// An entry's `subcommands`: the listing function where the forms oracle can
/// read it, `None` in the component. The component never lists forms, and a
/// function named in the table is kept in it (the table holds its pointer),
/// so the listings would otherwise ship in every runtime's policy.
macro_rules! forms {
    ($listing:expr) => {
        if cfg!(feature = "component") {
            None
        } else {
            Some($listing)
        }
    };
}

mod entries;

pub use super::capabilities::Row;
use super::capabilities::{Capability, Form};
use super::forms::Subcommand;
use super::grammar::{Grammar, Kind, Parsed};
use super::refusal::Refusal;
pub use super::unbounded::Ends;
pub use entries::{ANY, FAMILIES, TABLE};

/// How a program's arguments are proven read-only.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// Its option grammar: which options it takes, which take values,
    /// what its operands are and what checks the parsed whole (`then`, in
    /// `whole`). An option is declared only when it is read-only on GNU
    /// (coreutils, util-linux, procps), BSD/macOS and BusyBox alike; where a
    /// letter takes a value on one platform and not another it is left out
    /// (the cluster after it would be read differently). Options that write,
    /// execute, load a configuration or program file, contact a configurable
    /// server, change the system, never end, or read a list of further files
    /// (`--files0-from`, `-f FILE`) are not declared, so they need
    /// confirmation.
    Grammar(&'static Grammar),
    /// A dedicated checker; `Err` names what is not proven.
    Check(fn(&[String]) -> Result<(), Refusal>),
}

/// One program's entry.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// The program's base name.
    pub name: &'static str,
    /// The versions its readings were checked against on this machine
    /// (empty: not installed here).
    pub checked: &'static str,
    /// How its arguments are proven read-only; `None`: never proven.
    pub rule: Option<Rule>,
    /// Its operands are files whose contents it prints.
    pub reads_contents: bool,
    /// A shell: runs the command line it is given.
    pub shell: bool,
    /// An interpreter that runs a program read from its standard input.
    pub interpreter: bool,
    /// Runs inline code it is given (`-e`, `-c`, an awk or sed script), which
    /// the floor reads word by word for destroying programs.
    pub inline_code: bool,
    /// Only runs the command that follows its options (`env`, `nice`,
    /// `timeout 5`, `xargs`): the command it runs is judged instead.
    pub wrapper: bool,
    /// When it runs its arguments as a command somewhere else (another
    /// machine, container, namespace or multi-call binary): the floor reads
    /// them as a command line. `None`: never.
    pub runs_arguments: Option<When>,
    /// What it destroys, deletes or stops, and when: read in order, the
    /// first row that holds names it.
    pub destroys: &'static [Destroy],
    /// Whether it ends and within which bounds: read in order, the first
    /// row that holds decides (a reason it may not end, or that it ends).
    pub ends: &'static [Ends],
    /// Words that, in this order (other words may come between), make it
    /// print a stored credential (`gh auth token`).
    pub credentials: &'static [&'static [&'static str]],
    /// What its forms can do beyond what the line names.
    pub capabilities: &'static [Row],
    /// The option grammars of its subcommands, listed by its dedicated
    /// checker from the constants it parses with (the forms oracle runs
    /// them); `None`: its checker lists none.
    pub subcommands: Option<fn() -> Vec<Subcommand>>,
    /// What it contacts on the network in the forms its rule proves, beyond
    /// the URLs its grammar declares; `None`: nothing.
    pub reaches: Option<Reach>,
    /// An HTTP client: how its words name what it sends and where (the
    /// floor reads the files it uploads and the hosts it may reach).
    pub client: Option<Client>,
    /// When its output can never start with `-` (a path, a name, a number,
    /// fixed text): a substitution of it may then stand where an option
    /// could (`ls $(pwd)`). `None`: not known.
    pub prints_no_option: Option<When>,
}

/// How an HTTP client's words name what it sends and where. Over-matches
/// (the floor only asks a person): every operand may be a URL.
#[derive(Clone, Copy, Debug)]
pub enum Client {
    /// Its options with a value and what each value is (`curl -d @F`),
    /// per its manual; options not listed take none.
    Options(&'static [(&'static str, Sends)]),
    /// httpie's `[METHOD] URL [ITEM…]`: `field@FILE` sends a file, `:3000/x`
    /// is a port on this machine.
    Items,
}

/// What an HTTP client's option value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sends {
    /// A file the client reads and sends or obeys.
    File,
    /// Sent; a file when it starts with `@` (a form field's `=@`/`=<`; a
    /// cookie option's value without `=`).
    Data,
    /// A host the request goes through.
    Proxy,
    /// Anything else with a value (outputs, methods, timeouts).
    Plain,
}

/// What a program contacts on the network, and which of its words name it.
/// The assessor reads it after the program's rule has proven the words, so
/// a reading sees only forms the rule allows.
#[derive(Clone, Copy, Debug)]
pub enum Reach {
    /// The host names its grammar's parse names (`ping HOST`, `getent hosts
    /// NAME`, `lsof -i @HOST`): each goes to the egress rule, so an internal,
    /// denied or unlisted name is refused as a URL naming it would be.
    /// `None`: this form contacts nothing (`getent hosts` alone reads the
    /// local file); no names: it contacts a server it chooses itself, which
    /// only `egress = "public"` allows. Only with a grammar rule.
    Parsed(fn(&Parsed) -> Option<Vec<&str>>),
    /// The host names its words name, read by the program's own reading
    /// (`dig NAME`, `nslookup NAME`), as above. Only with a dedicated
    /// checker.
    Words(fn(&[String]) -> Option<Vec<String>>),
    /// The server its own configuration names (a Docker daemon, a
    /// Kubernetes cluster), which the line does not choose: the user's, like
    /// their shell's start-up files (SECURITY.md). Options that name another
    /// server or configuration are not in its grammar.
    Configured(&'static str),
}

impl Program {
    /// Whether any form its rule proves contacts the network: a declared
    /// reach, or URL operands of its grammar (or of a subcommand's).
    pub fn reaches_network(&self) -> bool {
        let url = |options: &super::forms::Options| {
            matches!(options.operands, super::forms::Operands::Urls)
        };
        self.reaches.is_some()
            || matches!(self.rule, Some(Rule::Grammar(g)) if g.operands == Kind::Url)
            || self
                .subcommands
                .is_some_and(|list| list().iter().any(|s| url(&s.options)))
    }
}

/// An entry with nothing known: the base of every entry.
pub const NONE: Program = Program {
    name: "",
    checked: "",
    rule: None,
    reads_contents: false,
    shell: false,
    interpreter: false,
    inline_code: false,
    wrapper: false,
    runs_arguments: None,
    destroys: &[],
    ends: &[],
    credentials: &[],
    capabilities: &[],
    subcommands: None,
    reaches: None,
    client: None,
    prints_no_option: None,
};

/// When a program destroys something: a condition over the words after
/// it (and, for a database client, the text piped or redirected into it).
/// Words are compared whole and case-sensitively unless the variant says
/// otherwise; the floor may over-match, never allow.
#[derive(Clone, Copy, Debug)]
pub enum When {
    /// Any use of the program.
    Always,
    /// Any argument at all (`passwd NAME`; `passwd` alone only asks).
    Arguments,
    /// A word equal to one of these.
    Word(&'static [&'static str]),
    /// A word equal to one of these in any case (`FLUSHALL`).
    WordAnyCase(&'static [&'static str]),
    /// A word that starts with one of these (`--del`, `-R`).
    Prefix(&'static [&'static str]),
    /// A word that starts with one of these (lower case) in any case
    /// (`EXEC:`).
    PrefixAnyCase(&'static [&'static str]),
    /// A word that holds one of these (`rollback`, `=`).
    Contains(&'static [&'static str]),
    /// The first argument is one of these (`init 0`).
    First(&'static [&'static str]),
    /// A short option bundle (`-x`, not `--x`) that holds this letter.
    Short(char),
    /// The condition does not hold.
    Not(&'static When),
    /// Every condition holds.
    All(&'static [When]),
    /// Some condition holds.
    Any(&'static [When]),
    /// A reading of the words too particular for the variants above (a
    /// program's own operand count, a script's commands), named in the row.
    Check(fn(&[String]) -> bool),
    /// A reading that names what it found (git's subcommands): the row's
    /// `what` is not used.
    Says(fn(&[String]) -> Option<&'static str>),
    /// A statement among the words or in the text given on its input that
    /// drops, deletes or rewrites data, or a client command that runs a
    /// shell or writes a file (a database client).
    Statement,
}

impl When {
    /// Whether the condition holds of the words after the program (and,
    /// for a database client, the text on its input).
    pub(super) fn holds(&self, args: &[String], input: &[String]) -> bool {
        let any = |test: &dyn Fn(&str) -> bool| args.iter().any(|a| test(a));
        match self {
            When::Always => true,
            When::Arguments => !args.is_empty(),
            When::Word(words) => any(&|a| words.contains(&a)),
            When::WordAnyCase(words) => any(&|a| words.iter().any(|w| a.eq_ignore_ascii_case(w))),
            When::Prefix(prefixes) => any(&|a| prefixes.iter().any(|p| a.starts_with(p))),
            When::PrefixAnyCase(prefixes) => any(&|a| {
                let lower = a.to_ascii_lowercase();
                prefixes.iter().any(|p| lower.starts_with(p))
            }),
            When::Contains(parts) => any(&|a| parts.iter().any(|p| a.contains(p))),
            When::First(words) => args.first().is_some_and(|a| words.contains(&a.as_str())),
            When::Short(letter) => {
                any(&|a| a.starts_with('-') && !a.starts_with("--") && a.contains(*letter))
            }
            When::Not(when) => !when.holds(args, input),
            When::All(whens) => whens.iter().all(|w| w.holds(args, input)),
            When::Any(whens) => whens.iter().any(|w| w.holds(args, input)),
            When::Check(check) => check(args),
            When::Says(says) => says(args).is_some(),
            When::Statement => super::floor::destroying_statement(args, input),
        }
    }
}

/// One row of what a program destroys.
#[derive(Clone, Copy, Debug)]
pub struct Destroy {
    /// When it does.
    pub when: When,
    /// What it does, after the program's name (`deletes files`).
    pub what: &'static str,
    /// The manual or documentation that says so: data for the reader of
    /// the table and the citation test, not part of the finding's message
    /// (which the vectors hold).
    #[cfg_attr(not(test), allow(dead_code))]
    pub source: &'static str,
}

impl Destroy {
    fn says(&self, args: &[String], input: &[String]) -> Option<&'static str> {
        match self.when {
            When::Says(says) => says(args),
            when => when.holds(args, input).then_some(self.what),
        }
    }
}

/// A row of what a program destroys.
const fn destroys(when: When, what: &'static str, source: &'static str) -> Destroy {
    Destroy { when, what, source }
}

/// What a program positively destroys, deletes or stops, given its words
/// and the text on its input: the first row of its entry that holds, then
/// the families of programs named by a prefix (`mkfs.*`). Used only for the
/// guarded floor and explanations, never to allow.
pub fn destruction(program: &str, args: &[String], input: &[String]) -> Option<&'static str> {
    let rows = lookup(program).map_or(&[][..], |entry| entry.destroys);
    rows.iter()
        .find_map(|row| row.says(args, input))
        .or_else(|| {
            FAMILIES
                .iter()
                .filter(|(prefix, _)| program.starts_with(prefix))
                .find_map(|(_, row)| row.says(args, input))
        })
}

/// A capability row of an entry.
const fn row(form: Form, capability: Capability, source: &'static str) -> Row {
    Row {
        form,
        capability,
        source,
    }
}

/// The entry of a program (its base name), if the table has one.
pub fn lookup(program: &str) -> Option<&'static Program> {
    TABLE
        .binary_search_by(|entry| entry.name.cmp(program))
        .ok()
        .and_then(|at| TABLE.get(at))
}

/// Whether the program's entry says `what`; a program with no entry says
/// nothing.
pub fn has(program: &str, what: impl Fn(&Program) -> bool) -> bool {
    lookup(program).is_some_and(what)
}

/// Interpreters, compilers and build tools only run code, except when asked
/// for their version, in the exact spelling each reads as "print the version
/// and exit" (`python -v` is verbose mode and then reads a program from its
/// input; BSD `make -V` evaluates the Makefile). The spellings are those
/// whose behaviour the command oracle executed here (the entry's
/// `checked`); a version query is not harmless by its name (`terraform
/// version` writes a checkpoint file and asks a host the line does not
/// name), so programs with no spelling stay unproven, and so does a program
/// whose entry records no version checked here.
fn version(program: &str, spellings: &[&str], args: &[String]) -> Result<(), Refusal> {
    let checked = lookup(program).is_some_and(|entry| !entry.checked.is_empty());
    if checked && matches!(args, [only] if spellings.contains(&only.as_str())) {
        return Ok(());
    }
    Err(Refusal::argument(
        program,
        &args.join(" "),
        "runs code; only its exact version query is proven",
    ))
}

/// A version query's forms, for the forms oracle: each exact spelling,
/// alone (the same list `version` accepts).
fn version_forms(spellings: &'static [&'static str]) -> Vec<Subcommand> {
    Subcommand::own(super::forms::Options::of_words(
        spellings,
        &[],
        super::forms::Operands::Text,
        false,
        0,
    ))
}

/// `cargo` and `rustc` are rustup proxies: even `--version` runs the
/// toolchain a `rust-toolchain.toml` in the directory names, which may be
/// any path, so they are not proven.
fn toolchain(program: &str, args: &[String]) -> Result<(), Refusal> {
    Err(Refusal::argument(
        program,
        &args.join(" "),
        "runs the toolchain a rust-toolchain.toml names (any path), even for `--version`",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is searched by halves: its names are sorted and unique.
    #[test]
    fn names_are_sorted_and_unique() {
        for pair in TABLE.windows(2) {
            if let [a, b] = pair {
                assert!(a.name < b.name, "{} before {}", a.name, b.name);
            }
        }
        for entry in TABLE {
            assert_eq!(lookup(entry.name).map(|e| e.name), Some(entry.name));
        }
        assert!(lookup("").is_none());
        assert!(lookup("no-such-program").is_none());
    }

    /// Every capability row cites where it comes from: a GTFOBins entry or
    /// a manual page (`name(section)`).
    /// A reach reading is read from what the program's rule gives: a parse
    /// for a grammar, the words for a dedicated checker. A mismatch would
    /// never be read, and the program's hosts never checked.
    #[test]
    fn reach_readings_match_their_rule() {
        for entry in TABLE {
            match (entry.reaches, entry.rule) {
                (Some(Reach::Parsed(_)), rule) => {
                    assert!(matches!(rule, Some(Rule::Grammar(_))), "{}", entry.name);
                }
                (Some(Reach::Words(_)), rule) => {
                    assert!(matches!(rule, Some(Rule::Check(_))), "{}", entry.name);
                }
                _ => {}
            }
        }
        let reaches = |p: &str| lookup(p).is_some_and(Program::reaches_network);
        for program in [
            "ping", "host", "dig", "nslookup", "getent", "lsof", "curl", "docker",
        ] {
            assert!(reaches(program), "{program}");
        }
        for program in ["ls", "cat", "grep", "find", "date"] {
            assert!(!reaches(program), "{program}");
        }
    }

    /// The hosts a line names reach the egress rule through the entry's
    /// reach, not through the checker: `egress = "confirm"` refuses each
    /// reaching form, and leaves the forms that contact nothing.
    #[test]
    fn reach_hands_the_named_hosts_to_the_egress_rule() {
        use crate::assess::egress::EgressRule;
        use crate::config::Egress;
        let confirm = EgressRule {
            egress: Egress::Confirm,
            ..EgressRule::default()
        };
        let check = |line: &str| {
            let words: Vec<String> = line.split(' ').skip(1).map(str::to_owned).collect();
            let program = line.split(' ').next().unwrap_or("");
            let rule = super::super::programs::read_only(program).expect(program);
            super::super::net::with_rule(&confirm, || {
                super::super::programs::check_args(rule, &words).map_err(|r| r.into_pair().0)
            })
        };
        for reaching in [
            "ping -c 1 example.com",
            "host example.com",
            "dig example.com MX",
            "dig",
            "nslookup example.com",
            "getent hosts example.com",
            "lsof -n -i @example.com",
        ] {
            assert_eq!(
                check(reaching),
                Err(crate::codes::NETWORK_EGRESS),
                "{reaching}"
            );
        }
        for local in ["getent hosts", "getent passwd root", "lsof -n -i TCP"] {
            assert_eq!(check(local), Ok(()), "{local}");
        }
    }

    #[test]
    fn every_row_cites_its_source() {
        let manual = |s: &str| {
            s.match_indices('(').any(|(at, _)| {
                s.get(at + 1..at + 3).is_some_and(|t| {
                    t.starts_with(|c: char| c.is_ascii_digit()) && t.ends_with(')')
                })
            })
        };
        let rows = ANY.iter().map(|r| ("*", r)).chain(
            TABLE
                .iter()
                .flat_map(|e| e.capabilities.iter().map(|r| (e.name, r))),
        );
        let mut count = 0;
        for (program, row) in rows {
            count += 1;
            assert!(
                row.source.contains("GTFOBins")
                    || manual(row.source)
                    || row.source.contains("perlrun")
                    || row.source.contains("documentation"),
                "{program} {:?}: {}",
                row.form,
                row.source
            );
        }
        // The 510 rows of the capability column, every one kept.
        assert!(count >= 510, "{count} rows");
    }

    /// Every row of what a program destroys says what and cites where from,
    /// and a row that names what it found (`Says`) says nothing itself.
    #[test]
    fn every_destroy_row_cites_its_source() {
        let mut count = 0;
        let rows = TABLE
            .iter()
            .flat_map(|e| e.destroys.iter().map(move |r| (e.name, r)))
            .chain(FAMILIES.iter().map(|(name, r)| (*name, r)));
        for (program, row) in rows {
            count += 1;
            let says = matches!(row.when, When::Says(_));
            assert_eq!(row.what.is_empty(), says, "{program}: {:?}", row.when);
            assert!(
                row.source.contains("GTFOBins")
                    || row.source.contains("documentation")
                    || row.source.contains("manuals")
                    || row.source.contains("(1)")
                    || row.source.contains("(8)"),
                "{program}: {}",
                row.source
            );
        }
        assert!(count >= 211, "{count} rows");
    }

    /// The families are read after an entry's own rows and only for names
    /// they start.
    #[test]
    fn destruction_reads_rows_in_order() {
        let args =
            |line: &str| -> Vec<String> { line.split_whitespace().map(str::to_owned).collect() };
        assert_eq!(
            destruction("mkfs.ext4", &args("/dev/sda1"), &[]),
            Some("formats a file system")
        );
        assert_eq!(
            destruction("mkfsx", &[], &[]),
            Some("formats a file system")
        );
        assert_eq!(
            destruction("crontab", &args("-r"), &[]),
            Some("deletes the crontab")
        );
        assert_eq!(
            destruction("crontab", &args("x"), &[]),
            Some("replaces the crontab")
        );
        assert_eq!(destruction("crontab", &args("-l"), &[]), None);
        assert_eq!(
            destruction("git", &args("reset --hard"), &[]),
            Some("discards local changes")
        );
        assert_eq!(
            destruction("psql", &[], &[String::from("DROP TABLE t")]),
            Some("runs a statement that deletes or rewrites data")
        );
        assert_eq!(destruction("psql", &args("-c select"), &[]), None);
        assert_eq!(destruction("no-such-program", &args("delete"), &[]), None);
    }

    #[test]
    fn version_queries_are_exact() {
        let args =
            |line: &str| -> Vec<String> { line.split_whitespace().map(str::to_owned).collect() };
        assert!(version("python3", &["--version", "-V"], &args("-V")).is_ok());
        assert!(version("python3", &["--version", "-V"], &args("-v")).is_err());
        assert!(version("python3", &["--version", "-V"], &args("-V -V")).is_err());
        assert!(version("ruby", &[], &args("--version")).is_err());
        // A spelling of a program nobody checked here proves nothing.
        assert!(version("no-such-program", &["--version"], &args("--version")).is_err());
        assert!(toolchain("cargo", &args("--version")).is_err());
    }
}
