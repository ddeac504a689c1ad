//! A lexer fuzzer for the SQL parse oracle: texts that mix what the servers'
//! lexers disagree on — nested, executable (`/*! */`, `/*M! */`) and
//! unterminated block comments, `#`, `//` and `--` without a space, quotes
//! with doubled and backslashed quotes, dollar quotes, `E''`/`N''`/`U&''`/`X''`
//! strings, backticks and brackets, `GO` and `DELIMITER` lines, carriage
//! returns, Unicode spaces and separators — around a `DROP` that a reading
//! differing from the engine's would hide. Deterministic: the same seed gives
//! the same texts, so the oracle's inputs are fixed before it runs.

/// The pieces a text is built from.
const PIECES: &[&str] = &[
    "/* a /* b */ c */",
    "/* /* */",
    "*/",
    "/*",
    "/* x */",
    "/*! 1 */",
    "/*M! 1 */",
    "/*!50000 ; DROP TABLE t */",
    "#x\n",
    "# ; DROP TABLE t\n",
    "--x\n",
    "-- ; DROP TABLE t\n",
    "-- x\r DROP TABLE t",
    "//x\n",
    "'a''b'",
    "'\\'",
    "'\\''",
    "E'\\''",
    "e'\\\\'",
    "N'x'",
    "U&'\\0041'",
    "X'41'",
    "$$ ; $$",
    "$a$ ' ; $a$",
    "$1",
    "\"a;b\"",
    "\"a\\\"",
    "`a;b`",
    "[a;b]",
    "\nGO\n",
    "\nDELIMITER //\n",
    "\u{a0}",
    "\u{2028}",
    "\u{3000}",
    "\u{feff}",
    "\u{85}",
    "\r\n",
    "\r",
    "\t",
    "\u{b}",
    "\u{c}",
    ";",
    " AS x",
    ", 2",
    "'*/'",
    "' */ ;",
    "*/ '",
    "/* /* */ */",
    "' ; DROP TABLE t; -- '",
    " DROP TABLE t",
];

/// Statement frames the pieces go into (`{}` marks where).
const FRAMES: &[&str] = &[
    "SELECT 1 {}",
    "SELECT 1{} FROM t",
    "SELECT 1 {} ; SELECT 2",
    "SELECT {} 1",
    "SELECT id FROM users {} WHERE id = 1",
    "{} SELECT 1",
];

/// xorshift64*: a fixed sequence from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// `count` distinct fuzzed texts from `seed`, every single piece in every
/// frame first, then random mixes of up to six pieces.
pub fn texts(seed: u64, count: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut push = |text: String, out: &mut Vec<String>| {
        if seen.insert(text.clone()) {
            out.push(text);
        }
    };
    for frame in FRAMES {
        for piece in PIECES {
            push(frame.replacen("{}", piece, 1), &mut out);
        }
    }
    let mut rng = Rng(seed | 1);
    let mut tries = 0;
    while out.len() < count && tries < count * 20 {
        tries += 1;
        let frame = FRAMES.get(rng.below(FRAMES.len())).copied().unwrap_or("{}");
        let mut middle = String::new();
        for _ in 0..=rng.below(5) {
            middle.push_str(PIECES.get(rng.below(PIECES.len())).copied().unwrap_or(""));
            if rng.below(2) == 0 {
                middle.push(' ');
            }
        }
        push(frame.replacen("{}", &middle, 1), &mut out);
    }
    out.truncate(count.max(FRAMES.len() * PIECES.len()));
    out
}
