//! The decision order. The order is the policy: change it only with the design.
//!
//! 1. Arguments that are not a JSON object: confirm (`args.invalid`).
//! 2. Deny: `denied_tools`; a deny rule that touches any part of the call
//!    (`rule.deny`); the assessor's own denials (a host on a deny list, a
//!    disabled registry tool, a missing permission).
//! 3. `mode: "read-only"`: anything not proven read-only is denied
//!    (`mode.read-only`); no rule or grant allows it.
//! 4. Strict mode: confirm.
//! 5. An ask rule that touches any part of the call (`rule.ask`), a deny or
//!    ask rule that could not be checked against what the call holds
//!    (`rule.unchecked`), or the tool's `always_confirm`
//!    (`rule.always-confirm`): confirm, source `rule`, whatever the model says.
//! 6. Allow rules and grants that together cover every part not proven
//!    read-only: allow, source `rule`, the finding naming the rules.
//! 7. `auto_approved_tools`: allow.
//! 8. `mode: "allowlist"` (seed 004): everything else is confirmed
//!    (`mode.allowlist`), even a proven read, even with the model's `low`.
//! 9. `mode: "accept-edits"`: a file write or create on a clean path under the
//!    file tool's roots (relative, when it has none) is allowed, source `rule`
//!    (`mode.accept-edits`).
//! 10. The model's `risk_level`: high or medium confirm; low allows, except in
//!     guarded mode when the code layer proved the call destructive (the
//!     floor), and except for a network read the `egress` setting holds back.
//! 11. The tool's assessor proved it read-only: allow.
//! 12. Everything else: confirm.

use crate::args::{model_risk, parse_object};
use crate::assess::command::CommandAssessor;
use crate::assess::facts::Facts;
use crate::assess::file::FileAssessor;
use crate::assess::http::HttpAssessor;
use crate::assess::mcp::McpAssessor;
use crate::assess::registry::{ApiAssessor, RegisteredMcp, ScriptAssessor};
use crate::assess::sql::SqlAssessor;
use crate::assess::{Assessment, Assessor, Verdict};
use crate::codes;
use crate::config::{
    Config, ConfigError, Egress, MediumRisk, Mode, ModelTrust, ToolConfig, ToolKind,
};
use crate::context::Context;
use crate::decision::{Action, Decision, Finding, Risk, Source};
use crate::text::preview;
use std::collections::BTreeMap;

/// How many characters of the operation a summary shows.
const SUMMARY_OPERATION_CHARS: usize = 100;

/// A configured policy. Cheap to share; `assess` takes `&self`.
pub struct Engine {
    config: Config,
    /// The assessor of every tool with a kind (built in or configured).
    assessors: BTreeMap<String, Box<dyn Assessor + Send + Sync>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(Config::default())
    }
}

/// The assessor for a tool of `kind` with its settings (defaults where absent).
fn build_assessor(
    name: &str,
    kind: ToolKind,
    settings: &ToolConfig,
    config: &Config,
) -> Box<dyn Assessor + Send + Sync> {
    let field = |default: &str| settings.field.clone().unwrap_or_else(|| default.to_owned());
    match kind {
        ToolKind::Sql => Box::new(SqlAssessor {
            field: field("sql"),
            dialect: settings
                .dialect
                .clone()
                .unwrap_or_else(|| String::from("generic")),
            allow_functions: settings.allow_functions.clone(),
        }),
        ToolKind::Command => Box::new(CommandAssessor {
            field: field("command"),
            egress: crate::assess::egress::EgressRule {
                egress: config.egress,
                allow_hosts: settings.allow_hosts.clone(),
                deny_hosts: settings.deny_hosts.clone(),
            },
            history_is_secret: config.commands.history_is_secret,
        }),
        ToolKind::File => Box::new(FileAssessor {
            operation_field: field("operation"),
            path_field: settings
                .path_field
                .clone()
                .unwrap_or_else(|| String::from("path")),
            roots: settings.roots.clone(),
            operation: settings.operation.clone(),
        }),
        ToolKind::Http => Box::new(HttpAssessor {
            url_field: field("url"),
            method_field: settings
                .method_field
                .clone()
                .unwrap_or_else(|| String::from("method")),
            default_method: settings
                .default_method
                .clone()
                .unwrap_or_else(|| String::from("GET")),
            allow_hosts: settings.allow_hosts.clone(),
            deny_hosts: settings.deny_hosts.clone(),
            egress: config.egress,
        }),
        ToolKind::Api => Box::new(ApiAssessor {
            method: settings
                .method
                .clone()
                .unwrap_or_default()
                .to_ascii_uppercase(),
            url: settings.url.clone().unwrap_or_default(),
            level: settings.risk_level,
            permission: settings.required_permission.clone(),
            enabled: settings.enabled.unwrap_or(true),
            level2: config.registry_level2,
        }),
        ToolKind::Mcp => {
            let server = settings.server.clone().unwrap_or_default();
            let inner = McpAssessor {
                trusted: config.mcp_servers.get(&server).is_some_and(|s| s.trusted),
                server,
                annotations: settings.annotations.clone().unwrap_or_default(),
                path_field: settings.path_field.clone(),
                roots: settings.roots.clone(),
            };
            // A row of seed 002's registry for the tool adds its own checks.
            if settings.enabled.is_some()
                || settings.required_permission.is_some()
                || settings.risk_level.is_some()
            {
                Box::new(RegisteredMcp {
                    inner,
                    level: settings.risk_level,
                    permission: settings.required_permission.clone(),
                    enabled: settings.enabled.unwrap_or(true),
                })
            } else {
                Box::new(inner)
            }
        }
        ToolKind::Script => Box::new(ScriptAssessor {
            name: name.to_owned(),
            level: settings.risk_level,
            permission: settings.required_permission.clone(),
            enabled: settings.enabled.unwrap_or(true),
        }),
    }
}

impl Engine {
    /// A policy with this configuration.
    pub fn new(config: Config) -> Engine {
        let defaults = ToolConfig::default();
        let mut assessors = BTreeMap::new();
        for (tool, kind) in ToolKind::BUILTIN {
            let settings = config.tools.get(tool).unwrap_or(&defaults);
            assessors.insert(
                tool.to_owned(),
                build_assessor(tool, kind, settings, &config),
            );
        }
        for (tool, settings) in &config.tools {
            if let Some(kind) = config.kind_of(tool) {
                assessors.insert(tool.clone(), build_assessor(tool, kind, settings, &config));
            }
        }
        Engine { config, assessors }
    }

    /// A policy from a JSON configuration; see [`Config::from_json`].
    pub fn from_json(config: &str) -> Result<Engine, ConfigError> {
        Config::from_json(config).map(Engine::new)
    }

    /// A policy from a JSON or TOML configuration, in the policy's own shape
    /// or seed 004's; see [`Config::from_text`].
    pub fn from_text(config: &str) -> Result<Engine, ConfigError> {
        Config::from_text(config).map(Engine::new)
    }

    /// What the tool's assessor parsed from the arguments (no facts for a
    /// tool without an assessor of its own).
    pub(crate) fn facts_of(
        &self,
        tool: &str,
        args: &serde_json::Map<String, serde_json::Value>,
    ) -> Facts {
        // Facts only of what the proof covers: an argument it does not read
        // keeps every rule but those naming the tool alone from covering it.
        self.assessor(tool).map_or(Facts::None, |a| {
            if crate::assess::unknown_field(a, args).is_some() {
                Facts::None
            } else {
                a.facts(args)
            }
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Adds `risk_level` to tool definitions in `format` (or each tool's own),
    /// reporting what was left alone; see [`crate::augment::augment_tools_as`].
    pub fn augment_tools_as(
        &self,
        tools: &str,
        format: Option<&str>,
    ) -> Result<crate::augment::Augmented, crate::AugmentError> {
        crate::augment::augment_tools_as(tools, format)
    }

    /// Decides a call given in any supported wire format (see
    /// [`crate::calls::parse_call`]). Never fails: a call whose tool cannot be
    /// found is answered `confirm` with `call.invalid`.
    pub fn assess_call(&self, call: &str) -> Decision {
        match crate::calls::parse_call(call) {
            Ok(call) => self.assess(&call.tool, &call.args),
            Err(e) => unreadable(
                "(unknown tool)",
                Finding::new(codes::CALL_INVALID, e.to_string()),
            ),
        }
    }

    fn assessor(&self, tool: &str) -> Option<&(dyn Assessor + Send + Sync)> {
        self.assessors.get(tool).map(|a| a.as_ref())
    }

    /// The code layer's answer for `tool`: its own assessor; for a name that
    /// looks like a known tool's, that tool's assessor, never proven
    /// read-only; for an unknown tool, the floor of the kind its arguments
    /// point to (see [`crate::toolname`]).
    fn assess_tool(
        &self,
        tool: &str,
        args: &serde_json::Map<String, serde_json::Value>,
        context: &Context,
    ) -> Assessment {
        if let Some(assessor) = self.assessor(tool) {
            let mut assessment = assessor.assess(args, context);
            if assessment.verdict == Verdict::ReadOnly {
                if let Some(name) = crate::assess::unknown_field(assessor, args) {
                    assessment.verdict = Verdict::Unproven;
                    assessment.findings.insert(
                        0,
                        Finding::new(
                            codes::ARGS_UNKNOWN_FIELD,
                            format!(
                                "the argument `{}` is not one the check reads; what the tool does with it is not proven",
                                preview(name, 40)
                            ),
                        ),
                    );
                }
            }
            return assessment;
        }
        let known = self.assessors.keys().map(String::as_str);
        if let Some(name) = crate::toolname::lookalike(tool, known) {
            if let Some(assessor) = self.assessor(name) {
                let mut assessment = assessor.assess(args, context);
                if assessment.verdict == Verdict::ReadOnly {
                    assessment.verdict = Verdict::Unproven;
                }
                assessment.findings.insert(
                    0,
                    Finding::new(
                        codes::TOOL_UNKNOWN,
                        format!("no assessor knows the tool `{}`", preview(tool, 60)),
                    ),
                );
                assessment.findings.insert(
                    1,
                    Finding::new(
                        codes::TOOL_LOOKALIKE,
                        format!(
                            "`{}` is not a configured name but looks like `{name}`; judged as it, and not proven",
                            preview(tool, 60)
                        ),
                    ),
                );
                return assessment;
            }
        }
        let mut assessment = Assessment::single(
            Verdict::Unproven,
            "",
            Finding::new(
                codes::TOOL_UNKNOWN,
                format!("no assessor knows the tool `{}`", preview(tool, 60)),
            ),
        );
        if let Some((kind, settings)) = crate::toolname::inferred_kind(args) {
            let inferred =
                build_assessor(tool, kind, &settings, &self.config).assess(args, context);
            if inferred.verdict == Verdict::Destructive {
                assessment.verdict = Verdict::Destructive;
            }
            assessment.operation = inferred.operation;
            assessment.findings.extend(inferred.findings);
        }
        assessment
    }

    /// Decides one call. Never panics, whatever `tool` and `args` hold.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.assess_in_context(tool, args, &Context::default())
    }

    /// Decides one call in the caller's context given as JSON (see
    /// [`Context`]); an unreadable context is answered `confirm` with
    /// `context.invalid`. The same call as the component's `assess-in` and the
    /// hosts' `assess_in`.
    pub fn assess_in(&self, tool: &str, args: &str, context: &str) -> Decision {
        match Context::from_json(context) {
            Ok(context) => self.assess_in_context(tool, args, &context),
            Err(e) => unreadable(tool, Finding::new(codes::CONTEXT_INVALID, e.to_string())),
        }
    }

    /// The former name of [`Engine::assess_in`].
    #[deprecated(note = "renamed `assess_in`, the name the component and the hosts use")]
    pub fn assess_with_context(&self, tool: &str, args: &str, context: &str) -> Decision {
        self.assess_in(tool, args, context)
    }

    /// Decides one call in the caller's context, already read.
    pub fn assess_in_context(&self, tool: &str, args: &str, context: &Context) -> Decision {
        self.assess_granted(tool, args, context, &[])
    }

    /// Decides one call with the allow rules of the grants in force (answers
    /// "for this session" or "always" left behind) besides the configured
    /// rules. Grants only ever allow: they rank with the configured allow
    /// rules, below every deny and ask.
    pub fn assess_granted(
        &self,
        tool: &str,
        args: &str,
        context: &Context,
        grants: &[crate::rules::Rule],
    ) -> Decision {
        self.assess_named(tool, None, args, context, grants)
    }

    /// [`Engine::assess_granted`] for a tool that also goes by `alias`: a
    /// coding agent's own name for the call a hook maps onto `tool` (`Bash`
    /// for `execute_command`). The configuration's `auto_approved_tools`,
    /// `always_confirm` and rules naming the alias apply as they would to
    /// `tool` itself, so a configuration written in the agent's names means
    /// what it says; the assessor and its proofs stay `tool`'s.
    pub(crate) fn assess_named(
        &self,
        tool: &str,
        alias: Option<&str>,
        args: &str,
        context: &Context,
        grants: &[crate::rules::Rule],
    ) -> Decision {
        let alias = alias.filter(|a| *a != tool);
        // The MCP gateway names a call `mcp:SERVER/TOOL`; a seed 002
        // definition names that tool by its server and the server's name
        // for it (`mcp_server_id`, `mcp_tool_name`) under a name of its own.
        // The call is decided as that definition (its level, permission and
        // `enabled` apply), and lists naming either name apply.
        if alias.is_none() {
            if let Some(entry) = self.config.mcp_entry(tool) {
                return self.assess_named(entry, Some(tool), args, context, grants);
            }
        }
        let args = match parse_object(args, self.config.max_args_bytes) {
            Ok(args) => args,
            Err(e) => return unreadable(tool, Finding::new(codes::ARGS_INVALID, e.to_string())),
        };

        let (llm_risk, risk_finding) = model_risk(&args);
        let assessment = self.assess_tool(tool, &args, context);
        let risk = match (assessment.verdict, llm_risk) {
            (Verdict::Destructive, _) => Risk::High,
            (_, Some(claimed)) => claimed,
            (Verdict::ReadOnly, None) => Risk::Low,
            (Verdict::Unproven, None) => Risk::Medium,
        };

        // Facts are parsed only when a rule, a grant or a mode reads them.
        let config = &self.config;
        let facts =
            if config.rules.is_empty() && grants.is_empty() && config.mode != Mode::AcceptEdits {
                Facts::None
            } else {
                self.facts_of(tool, &args)
            };
        let mut judged = if config.rules.is_empty() && grants.is_empty() {
            crate::rules::Judged::default()
        } else {
            crate::rules::judge(&config.rules, grants, tool, config.kind_of(tool), &facts)
        };
        // Rules naming the agent's own name for the tool judge the same
        // facts; an ask or deny by either name holds over an allow by either.
        // Grants judge the alias too: the alias is the name the call was made
        // under (the agent's, or the MCP gateway's `mcp:SERVER/TOOL` for a
        // seed 002 row), so a grant a person gave for that exact name applies.
        if let Some(alias) = alias.filter(|_| !config.rules.is_empty() || !grants.is_empty()) {
            let by_alias =
                crate::rules::judge(&config.rules, grants, alias, config.kind_of(tool), &facts);
            judged.deny = judged.deny.or(by_alias.deny);
            judged.ask = judged.ask.or(by_alias.ask);
            judged.unchecked = judged.unchecked.or(by_alias.unchecked);
            judged.allow = judged.allow.or(by_alias.allow);
        }
        // A tool without an assessor of its own meets the deny and ask rules
        // (never the allows) of the tool its name looks like
        // (`execute_comand`), else the kind-wide ones of the kind its
        // arguments point to.
        if !config.rules.is_empty() && self.assessor(tool).is_none() {
            let known = self.assessors.keys().map(String::as_str);
            let like = match crate::toolname::lookalike(tool, known) {
                Some(name) => Some(crate::rules::judge(
                    &config.rules,
                    &[],
                    name,
                    config.kind_of(name),
                    &self.facts_of(name, &args),
                )),
                None => crate::toolname::inferred_kind(&args).map(|(kind, settings)| {
                    let facts = build_assessor(tool, kind, &settings, config).facts(&args);
                    crate::rules::judge(&config.rules, &[], tool, Some(kind), &facts)
                }),
            };
            if let Some(like) = like {
                judged.deny = judged.deny.or(like.deny);
                judged.ask = judged.ask.or(like.ask);
                judged.unchecked = judged.unchecked.or(like.unchecked);
            }
        }
        // The approval channel is out of the agent's reach, whatever allowed
        // the call (see [`crate::channel`]).
        let channel = crate::channel::approval_channel(self.channel_kind(tool, &args), &args);
        let (mut action, mut source, mut rule, mut reason) = match channel {
            Some(finding) => (
                Action::Deny,
                Source::Floor,
                Some(finding.clone()),
                finding.message,
            ),
            None => self.decide(tool, alias, llm_risk, &assessment, &judged, &facts),
        };
        // Nothing allows a write to what decides later runs without a person
        // (see [`crate::selfprotect`]); a proven read is judged as before.
        if action == Action::Allow && assessment.verdict != Verdict::ReadOnly {
            let kind = self
                .config
                .kind_of(tool)
                .or_else(|| crate::toolname::inferred_kind(&args).map(|(kind, _)| kind));
            let protected = crate::selfprotect::self_protection(kind, &args).filter(|_| {
                // A read the secrets of those files held back (a grant or a
                // rule allowed it) stays a read: judged with the names made
                // ordinary, it is proven read-only.
                // (A read of another secret there, `.claude/.credentials.json`,
                // is still held back by that secret alone: a read too.)
                let neutral =
                    self.assess_tool(tool, &crate::selfprotect::neutralized(&args), context);
                let reads = neutral.verdict == Verdict::ReadOnly
                    || (neutral.verdict == Verdict::Unproven
                        && !neutral.findings.is_empty()
                        && neutral.findings.iter().all(|f| {
                            matches!(
                                f.code.as_str(),
                                codes::COMMAND_SENSITIVE_PATH | codes::FILE_SENSITIVE_PATH
                            )
                        }));
                !reads
            });
            if let Some(finding) = protected {
                action = Action::Confirm;
                source = Source::Floor;
                reason = format!("{}; needs confirmation", finding.message);
                rule = Some(finding);
            }
        }
        let mut findings = Vec::with_capacity(assessment.findings.len() + 2);
        // Arguments that do not fit a registry entry's schemas reach a person,
        // whatever allowed the call (a denial stays a denial).
        let problems = self.schema_problems(tool, &args);
        if let (Some(first), false) = (problems.first(), action == Action::Deny) {
            reason = format!("argument {first}; needs confirmation");
            if action == Action::Allow {
                source = Source::Default;
            }
            action = Action::Confirm;
            findings.extend(
                problems
                    .iter()
                    .map(|p| Finding::new(codes::ARGS_SCHEMA, format!("argument {p}"))),
            );
        }
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

    /// The kind of tool a call reaches the approval channel through: the
    /// tool's own, the one of the tool its name looks like, or the one its
    /// arguments point to.
    fn channel_kind(
        &self,
        tool: &str,
        args: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<ToolKind> {
        self.config
            .kind_of(tool)
            .or_else(|| {
                let known = self.assessors.keys().map(String::as_str);
                crate::toolname::lookalike(tool, known).and_then(|n| self.config.kind_of(n))
            })
            .or_else(|| crate::toolname::inferred_kind(args).map(|(kind, _)| kind))
    }

    /// How the arguments of a registry API tool do not fit its schemas.
    fn schema_problems(
        &self,
        tool: &str,
        args: &serde_json::Map<String, serde_json::Value>,
    ) -> Vec<crate::registry::schema::Problem> {
        match self.config.tools.get(tool) {
            Some(settings) if settings.kind == Some(ToolKind::Api) => {
                crate::registry::schema::call_problems(settings, args)
            }
            _ => Vec::new(),
        }
    }

    /// Steps 2–7: the action, the rule that decided, its finding (if the rule
    /// itself is a reason) and the reason for the summary.
    fn decide(
        &self,
        tool: &str,
        alias: Option<&str>,
        llm_risk: Option<Risk>,
        assessment: &Assessment,
        judged: &crate::rules::Judged,
        facts: &Facts,
    ) -> (Action, Source, Option<Finding>, String) {
        let config = &self.config;
        let first_reason = || {
            assessment
                .findings
                .first()
                .map_or_else(String::new, |f| f.message.clone())
        };
        // Names meet the lists that take power away (denied, always
        // confirmed) in one normal form: case, width, invisible characters
        // ([`crate::toolname::fold`]).
        let named = |name: &String| {
            crate::toolname::same(name, tool)
                || alias.is_some_and(|a| crate::toolname::same(name, a))
        };
        let denied = config.denied_tools.iter().any(named)
            || crate::toolname::lookalike(tool, config.denied_tools.iter().map(String::as_str))
                .is_some();
        if denied {
            let message = "the tool is denied by configuration";
            return (
                Action::Deny,
                Source::Config,
                Some(Finding::new(codes::CONFIG_DENIED_TOOL, message)),
                message.to_owned(),
            );
        }
        let said = |action: Action, source: Source, code: &str, message: String| {
            (
                action,
                source,
                Some(Finding::new(code, message.clone())),
                message,
            )
        };
        if let Some(name) = &judged.deny {
            return said(
                Action::Deny,
                Source::Rule,
                codes::RULE_DENY,
                format!("denied by rule `{name}`"),
            );
        }
        if let Some(reason) = &assessment.deny {
            // A host on a tool's deny list is configuration; the rest of the
            // denials (disabled tools, missing permissions) are the registry's.
            let source = if reason.code == codes::HTTP_DENIED_HOST {
                Source::Config
            } else {
                Source::Registry
            };
            return (
                Action::Deny,
                source,
                Some(reason.clone()),
                reason.message.clone(),
            );
        }
        if config.mode == Mode::ReadOnly && assessment.verdict != Verdict::ReadOnly {
            return said(
                Action::Deny,
                Source::Config,
                codes::MODE_READ_ONLY,
                format!(
                    "read-only mode: the call is not proven read-only ({})",
                    first_reason()
                ),
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
        if let Some(name) = &judged.ask {
            return said(
                Action::Confirm,
                Source::Rule,
                codes::RULE_ASK,
                format!("rule `{name}` asks a person to confirm"),
            );
        }
        if let Some(name) = &judged.unchecked {
            return said(
                Action::Confirm,
                Source::Rule,
                codes::RULE_UNCHECKED,
                format!("rule `{name}` could not be checked against what the call holds"),
            );
        }
        if config
            .tools
            .iter()
            .any(|(name, t)| t.always_confirm && named(name))
        {
            return said(
                Action::Confirm,
                Source::Rule,
                codes::RULE_ALWAYS_CONFIRM,
                String::from("the tool is configured `always_confirm`"),
            );
        }
        if let Some(names) = &judged.allow {
            return said(
                Action::Allow,
                Source::Rule,
                codes::RULE_ALLOW,
                format!("allowed by rule `{names}`"),
            );
        }
        // Auto-approval, which gives power, is by the name as written: a
        // look-alike of an approved tool may be another tool.
        if config.auto_approved_tools.contains(tool)
            || alias.is_some_and(|a| config.auto_approved_tools.contains(a))
        {
            let message = "the tool is auto-approved by configuration";
            return (
                Action::Allow,
                Source::Config,
                Some(Finding::new(codes::CONFIG_AUTO_APPROVED, message)),
                message.to_owned(),
            );
        }
        if config.mode == Mode::Allowlist {
            return said(
                Action::Confirm,
                Source::Config,
                codes::MODE_ALLOWLIST,
                String::from(
                    "allowlist mode: the tool is not auto-approved and no rule allows the call",
                ),
            );
        }
        if config.mode == Mode::AcceptEdits && self.accepts_edit(tool, facts) {
            return said(
                Action::Allow,
                Source::Rule,
                codes::MODE_ACCEPT_EDITS,
                String::from("accept-edits mode: a file edit under the tool's roots"),
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
        // The `egress` setting is the deployment's, like a deny list: a
        // model's `low` (which a prompt-injected model sets at will) cannot
        // send data out through a read it holds back, in either trust mode.
        // (A destructive call under guarded trust is the floor's, below.)
        let guarded = config.model_trust == ModelTrust::Guarded;
        let sensitive = assessment
            .findings
            .iter()
            .find(|f| codes::SENSITIVE.contains(&f.code.as_str()));
        let floored = guarded && assessment.verdict == Verdict::Destructive;
        if let Some(egress) = assessment
            .findings
            .iter()
            .find(|f| f.code == codes::NETWORK_EGRESS && !floored)
        {
            return (
                Action::Confirm,
                Source::Config,
                None,
                format!("{}; needs confirmation", egress.message),
            );
        }
        // Nor through a call the code layer could not prove: an unproven
        // command (`curl "$URL"`, an interpreter) or request may reach any host.
        let networked = matches!(
            config.kind_of(tool),
            Some(ToolKind::Command | ToolKind::Http)
        );
        if llm_risk.is_some()
            && config.egress != Egress::Public
            && networked
            && assessment.verdict != Verdict::ReadOnly
            && !floored
        {
            let message = String::from(
                "the call is not proven free of network access and `egress` is not `public`: the model's low rating does not allow it",
            );
            return (
                Action::Confirm,
                Source::Config,
                Some(Finding::new(codes::NETWORK_EGRESS, message.clone())),
                message,
            );
        }
        if let Some(rated) = llm_risk {
            // Low, or medium configured to count as low (`medium_risk:
            // "allow"`): the messages say which the model said.
            let rating = if rated == Risk::Medium {
                "medium"
            } else {
                "low"
            };
            if assessment.verdict == Verdict::Destructive && guarded {
                let message = format!(
                    "{}; the model's {rating} rating is overridden",
                    first_reason()
                );
                return (
                    Action::Confirm,
                    Source::Floor,
                    Some(Finding::new(codes::FLOOR_DESTRUCTIVE, message.clone())),
                    message,
                );
            }
            if let Some(finding) = sensitive.filter(|_| guarded) {
                let message = format!(
                    "{}; the model's {rating} rating is overridden",
                    finding.message
                );
                return (
                    Action::Confirm,
                    Source::Floor,
                    Some(Finding::new(codes::FLOOR_SENSITIVE, message.clone())),
                    message,
                );
            }
            // A low is trusted for meaning, never for reading: what the code
            // layer could not read, a model's rating does not stand in for.
            if let Some(finding) = assessment
                .findings
                .iter()
                .find(|f| codes::UNREADABLE.contains(&f.code.as_str()))
                .filter(|_| guarded)
            {
                let message = format!(
                    "{}; the code layer could not read the call, so the model's {rating} rating does not stand",
                    finding.message
                );
                return (
                    Action::Confirm,
                    Source::Floor,
                    Some(Finding::new(codes::FLOOR_UNREADABLE, message.clone())),
                    message,
                );
            }
            if rated == Risk::Medium {
                let message =
                    "the model rated the call medium risk, which `medium_risk: \"allow\"` lets run";
                return (
                    Action::Allow,
                    Source::Llm,
                    Some(Finding::new(codes::LLM_MEDIUM, message)),
                    message.to_owned(),
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
            return (Action::Allow, assessment.proof, None, first_reason());
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

impl Engine {
    /// Whether accept-edits mode allows the call: a write or create by a
    /// file tool, on a clean path inside its roots (relative when it has
    /// none, so inside its working directory).
    fn accepts_edit(&self, tool: &str, facts: &Facts) -> bool {
        let Facts::File(f) = facts else {
            return false;
        };
        let rooted = self
            .config
            .tools
            .get(tool)
            .is_some_and(|t| !t.roots.is_empty());
        self.config.kind_of(tool) == Some(ToolKind::File)
            && f.clean
            && crate::assess::file::EDITS.contains(&f.operation.as_str())
            && (rooted || !f.path.starts_with('/'))
    }
}

/// The answer for input the policy cannot read (the call, its arguments, the
/// caller's context): confirm, with the one finding that says why.
fn unreadable(tool: &str, finding: Finding) -> Decision {
    let summary = summary(
        tool,
        "",
        &format!("{}; needs confirmation", finding.message),
    );
    Decision {
        action: Action::Confirm,
        risk: Risk::Medium,
        source: Source::Default,
        llm_risk: None,
        findings: vec![finding],
        summary,
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
