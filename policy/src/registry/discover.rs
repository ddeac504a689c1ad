//! Tool discovery (seed 002 §3.2): candidate tools for a user's intent, by
//! keyword (any language: a keyword matches where its text appears in the
//! intent, so Chinese keywords such as 「屏蔽」 work without word splitting),
//! name, display name and description, optionally within one category. Disabled
//! tools are never offered. The ranking is deterministic: score, then the
//! lower risk level, then name.

use super::{entries, Entry};
use crate::config::Config;
use crate::guidance::Language;
use std::collections::BTreeSet;

pub use toolgate_shapes::registry::Candidate;

/// Words too common to say anything about a tool.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "from", "into", "what", "when", "please", "help",
    "can", "you", "your", "all", "are", "was", "were", "will", "would", "could", "should", "use",
    "tool", "tools", "some", "any", "get", "show", "about", "have", "has", "our", "its",
];
/// Chinese pairs too common to say anything about a tool.
const STOP_PAIRS: &[&str] = &[
    "帮我", "请帮", "一下", "我们", "可以", "这个", "那个", "什么", "一个", "的告", "我的",
];

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3040..=0x30ff   // Hiragana, Katakana
        | 0x3400..=0x4dbf // CJK extension A
        | 0x4e00..=0x9fff // CJK unified ideographs
        | 0xac00..=0xd7af // Hangul syllables
        | 0xf900..=0xfaff // CJK compatibility ideographs
    )
}

/// The words of `text` (lower case, three letters or more, not stop words) and
/// the pairs of adjacent CJK characters in it.
fn tokens(text: &str) -> BTreeSet<String> {
    let lower = text.to_lowercase();
    let mut out = BTreeSet::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |word: &mut String, run: &mut Vec<char>, out: &mut BTreeSet<String>| {
        if word.chars().count() >= 3 && !STOP_WORDS.contains(&word.as_str()) {
            out.insert(std::mem::take(word));
        }
        word.clear();
        for pair in run.windows(2) {
            let pair: String = pair.iter().collect();
            if !STOP_PAIRS.contains(&pair.as_str()) {
                out.insert(pair);
            }
        }
        run.clear();
    };
    for c in lower.chars() {
        if is_cjk(c) {
            if !word.is_empty() {
                let mut none = Vec::new();
                flush(&mut word, &mut none, &mut out);
            }
            run.push(c);
        } else if c.is_alphanumeric() {
            if !run.is_empty() {
                let mut empty = String::new();
                flush(&mut empty, &mut run, &mut out);
            }
            word.push(c);
        } else {
            flush(&mut word, &mut run, &mut out);
        }
    }
    flush(&mut word, &mut run, &mut out);
    out
}

fn score(entry: &Entry<'_>, intent: &str, intent_tokens: &BTreeSet<String>) -> (u32, Vec<String>) {
    let tool = entry.tool;
    let mut score = 0_u32;
    let mut matched = Vec::new();
    for keyword in &tool.keywords {
        let keyword = keyword.trim().to_lowercase();
        if !keyword.is_empty() && intent.contains(&keyword) && !matched.contains(&keyword) {
            let length = u32::try_from(keyword.chars().count())
                .unwrap_or(u32::MAX)
                .min(10);
            score += 10 + length;
            matched.push(keyword);
        }
    }
    for part in entry.name.to_lowercase().split(['_', '-', '.']) {
        if part.chars().count() >= 3 && intent_tokens.contains(part) {
            score += 4;
        }
    }
    if let Some(display) = &tool.display_name {
        let display = display.trim().to_lowercase();
        if !display.is_empty() && intent.contains(&display) {
            score += 8;
        }
    }
    if let Some(category) = &tool.category {
        if intent_tokens.contains(&category.to_lowercase()) {
            score += 3;
        }
    }
    if let Some(description) = &tool.description {
        let described = tokens(description);
        let shared = intent_tokens.intersection(&described).count();
        score += u32::try_from(shared.min(6)).unwrap_or(6);
    }
    (score, matched)
}

/// The enabled API and MCP tools that match `intent`, best first, at most
/// `limit` (0: all). `category` keeps one category only (case ignored). An
/// empty intent lists every tool of the category.
pub fn discover(
    config: &Config,
    intent: &str,
    category: Option<&str>,
    limit: usize,
) -> Vec<Candidate> {
    let lower = intent.to_lowercase();
    let intent_tokens = tokens(intent);
    let blank = intent.trim().is_empty();
    let mut found: Vec<Candidate> = entries(config)
        .filter(|entry| entry.enabled())
        .filter(|entry| {
            category.is_none_or(|wanted| {
                entry
                    .tool
                    .category
                    .as_deref()
                    .is_some_and(|c| c.eq_ignore_ascii_case(wanted.trim()))
            })
        })
        .filter_map(|entry| {
            let (score, matched) = score(&entry, &lower, &intent_tokens);
            (blank || score > 0).then(|| Candidate {
                name: entry.name.to_owned(),
                display_name: entry
                    .tool
                    .display_name
                    .clone()
                    .unwrap_or_else(|| entry.name.to_owned()),
                description: entry.tool.description.clone().unwrap_or_default(),
                category: entry.tool.category.clone(),
                risk_level: entry.level(),
                score,
                matched,
            })
        })
        .collect();
    // Best first; among equals the safer tool first, then by name.
    found.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.risk_level.cmp(&b.risk_level))
            .then_with(|| a.name.cmp(&b.name))
    });
    if limit > 0 {
        found.truncate(limit);
    }
    found
}

/// Seed 002's GenerateToolPrompt: the named tools (unknown names skipped) as a
/// numbered list with display name, description, risk level and example, for
/// the model to choose from.
pub fn tool_prompt(config: &Config, names: &[String], language: Language) -> String {
    let zh = language == Language::Zh;
    let mut out = String::from(if zh {
        "你可以使用以下工具来完成用户的请求：\n\n"
    } else {
        "You can use these tools for the user's request:\n\n"
    });
    let mut index = 0;
    for name in names {
        let Some(entry) = entries(config).find(|e| e.name == name.as_str()) else {
            continue;
        };
        if !entry.enabled() {
            continue;
        }
        index += 1;
        let tool = entry.tool;
        let display = tool.display_name.as_deref().unwrap_or(entry.name);
        out.push_str(&format!("{index}. **{display}** ({})\n", entry.name));
        let description = tool.description.as_deref().unwrap_or("");
        let level = entry.level();
        let (label, risk) = if zh {
            let risk = match level {
                1 => "低",
                3 => "高",
                _ => "中",
            };
            ("描述", risk)
        } else {
            let risk = match level {
                1 => "low",
                3 => "high",
                _ => "medium",
            };
            ("Description", risk)
        };
        out.push_str(&format!("   {label}: {description}\n"));
        out.push_str(&format!(
            "   {}: {risk}\n",
            if zh { "风险等级" } else { "Risk level" }
        ));
        if let Some(example) = tool.example_prompt.as_deref().filter(|e| !e.is_empty()) {
            out.push_str(&format!(
                "   {}: \"{example}\"\n",
                if zh { "示例" } else { "Example" }
            ));
        }
        out.push('\n');
    }
    out.push_str(if zh {
        "\n请根据用户意图选择最合适的工具，并提取必要的参数。"
    } else {
        "\nChoose the tool that best fits the user's intent and extract the parameters it needs."
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_words_and_cjk_pairs() {
        let t = tokens("帮我屏蔽 host-01 的 CPU 告警 1 小时, please");
        assert!(
            t.contains("屏蔽") && t.contains("告警") && t.contains("小时"),
            "{t:?}"
        );
        assert!(t.contains("host") && t.contains("cpu"), "{t:?}");
        assert!(!t.contains("帮我") && !t.contains("please"), "{t:?}");
    }
}
