//! A parser for the subset of the POSIX/bash grammar a proof needs: lists,
//! and-or lists, pipelines, simple commands with assignments and redirections,
//! subshells, brace groups, `if`, `while`/`until`, `for` (both forms), `case`,
//! function definitions, `coproc`, `((…))`, `[[…]]`, here-documents, and words
//! made of quotes, parameter expansions, command, arithmetic and process
//! substitutions. A line a shell would reject is an error here too; anything
//! beyond the subset is an error of its own kind, so the caller confirms.
//!
//! Every character is read once (backquoted text is read once more per level of
//! nesting, and nesting is bounded), so the parser is linear in its input.

/// How deeply lists may nest (substitutions, groups, compound commands).
const MAX_NEST: usize = 24;

/// Why a line did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// A quote is never closed.
    #[error("unterminated {0}")]
    Unterminated(&'static str),
    /// The line ends with a lone backslash.
    #[error("the command ends with a lone backslash")]
    TrailingEscape,
    /// A token where the grammar does not allow one.
    #[error("unexpected {0}")]
    Unexpected(String),
    /// A redirection without its target.
    #[error("redirection `{0}` has no target")]
    MissingTarget(&'static str),
    /// Nested deeper than the parser follows.
    #[error("nested too deeply to analyse")]
    TooDeep,
    /// Valid shell, outside the analysed subset.
    #[error("{0} is not analysed")]
    Unsupported(&'static str),
}

impl SyntaxError {
    /// Whether a shell would accept the text (the parser only does not model it).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, SyntaxError::TooDeep | SyntaxError::Unsupported(_))
    }
}

type Parse<T> = Result<T, SyntaxError>;

/// A list of and-or lists, each run in the foreground or background.
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// The and-or lists in order, with whether each ends in `&`.
    pub items: Vec<(AndOr, bool)>,
}

/// Pipelines joined by `&&` and `||`.
#[derive(Clone, Debug, Default)]
pub struct AndOr {
    /// The pipelines in order.
    pub pipelines: Vec<Pipeline>,
}

/// Commands joined by `|` or `|&`.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    /// The commands in order; each after the first reads the previous one's output.
    pub commands: Vec<Command>,
}

/// One command.
#[derive(Clone, Debug)]
pub enum Command {
    /// Words and redirections.
    Simple(Simple),
    /// A compound command and the redirections applied to all of it.
    Compound(Compound, Vec<Redirect>),
    /// `name() body`: defines a function that later words may call.
    Function(String, Box<Command>),
}

/// A simple command: assignments and words (as written) and redirections.
#[derive(Clone, Debug, Default)]
pub struct Simple {
    /// All words, assignments first.
    pub words: Vec<Word>,
    /// The redirections, in order.
    pub redirects: Vec<Redirect>,
}

/// The compound commands.
#[derive(Clone, Debug)]
pub enum Compound {
    /// `{ …; }`
    Group(Script),
    /// `( … )`
    Subshell(Script),
    /// `if … then … elif … else … fi`: conditions and bodies alike.
    If(Vec<Script>),
    /// `while`/`until COND; do BODY; done`.
    Loop {
        /// `until` rather than `while`.
        until: bool,
        /// The condition list.
        cond: Script,
        /// The body.
        body: Script,
    },
    /// `for NAME [in WORDS]; do BODY; done`.
    For {
        /// The loop variable.
        var: String,
        /// The words it takes, or `None` for the positional parameters.
        words: Option<Vec<Word>>,
        /// The body.
        body: Script,
    },
    /// `for ((INIT; COND; STEP)); do BODY; done`.
    ArithFor {
        /// The text between `((` and `))`.
        header: String,
        /// The body.
        body: Script,
    },
    /// `case WORD in PATTERNS) BODY;; … esac`.
    Case {
        /// The word matched.
        word: Word,
        /// Each arm's patterns and body.
        arms: Vec<(Vec<Word>, Script)>,
    },
    /// `(( EXPR ))`.
    Arith(String),
    /// `[[ … ]]`: the words between the brackets.
    Cond(Vec<Word>),
    /// `coproc [NAME] COMMAND`.
    Coproc(Box<Command>),
}

/// A redirection.
#[derive(Clone, Debug)]
pub struct Redirect {
    /// The descriptor written before the operator (`2` in `2>`).
    pub fd: Option<String>,
    /// The operator.
    pub op: &'static str,
    /// The target word (for a here-document: its delimiter).
    pub target: Word,
    /// For `<<` and `<<-`: the index of its body in [`Parsed::heredocs`].
    pub heredoc: Option<usize>,
}

/// A here-document body.
#[derive(Clone, Debug, Default)]
pub struct Heredoc {
    /// Whether the delimiter was quoted (the body is then taken literally).
    pub quoted: bool,
    /// The body, as a word (expansions inside an unquoted body are parts).
    pub body: Word,
    /// Whether the body was found (its delimiter line was reached).
    pub complete: bool,
}

/// A word: its parts, and whether unquoted glob or brace characters make it a
/// pattern the shell may expand into other words.
#[derive(Clone, Debug, Default)]
pub struct Word {
    /// The parts in order.
    pub parts: Vec<Part>,
    /// An unquoted `*`, `?` or closed `[…]`.
    pub glob: bool,
    /// An unquoted `{…,…}` or `{…..…}`.
    pub brace: bool,
}

/// One part of a word.
#[derive(Clone, Debug)]
pub enum Part {
    /// Unquoted text (glob characters included).
    Lit(String),
    /// Quoted or escaped text.
    Quoted(String),
    /// `$NAME`, `${NAME…}`.
    Param {
        /// The name (`HOME`, `1`, `@`, …).
        name: String,
        /// The operator and its word (`:-default`), empty when plain.
        op: String,
        /// Expansions inside the operator's word.
        inner: Vec<Part>,
        /// `${!name}`, `${#name}` and the like.
        prefix: Option<char>,
    },
    /// `$(…)` or backquotes.
    Subst {
        /// The commands it runs.
        script: Script,
    },
    /// `$((…))`.
    Arith(String),
    /// `<(…)` or `>(…)`.
    Process {
        /// The command on the other end of the pipe.
        script: Script,
        /// `>(…)`: the program writes into the command (`<(…)` reads from it).
        output: bool,
    },
    /// `$'…'`.
    AnsiC(String),
}

impl Word {
    /// The text when the word is plain unquoted literal text (a candidate
    /// reserved word).
    pub fn reserved(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Lit(text)] if !self.glob && !self.brace => Some(text.as_str()),
            _ => None,
        }
    }

    /// The word's text with quotes removed, glob and brace characters kept,
    /// when it holds no parameter, substitution or arithmetic.
    pub fn literal_with_patterns(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit(t) | Part::Quoted(t) => out.push_str(t),
                _ => return None,
            }
        }
        Some(out)
    }

    /// The word's value when it holds no expansion at all (quotes removed).
    pub fn literal(&self) -> Option<String> {
        if self.glob || self.brace {
            return None;
        }
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit(t) | Part::Quoted(t) => out.push_str(t),
                _ => return None,
            }
        }
        Some(out)
    }
}

/// Whether any of these parts runs a command when expanded: a command or
/// process substitution, at any depth (`${x:-$(date)}`).
pub fn runs_commands(parts: &[Part]) -> bool {
    parts.iter().any(|part| match part {
        Part::Subst { .. } | Part::Process { .. } => true,
        Part::Param { inner, .. } => runs_commands(inner),
        _ => false,
    })
}

/// Most words one brace expansion may make before the word is left a
/// pattern (and judged as one).
const MAX_BRACE_WORDS: usize = 64;

impl Word {
    /// The words bash's brace expansion makes of this word, in bash's order,
    /// when every unquoted brace is a plain comma list (`/dev/hda{,1,2}`,
    /// `{a,b}.c{x,y}`): prefix, each alternative, suffix, left to right.
    /// `None` for anything else: a glob or an expansion in the word, a
    /// nested brace, a sequence (`{1..9}`), a brace with no comma, an empty
    /// word, or more than [`MAX_BRACE_WORDS`] words. Quoted characters are
    /// never brace syntax and keep their quotes.
    pub fn brace_words(&self) -> Option<Vec<Word>> {
        if !self.brace || self.glob {
            return None;
        }
        let mut chars: Vec<(char, bool)> = Vec::new();
        for part in &self.parts {
            match part {
                Part::Lit(t) => chars.extend(t.chars().map(|c| (c, false))),
                Part::Quoted(t) => chars.extend(t.chars().map(|c| (c, true))),
                _ => return None,
            }
        }
        // Each piece is its alternatives; literal text is a piece of one.
        let mut pieces: Vec<Vec<Vec<(char, bool)>>> = Vec::new();
        let mut literal = Vec::new();
        let mut i = 0;
        while let Some(&(c, quoted)) = chars.get(i) {
            if quoted || (c != '{' && c != '}') {
                literal.push((c, quoted));
                i += 1;
                continue;
            }
            if c == '}' {
                return None;
            }
            let mut alternatives = vec![Vec::new()];
            let mut j = i + 1;
            loop {
                let &(d, q) = chars.get(j)?;
                match d {
                    '{' if !q => return None,
                    '}' if !q => break,
                    ',' if !q => alternatives.push(Vec::new()),
                    _ => alternatives.last_mut()?.push((d, q)),
                }
                j += 1;
            }
            if alternatives.len() < 2 {
                return None;
            }
            pieces.push(vec![std::mem::take(&mut literal)]);
            pieces.push(alternatives);
            i = j + 1;
        }
        pieces.push(vec![literal]);
        let mut words: Vec<Vec<(char, bool)>> = vec![Vec::new()];
        for piece in &pieces {
            if words.len().saturating_mul(piece.len()) > MAX_BRACE_WORDS {
                return None;
            }
            words = words
                .iter()
                .flat_map(|w| {
                    piece.iter().map(move |alt| {
                        let mut w = w.clone();
                        w.extend_from_slice(alt);
                        w
                    })
                })
                .collect();
        }
        words
            .into_iter()
            .map(|w| {
                // An empty word is dropped by bash: left as a pattern here.
                if w.is_empty() {
                    return None;
                }
                let mut parts: Vec<Part> = Vec::new();
                for (c, quoted) in w {
                    match (parts.last_mut(), quoted) {
                        (Some(Part::Quoted(t)), true) | (Some(Part::Lit(t)), false) => t.push(c),
                        (_, true) => parts.push(Part::Quoted(c.to_string())),
                        (_, false) => parts.push(Part::Lit(c.to_string())),
                    }
                }
                Some(Word {
                    parts,
                    glob: false,
                    brace: false,
                })
            })
            .collect()
    }
}

/// A parsed line.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// The commands.
    pub script: Script,
    /// The here-document bodies, indexed from redirections.
    pub heredocs: Vec<Heredoc>,
}

/// Parses a whole line.
/// A function name bash takes: letters, digits, `_`, `-`, `.` and `:` (the
/// fork bomb's `:`), not starting with a digit or `-`. Bash refuses others
/// (`g[[`), so those lines are not proven.
fn plain_function_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

#[cfg(test)]
pub fn parse(line: &str) -> Parse<Parsed> {
    parse_nested(line, 0)
}

/// Parses a line that is itself nested `levels` deep (the script of a
/// `bash -c` inside another line): the nesting bound is shared, so the
/// stack stays bounded however the levels combine.
pub fn parse_nested(line: &str, levels: usize) -> Parse<Parsed> {
    let mut parser = Parser::new(line, levels.saturating_mul(4), Vec::new());
    if parser.depth > MAX_NEST {
        return Err(SyntaxError::TooDeep);
    }
    let script = parser.parse_list()?;
    match parser.next()? {
        Tok::Eof => {}
        other => return Err(unexpected(&other)),
    }
    if !parser.pending.is_empty() {
        return Err(SyntaxError::Unterminated("here-document"));
    }
    Ok(Parsed {
        script,
        heredocs: parser.heredocs,
    })
}

#[derive(Clone, Debug)]
enum Tok {
    Word(Word),
    Op(&'static str, Option<String>),
    Newline,
    Eof,
}

fn unexpected(tok: &Tok) -> SyntaxError {
    SyntaxError::Unexpected(match tok {
        Tok::Word(w) => match w.reserved() {
            Some(t) => format!("`{}`", crate::text::preview(t, 20)),
            None => String::from("a word"),
        },
        Tok::Op(op, _) => format!("`{op}`"),
        Tok::Newline => String::from("a newline"),
        Tok::Eof => String::from("the end of the line"),
    })
}

/// Words that end a list when they stand where a command would.
const TERMINATORS: &[&str] = &["then", "else", "elif", "fi", "do", "done", "esac", "}"];

const REDIRECTS: &[&str] = &[
    "<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<-", "<<<",
];

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    peeked: Option<Tok>,
    heredocs: Vec<Heredoc>,
    /// Here-documents whose bodies start at the next newline: index, delimiter, strip tabs.
    pending: Vec<(usize, String, bool)>,
}

fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl Parser {
    fn new(text: &str, depth: usize, heredocs: Vec<Heredoc>) -> Parser {
        Parser {
            chars: text.chars().collect(),
            pos: 0,
            depth,
            peeked: None,
            heredocs,
            pending: Vec::new(),
        }
    }

    fn ch(&self, ahead: usize) -> Option<char> {
        super::budget::count(1);
        self.chars.get(self.pos + ahead).copied()
    }

    fn enter(&mut self) -> Parse<()> {
        self.depth += 1;
        if self.depth > MAX_NEST {
            Err(SyntaxError::TooDeep)
        } else {
            Ok(())
        }
    }

    // ---- tokens ----

    fn peek(&mut self) -> Parse<&Tok> {
        if self.peeked.is_none() {
            let tok = self.lex()?;
            self.peeked = Some(tok);
        }
        match &self.peeked {
            Some(tok) => Ok(tok),
            None => Err(SyntaxError::Unexpected(String::from("nothing"))),
        }
    }

    fn next(&mut self) -> Parse<Tok> {
        match self.peeked.take() {
            Some(tok) => Ok(tok),
            None => self.lex(),
        }
    }

    fn peek_reserved(&mut self) -> Parse<Option<String>> {
        Ok(match self.peek()? {
            Tok::Word(w) => w.reserved().map(str::to_owned),
            _ => None,
        })
    }

    fn peek_op(&mut self) -> Parse<Option<&'static str>> {
        Ok(match self.peek()? {
            Tok::Op(op, _) => Some(op),
            _ => None,
        })
    }

    fn lex(&mut self) -> Parse<Tok> {
        loop {
            match self.ch(0) {
                Some(' ' | '\t') => self.pos += 1,
                Some('\\') if self.ch(1) == Some('\n') => self.pos += 2,
                Some('#') => {
                    while self.ch(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(c) = self.ch(0) else {
            return Ok(Tok::Eof);
        };
        if c == '\n' {
            self.pos += 1;
            self.read_heredocs()?;
            return Ok(Tok::Newline);
        }
        if matches!(c, '<' | '>') && self.ch(1) == Some('(') {
            return Ok(Tok::Word(self.read_word()?));
        }
        if let Some(op) = self.operator() {
            return Ok(Tok::Op(op, None));
        }
        let word = self.read_word()?;
        // `{name}>file` opens a descriptor and assigns its number to `name`.
        if let (Some(text), Some('<' | '>')) = (word.literal_with_patterns(), self.ch(0)) {
            if text.starts_with('{') && text.ends_with('}') && text.len() > 2 {
                return Err(SyntaxError::Unsupported("a named descriptor (`{name}>`)"));
            }
        }
        // `2>file`: a word of digits right before a redirection is its descriptor.
        if let (Some(digits), Some('<' | '>')) = (word.literal(), self.ch(0)) {
            let plain = matches!(word.parts.as_slice(), [Part::Lit(_)]);
            if plain
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && self.ch(1) != Some('(')
            {
                if let Some(op) = self.operator() {
                    return Ok(Tok::Op(op, Some(digits)));
                }
            }
        }
        Ok(Tok::Word(word))
    }

    fn operator(&mut self) -> Option<&'static str> {
        const OPS: &[&str] = &[
            ";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "&>", "||", "|&", "<<", "<>", "<&", ">>",
            ">|", ">&", ";", "&", "|", "(", ")", "<", ">",
        ];
        for op in OPS {
            let matched = op.chars().enumerate().all(|(i, c)| self.ch(i) == Some(c));
            if matched {
                self.pos += op.chars().count();
                return Some(op);
            }
        }
        None
    }

    fn read_heredocs(&mut self) -> Parse<()> {
        let pending = std::mem::take(&mut self.pending);
        for (index, delimiter, strip) in pending {
            let mut body = String::new();
            let mut complete = false;
            while self.pos < self.chars.len() {
                let mut line = String::new();
                while let Some(c) = self.ch(0) {
                    self.pos += 1;
                    if c == '\n' {
                        break;
                    }
                    line.push(c);
                }
                let compared = if strip {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if compared == delimiter {
                    complete = true;
                    break;
                }
                body.push_str(compared);
                body.push('\n');
            }
            if !complete {
                return Err(SyntaxError::Unterminated("here-document"));
            }
            let quoted = self.heredocs.get(index).is_some_and(|h: &Heredoc| h.quoted);
            let word = if quoted {
                Word {
                    parts: vec![Part::Quoted(body)],
                    ..Word::default()
                }
            } else {
                let mut sub = Parser::new(&body, self.depth, std::mem::take(&mut self.heredocs));
                let parts = sub.read_double(false);
                self.heredocs = std::mem::take(&mut sub.heredocs);
                Word {
                    parts: parts?,
                    ..Word::default()
                }
            };
            if let Some(heredoc) = self.heredocs.get_mut(index) {
                heredoc.body = word;
                heredoc.complete = true;
            }
        }
        Ok(())
    }

    // ---- words ----

    fn read_word(&mut self) -> Parse<Word> {
        let mut word = Word::default();
        let mut lit = String::new();
        let start = self.pos;
        let mut open_bracket = false;
        let mut open_brace = false;
        let mut brace_sep = false;
        let flush = |lit: &mut String, word: &mut Word| {
            if !lit.is_empty() {
                word.parts.push(Part::Lit(std::mem::take(lit)));
            }
        };
        while let Some(c) = self.ch(0) {
            if matches!(c, '<' | '>') && self.ch(1) == Some('(') && self.pos == start {
                self.pos += 2;
                self.enter()?;
                let script = self.parse_list()?;
                self.close_paren()?;
                self.depth -= 1;
                word.parts.push(Part::Process {
                    script,
                    output: c == '>',
                });
                continue;
            }
            if is_meta(c) {
                break;
            }
            match c {
                '\\' => match self.ch(1) {
                    None => return Err(SyntaxError::TrailingEscape),
                    Some('\n') => self.pos += 2,
                    Some(next) => {
                        flush(&mut lit, &mut word);
                        word.parts.push(Part::Quoted(next.to_string()));
                        self.pos += 2;
                    }
                },
                '\'' => {
                    flush(&mut lit, &mut word);
                    self.pos += 1;
                    let mut text = String::new();
                    loop {
                        match self.ch(0) {
                            None => return Err(SyntaxError::Unterminated("single quote")),
                            Some('\'') => break,
                            Some(c) => text.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                    word.parts.push(Part::Quoted(text));
                }
                '"' => {
                    flush(&mut lit, &mut word);
                    self.pos += 1;
                    let parts = self.read_double(true)?;
                    word.parts.extend(parts);
                }
                '$' => {
                    flush(&mut lit, &mut word);
                    match self.read_dollar(false)? {
                        Some(part) => word.parts.push(part),
                        None => lit.push('$'),
                    }
                }
                '`' => {
                    flush(&mut lit, &mut word);
                    let part = self.read_backquote()?;
                    word.parts.push(part);
                }
                _ => {
                    match c {
                        '*' | '?' => word.glob = true,
                        '[' => open_bracket = true,
                        ']' if open_bracket => word.glob = true,
                        '{' => open_brace = true,
                        ',' if open_brace => brace_sep = true,
                        '.' if open_brace && self.ch(1) == Some('.') => brace_sep = true,
                        '}' if open_brace && brace_sep => word.brace = true,
                        _ => {}
                    }
                    lit.push(c);
                    self.pos += 1;
                }
            }
        }
        flush(&mut lit, &mut word);
        Ok(word)
    }

    /// The inside of double quotes (`closing`) or of an unquoted here-document body.
    fn read_double(&mut self, closing: bool) -> Parse<Vec<Part>> {
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            let Some(c) = self.ch(0) else {
                if closing {
                    return Err(SyntaxError::Unterminated("double quote"));
                }
                break;
            };
            match c {
                '"' if closing => {
                    self.pos += 1;
                    break;
                }
                '\\' => match self.ch(1) {
                    Some('\n') => self.pos += 2,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        text.push(n);
                        self.pos += 2;
                    }
                    _ => {
                        text.push('\\');
                        self.pos += 1;
                    }
                },
                '$' => {
                    if !text.is_empty() {
                        parts.push(Part::Quoted(std::mem::take(&mut text)));
                    }
                    match self.read_dollar(true)? {
                        Some(part) => parts.push(part),
                        None => text.push('$'),
                    }
                }
                '`' => {
                    if !text.is_empty() {
                        parts.push(Part::Quoted(std::mem::take(&mut text)));
                    }
                    let part = self.read_backquote()?;
                    parts.push(part);
                }
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        if !text.is_empty() || parts.is_empty() {
            parts.push(Part::Quoted(text));
        }
        Ok(parts)
    }

    fn close_paren(&mut self) -> Parse<()> {
        match self.next()? {
            Tok::Op(")", None) => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// At a `$`: the part it starts, or `None` when it is a literal dollar.
    fn read_dollar(&mut self, quoted: bool) -> Parse<Option<Part>> {
        match self.ch(1) {
            Some('(') if self.ch(2) == Some('(') => {
                self.pos += 3;
                let text = self.arith_text()?;
                Ok(Some(Part::Arith(text)))
            }
            Some('(') => {
                self.pos += 2;
                self.enter()?;
                let script = self.parse_list()?;
                self.close_paren()?;
                self.depth -= 1;
                Ok(Some(Part::Subst { script }))
            }
            Some('{') => {
                self.pos += 2;
                self.read_braced(quoted).map(Some)
            }
            Some('[') => Err(SyntaxError::Unsupported("`$[…]` arithmetic")),
            Some('\'') if !quoted => {
                self.pos += 2;
                let mut text = String::new();
                loop {
                    match self.ch(0) {
                        None => return Err(SyntaxError::Unterminated("`$'…'` quote")),
                        Some('\\') => {
                            text.push('\\');
                            if let Some(n) = self.ch(1) {
                                text.push(n);
                            }
                            self.pos += 2;
                        }
                        Some('\'') => {
                            self.pos += 1;
                            break;
                        }
                        Some(c) => {
                            text.push(c);
                            self.pos += 1;
                        }
                    }
                }
                Ok(Some(Part::AnsiC(text)))
            }
            Some('"') if !quoted => {
                self.pos += 2;
                let parts = self.read_double(true)?;
                Ok(Some(Part::Param {
                    name: String::new(),
                    op: String::from("$\"…\""),
                    inner: parts,
                    prefix: None,
                }))
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                self.pos += 1;
                let mut name = String::new();
                while let Some(c) = self
                    .ch(0)
                    .filter(|c| *c == '_' || c.is_ascii_alphanumeric())
                {
                    name.push(c);
                    self.pos += 1;
                }
                Ok(Some(plain_param(name)))
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 2;
                Ok(Some(plain_param(c.to_string())))
            }
            _ => {
                self.pos += 1;
                Ok(None)
            }
        }
    }

    /// After `$((`: the text up to the matching `))`.
    fn arith_text(&mut self) -> Parse<String> {
        let mut depth = 0usize;
        let mut text = String::new();
        loop {
            let Some(c) = self.ch(0) else {
                return Err(SyntaxError::Unterminated("arithmetic expansion"));
            };
            self.pos += 1;
            match c {
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                ')' if self.ch(0) == Some(')') => {
                    self.pos += 1;
                    return Ok(text);
                }
                ')' => return Err(SyntaxError::Unsupported("a subshell inside `$(…)`")),
                _ => {}
            }
            text.push(c);
        }
    }

    /// After `${`: the parameter, its operator and word, up to the matching `}`.
    fn read_braced(&mut self, quoted: bool) -> Parse<Part> {
        let prefix = match self.ch(0) {
            Some(c @ ('!' | '#')) if self.ch(1).is_some_and(|n| n != '}') => {
                self.pos += 1;
                Some(c)
            }
            _ => None,
        };
        let mut name = String::new();
        match self.ch(0) {
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                while let Some(c) = self
                    .ch(0)
                    .filter(|c| *c == '_' || c.is_ascii_alphanumeric())
                {
                    name.push(c);
                    self.pos += 1;
                }
            }
            Some(c) if c.is_ascii_digit() => {
                while let Some(c) = self.ch(0).filter(char::is_ascii_digit) {
                    name.push(c);
                    self.pos += 1;
                }
            }
            Some(c) if "@*#?$!-".contains(c) => {
                name.push(c);
                self.pos += 1;
            }
            _ => return Err(SyntaxError::Unexpected(String::from("a bad substitution"))),
        }
        let mut op = String::new();
        let mut inner = Vec::new();
        let mut text = String::new();
        self.enter()?;
        loop {
            let Some(c) = self.ch(0) else {
                return Err(SyntaxError::Unterminated("`${…}`"));
            };
            match c {
                '}' => {
                    self.pos += 1;
                    break;
                }
                '\\' => {
                    if let Some(n) = self.ch(1) {
                        text.push(n);
                    }
                    self.pos += 2;
                }
                '\'' if !quoted => {
                    self.pos += 1;
                    loop {
                        match self.ch(0) {
                            None => return Err(SyntaxError::Unterminated("single quote")),
                            Some('\'') => break,
                            Some(c) => text.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => {
                    self.pos += 1;
                    inner.extend(self.read_double(true)?);
                }
                '$' => match self.read_dollar(true)? {
                    Some(part) => inner.push(part),
                    None => text.push('$'),
                },
                '`' => inner.push(self.read_backquote()?),
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
            if op.len() < 64 {
                op.push(c);
            }
        }
        self.depth -= 1;
        if !text.is_empty() {
            inner.push(Part::Quoted(text));
        }
        Ok(Part::Param {
            name,
            op,
            inner,
            prefix,
        })
    }

    /// At a backquote: its text, unescaped and parsed as a script.
    fn read_backquote(&mut self) -> Parse<Part> {
        self.pos += 1;
        let mut text = String::new();
        loop {
            match self.ch(0) {
                None => return Err(SyntaxError::Unterminated("backquote")),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => {
                    match self.ch(1) {
                        Some(n @ ('`' | '\\' | '$')) => text.push(n),
                        Some(n) => {
                            text.push('\\');
                            text.push(n);
                        }
                        None => return Err(SyntaxError::Unterminated("backquote")),
                    }
                    self.pos += 2;
                }
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        let mut sub = Parser::new(&text, self.depth + 1, std::mem::take(&mut self.heredocs));
        if sub.depth > MAX_NEST {
            self.heredocs = sub.heredocs;
            return Err(SyntaxError::TooDeep);
        }
        let script = sub.parse_list();
        let end = sub.next();
        let pending = sub.pending.is_empty();
        self.heredocs = std::mem::take(&mut sub.heredocs);
        let script = script?;
        match end? {
            Tok::Eof if pending => Ok(Part::Subst { script }),
            Tok::Eof => Err(SyntaxError::Unterminated("here-document")),
            other => Err(unexpected(&other)),
        }
    }

    // ---- grammar ----

    fn skip_newlines(&mut self) -> Parse<()> {
        while matches!(self.peek()?, Tok::Newline) {
            self.next()?;
        }
        Ok(())
    }

    fn at_list_end(&mut self) -> Parse<bool> {
        if let Some(word) = self.peek_reserved()? {
            if TERMINATORS.contains(&word.as_str()) {
                return Ok(true);
            }
        }
        Ok(matches!(
            self.peek()?,
            Tok::Eof | Tok::Op(")" | ";;" | ";&" | ";;&", _)
        ))
    }

    fn parse_list(&mut self) -> Parse<Script> {
        let mut script = Script::default();
        loop {
            self.skip_newlines()?;
            if self.at_list_end()? {
                break;
            }
            let and_or = self.parse_and_or()?;
            match self.peek()? {
                Tok::Op(";", None) => {
                    self.next()?;
                    script.items.push((and_or, false));
                }
                Tok::Op("&", None) => {
                    self.next()?;
                    script.items.push((and_or, true));
                }
                Tok::Newline => {
                    self.next()?;
                    script.items.push((and_or, false));
                }
                _ => {
                    script.items.push((and_or, false));
                    break;
                }
            }
        }
        Ok(script)
    }

    /// A list that must hold at least one command (a compound command's body).
    fn parse_body(&mut self) -> Parse<Script> {
        let script = self.parse_list()?;
        if script.items.is_empty() {
            let tok = self.peek()?.clone();
            return Err(unexpected(&tok));
        }
        Ok(script)
    }

    fn parse_and_or(&mut self) -> Parse<AndOr> {
        let mut and_or = AndOr::default();
        and_or.pipelines.push(self.parse_pipeline()?);
        while matches!(self.peek_op()?, Some("&&" | "||")) {
            self.next()?;
            self.skip_newlines()?;
            and_or.pipelines.push(self.parse_pipeline()?);
        }
        Ok(and_or)
    }

    fn parse_pipeline(&mut self) -> Parse<Pipeline> {
        let mut pipeline = Pipeline::default();
        while self.peek_reserved()?.as_deref() == Some("!") {
            self.next()?;
        }
        pipeline.commands.push(self.parse_command()?);
        while matches!(self.peek_op()?, Some("|" | "|&")) {
            self.next()?;
            self.skip_newlines()?;
            pipeline.commands.push(self.parse_command()?);
        }
        Ok(pipeline)
    }

    fn expect_reserved(&mut self, word: &str) -> Parse<()> {
        if self.peek_reserved()?.as_deref() == Some(word) {
            self.next()?;
            Ok(())
        } else {
            let tok = self.peek()?.clone();
            Err(unexpected(&tok))
        }
    }

    fn parse_command(&mut self) -> Parse<Command> {
        self.enter()?;
        let command = self.parse_command_inner();
        self.depth -= 1;
        command
    }

    fn parse_command_inner(&mut self) -> Parse<Command> {
        if let Tok::Op("(", None) = self.peek()? {
            self.next()?;
            if self.ch(0) == Some('(') {
                self.pos += 1;
                let text = self.arith_text()?;
                return self.with_redirects(Compound::Arith(text));
            }
            let body = self.parse_body()?;
            self.close_paren()?;
            return self.with_redirects(Compound::Subshell(body));
        }
        if let Some(word) = self.peek_reserved()? {
            let compound = match word.as_str() {
                "{" => {
                    self.next()?;
                    let body = self.parse_body()?;
                    self.expect_reserved("}")?;
                    Some(Compound::Group(body))
                }
                "if" => Some(self.parse_if()?),
                "while" | "until" => {
                    self.next()?;
                    let cond = self.parse_body()?;
                    self.expect_reserved("do")?;
                    let body = self.parse_body()?;
                    self.expect_reserved("done")?;
                    Some(Compound::Loop {
                        until: word == "until",
                        cond,
                        body,
                    })
                }
                "for" => Some(self.parse_for()?),
                "case" => Some(self.parse_case()?),
                "[[" => Some(self.parse_cond()?),
                "function" => {
                    self.next()?;
                    let name = match self.next()? {
                        Tok::Word(w) => w.reserved().map(str::to_owned),
                        _ => None,
                    }
                    .filter(|n| plain_function_name(n))
                    .ok_or_else(|| SyntaxError::Unexpected(String::from("a function name")))?;
                    if self.peek_op()? == Some("(") {
                        self.next()?;
                        self.close_paren()?;
                    }
                    self.skip_newlines()?;
                    let body = self.parse_command()?;
                    return Ok(Command::Function(name, Box::new(body)));
                }
                "coproc" => {
                    self.next()?;
                    let inner = self.parse_command()?;
                    Some(Compound::Coproc(Box::new(inner)))
                }
                "select" => return Err(SyntaxError::Unsupported("`select`")),
                "]]" => None,
                w if TERMINATORS.contains(&w) => {
                    return Err(SyntaxError::Unexpected(format!("`{w}`")));
                }
                _ => None,
            };
            if let Some(compound) = compound {
                return self.with_redirects(compound);
            }
        }
        self.parse_simple()
    }

    fn with_redirects(&mut self, compound: Compound) -> Parse<Command> {
        let mut redirects = Vec::new();
        while let Tok::Op(op, _) = self.peek()? {
            if !REDIRECTS.contains(op) {
                break;
            }
            redirects.push(self.parse_redirect()?);
        }
        Ok(Command::Compound(compound, redirects))
    }

    fn parse_redirect(&mut self) -> Parse<Redirect> {
        let (op, fd) = match self.next()? {
            Tok::Op(op, fd) => (op, fd),
            other => return Err(unexpected(&other)),
        };
        let target = match self.next()? {
            Tok::Word(w) => w,
            _ => return Err(SyntaxError::MissingTarget(op)),
        };
        let mut heredoc = None;
        if op == "<<" || op == "<<-" {
            let quoted = target.parts.iter().any(|p| matches!(p, Part::Quoted(_)));
            let delimiter = target
                .parts
                .iter()
                .map(|p| match p {
                    Part::Lit(t) | Part::Quoted(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect::<Option<String>>()
                .ok_or(SyntaxError::Unsupported(
                    "a here-document delimiter with expansions",
                ))?;
            self.heredocs.push(Heredoc {
                quoted,
                ..Heredoc::default()
            });
            let index = self.heredocs.len() - 1;
            self.pending.push((index, delimiter, op == "<<-"));
            heredoc = Some(index);
        }
        Ok(Redirect {
            fd,
            op,
            target,
            heredoc,
        })
    }

    fn parse_simple(&mut self) -> Parse<Command> {
        let mut simple = Simple::default();
        loop {
            match self.peek()? {
                Tok::Word(_) => {
                    if let Tok::Word(w) = self.next()? {
                        simple.words.push(w);
                    }
                }
                Tok::Op(op, _) if REDIRECTS.contains(op) => {
                    let redirect = self.parse_redirect()?;
                    simple.redirects.push(redirect);
                }
                Tok::Op("(", None) if simple.words.len() == 1 && simple.redirects.is_empty() => {
                    let name = simple
                        .words
                        .first()
                        .and_then(Word::reserved)
                        .filter(|n| plain_function_name(n))
                        .map(str::to_owned)
                        .ok_or_else(|| SyntaxError::Unexpected(String::from("`(`")))?;
                    self.next()?;
                    self.close_paren()?;
                    self.skip_newlines()?;
                    let body = self.parse_command()?;
                    if !matches!(body, Command::Compound(..)) {
                        return Err(SyntaxError::Unexpected(String::from("a function body")));
                    }
                    return Ok(Command::Function(name, Box::new(body)));
                }
                _ => break,
            }
        }
        if simple.words.is_empty() && simple.redirects.is_empty() {
            let tok = self.peek()?.clone();
            return Err(unexpected(&tok));
        }
        Ok(Command::Simple(simple))
    }

    fn parse_if(&mut self) -> Parse<Compound> {
        self.next()?;
        let mut parts = vec![self.parse_body()?];
        self.expect_reserved("then")?;
        parts.push(self.parse_body()?);
        loop {
            match self.peek_reserved()?.as_deref() {
                Some("elif") => {
                    self.next()?;
                    parts.push(self.parse_body()?);
                    self.expect_reserved("then")?;
                    parts.push(self.parse_body()?);
                }
                Some("else") => {
                    self.next()?;
                    parts.push(self.parse_body()?);
                    self.expect_reserved("fi")?;
                    return Ok(Compound::If(parts));
                }
                _ => {
                    self.expect_reserved("fi")?;
                    return Ok(Compound::If(parts));
                }
            }
        }
    }

    fn parse_loop_body(&mut self) -> Parse<Script> {
        self.skip_newlines()?;
        if self.peek_reserved()?.as_deref() == Some("{") {
            self.next()?;
            let body = self.parse_body()?;
            self.expect_reserved("}")?;
            return Ok(body);
        }
        self.expect_reserved("do")?;
        let body = self.parse_body()?;
        self.expect_reserved("done")?;
        Ok(body)
    }

    fn parse_for(&mut self) -> Parse<Compound> {
        self.next()?;
        while matches!(self.ch(0), Some(' ' | '\t')) {
            self.pos += 1;
        }
        if self.peeked.is_none() && self.ch(0) == Some('(') && self.ch(1) == Some('(') {
            self.pos += 2;
            let header = self.arith_text()?;
            if self.peek_op()? == Some(";") {
                self.next()?;
            }
            let body = self.parse_loop_body()?;
            return Ok(Compound::ArithFor { header, body });
        }
        let var = match self.next()? {
            Tok::Word(w) => w.reserved().filter(|n| is_name(n)).map(str::to_owned),
            _ => None,
        }
        .ok_or_else(|| SyntaxError::Unexpected(String::from("a bad loop variable")))?;
        self.skip_newlines()?;
        let mut words = None;
        if self.peek_reserved()?.as_deref() == Some("in") {
            self.next()?;
            let mut list = Vec::new();
            loop {
                match self.next()? {
                    Tok::Word(w) => list.push(w),
                    Tok::Op(";", None) | Tok::Newline => break,
                    other => return Err(unexpected(&other)),
                }
            }
            words = Some(list);
        } else if self.peek_op()? == Some(";") {
            self.next()?;
        }
        let body = self.parse_loop_body()?;
        Ok(Compound::For { var, words, body })
    }

    fn parse_case(&mut self) -> Parse<Compound> {
        self.next()?;
        let word = match self.next()? {
            Tok::Word(w) => w,
            other => return Err(unexpected(&other)),
        };
        self.skip_newlines()?;
        self.expect_reserved("in")?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek_reserved()?.as_deref() == Some("esac") {
                self.next()?;
                break;
            }
            if self.peek_op()? == Some("(") {
                self.next()?;
            }
            let mut patterns = Vec::new();
            loop {
                match self.next()? {
                    Tok::Word(w) => patterns.push(w),
                    other => return Err(unexpected(&other)),
                }
                match self.next()? {
                    Tok::Op("|", None) => continue,
                    Tok::Op(")", None) => break,
                    other => return Err(unexpected(&other)),
                }
            }
            let body = self.parse_list()?;
            arms.push((patterns, body));
            match self.peek()? {
                Tok::Op(";;" | ";&" | ";;&", None) => {
                    self.next()?;
                }
                _ => {
                    self.skip_newlines()?;
                    self.expect_reserved("esac")?;
                    break;
                }
            }
        }
        Ok(Compound::Case { word, arms })
    }

    fn parse_cond(&mut self) -> Parse<Compound> {
        self.next()?;
        let mut words = Vec::new();
        loop {
            match self.next()? {
                Tok::Word(w) if w.reserved() == Some("]]") => break,
                Tok::Word(w) => words.push(w),
                Tok::Op(op @ ("&&" | "||" | "(" | ")" | "<" | ">"), None) => words.push(Word {
                    parts: vec![Part::Lit(op.to_owned())],
                    ..Word::default()
                }),
                other => return Err(unexpected(&other)),
            }
        }
        if words.is_empty() {
            return Err(SyntaxError::Unexpected(String::from("`]]`")));
        }
        Ok(Compound::Cond(words))
    }
}

fn plain_param(name: String) -> Part {
    Part::Param {
        name,
        op: String::new(),
        inner: Vec::new(),
        prefix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> bool {
        parse(line).is_ok()
    }

    #[test]
    fn shell_rejects_these() {
        for line in [
            "ls &&",
            "&& ls",
            "ls | | wc",
            ";;",
            "ls;;",
            "for x in a; do",
            "(ls",
            "ls)",
            "{ ls",
            "{ ls }",
            "echo 'x",
            "fi",
            "if ls; then fi",
            "while true; do done",
            "ls >",
            "ls; ;",
            "echo $(ls",
            "echo `ls",
            "echo ${x",
            "()",
            "cat <<EOF\nx",
            "| ls",
            "ls &;",
        ] {
            assert!(!ok(line), "{line:?}");
        }
    }

    #[test]
    fn shell_accepts_these() {
        for line in [
            "ls",
            "ls && pwd || echo no",
            "(ls && echo done)",
            "{ ls; pwd; }",
            "echo $(git branch --show-current)",
            "ls `pwd`",
            "diff <(ls a) <(ls b)",
            "cat <<'EOF'\nhi\nEOF",
            "cat <<EOF\n$(id)\nEOF\necho after",
            "if ls; then pwd; elif true; then :; else echo; fi",
            "for f in a b; do echo $f; done",
            "for ((i=0;i<3;i++)); do echo; done",
            "case $x in a|b) ls;; *) pwd;; esac",
            "f() { ls; }; f",
            "function g { ls; }",
            "[[ -f x && $y == z ]]",
            "(( 1 + 2 ))",
            "echo $((1+2)) ${x:-y} \"$HOME\" $'\\n'",
            "ls 2>/dev/null >&2",
            "echo a # comment ; rm",
            "coproc cat",
            "[ -f x ]",
            "echo {a,b} [x] *.rs",
        ] {
            assert!(ok(line), "{line:?}: {:?}", parse(line).err());
        }
    }

    #[test]
    fn words_know_their_expansions() {
        let parsed = parse("echo *.rs '*' {a,b} [ x] \"$HOME\"").unwrap();
        let Some((and_or, _)) = parsed.script.items.first() else {
            panic!()
        };
        let Some(Command::Simple(simple)) = and_or.pipelines[0].commands.first() else {
            panic!()
        };
        let globs: Vec<bool> = simple.words.iter().map(|w| w.glob || w.brace).collect();
        assert_eq!(globs, vec![false, true, false, true, false, false, false]);
    }

    /// Brace expansion as bash 5.2 makes it (run here: `printf '%s\n' …`).
    #[test]
    fn brace_words_as_bash_expands_them() {
        let expand = |line: &str| -> Option<Vec<String>> {
            let parsed = parse(line).unwrap();
            let (and_or, _) = parsed.script.items.first().unwrap();
            let Some(Command::Simple(simple)) = and_or.pipelines[0].commands.first() else {
                panic!()
            };
            let words = simple.words.last().unwrap().brace_words()?;
            Some(words.iter().map(|w| w.literal().unwrap()).collect())
        };
        let words = |list: &[&str]| Some(list.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            expand("file /dev/{wd0a,hda}"),
            words(&["/dev/wd0a", "/dev/hda"])
        );
        assert_eq!(
            expand("file -s /dev/hda{,1,2}"),
            words(&["/dev/hda", "/dev/hda1", "/dev/hda2"])
        );
        assert_eq!(
            expand("x {a,b}.{c,h}"),
            words(&["a.c", "a.h", "b.c", "b.h"])
        );
        assert_eq!(expand("x {\"a b\",c}"), words(&["a b", "c"]));
        assert_eq!(expand("x {-C,x}"), words(&["-C", "x"]));
        // Left a pattern: quoted braces are no braces, and nesting,
        // sequences, a lone alternative, empty words and floods are not read.
        assert_eq!(expand("x '{a,b}'"), None);
        assert_eq!(expand("x {a,{b,c}}"), None);
        assert_eq!(expand("x {1..3}"), None);
        assert_eq!(expand("x {a}{b,c}"), None);
        assert_eq!(expand("x {,}"), None);
        assert_eq!(expand("x *{a,b}"), None);
        assert_eq!(expand("x $v{a,b}"), None);
        assert_eq!(expand("x {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"), None);
    }
}
