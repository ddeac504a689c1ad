//! `response_template` (seed 002): turning an API's JSON response into the
//! text the model is given back, in the component, so every runtime gives the
//! model the same words.
//!
//! The syntax is a small, logic-less subset of the usual mustache forms:
//! - `{{path}}`: the value at `path` in the response — keys joined by `.`,
//!   array positions as numbers (`items.0.name`), `.` for the current value.
//!   A string is inserted as it is; numbers, booleans, objects and arrays as
//!   JSON; a missing value or `null` as nothing.
//! - `{{#path}}…{{/path}}`: for an array, the inside once per item, the item
//!   being the current value (so `{{name}}` reads the item's `name`); for any
//!   other value that is present, not `null`, `false` or empty, the inside once
//!   with that value current; otherwise nothing.
//! - `{{^path}}…{{/path}}`: the inside once when the value is missing, `null`,
//!   `false` or an empty array — "no results".
//!
//! A path that is not found in the current value is looked up in the
//! enclosing ones, so an item's section can still print a top-level field.
//! Templates are checked when the configuration is read; rendering is bounded
//! (nesting depth, output size) so a large response cannot make it slow.

use serde_json::Value;

/// How deep sections nest.
const MAX_DEPTH: usize = 8;
/// The longest text a template produces; the rest is cut with a note.
const MAX_OUTPUT_BYTES: usize = 256 * 1024;

/// One piece of a parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Text(String),
    Value(String),
    Section {
        path: String,
        inverted: bool,
        inside: Vec<Node>,
    },
}

/// Why a template was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// `{{` without its `}}`.
    #[error("a `{{{{` at byte {0} is not closed")]
    Unclosed(usize),
    /// A `{{/x}}` that closes nothing, or the wrong section.
    #[error("`{{{{/{0}}}}}` closes no open section")]
    StrayClose(String),
    /// A section left open at the end.
    #[error("the section `{0}` is not closed")]
    Open(String),
    /// Sections nested deeper than the policy reads.
    #[error("sections nest deeper than {MAX_DEPTH}")]
    TooDeep,
    /// `{{}}` or a tag with an empty path.
    #[error("an empty tag at byte {0}")]
    Empty(usize),
}

/// A checked template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    nodes: Vec<Node>,
}

impl Template {
    /// Parses a template.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        // A stack of open sections: (path, inverted, nodes so far).
        let mut stack: Vec<(String, bool, Vec<Node>)> = Vec::new();
        let mut nodes: Vec<Node> = Vec::new();
        let mut rest = text;
        let mut offset = 0;
        while let Some(open) = rest.find("{{") {
            let (before, after) = rest.split_at(open);
            if !before.is_empty() {
                nodes.push(Node::Text(before.to_owned()));
            }
            let after = after.get(2..).unwrap_or("");
            let close = after
                .find("}}")
                .ok_or(TemplateError::Unclosed(offset + open))?;
            let (tag, tail) = after.split_at(close);
            let tag = tag.trim();
            let at = offset + open;
            offset += open + 2 + close + 2;
            rest = tail.get(2..).unwrap_or("");
            let (kind, path) = match tag.chars().next() {
                Some(c @ ('#' | '^' | '/')) => (Some(c), tag.get(1..).unwrap_or("").trim()),
                _ => (None, tag),
            };
            if path.is_empty() {
                return Err(TemplateError::Empty(at));
            }
            match kind {
                Some('#' | '^') => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(TemplateError::TooDeep);
                    }
                    let outer = std::mem::take(&mut nodes);
                    stack.push((path.to_owned(), kind == Some('^'), outer));
                }
                Some(_) => match stack.pop() {
                    Some((open_path, inverted, outer)) if open_path == path => {
                        let inside = std::mem::replace(&mut nodes, outer);
                        nodes.push(Node::Section {
                            path: open_path,
                            inverted,
                            inside,
                        });
                    }
                    _ => return Err(TemplateError::StrayClose(path.to_owned())),
                },
                None => nodes.push(Node::Value(path.to_owned())),
            }
        }
        if !rest.is_empty() {
            nodes.push(Node::Text(rest.to_owned()));
        }
        if let Some((path, _, _)) = stack.pop() {
            return Err(TemplateError::Open(path));
        }
        Ok(Template { nodes })
    }

    /// The text for `value`.
    pub fn render(&self, value: &Value) -> String {
        let mut out = String::new();
        let mut scopes = vec![value];
        render(&self.nodes, &mut scopes, &mut out);
        if out.len() > MAX_OUTPUT_BYTES {
            let mut cut = MAX_OUTPUT_BYTES;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push_str("\n… (cut: the response is longer than the template's output bound)");
        }
        out
    }
}

/// The value at `path` from the innermost scope that has it.
fn lookup<'a>(scopes: &[&'a Value], path: &str) -> Option<&'a Value> {
    if path == "." {
        return scopes.last().copied();
    }
    scopes.iter().rev().find_map(|scope| {
        path.split('.').try_fold(*scope, |value, key| match value {
            Value::Object(map) => map.get(key),
            Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        })
    })
}

fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    }
}

fn render(nodes: &[Node], scopes: &mut Vec<&Value>, out: &mut String) {
    for node in nodes {
        if out.len() > MAX_OUTPUT_BYTES {
            return;
        }
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Value(path) => match lookup(scopes, path) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => out.push_str(s),
                Some(other) => out.push_str(&other.to_string()),
            },
            Node::Section {
                path,
                inverted,
                inside,
            } => {
                let found = lookup(scopes, path);
                if *inverted {
                    if !truthy(found) {
                        render(inside, scopes, out);
                    }
                    continue;
                }
                match found {
                    Some(Value::Array(items)) => {
                        for item in items {
                            if out.len() > MAX_OUTPUT_BYTES {
                                return;
                            }
                            scopes.push(item);
                            render(inside, scopes, out);
                            scopes.pop();
                        }
                    }
                    Some(value) if truthy(Some(value)) => {
                        scopes.push(value);
                        render(inside, scopes, out);
                        scopes.pop();
                    }
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(template: &str, value: Value) -> String {
        Template::parse(template)
            .map(|t| t.render(&value))
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn values_sections_and_lists() {
        let pets = json!({"total": 2, "items": [{"id": 1, "name": "rex", "tags": ["a"]}, {"id": 2, "name": "tom", "tags": []}]});
        assert_eq!(
            render("{{total}} pets:\n{{#items}}- {{name}} (#{{id}}){{#tags}} [{{.}}]{{/tags}}\n{{/items}}", pets.clone()),
            "2 pets:\n- rex (#1) [a]\n- tom (#2)\n"
        );
        assert_eq!(render("{{items.1.name}}", pets.clone()), "tom");
        assert_eq!(render("{{#items}}{{total}}{{/items}}", pets.clone()), "22");
        assert_eq!(render("{{^missing}}none{{/missing}}", pets.clone()), "none");
        assert_eq!(render("{{^items}}none{{/items}}", pets.clone()), "");
        assert_eq!(
            render("{{items.0}}", pets),
            r#"{"id":1,"name":"rex","tags":["a"]}"#
        );
        assert_eq!(render("{{nothing}}|{{.}}", json!("x")), "|x");
    }

    #[test]
    fn bad_templates_are_refused() {
        assert_eq!(Template::parse("{{a"), Err(TemplateError::Unclosed(0)));
        assert_eq!(
            Template::parse("{{#a}}x{{/b}}"),
            Err(TemplateError::StrayClose(String::from("b")))
        );
        assert_eq!(
            Template::parse("{{#a}}x"),
            Err(TemplateError::Open(String::from("a")))
        );
        assert_eq!(Template::parse("x {{ }}"), Err(TemplateError::Empty(2)));
        assert_eq!(
            Template::parse(&"{{#a}}".repeat(9)),
            Err(TemplateError::TooDeep)
        );
    }

    #[test]
    fn output_is_bounded() {
        let items: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
        let out = render("{{#items}}{{.}}, {{/items}}", json!({"items": items}));
        assert!(out.len() < MAX_OUTPUT_BYTES + 200, "{}", out.len());
        assert!(out.ends_with("output bound)"));
    }
}
