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
//! - `rule`: how its arguments are proven read-only, if they can be: the
//!   option grammar the grammar store (`tables::grammar`, `special::grammar`)
//!   holds under its name, or a dedicated checker (subcommands, a syntax
//!   that is not getopt's, version queries, refusals with their reason). A
//!   grammar's `operands`, `path_valued` and `long_paths` say which operands
//!   are files it reads; a directory or produced name is refused there.
//! - `reads_contents`: its operands are files whose contents it prints, so a
//!   secret file named anywhere in its arguments is refused.
//! - `shell`, `interpreter`, `inline_code`: it runs the command, the program
//!   or the inline code it is given (the floor reads what it runs);
//!   `wrapper`: it runs the command after its options (judged instead);
//!   `runs_arguments`: it runs its arguments elsewhere (ssh, chroot, su);
//!   `database_client`, `cloud_cli`: the floor reads its statements or
//!   words for destruction.
//! - `credentials`: the words after which it prints a stored credential.
//! - `capabilities`: what its forms can do beyond what the line names, each
//!   row citing GTFOBins or the program's manual.
//!
//! What the entry does not hold yet, and where it still lives: what a
//! program destroys (`programs::destructive`, `floor::infrastructure`),
//! whether it ends (`unbounded`), and the host names or URLs its checker
//! hands to the egress rule (`net`, called from the checker).

mod entries;

pub use super::capabilities::Row;
use super::capabilities::{Capability, Form};
use super::refusal::Refusal;
pub use entries::{ANY, TABLE};

/// How a program's arguments are proven read-only.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// The option grammar the grammar store holds under the program's name
    /// (`tables::grammar`, which falls through to the system programs and to
    /// `special::grammar`).
    Grammar,
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
    /// Runs its arguments as a command somewhere else (another machine,
    /// container, namespace or multi-call binary): the floor reads them as a
    /// command line.
    pub runs_arguments: bool,
    /// A database client: a statement it is given that drops, deletes or
    /// rewrites data is destruction to the floor.
    pub database_client: bool,
    /// A cloud or hosting command line: a word that deletes is destruction to
    /// the floor.
    pub cloud_cli: bool,
    /// Words that, in this order (other words may come between), make it
    /// print a stored credential (`gh auth token`).
    pub credentials: &'static [&'static [&'static str]],
    /// What its forms can do beyond what the line names.
    pub capabilities: &'static [Row],
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
    runs_arguments: false,
    database_client: false,
    cloud_cli: false,
    credentials: &[],
    capabilities: &[],
};

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

    /// A grammar entry names a grammar the store holds.
    #[test]
    fn every_grammar_entry_has_a_grammar() {
        for entry in TABLE {
            if let Some(Rule::Grammar) = entry.rule {
                assert!(
                    super::super::tables::grammar(entry.name).is_some(),
                    "{}",
                    entry.name
                );
            }
        }
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
