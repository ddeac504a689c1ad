//! Small text helpers for messages and summaries.

/// A one-line preview of `text` at most `max` characters long: control characters
/// (newlines included) become spaces, runs of whitespace collapse, and a cut is
/// marked with `…`. Summaries must stay one line whatever the model sent.
pub fn preview(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = true;
    for c in text.chars() {
        let c = if c.is_control() || c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c == ' ' && last_space {
            continue;
        }
        if count == max {
            out.push('…');
            return out.trim_end().replace(" …", "…");
        }
        last_space = c == ' ';
        out.push(c);
        count += 1;
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn one_line_and_bounded() {
        assert_eq!(
            preview("SELECT 1;\n\tDROP  TABLE t", 100),
            "SELECT 1; DROP TABLE t"
        );
        assert_eq!(preview("abcdef", 3), "abc…");
        assert_eq!(preview("ab cdef", 3), "ab…");
        assert_eq!(preview("  x  ", 10), "x");
        assert_eq!(preview("héllo wörld", 5), "héllo…");
        assert_eq!(preview("abc", 3), "abc");
    }
}
