//! The declared forms of every program on the read-only list, as plain data:
//! what the command oracle's generator reads to execute every option a
//! grammar declares. It is a view over the program table's entries, never a
//! second copy of them: a declaration changed there is what the oracle runs
//! next.
//!
//! A program read by a dedicated parser (a syntax that is not getopt's, or
//! subcommands) has no option list of its own here; where its entry names
//! the list its checker parses with (`subcommands`: subcommand tables, an
//! object's verbs, expression words, a checker's own options, the exact
//! version queries), each listed grammar is declared like a program's. The
//! rest (`echo`, `test`, `[`, `history`: text and expressions, no options)
//! are run by the vectors that name them.

use super::grammar::{Grammar, Kind};
use super::programs::{read_only, Args};
use super::table::{Reach, TABLE};

/// What a program's operands are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// Files the program reads (and may print).
    Files,
    /// Text: patterns, numbers, names, formats.
    Text,
    /// http(s) URLs the program fetches.
    Urls,
}

/// The options and operands a grammar declares.
#[derive(Clone, Debug)]
pub struct Options {
    /// Short options without a value (they may be bundled: `-la`).
    pub flags: Vec<char>,
    /// Short options whose value is text.
    pub valued: Vec<char>,
    /// Short options whose value is a file the program reads.
    pub path_valued: Vec<char>,
    /// Short options whose optional value is only ever attached.
    pub optional_attached: Vec<char>,
    /// Long options without a value.
    pub long_flags: Vec<&'static str>,
    /// Long options whose value is text.
    pub long_valued: Vec<&'static str>,
    /// Long options whose value is a file the program reads.
    pub long_paths: Vec<&'static str>,
    /// Long options whose value is optional (attached with `=` only).
    pub long_optional: Vec<&'static str>,
    /// Whole words that are options or expression terms as written, with
    /// no value (`find`'s `-print`, `-empty`, `(`).
    pub words: Vec<&'static str>,
    /// Whole words that take the next word as their value (`find`'s
    /// `-name PATTERN`).
    pub valued_words: Vec<&'static str>,
    /// The operands come before the options (`find`'s starting points,
    /// then its expression).
    pub operands_first: bool,
    /// What the operands are.
    pub operands: Operands,
    /// The most operands the program reads.
    pub max_operands: usize,
    /// `-NUM` is a count (`head -20`).
    pub number_option: bool,
    /// The parsed whole is checked further (required options, operand
    /// shapes): a generated form may be refused by that check.
    pub checked_whole: bool,
}

impl Options {
    /// Options that are whole words as written (`find -name`, `xxd -cols`),
    /// with operands of the kind given.
    pub fn of_words(
        words: &[&'static str],
        valued_words: &[&'static str],
        operands: Operands,
        operands_first: bool,
        max_operands: usize,
    ) -> Self {
        Options {
            flags: Vec::new(),
            valued: Vec::new(),
            path_valued: Vec::new(),
            optional_attached: Vec::new(),
            long_flags: Vec::new(),
            long_valued: Vec::new(),
            long_paths: Vec::new(),
            long_optional: Vec::new(),
            words: words.to_vec(),
            valued_words: valued_words.to_vec(),
            operands_first,
            operands,
            max_operands,
            number_option: false,
            checked_whole: true,
        }
    }
}

/// One program of the read-only list and what it declares.
#[derive(Clone, Debug)]
pub struct Declared {
    /// The program's name as the line spells it.
    pub program: &'static str,
    /// Its option grammar, or `None` when a dedicated parser reads it.
    pub options: Option<Options>,
    /// The option grammars of its subcommands, where its dedicated parser
    /// lists them (git's read-only subcommands).
    pub subcommands: Vec<Subcommand>,
    /// What its proven forms contact on the network (see [`network`]).
    pub network: Option<&'static str>,
}

/// What a program's proven forms contact on the network, as its entry
/// declares: the host names or URLs its words name, or the server its own
/// configuration names; `None` for a program that contacts nothing (or has
/// no entry), so a lookup or connection it makes is not the policy's
/// reading of it.
pub fn network(program: &str) -> Option<&'static str> {
    let entry = super::table::lookup(program)?;
    match entry.reaches {
        Some(Reach::Parsed(_) | Reach::Words(_)) => Some("the host names its words name"),
        Some(Reach::Configured(what)) => Some(what),
        None if entry.reaches_network() => Some("the URLs its words name"),
        None => None,
    }
}

/// A subcommand and the options its parser reads after it.
#[derive(Clone, Debug)]
pub struct Subcommand {
    /// The words that name it after the program (`log`, `worktree list`);
    /// empty for the program's own options when a dedicated checker parses
    /// them with a grammar beside its other reading (`jq`'s two-word
    /// options, its filter).
    pub words: String,
    /// Its options and operands.
    pub options: Options,
}

impl Subcommand {
    /// The listing of a checker that parses the program's own options
    /// (words ""), as an entry's `subcommands` gives it.
    pub fn own(options: Options) -> Vec<Subcommand> {
        vec![Subcommand {
            words: String::new(),
            options,
        }]
    }
}

/// Every program the table proves read-only in some form (its entry has a
/// rule), in the table's order.
pub fn declared() -> Vec<Declared> {
    TABLE
        .iter()
        .filter(|entry| entry.rule.is_some())
        .map(|entry| Declared {
            program: entry.name,
            options: match read_only(entry.name) {
                Some(Args::Grammar(_, grammar)) => Some(view(&grammar)),
                Some(Args::Check(..)) | None => None,
            },
            subcommands: entry.subcommands.map(|list| list()).unwrap_or_default(),
            network: network(entry.name),
        })
        .collect()
}

/// The options several grammars declare together, as `parse_with` reads
/// them (a subcommand's grammar, then the tool's global options): an option
/// any declares; the operands, count and whole check of the first.
pub(super) fn view_all(grammars: &[&Grammar]) -> Options {
    let Some((first, rest)) = grammars.split_first() else {
        return view(&super::grammar::BASE);
    };
    let mut o = view(first);
    for g in rest {
        let more = view(g);
        add_new(&mut o.flags, more.flags);
        add_new(&mut o.valued, more.valued);
        add_new(&mut o.path_valued, more.path_valued);
        add_new(&mut o.optional_attached, more.optional_attached);
        add_new(&mut o.long_flags, more.long_flags);
        add_new(&mut o.long_valued, more.long_valued);
        add_new(&mut o.long_paths, more.long_paths);
        add_new(&mut o.long_optional, more.long_optional);
        o.checked_whole |= more.checked_whole;
    }
    o
}

/// Appends the items of `from` that `to` does not hold yet, in order.
fn add_new<T: PartialEq>(to: &mut Vec<T>, from: Vec<T>) {
    for item in from {
        if !to.contains(&item) {
            to.push(item);
        }
    }
}

/// The options and operands a grammar declares.
pub(super) fn view(g: &Grammar) -> Options {
    Options {
        flags: g.flags.chars().collect(),
        valued: g.valued.chars().collect(),
        path_valued: g.path_valued.chars().collect(),
        optional_attached: g.optional_attached.chars().collect(),
        long_flags: g.long_flags.to_vec(),
        long_valued: g.long_valued.to_vec(),
        long_paths: g.long_paths.to_vec(),
        long_optional: g.long_optional.to_vec(),
        words: Vec::new(),
        valued_words: Vec::new(),
        operands_first: false,
        operands: match g.operands {
            Kind::Path => Operands::Files,
            Kind::Text => Operands::Text,
            Kind::Url => Operands::Urls,
        },
        max_operands: g.max_operands,
        number_option: g.number_option,
        checked_whole: g.then.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_program_is_declared_once() {
        let all = declared();
        let mut names: Vec<&str> = all.iter().map(|d| d.program).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        let ls = all
            .iter()
            .find(|d| d.program == "ls")
            .and_then(|d| d.options.clone());
        assert!(ls.is_some_and(|o| o.flags.contains(&'l') && o.long_flags.contains(&"all")));
        assert!(all
            .iter()
            .any(|d| d.program == "git" && d.options.is_none()));
    }
}
