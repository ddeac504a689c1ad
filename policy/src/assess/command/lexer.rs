//! A shell lexer that is just deep enough for a proof of safety: it splits a
//! command line into simple commands at the control operators (`;`, `&&`, `||`,
//! `|`, `|&`, `&`, newline) with quoting respected, lifts redirections out of each
//! simple command, and reports every construct that can run code or make the
//! words differ from what they look like (command and process substitution,
//! variable expansion, globs, subshells, here-documents).
//!
//! Each simple command's remaining text is then split into words by
//! `shell-words`, so quote removal follows one well-tested implementation.

/// One redirection, such as `2>/dev/null` or `>> out.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor written before the operator, if any (`2` in `2>`).
    pub fd: Option<String>,
    /// The operator: `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `&>`, `&>>`, `<<<`.
    pub op: &'static str,
    /// The target word with quotes removed.
    pub target: String,
}

impl Redirect {
    /// Whether the redirection can write a file. Duplicating a descriptor
    /// (`2>&1`, `>&-`) and writing to `/dev/null` cannot.
    pub fn writes(&self) -> bool {
        match self.op {
            "<" | "<<<" => false,
            "<&" | ">&" if is_fd_word(&self.target) => false,
            _ => !matches!(
                self.target.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr"
            ),
        }
    }
}

fn is_fd_word(word: &str) -> bool {
    word == "-" || (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()))
}

/// One simple command: the text left after redirections were lifted out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// The command's text, still quoted, for `shell-words`.
    pub text: String,
    /// Its redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Whether an unquoted or double-quoted expansion (`$NAME`, `${…}`) or an
    /// unquoted glob or brace (`*`, `?`, `[`, `{`) appears: the words the program
    /// receives may then differ from the words written.
    pub expands: bool,
    /// Whether the previous command's output is piped into this one (`|`, `|&`).
    pub piped: bool,
}

/// A construct the lexer recognises but does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Construct {
    /// `$(…)`, `` `…` ``, `<(…)` or `>(…)`: runs another command.
    Substitution(&'static str),
    /// Subshells, here-documents, ANSI-C quoting, `case` terminators.
    Unsupported(&'static str),
}

/// The result of lexing a command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lexed {
    /// The simple commands, in order.
    pub segments: Vec<Segment>,
    /// Every construct that was recognised but not modelled.
    pub constructs: Vec<Construct>,
    /// The text inside each command or process substitution, so the
    /// destructive recogniser can look inside `echo $(rm -rf ~)`.
    pub substituted: Vec<String>,
}

/// Why a command line could not be lexed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LexError {
    /// A quote is never closed.
    #[error("unterminated {0} quote")]
    UnterminatedQuote(&'static str),
    /// The line ends with a lone backslash.
    #[error("the command ends with a lone backslash")]
    TrailingEscape,
    /// A redirection operator with no target.
    #[error("redirection `{0}` has no target")]
    MissingTarget(&'static str),
    /// A redirection target that is not one word.
    #[error("redirection target `{0}` is not a single word")]
    BadTarget(String),
}

/// Lexes a command line.
pub fn lex(line: &str) -> Result<Lexed, LexError> {
    Lexer {
        chars: line.chars().collect(),
        pos: 0,
        out: Lexed::default(),
        current: Segment::default(),
        word_len: 0,
        word_digits: true,
        open_substitutions: 0,
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    out: Lexed,
    current: Segment,
    /// Characters of the current word written so far (0 at a word boundary).
    word_len: usize,
    /// Whether the current word is so far only ASCII digits (a possible `2>` fd).
    word_digits: bool,
    /// `$(` or `<(` opened and not yet closed: their `)` is not a subshell.
    open_substitutions: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn push(&mut self, c: char) {
        self.current.text.push(c);
        self.word_len += 1;
        self.word_digits &= c.is_ascii_digit();
    }

    fn boundary(&mut self) {
        self.word_len = 0;
        self.word_digits = true;
    }

    /// Whether `close` appears later in the current word (before a blank or an
    /// operator).
    fn closes_in_word(&self, close: char) -> bool {
        self.chars
            .iter()
            .skip(self.pos + 1)
            .take_while(|c| {
                !matches!(
                    c,
                    ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
                )
            })
            .any(|&c| c == close)
    }

    fn end_segment(&mut self) {
        let segment = std::mem::take(&mut self.current);
        if !segment.text.trim().is_empty() || !segment.redirects.is_empty() {
            self.out.segments.push(segment);
        }
        self.boundary();
    }

    fn construct(&mut self, construct: Construct) {
        if !self.out.constructs.contains(&construct) {
            self.out.constructs.push(construct);
        }
    }

    /// Records the body of a substitution whose opening delimiter starts at
    /// `self.pos + skip`: up to the matching `)` (or the next backtick).
    fn capture_substitution(&mut self, skip: usize, backtick: bool) {
        let mut depth = 0usize;
        let mut body = String::new();
        for &c in self.chars.iter().skip(self.pos + skip) {
            if backtick && c == '`' {
                break;
            }
            if !backtick {
                if c == '(' {
                    depth += 1;
                } else if c == ')' {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
            }
            body.push(c);
        }
        self.out.substituted.push(body);
    }

    fn run(mut self) -> Result<Lexed, LexError> {
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => match self.peek(1) {
                    None => return Err(LexError::TrailingEscape),
                    Some('\n') => self.pos += 2,
                    Some(next) => {
                        self.push('\\');
                        self.push(next);
                        self.pos += 2;
                    }
                },
                '\'' => self.single_quoted()?,
                '"' => self.double_quoted()?,
                '#' if self.word_len == 0 => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                ' ' | '\t' => {
                    self.current.text.push(c);
                    self.boundary();
                    self.pos += 1;
                }
                '\n' | ';' => {
                    if c == ';' && self.peek(1) == Some(';') {
                        self.construct(Construct::Unsupported("`;;` (a case branch)"));
                    }
                    self.end_segment();
                    self.pos += 1;
                }
                '|' => {
                    self.end_segment();
                    if self.peek(1) == Some('|') {
                        self.pos += 2;
                    } else {
                        self.pos += if self.peek(1) == Some('&') { 2 } else { 1 };
                        self.current.piped = true;
                    }
                }
                '&' => match self.peek(1) {
                    Some('>') => {
                        let op = if self.peek(2) == Some('>') {
                            "&>>"
                        } else {
                            "&>"
                        };
                        self.pos += op.len();
                        self.redirect(None, op)?;
                    }
                    Some('&') => {
                        self.end_segment();
                        self.pos += 2;
                    }
                    _ => {
                        self.end_segment();
                        self.pos += 1;
                    }
                },
                ')' if self.open_substitutions > 0 => {
                    self.open_substitutions -= 1;
                    self.push(c);
                    self.pos += 1;
                }
                '(' | ')' => {
                    self.construct(Construct::Unsupported("a subshell or function definition"));
                    self.current.text.push(' ');
                    self.boundary();
                    self.pos += 1;
                }
                '<' | '>' => self.redirect_operator(c)?,
                '`' => {
                    self.construct(Construct::Substitution("backticks"));
                    self.capture_substitution(1, true);
                    self.push(c);
                    self.pos += 1;
                }
                '$' => self.dollar(false),
                // `{}` (as `find -exec` writes it) is not a brace expansion.
                '{' if self.peek(1) == Some('}') => {
                    self.push(c);
                    self.pos += 1;
                }
                // `[` opens a glob only if its word closes it; alone it is `test`.
                '[' if !self.closes_in_word(']') => {
                    self.push(c);
                    self.pos += 1;
                }
                '*' | '?' | '[' | '{' => {
                    self.current.expands = true;
                    self.push(c);
                    self.pos += 1;
                }
                _ => {
                    self.push(c);
                    self.pos += 1;
                }
            }
        }
        self.end_segment();
        Ok(self.out)
    }

    fn single_quoted(&mut self) -> Result<(), LexError> {
        self.push('\'');
        self.pos += 1;
        loop {
            match self.peek(0) {
                None => return Err(LexError::UnterminatedQuote("single")),
                Some('\'') => {
                    self.push('\'');
                    self.pos += 1;
                    return Ok(());
                }
                Some(c) => {
                    self.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn double_quoted(&mut self) -> Result<(), LexError> {
        self.push('"');
        self.pos += 1;
        loop {
            match self.peek(0) {
                None => return Err(LexError::UnterminatedQuote("double")),
                Some('"') => {
                    self.push('"');
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => match self.peek(1) {
                    None => return Err(LexError::UnterminatedQuote("double")),
                    Some(next) => {
                        self.push('\\');
                        self.push(next);
                        self.pos += 2;
                    }
                },
                Some('`') => {
                    self.construct(Construct::Substitution("backticks"));
                    self.capture_substitution(1, true);
                    self.push('`');
                    self.pos += 1;
                }
                Some('$') => self.dollar(true),
                Some(c) => {
                    self.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$` outside single quotes: substitution, expansion, or ANSI-C quoting.
    fn dollar(&mut self, in_double_quotes: bool) {
        match self.peek(1) {
            Some('(') => {
                self.construct(Construct::Substitution("`$(…)`"));
                self.capture_substitution(2, false);
                self.push('$');
                self.push('(');
                self.pos += 2;
                if !in_double_quotes {
                    self.open_substitutions += 1;
                }
                return;
            }
            Some('\'') if !in_double_quotes => {
                self.construct(Construct::Unsupported("ANSI-C quoting (`$'…'`)"))
            }
            Some('{') => {
                // `${!name}` (indirection) and `${name@P}` (prompt expansion, which
                // runs command substitutions stored in the value) execute.
                let body: String = self
                    .chars
                    .iter()
                    .skip(self.pos + 2)
                    .take_while(|&&c| c != '}')
                    .collect();
                if body.starts_with('!') || body.contains("@P") {
                    self.construct(Construct::Substitution("an indirect or prompt expansion"));
                }
                self.current.expands = true;
            }
            Some(c) if c == '_' || c.is_ascii_alphanumeric() || "@*#?$!-".contains(c) => {
                self.current.expands = true
            }
            _ => {}
        }
        self.push('$');
        self.pos += 1;
    }

    /// `<` or `>` at the current position, possibly preceded by an fd number.
    fn redirect_operator(&mut self, c: char) -> Result<(), LexError> {
        if self.peek(1) == Some('(') {
            self.construct(Construct::Substitution("process substitution"));
            self.capture_substitution(2, false);
            self.push(c);
            self.push('(');
            self.pos += 2;
            self.open_substitutions += 1;
            return Ok(());
        }
        let next = self.peek(1);
        let (op, len): (&'static str, usize) = match (c, next, self.peek(2)) {
            ('<', Some('<'), Some('<')) => ("<<<", 3),
            ('<', Some('<'), _) => {
                self.construct(Construct::Unsupported("a here-document"));
                ("<<", 2)
            }
            ('<', Some('>'), _) => ("<>", 2),
            ('<', Some('&'), _) => ("<&", 2),
            ('<', _, _) => ("<", 1),
            ('>', Some('>'), _) => (">>", 2),
            ('>', Some('|'), _) => (">|", 2),
            ('>', Some('&'), _) => (">&", 2),
            _ => (">", 1),
        };
        // Digits written right before the operator, as a whole word, are its fd.
        let fd = if self.word_len > 0 && self.word_digits {
            let cut = self.current.text.len() - self.word_len;
            let digits = self.current.text.split_off(cut);
            Some(digits)
        } else {
            None
        };
        self.pos += len;
        self.redirect(fd, op)
    }

    /// Reads the target word after a redirection operator.
    fn redirect(&mut self, fd: Option<String>, op: &'static str) -> Result<(), LexError> {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.pos += 1;
        }
        let start = self.pos;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) if c == '\\' => self.pos += 1,
                Some(_) => {}
                None => match c {
                    '\'' | '"' => quote = Some(c),
                    '\\' => self.pos += 1,
                    ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
                    '$' | '`' | '*' | '?' | '[' | '{' => self.current.expands = true,
                    _ => {}
                },
            }
            if c == '$' && quote != Some('\'') && self.peek(1) == Some('(') {
                self.construct(Construct::Substitution("`$(…)`"));
            }
            if c == '`' && quote != Some('\'') {
                self.construct(Construct::Substitution("backticks"));
            }
            self.pos += 1;
        }
        if quote.is_some() {
            return Err(LexError::UnterminatedQuote(if quote == Some('\'') {
                "single"
            } else {
                "double"
            }));
        }
        let raw: String = self
            .chars
            .get(start..self.pos.min(self.chars.len()))
            .unwrap_or_default()
            .iter()
            .collect();
        if raw.is_empty() {
            return Err(LexError::MissingTarget(op));
        }
        let target = match shell_words::split(&raw) {
            Ok(words) if words.len() == 1 => words.into_iter().next().unwrap_or_default(),
            _ => return Err(LexError::BadTarget(raw)),
        };
        self.current.redirects.push(Redirect { fd, op, target });
        self.current.text.push(' ');
        self.boundary();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        lex(line)
            .unwrap()
            .segments
            .into_iter()
            .map(|s| s.text.trim().to_owned())
            .collect()
    }

    #[test]
    fn splits_on_every_control_operator() {
        assert_eq!(
            texts("a; b && c || d | e |& f & g\nh"),
            vec!["a", "b", "c", "d", "e", "f", "g", "h"]
        );
    }

    #[test]
    fn quotes_protect_operators() {
        assert_eq!(
            texts(r#"echo 'a;b' "c&&d" e\;f"#),
            vec![r#"echo 'a;b' "c&&d" e\;f"#]
        );
    }

    #[test]
    fn comments_hide_operators_until_newline() {
        assert_eq!(texts("ls # ; rm x\npwd"), vec!["ls", "pwd"]);
        assert_eq!(texts("echo a#b"), vec!["echo a#b"]);
    }

    #[test]
    fn redirections_are_lifted_out() {
        let lexed = lex("grep x file 2>/dev/null >out.txt 2>&1").unwrap();
        let seg = &lexed.segments[0];
        assert_eq!(seg.text.trim(), "grep x file");
        let ops: Vec<_> = seg
            .redirects
            .iter()
            .map(|r| (r.fd.as_deref(), r.op, r.target.as_str(), r.writes()))
            .collect();
        assert_eq!(
            ops,
            vec![
                (Some("2"), ">", "/dev/null", false),
                (None, ">", "out.txt", true),
                (Some("2"), ">&", "1", false),
            ]
        );
    }

    #[test]
    fn quoted_redirect_target_is_unquoted() {
        let lexed = lex(r#"echo hi > "my file""#).unwrap();
        assert_eq!(lexed.segments[0].redirects[0].target, "my file");
    }

    #[test]
    fn substitutions_are_reported_outside_single_quotes_only() {
        assert_eq!(
            lex("echo $(rm x)").unwrap().constructs,
            vec![Construct::Substitution("`$(…)`")]
        );
        assert_eq!(
            lex("echo \"`rm x`\"").unwrap().constructs,
            vec![Construct::Substitution("backticks")]
        );
        assert_eq!(lex("echo '$(rm x)'").unwrap().constructs, vec![]);
        assert_eq!(
            lex("diff <(ls a) <(ls b)").unwrap().constructs,
            vec![Construct::Substitution("process substitution")]
        );
        assert!(!lex("echo hi > $(mktemp)").unwrap().constructs.is_empty());
    }

    #[test]
    fn expansions_are_flagged() {
        assert!(lex("ls $HOME").unwrap().segments[0].expands);
        assert!(lex("ls *.rs").unwrap().segments[0].expands);
        assert!(!lex("ls '*.rs' '$HOME'").unwrap().segments[0].expands);
        assert!(!lex("echo 5$").unwrap().segments[0].expands);
    }

    #[test]
    fn pipes_are_marked() {
        let segments = lex("a | b || c |& d && e").unwrap().segments;
        let piped: Vec<bool> = segments.iter().map(|s| s.piped).collect();
        assert_eq!(piped, vec![false, true, false, true, false]);
    }

    #[test]
    fn executing_expansions() {
        assert!(!lex("echo ${!x}").unwrap().constructs.is_empty());
        assert!(!lex("echo \"${x@P}\"").unwrap().constructs.is_empty());
        assert!(lex("echo ${x:-default}").unwrap().constructs.is_empty());
    }

    #[test]
    fn errors() {
        assert_eq!(lex("echo 'x"), Err(LexError::UnterminatedQuote("single")));
        assert_eq!(lex("echo \"x"), Err(LexError::UnterminatedQuote("double")));
        assert_eq!(lex("echo x\\"), Err(LexError::TrailingEscape));
        assert_eq!(lex("echo x >"), Err(LexError::MissingTarget(">")));
    }

    #[test]
    fn unsupported_constructs() {
        assert!(!lex("(rm x)").unwrap().constructs.is_empty());
        assert!(!lex("cat <<EOF\nx\nEOF").unwrap().constructs.is_empty());
        assert!(!lex("echo $'\\x41'").unwrap().constructs.is_empty());
    }
}
