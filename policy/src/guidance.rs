//! Prompt text that tells the model how to use `risk_level` (option C of the
//! origin design) and when to ask the user in plain text instead (option F).
//! It is versioned with the policy: the rules it describes are the rules the
//! policy enforces.

/// A language the guidance is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// English.
    En,
    /// Simplified Chinese.
    Zh,
}

impl Language {
    /// Reads a language tag; `zh`, `zh-CN`, `zh-Hans`… are Chinese, anything else
    /// is English.
    pub fn from_tag(tag: &str) -> Language {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("zh") {
            Language::Zh
        } else {
            Language::En
        }
    }
}

const EN: &str = "<RISK_ASSESSMENT>
Every tool accepts an optional `risk_level` argument: \"low\", \"medium\" or \"high\".
- Set \"low\" only for calls that read and change nothing: SELECT, SHOW, DESCRIBE, \
EXPLAIN; ls, cat, grep, pwd; reading or listing files; HTTP GET, HEAD, OPTIONS. \
Low-risk calls run immediately.
- Set \"high\" for anything that changes or destroys data, configuration or systems: \
INSERT, UPDATE, DELETE, DROP, TRUNCATE; rm, mv, writing files, installing software; \
HTTP POST, PUT, PATCH, DELETE. A person confirms high-risk calls before they run.
- Set \"high\" (or \"medium\") when you are unsure what a call will do: unfamiliar \
commands, init or reboot, custom scripts.
- When you are unsure whether the user wants the operation at all, do not call the \
tool: reply in plain text, say what you intend to do and why it may be risky, and \
ask whether to proceed, for example: \"This operation (init system) may be risky. \
Should I proceed?\" Call the tool after the user agrees.
- Rate honestly. The system checks calls itself: a destructive call rated \"low\" \
still needs confirmation, and a call without `risk_level` is assessed conservatively.
- If a call is rejected or cancelled, do not retry it unchanged; read the user's \
message and adjust, or ask.
</RISK_ASSESSMENT>
";

const ZH: &str = "<RISK_ASSESSMENT>
每个工具都接受一个可选参数 `risk_level`：\"low\"、\"medium\" 或 \"high\"。
- 只有只读、不做任何修改的调用才设为 \"low\"：SELECT、SHOW、DESCRIBE、EXPLAIN；ls、cat、\
grep、pwd；读取或列出文件；HTTP GET、HEAD、OPTIONS。低风险调用会立即执行。
- 任何修改或破坏数据、配置或系统的操作设为 \"high\"：INSERT、UPDATE、DELETE、DROP、\
TRUNCATE；rm、mv、写文件、安装软件；HTTP POST、PUT、PATCH、DELETE。高风险调用在执行前需要用户确认。
- 不确定调用会产生什么后果时（不熟悉的命令、init、reboot、自定义脚本），设为 \"high\"（或 \"medium\"）。
- 不确定用户是否真的需要这个操作时，不要调用工具：直接用文字回复，说明你打算做什么、\
可能有什么风险，并询问是否继续，例如：\"这个操作（init system）可能有风险，是否继续？\"\
用户同意后再调用工具。
- 请如实评估。系统会自行检查每个调用：被标为 \"low\" 的破坏性操作仍需确认，\
未提供 `risk_level` 的调用会按保守策略处理。
- 调用被拒绝或取消后，不要原样重试；阅读用户的说明后调整，或先询问用户。
</RISK_ASSESSMENT>
";

/// The guidance text in `language`.
pub fn guidance(language: Language) -> &'static str {
    match language {
        Language::En => EN,
        Language::Zh => ZH,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags() {
        assert_eq!(Language::from_tag("zh-CN"), Language::Zh);
        assert_eq!(Language::from_tag("ZH"), Language::Zh);
        assert_eq!(Language::from_tag("en"), Language::En);
        assert_eq!(Language::from_tag(""), Language::En);
        assert_eq!(Language::from_tag("fr"), Language::En);
    }

    /// Seed 000 §F's own example of the question a model asks instead of
    /// calling the tool, in both languages.
    #[test]
    fn both_texts_give_the_seed_example_question() {
        assert!(guidance(Language::En)
            .contains("\"This operation (init system) may be risky. Should I proceed?\""));
        assert!(
            guidance(Language::Zh).contains("\"这个操作（init system）可能有风险，是否继续？\"")
        );
    }

    #[test]
    fn both_texts_name_every_level() {
        for lang in [Language::En, Language::Zh] {
            let text = guidance(lang);
            for level in ["\"low\"", "\"medium\"", "\"high\"", "risk_level"] {
                assert!(text.contains(level), "{lang:?} lacks {level}");
            }
        }
    }
}
