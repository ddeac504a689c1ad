//! Option grammars and their parser: a program's grammar declares every
//! option it accepts and what its operands are, and a command line is parsed
//! against it the way getopt would. Whatever the grammar does not declare is
//! refused, so an allow rests on the declaration, never on the absence of a
//! known danger.
//!
//! Long options match exactly. GNU getopt also accepts any unambiguous
//! abbreviation (`--in` for `--in-place`), resolved against the program's own
//! full list, which ours only approximates; so an abbreviation is refused
//! with a finding that names it, never resolved.

use super::refusal::Refusal;
use crate::codes;
use crate::text::preview;

/// What an operand or an option's value is, and so which check it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file the program reads and may print: checked against the secret paths.
    Path,
    /// Text, a pattern, a number, a name: only shapes what is printed.
    Text,
    /// An http(s) URL the program fetches: checked like `http_request`.
    Url,
}

/// A check of a parsed command line as a whole.
pub type WholeCheck = fn(&Parsed) -> Result<(), Refusal>;

/// A program's option grammar. Letters and names are declared only when the
/// option is read-only on GNU, BSD/macOS and BusyBox alike.
#[derive(Clone, Copy, Debug)]
pub struct Grammar {
    /// Short options without a value; they may be clustered (`-la`).
    pub flags: &'static str,
    /// Short options whose value is text (attached `-n5` or separate `-n 5`).
    pub valued: &'static str,
    /// Short options whose value is a file the program reads.
    pub path_valued: &'static str,
    /// Short options whose value is optional and only ever attached
    /// (`lsof -iTCP`, `date -Iseconds`): a separate word is not their value.
    pub optional_attached: &'static str,
    /// Long options without a value (`--name=x` on one is refused).
    pub long_flags: &'static [&'static str],
    /// Long options whose value is text (`--name=value` or `--name value`).
    pub long_valued: &'static [&'static str],
    /// Long options whose value is a file the program reads.
    pub long_paths: &'static [&'static str],
    /// Long options with an optional value: only `--name=value` attaches it.
    pub long_optional: &'static [&'static str],
    /// What the operands are.
    pub operands: Kind,
    /// The most operands the program reads (more would be written or set).
    pub max_operands: usize,
    /// `-NUM` is a count (`head -20`).
    pub number_option: bool,
    /// No option of this program on any platform writes or executes, so a
    /// glob may add words: they name only files of the directory the glob
    /// names (no `/`), matching it. Variables, substitutions and brace lists
    /// that could add other files are still refused (`adds_words`); `xargs`
    /// may append words only when the operands are not files it reads.
    pub tolerant: bool,
    /// A check of the parsed whole (required options, operand shapes).
    pub then: Option<WholeCheck>,
}

/// The grammar every table entry starts from: no options, text operands.
pub const BASE: Grammar = Grammar {
    flags: "",
    optional_attached: "",
    valued: "",
    path_valued: "",
    long_flags: &[],
    long_valued: &[],
    long_paths: &[],
    long_optional: &[],
    operands: Kind::Text,
    max_operands: usize::MAX,
    number_option: false,
    tolerant: false,
    then: None,
};

/// A grammar of these short flags and long flags and nothing else (text
/// operands, any number): the start of most grammars in the tables.
pub const fn g(flags: &'static str, long_flags: &'static [&'static str]) -> Grammar {
    Grammar {
        flags,
        long_flags,
        ..BASE
    }
}

/// A command line parsed against a grammar.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The program's name, for messages.
    pub program: String,
    /// Options as written in canonical form (`-n`, `--lines`) with their values.
    pub options: Vec<(String, Option<String>)>,
    /// Operands in order.
    pub operands: Vec<String>,
}

impl Parsed {
    /// The options given, canonical and in order, joined by spaces (for a
    /// refusal that names them).
    pub fn option_names(&self) -> String {
        self.options
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether an option (canonical `-x` or `--name`) was given.
    pub fn has(&self, name: &str) -> bool {
        self.options.iter().any(|(n, _)| n == name)
    }

    /// The values given to an option.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.options
            .iter()
            .filter(move |(n, _)| n == name)
            .filter_map(|(_, v)| v.as_deref())
    }
}

/// Whether a separate word may be an option's value: a word that starts with
/// `-` (other than `-` itself or a negative number) is refused, so an option
/// whose value is optional on some platform cannot hide the next option.
fn value_word_ok(word: &str) -> bool {
    match word.strip_prefix('-') {
        None | Some("") => true,
        Some(rest) => rest
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ':'),
    }
}

/// Parses `args` against `grammar`, checking every value and operand.
pub fn parse(program: &str, grammar: &Grammar, args: &[String]) -> Result<Parsed, Refusal> {
    parse_with(program, &[grammar], args).map(|(parsed, _)| parsed)
}

/// Parses the options before the first operand (a subcommand's name): returns
/// them and the index of that operand (`args.len()` if there is none).
pub fn parse_prefix(
    program: &str,
    grammar: &Grammar,
    args: &[String],
) -> Result<(Parsed, usize), Refusal> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "-" || !arg.starts_with('-') {
            break;
        }
        if arg == "--" {
            return Err(Refusal::argument(
                program,
                arg,
                "ends options before a subcommand",
            ));
        }
        // One option word, with its value if it takes the next word.
        let one = parse_with(program, &[grammar], std::slice::from_ref(arg));
        match one {
            Ok(_) => i += 1,
            Err(r) if r.code == codes::COMMAND_UNSAFE_ARGUMENT && args.get(i + 1).is_some() => {
                let pair = args.get(i..i + 2).unwrap_or(&[]);
                let (parsed, _) = parse_with(program, &[grammar], pair)?;
                if !parsed.operands.is_empty() {
                    return Err(r);
                }
                i += 2;
            }
            Err(r) => return Err(r),
        }
    }
    let head = args.get(..i).unwrap_or(&[]);
    let (parsed, _) = parse_with(program, &[grammar], head)?;
    Ok((parsed, i))
}

/// A short option letter's meaning in the first grammar that declares it.
fn short_kind(grammars: &[&Grammar], letter: char) -> Option<Option<Kind>> {
    grammars.iter().find_map(|g| {
        if g.flags.contains(letter) {
            Some(None)
        } else if g.valued.contains(letter) {
            Some(Some(Kind::Text))
        } else if g.path_valued.contains(letter) {
            Some(Some(Kind::Path))
        } else {
            None
        }
    })
}

/// How a long option is declared: `Flag`, `Optional`, or a value's kind.
enum Long {
    Flag,
    Optional,
    Value(Kind),
}

fn long_kind(grammars: &[&Grammar], name: &str) -> Option<Long> {
    grammars.iter().find_map(|g| {
        if g.long_flags.contains(&name) {
            Some(Long::Flag)
        } else if g.long_optional.contains(&name) {
            Some(Long::Optional)
        } else if g.long_paths.contains(&name) {
            Some(Long::Value(Kind::Path))
        } else if g.long_valued.contains(&name) {
            Some(Long::Value(Kind::Text))
        } else {
            None
        }
    })
}

/// Parses `args` against several grammars at once (a subcommand's own and its
/// program's global options): an option is accepted if any declares it; the
/// operands follow the first grammar.
pub fn parse_with(
    program: &str,
    grammars: &[&Grammar],
    args: &[String],
) -> Result<(Parsed, usize), Refusal> {
    let Some(grammar) = grammars.first() else {
        return Err(Refusal::argument(program, "", "has no grammar"));
    };
    if grammar.tolerant && (grammar.operands == Kind::Path || grammar.then.is_some()) {
        if let Some(word) = args.iter().find(|a| adds_words(a)) {
            return Err(Refusal::new(
                codes::COMMAND_EXPANSION,
                format!(
                    "`{program} {}`: the shell may expand it into more words, such as a file to read",
                    preview(word, 60)
                ),
            ));
        }
    }
    let mut parsed = Parsed {
        program: program.to_owned(),
        ..Parsed::default()
    };
    let mut i = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        if options_done || arg == "-" || !arg.starts_with('-') {
            parsed.operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let canonical = format!("--{name}");
            match long_kind(grammars, name) {
                Some(Long::Flag) => {
                    if inline.is_some() {
                        return Err(Refusal::argument(
                            program,
                            arg,
                            "gives a value to an option that takes none",
                        ));
                    }
                    parsed.options.push((canonical, None));
                }
                Some(Long::Optional) => {
                    parsed.options.push((canonical, inline.map(str::to_owned)));
                }
                Some(Long::Value(kind)) => {
                    let value = match inline {
                        Some(v) => v.to_owned(),
                        None => {
                            let next =
                                args.get(i).filter(|w| value_word_ok(w)).ok_or_else(|| {
                                    Refusal::argument(
                                        program,
                                        arg,
                                        "lacks a value it can be proven to take",
                                    )
                                })?;
                            i += 1;
                            next.clone()
                        }
                    };
                    check_value(program, kind, &value)?;
                    parsed.options.push((canonical, Some(value)));
                }
                None => return Err(refuse_long(program, grammars, name, arg)),
            }
            continue;
        }
        // A short option or a cluster of them.
        let cluster = arg.get(1..).unwrap_or("");
        if grammar.number_option && cluster.chars().all(|c| c.is_ascii_digit()) {
            parsed
                .options
                .push((String::from("-NUM"), Some(cluster.to_owned())));
            continue;
        }
        for (at, letter) in cluster.char_indices() {
            let canonical = format!("-{letter}");
            if grammar.optional_attached.contains(letter) {
                let rest = cluster.get(at + letter.len_utf8()..).unwrap_or("");
                let value = (!rest.is_empty()).then(|| rest.to_owned());
                parsed.options.push((canonical, value));
                break;
            }
            let kind = match short_kind(grammars, letter) {
                Some(None) => {
                    parsed.options.push((canonical, None));
                    continue;
                }
                Some(Some(kind)) => kind,
                None => return Err(Refusal::option(program, &canonical)),
            };
            // The rest of the cluster is the value, never more options.
            let rest = cluster.get(at + letter.len_utf8()..).unwrap_or("");
            let value = if rest.is_empty() {
                let next = args.get(i).filter(|w| value_word_ok(w)).ok_or_else(|| {
                    Refusal::argument(program, arg, "lacks a value it can be proven to take")
                })?;
                i += 1;
                // Where a platform reads this letter as a flag, the word is
                // an operand: a program that reads its operands must not be
                // handed a secret that way either.
                if grammar.operands == Kind::Path {
                    check_path(program, next)?;
                }
                next.clone()
            } else {
                rest.to_owned()
            };
            check_value(program, kind, &value)?;
            parsed.options.push((canonical, Some(value)));
            break;
        }
    }
    if parsed.operands.len() > grammar.max_operands {
        let extra = parsed
            .operands
            .get(grammar.max_operands)
            .cloned()
            .unwrap_or_default();
        return Err(Refusal::argument(
            program,
            &extra,
            "is an operand the program would write, set or act on",
        ));
    }
    if let Some(then) = grammar.then {
        then(&parsed)?;
    } else {
        for operand in &parsed.operands {
            check_value(program, grammar.operands, operand)?;
        }
    }
    Ok((parsed, i))
}

/// The refusal for a long option outside the grammar: an abbreviation of a
/// declared option is named as such (getopt might resolve it to an option we
/// never listed).
fn refuse_long(program: &str, grammars: &[&Grammar], name: &str, arg: &str) -> Refusal {
    let declared = grammars.iter().flat_map(|g| {
        g.long_flags
            .iter()
            .chain(g.long_valued)
            .chain(g.long_paths)
            .chain(g.long_optional)
    });
    let mut abbreviates = declared.filter(|full| full.starts_with(name) && !name.is_empty());
    match abbreviates.next() {
        Some(full) => Refusal::new(
            codes::COMMAND_OPTION,
            format!(
                "`{program} {}` abbreviates a long option (`--{full}` or another the program knows); only exact names are proven",
                preview(arg, 60)
            ),
        ),
        None => Refusal::option(program, arg.split('=').next().unwrap_or(arg)),
    }
}

/// Checks a value or operand by its kind.
pub fn check_value(program: &str, kind: Kind, value: &str) -> Result<(), Refusal> {
    match kind {
        Kind::Text => Ok(()),
        Kind::Path => check_path(program, value),
        Kind::Url => check_url(program, value),
    }
}

/// Whether the shell could turn a word into other words a file reader would
/// take as files: a variable or substitution (`$X`, `` ` ``; `$HOME` aside,
/// and `$` before anything else is literal), or a brace list with an
/// alternative that is absolute, in home, or a secret (`{x,/etc/shadow}`).
/// Plain globs only add names of files in the directory they name.
pub fn adds_words(word: &str) -> bool {
    let word = word.replace("${HOME}", "~").replace("$HOME", "~");
    if word.contains('`') {
        return true;
    }
    let chars: Vec<char> = word.chars().collect();
    let variable = chars
        .windows(2)
        .any(|w| matches!(w, ['$', c] if c.is_ascii_alphanumeric() || "_{(@*#?!-".contains(*c)));
    if variable {
        return true;
    }
    let mut rest = word.as_str();
    while let Some(open) = rest.find('{') {
        let after = rest.get(open + 1..).unwrap_or("");
        let Some(close) = after.find('}') else {
            break;
        };
        let inside = after.get(..close).unwrap_or("");
        if inside.contains(',') || inside.contains("..") {
            let unsafe_alternative = inside.split(',').any(|alt| {
                alt.contains(['/', '~', '$'])
                    || alt.starts_with('.') && !alt.starts_with("..")
                    || crate::assess::file::secret_path(alt).is_some()
            });
            if unsafe_alternative {
                return true;
            }
        }
        rest = after.get(close + 1..).unwrap_or("");
    }
    false
}

/// A file a program reads must not be one that holds secrets, under every
/// reading of the word: a glob only when its last component is `*.EXT` (or
/// `PREFIX*.EXT`) in a literal directory and the representative name is not a
/// secret; no brace lists, variables or substitutions (their value is
/// unknown, `$HOME` aside); a relative path that climbs out (`../../proc/…`)
/// is also judged from the root; `{}` (a path `find` found) is unknown.
pub fn check_path(program: &str, path: &str) -> Result<(), Refusal> {
    let unknown = |why: &str| {
        Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            format!(
                "`{program}` would read `{}`, {why}, so it could be a file that holds secrets",
                preview(path, 60)
            ),
        ))
    };
    let home_expanded;
    let mut path = path;
    for home in ["$HOME/", "${HOME}/"] {
        if let Some(rest) = path.strip_prefix(home) {
            home_expanded = format!("~/{rest}");
            path = home_expanded.as_str();
            break;
        }
    }
    if path == "{}" {
        return unknown("a path `find` found that no test of its expression proves");
    }
    if path.contains(['$', '`', '{']) {
        return unknown("whose value the shell decides");
    }
    if path.contains(['*', '?', '[']) {
        let (dir, last) = path.rsplit_once('/').unwrap_or(("", path));
        let literal_dir = !dir.contains(['*', '?', '[']);
        let prefix: String = last
            .chars()
            .take_while(|c| !matches!(c, '*' | '?' | '['))
            .collect();
        let ext = last.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        let plain_ext = !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric());
        if !(literal_dir && plain_ext && !prefix.starts_with('.')) {
            return unknown("a pattern the shell expands");
        }
        let representative = if dir.is_empty() {
            format!("{prefix}x.{ext}")
        } else {
            format!("{dir}/{prefix}x.{ext}")
        };
        return check_path(program, &representative);
    }
    let secret = crate::assess::file::secret_path(path).or_else(|| {
        // A relative path that climbs out of the working directory may end
        // anywhere: judge what follows the climb from the root too.
        let mut rest = path;
        let mut climbed = false;
        while let Some(r) = rest.strip_prefix("../") {
            rest = r.trim_start_matches('/');
            climbed = true;
        }
        climbed
            .then(|| crate::assess::file::secret_path(&format!("/{rest}")))
            .flatten()
    });
    match secret {
        Some(why) => Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            format!(
                "`{program}` would read `{}`, which {why}",
                preview(path, 60)
            ),
        )),
        None => Ok(()),
    }
}

/// A URL a program fetches: http(s) only, read the same by curl and by the
/// WHATWG parser the HTTP checks use. curl ends the authority at the first `/`
/// and reads a `\` literally, so `http://a.example\@10.0.0.1/` connects to the
/// host after `@`; any backslash, and any `@` before the path, is refused.
/// Globs (`{a,b}`, `[1-9]`) are refused here; `curl -g` callers check again.
pub fn check_url(program: &str, url: &str) -> Result<(), Refusal> {
    let refuse = |why: &str| {
        Err(Refusal::new(
            codes::HTTP_BAD_URL,
            format!("`{program}` URL `{}` {why}", preview(url, 80)),
        ))
    };
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return refuse("does not start with http:// or https://");
    };
    if !url.is_ascii() {
        // curl resolves international names only when built with libidn2,
        // and then not always as the WHATWG parser does.
        return refuse("holds characters outside ASCII, which clients read differently");
    }
    if url
        .chars()
        .any(|c| c == '\\' || c.is_whitespace() || c.is_control())
    {
        return refuse("holds a backslash or a blank, which curl and browsers read differently");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    if authority.contains('@') {
        return refuse("names a user or hides its host behind `@`");
    }
    if url.contains(['{', '}', '[', ']']) {
        return refuse("is a curl glob (`{…}`, `[…]`) that expands to many URLs");
    }
    let rule = super::net::rule();
    match crate::assess::http::url_problem(url, &rule.allow_hosts, &rule.deny_hosts) {
        Some(finding) => Err(Refusal::new(
            match finding.code.as_str() {
                "http.scheme" => codes::HTTP_SCHEME,
                "http.userinfo" => codes::HTTP_USERINFO,
                "http.secret-url" => codes::HTTP_SECRET_URL,
                "http.local-target" => codes::HTTP_LOCAL_TARGET,
                "http.denied-host" => codes::HTTP_DENIED_HOST,
                _ => codes::HTTP_BAD_URL,
            },
            finding.message,
        )),
        None => super::net::url(url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Grammar = Grammar {
        flags: "abc",
        valued: "n",
        path_valued: "f",
        long_flags: &["all"],
        long_valued: &["lines"],
        long_paths: &["file"],
        long_optional: &["color"],
        operands: Kind::Path,
        max_operands: 2,
        number_option: true,
        ..BASE
    };

    fn run(line: &str) -> Result<Parsed, Refusal> {
        let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        parse("p", &G, &args)
    }

    #[test]
    fn parses_like_getopt() {
        assert!(run("-abc x").is_ok());
        assert!(run("-n5 -n 5 --lines=3 --lines 3 -20 --all --color --color=never").is_ok());
        assert!(run("-an5 x").is_ok());
        assert!(run("-- -z").is_ok());
        let parsed = run("-bn -q").map(|p| p.options.len());
        assert!(parsed.is_err(), "a value that looks like an option");
    }

    #[test]
    fn refuses_what_is_not_declared() {
        for line in [
            "-z",
            "-az",
            "--al",
            "--all=x",
            "--lin=3",
            "--other",
            "-f /etc/shadow",
            "--file=/home/u/.ssh/id_rsa",
            "a b c",
            "-n",
        ] {
            assert!(run(line).is_err(), "{line}");
        }
        assert_eq!(
            run("--l=3").map(|_| ()).map_err(|r| r.code),
            Err(codes::COMMAND_OPTION)
        );
    }

    #[test]
    fn urls_read_alike_by_every_client() {
        assert!(check_url("curl", "https://example.com/a?b=c").is_ok());
        for url in [
            "http://example.com\\@169.254.169.254/",
            "http://a@example.com/",
            "http://example.com/{a,b}",
            "http://example.com/[1-1000000000]",
            "ftp://example.com/",
            "example.com",
            "http://10.0.0.1/",
        ] {
            assert!(check_url("curl", url).is_err(), "{url}");
        }
    }
}
