//! The decision order. The order is the policy: change it only with the design.
//!
//! 1. Arguments that are not a JSON object: confirm (`args.invalid`).
//! 2. `denied_tools`: deny.
//! 3. Strict mode: confirm.
//! 4. `auto_approved_tools`: allow.
//! 5. The model's `risk_level`: high or medium confirm; low allows, except in
//!    guarded mode when the code layer proved the call destructive (the floor).
//! 6. The tool's assessor proved it read-only: allow.
//! 7. Everything else: confirm.

use crate::args::{model_risk, parse_object};
use crate::assess::command::CommandAssessor;
use crate::assess::file::FileAssessor;
use crate::assess::http::HttpAssessor;
use crate::assess::sql::SqlAssessor;
use crate::assess::{Assessment, Assessor, Verdict};
use crate::codes;
use crate::config::{Config, ConfigError, MediumRisk, ModelTrust};
use crate::decision::{Action, Decision, Finding, Risk, Source};
use crate::text::preview;

/// How many characters of the operation a summary shows.
const SUMMARY_OPERATION_CHARS: usize = 100;

/// A configured policy. Cheap to share; `assess` takes `&self`.
#[derive(Debug, Default)]
pub struct Engine {
    config: Config,
    sql: SqlAssessor,
    command: CommandAssessor,
    file: FileAssessor,
    http: HttpAssessor,
}

impl Engine {
    /// A policy with this configuration.
    pub fn new(config: Config) -> Engine {
        Engine {
            config,
            ..Engine::default()
        }
    }

    /// A policy from a JSON configuration; see [`Config::from_json`].
    pub fn from_json(config: &str) -> Result<Engine, ConfigError> {
        Config::from_json(config).map(Engine::new)
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Adds `risk_level` to tool definitions; see [`crate::augment_tools`].
    pub fn augment_tools(&self, tools: &str) -> Result<String, crate::AugmentError> {
        crate::augment::augment_tools(tools)
    }

    fn assessor(&self, tool: &str) -> Option<&dyn Assessor> {
        match tool {
            "execute_sql" => Some(&self.sql),
            "execute_command" => Some(&self.command),
            "file_operations" => Some(&self.file),
            "http_request" => Some(&self.http),
            _ => None,
        }
    }

    /// Decides one call. Never panics, whatever `tool` and `args` hold.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        let args = match parse_object(args, self.config.max_args_bytes) {
            Ok(args) => args,
            Err(e) => {
                let finding = Finding::new(codes::ARGS_INVALID, e.to_string());
                let summary = summary(tool, "", &format!("{e}; needs confirmation"));
                return Decision {
                    action: Action::Confirm,
                    risk: Risk::Medium,
                    source: Source::Default,
                    llm_risk: None,
                    findings: vec![finding],
                    summary,
                };
            }
        };

        let (llm_risk, risk_finding) = model_risk(&args);
        let assessment = match self.assessor(tool) {
            Some(assessor) => assessor.assess(&args),
            None => Assessment::single(
                Verdict::Unproven,
                "",
                Finding::new(
                    codes::TOOL_UNKNOWN,
                    format!("no assessor knows the tool `{}`", preview(tool, 60)),
                ),
            ),
        };
        let risk = match (assessment.verdict, llm_risk) {
            (Verdict::Destructive, _) => Risk::High,
            (_, Some(claimed)) => claimed,
            (Verdict::ReadOnly, None) => Risk::Low,
            (Verdict::Unproven, None) => Risk::Medium,
        };

        let (action, source, rule, reason) = self.decide(tool, llm_risk, &assessment);
        let mut findings = Vec::with_capacity(assessment.findings.len() + 2);
        findings.extend(rule);
        findings.extend(risk_finding);
        findings.extend(assessment.findings);
        Decision {
            action,
            risk,
            source,
            llm_risk,
            summary: summary(tool, &assessment.operation, &reason),
            findings,
        }
    }

    /// Steps 2–7: the action, the rule that decided, its finding (if the rule
    /// itself is a reason) and the reason for the summary.
    fn decide(
        &self,
        tool: &str,
        llm_risk: Option<Risk>,
        assessment: &Assessment,
    ) -> (Action, Source, Option<Finding>, String) {
        let config = &self.config;
        let first_reason = || {
            assessment
                .findings
                .first()
                .map_or_else(String::new, |f| f.message.clone())
        };
        if config.denied_tools.contains(tool) {
            let message = "the tool is denied by configuration";
            return (
                Action::Deny,
                Source::Config,
                Some(Finding::new(codes::CONFIG_DENIED_TOOL, message)),
                message.to_owned(),
            );
        }
        if config.strict {
            let message = "strict mode: every call needs confirmation";
            return (
                Action::Confirm,
                Source::Strict,
                Some(Finding::new(codes::CONFIG_STRICT, message)),
                message.to_owned(),
            );
        }
        if config.auto_approved_tools.contains(tool) {
            let message = "the tool is auto-approved by configuration";
            return (
                Action::Allow,
                Source::Config,
                Some(Finding::new(codes::CONFIG_AUTO_APPROVED, message)),
                message.to_owned(),
            );
        }
        let escalated = match llm_risk {
            Some(Risk::High) => true,
            Some(Risk::Medium) => config.medium_risk == MediumRisk::Confirm,
            _ => false,
        };
        if escalated {
            let (code, level) = match llm_risk {
                Some(Risk::High) => (codes::LLM_HIGH, "high"),
                _ => (codes::LLM_MEDIUM, "medium"),
            };
            let message = format!("the model rated the call {level} risk");
            return (
                Action::Confirm,
                Source::Llm,
                Some(Finding::new(code, message.clone())),
                format!("{message}; needs confirmation"),
            );
        }
        if llm_risk.is_some() {
            // Low, or medium configured to count as low.
            if assessment.verdict == Verdict::Destructive
                && config.model_trust == ModelTrust::Guarded
            {
                let message = format!("{}; the model's low rating is overridden", first_reason());
                return (
                    Action::Confirm,
                    Source::Floor,
                    Some(Finding::new(codes::FLOOR_DESTRUCTIVE, message.clone())),
                    message,
                );
            }
            let message = "the model rated the call low risk";
            return (
                Action::Allow,
                Source::Llm,
                Some(Finding::new(codes::LLM_LOW, message)),
                message.to_owned(),
            );
        }
        if assessment.verdict == Verdict::ReadOnly {
            return (Action::Allow, Source::Whitelist, None, first_reason());
        }
        let message = format!("{}; needs confirmation", first_reason());
        (
            Action::Confirm,
            Source::Default,
            Some(Finding::new(
                codes::DEFAULT_UNPROVEN,
                "not proven read-only, so a person confirms",
            )),
            message,
        )
    }
}

/// One line for a confirmation dialog: the tool, what it would do, and why.
fn summary(tool: &str, operation: &str, reason: &str) -> String {
    let tool = preview(tool, 60);
    let operation = preview(operation, SUMMARY_OPERATION_CHARS);
    let reason = preview(reason, 200);
    if operation.is_empty() {
        format!("{tool} — {reason}")
    } else {
        format!("{tool}: {operation} — {reason}")
    }
}
