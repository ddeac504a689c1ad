//! The component's export glue: converts between the WIT types and the policy's
//! own. Compiled only for `wasm32`; no logic lives here.

use crate::{decision, Engine, Language};
use std::sync::OnceLock;

wit_bindgen::generate!({
    world: "toolgate",
    path: "../wit",
});

use exports::toolgate::policy::gate::{Driver, Flow, GuestDriver, GuestFlow, StepError};
use exports::toolgate::policy::policy::{Guest, GuestEngine};
use exports::toolgate::policy::records::{
    AuditBreak, AuditSummary, CheckpointError, RecheckVerdict as Recheck,
};
use exports::toolgate::policy::types as wit;

struct Component;

/// The engine resource: one configured policy.
struct EngineResource(Engine);

fn default_engine() -> &'static Engine {
    static DEFAULT: OnceLock<Engine> = OnceLock::new();
    DEFAULT.get_or_init(Engine::default)
}

fn risk(risk: decision::Risk) -> wit::Risk {
    match risk {
        decision::Risk::Low => wit::Risk::Low,
        decision::Risk::Medium => wit::Risk::Medium,
        decision::Risk::High => wit::Risk::High,
    }
}

fn action(action: decision::Action) -> wit::Action {
    match action {
        decision::Action::Allow => wit::Action::Allow,
        decision::Action::Confirm => wit::Action::Confirm,
        decision::Action::Deny => wit::Action::Deny,
    }
}

fn to_wit(d: decision::Decision) -> wit::Decision {
    wit::Decision {
        action: action(d.action),
        risk: risk(d.risk),
        source: match d.source {
            decision::Source::Config => wit::Source::Config,
            decision::Source::Strict => wit::Source::Strict,
            decision::Source::Llm => wit::Source::Llm,
            decision::Source::Floor => wit::Source::Floor,
            decision::Source::Whitelist => wit::Source::Whitelist,
            decision::Source::Registry => wit::Source::Registry,
            decision::Source::Default => wit::Source::Default,
            decision::Source::Rule => wit::Source::Rule,
        },
        llm_risk: d.llm_risk.map(risk),
        findings: d
            .findings
            .into_iter()
            .map(|f| wit::Finding {
                code: f.code,
                message: f.message,
            })
            .collect(),
        summary: d.summary,
    }
}

fn call_format(format: crate::CallFormat) -> wit::CallFormat {
    match format {
        crate::CallFormat::Plain => wit::CallFormat::Plain,
        crate::CallFormat::OpenaiChat => wit::CallFormat::OpenaiChat,
        crate::CallFormat::OpenaiResponses => wit::CallFormat::OpenaiResponses,
        crate::CallFormat::Anthropic => wit::CallFormat::Anthropic,
        crate::CallFormat::Mcp => wit::CallFormat::Mcp,
        crate::CallFormat::Gemini => wit::CallFormat::Gemini,
        crate::CallFormat::AiSdk => wit::CallFormat::AiSdk,
    }
}

impl Guest for Component {
    type Engine = EngineResource;

    fn assess(tool: String, args: String) -> wit::Decision {
        to_wit(default_engine().assess(&tool, &args))
    }

    fn parse_call(call: String) -> Result<wit::ToolCall, String> {
        crate::parse_call(&call)
            .map(|c| wit::ToolCall {
                tool: c.tool,
                args: c.args,
                id: c.id,
                format: call_format(c.format),
            })
            .map_err(|e| e.to_string())
    }

    fn strip_risk_level(args: String) -> Result<String, String> {
        crate::strip_risk_level(&args).map_err(|e| e.to_string())
    }

    fn hook_unconfigured(format: String, error: String) -> Result<wit::HookAnswer, String> {
        crate::hooks::unconfigured(&format, &error)
            .map(|a| wit::HookAnswer {
                output: a.output,
                error: a.error,
                exit: a.exit,
            })
            .map_err(|e| e.to_string())
    }

    fn guidance(language: String) -> String {
        crate::guidance(Language::from_tag(&language)).to_owned()
    }

    fn version() -> String {
        crate::VERSION.to_owned()
    }

    fn read_response(status: u16, body: String) -> Result<String, String> {
        crate::read_response(status, &body)
    }

    fn layer_config(layers: String) -> Result<String, String> {
        let layers: Vec<crate::configure::layers::LayerText> =
            serde_json::from_str(&layers).map_err(|e| format!("invalid layers: {e}"))?;
        crate::configure::layers::layered(&layers)
            .map(|merged| serde_json::to_string(&merged).unwrap_or_default())
            .map_err(|e| e.to_string())
    }

    fn import_openapi(spec: String, options: String) -> Result<String, String> {
        crate::registry::openapi::import_openapi(&spec, &options)
            .map(|imported| serde_json::to_string(&imported).unwrap_or_default())
            .map_err(|e| e.to_string())
    }
}

fn finding(f: decision::Finding) -> wit::Finding {
    wit::Finding {
        code: f.code,
        message: f.message,
    }
}

impl GuestEngine for EngineResource {
    fn create(config: String) -> Result<exports::toolgate::policy::policy::Engine, String> {
        Engine::from_text(&config)
            .map(|engine| exports::toolgate::policy::policy::Engine::new(EngineResource(engine)))
            .map_err(|e| e.to_string())
    }

    fn assess(&self, tool: String, args: String) -> wit::Decision {
        to_wit(self.0.assess(&tool, &args))
    }

    fn assess_in(&self, tool: String, args: String, context: String) -> wit::Decision {
        to_wit(self.0.assess_in(&tool, &args, &context))
    }

    fn assess_call(&self, call: String) -> wit::Decision {
        to_wit(self.0.assess_call(&call))
    }

    fn assess_many(&self, calls: Vec<(String, String)>) -> Vec<wit::Decision> {
        calls
            .into_iter()
            .map(|(tool, args)| to_wit(self.0.assess(&tool, &args)))
            .collect()
    }

    fn discover(
        &self,
        intent: String,
        category: Option<String>,
        limit: u32,
    ) -> Vec<wit::Candidate> {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        crate::registry::discover(self.0.config(), &intent, category.as_deref(), limit)
            .into_iter()
            .map(|c| wit::Candidate {
                name: c.name,
                display_name: c.display_name,
                description: c.description,
                category: c.category,
                risk_level: c.risk_level,
                score: c.score,
                matched: c.matched,
            })
            .collect()
    }

    fn tool_prompt(&self, tools: Vec<String>, language: String) -> String {
        crate::registry::tool_prompt(self.0.config(), &tools, Language::from_tag(&language))
    }

    fn build_request(
        &self,
        tool: String,
        args: String,
    ) -> Result<wit::ApiRequest, Vec<wit::Finding>> {
        crate::build_request(self.0.config(), &tool, &args)
            .map(|r| wit::ApiRequest {
                method: r.method,
                path: r.path,
                query: r.query,
                url: r.url,
                body: r.body,
            })
            .map_err(|findings| findings.into_iter().map(finding).collect())
    }

    fn read_tool_response(
        &self,
        tool: String,
        status: u16,
        body: String,
    ) -> Result<String, String> {
        crate::registry::read_tool_response(self.0.config(), &tool, status, &body)
    }

    fn check_line(&self, number: u64, line: Vec<u8>) -> Option<wit::CheckedLine> {
        self.0
            .check_line(number, &line)
            .map(|checked| wit::CheckedLine {
                output: checked.output,
                action: checked.action.map(action),
            })
    }

    fn check_line_in(
        &self,
        number: u64,
        line: Vec<u8>,
        context: String,
    ) -> Option<wit::CheckedLine> {
        self.0
            .check_line_in(number, &line, &context)
            .map(|checked| wit::CheckedLine {
                output: checked.output,
                action: checked.action.map(action),
            })
    }

    fn assess_plan(
        &self,
        plan: String,
        results: String,
        context: String,
    ) -> Result<String, String> {
        self.0
            .assess_plan(&plan, &results, &context)
            .map(|decided| decided.to_json())
            .map_err(|e| e.to_string())
    }

    fn complete_args(
        &self,
        tool: String,
        args: String,
        context: String,
        now: u64,
    ) -> Result<String, Vec<wit::Finding>> {
        let context = crate::Context::from_json(&context).map_err(|e| {
            vec![finding(crate::Finding::new(
                crate::codes::CONTEXT_INVALID,
                e.to_string(),
            ))]
        })?;
        crate::registry::complete_args(self.0.config(), &tool, &args, &context, now)
            .map_err(|findings| findings.into_iter().map(finding).collect())
    }

    fn hook(&self, format: String, event: Vec<u8>) -> Result<wit::HookAnswer, String> {
        self.0
            .hook(&format, &event)
            .map(|a| wit::HookAnswer {
                output: a.output,
                error: a.error,
                exit: a.exit,
            })
            .map_err(|e| e.to_string())
    }

    fn augment_tools(
        &self,
        tools: String,
        format: Option<String>,
    ) -> Result<wit::Augmented, String> {
        self.0
            .augment_tools_as(&tools, format.as_deref())
            .map(|a| wit::Augmented {
                tools: a.tools,
                notes: a.notes,
            })
            .map_err(|e| e.to_string())
    }
}

impl exports::toolgate::policy::records::Guest for Component {
    fn seal_checkpoint(pending: String, key: Option<Vec<u8>>) -> Result<String, CheckpointError> {
        crate::seal_checkpoint(&pending, key.as_deref()).map_err(checkpoint_error)
    }

    fn open_checkpoint(
        checkpoint: String,
        key: Option<Vec<u8>>,
    ) -> Result<String, CheckpointError> {
        crate::open_checkpoint(&checkpoint, key.as_deref()).map_err(checkpoint_error)
    }

    fn seal_audit(entry: String, previous: Option<String>) -> Result<String, String> {
        crate::seal_audit(&entry, previous.as_deref()).map_err(|e| e.to_string())
    }

    fn recheck(sealed: String, current: String) -> Result<Recheck, String> {
        crate::records::recheck_json(&sealed, &current).map(|r| match r {
            crate::records::Recheck::Stands => Recheck::Stands,
            crate::records::Recheck::Denied => Recheck::Denied,
            crate::records::Recheck::Changed => Recheck::Changed,
        })
    }

    fn config_hash(config: String) -> String {
        crate::records::config_hash(&config)
    }

    fn args_diff(before: String, after: String) -> Result<String, String> {
        crate::args_diff(&before, &after)
            .map_err(|e| e.to_string())
            .and_then(|changes| serde_json::to_string(&changes).map_err(|e| e.to_string()))
    }

    fn seal_audit_keyed(
        entry: String,
        previous: Option<String>,
        key: Vec<u8>,
    ) -> Result<String, String> {
        crate::records::seal_audit_keyed(&entry, previous.as_deref(), &key)
            .map_err(|e| e.to_string())
    }

    fn verify_audit_keyed(log: String, key: Vec<u8>) -> Result<AuditSummary, AuditBreak> {
        audit_summary(crate::records::verify_audit_keyed(&log, &key))
    }

    fn verify_audit(log: String) -> Result<AuditSummary, AuditBreak> {
        audit_summary(crate::verify_audit(&log))
    }
}

fn audit_summary(
    verified: Result<crate::AuditSummary, crate::AuditError>,
) -> Result<AuditSummary, AuditBreak> {
    verified
        .map(|s| AuditSummary {
            records: s.records,
            head: s.head,
        })
        .map_err(|e| match e {
            crate::AuditError::Broken { line, reason } => AuditBreak {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                reason,
            },
            other => AuditBreak {
                line: 0,
                reason: other.to_string(),
            },
        })
}

fn checkpoint_error(e: crate::CheckpointError) -> CheckpointError {
    match e {
        crate::CheckpointError::Invalid(m) => CheckpointError::Invalid(m),
        crate::CheckpointError::Format(f) => CheckpointError::Format(f),
        crate::CheckpointError::Unsigned => CheckpointError::Unsigned,
        crate::CheckpointError::Forged => CheckpointError::Forged,
        crate::CheckpointError::WeakKey(n) => CheckpointError::WeakKey(n),
    }
}

/// The flow resource: one gate's approval flow.
struct FlowResource(std::rc::Rc<crate::flow::Flow>);

/// The driver resource: one operation of a gate, over its flow.
struct DriverResource {
    flow: std::rc::Rc<crate::flow::Flow>,
    driver: std::cell::RefCell<crate::flow::driver::Driver>,
}

impl GuestDriver for DriverResource {
    fn next(&self, outcome: Option<String>) -> Result<String, StepError> {
        self.driver
            .borrow_mut()
            .next(&self.flow, outcome.as_deref())
            .map_err(step_error)
    }

    fn step(&self, outcomes: Vec<String>) -> Result<Vec<String>, StepError> {
        let outcomes: Vec<&str> = outcomes.iter().map(String::as_str).collect();
        self.driver
            .borrow_mut()
            .step(&self.flow, &outcomes)
            .map_err(step_error)
    }
}

fn step_text(
    step: Result<toolgate_shapes::gate::Step, crate::flow::StepError>,
) -> Result<String, StepError> {
    step.map_err(step_error)
        .and_then(|s| serde_json::to_string(&s).map_err(|e| StepError::Invalid(e.to_string())))
}

fn step_error(e: crate::flow::StepError) -> StepError {
    match e {
        crate::flow::StepError::Checkpoint(c) => StepError::Checkpoint(checkpoint_error(c)),
        crate::flow::StepError::Invalid(m) => StepError::Invalid(m),
        // A refused grant reads as invalid input, its finding code first.
        e @ crate::flow::StepError::Grant(_) => StepError::Invalid(e.to_string()),
    }
}

impl exports::toolgate::policy::gate::Guest for Component {
    type Flow = FlowResource;
    type Driver = DriverResource;
}

impl GuestFlow for FlowResource {
    fn create(
        config: String,
        settings: String,
        checkpoint_key: Option<Vec<u8>>,
        audit_key: Option<Vec<u8>>,
    ) -> Result<Flow, String> {
        crate::flow::Flow::new(
            &config,
            &settings,
            checkpoint_key.as_deref(),
            audit_key.as_deref(),
        )
        .map(|f| Flow::new(FlowResource(std::rc::Rc::new(f))))
        .map_err(|e| e.to_string())
    }

    fn begin(
        &self,
        call: String,
        id: String,
        now: u64,
        previous: Option<String>,
    ) -> Result<String, StepError> {
        step_text(self.0.begin(&call, &id, now, previous.as_deref()))
    }

    fn open(&self, checkpoint: String) -> Result<String, StepError> {
        self.0
            .open(&checkpoint)
            .map_err(step_error)
            .and_then(|p| serde_json::to_string(&p).map_err(|e| StepError::Invalid(e.to_string())))
    }

    fn settle(
        &self,
        checkpoint: String,
        answer: String,
        now: u64,
        previous: Option<String>,
    ) -> Result<String, StepError> {
        step_text(
            self.0
                .settle(&checkpoint, &answer, now, previous.as_deref()),
        )
    }

    fn finish(
        &self,
        ticket: String,
        ran: String,
        now: u64,
        previous: Option<String>,
    ) -> Result<String, StepError> {
        step_text(self.0.finish(&ticket, &ran, now, previous.as_deref()))
    }

    fn gap(&self, what: String, now: u64, previous: Option<String>) -> Result<String, StepError> {
        self.0
            .gap(&what, now, previous.as_deref())
            .map_err(step_error)
    }

    fn open_grant(&self, grant: String, now: u64) -> Result<String, StepError> {
        self.0.open_grant(&grant, now).map_err(step_error)
    }

    fn revoke(
        &self,
        grant: String,
        now: u64,
        previous: Option<String>,
    ) -> Result<String, StepError> {
        self.0
            .revoke(&grant, now, previous.as_deref())
            .map_err(step_error)
    }

    fn drive(&self, op: String) -> Result<Driver, StepError> {
        crate::flow::driver::Driver::new(&op)
            .map(|driver| {
                Driver::new(DriverResource {
                    flow: std::rc::Rc::clone(&self.0),
                    driver: std::cell::RefCell::new(driver),
                })
            })
            .map_err(step_error)
    }

    fn start(&self, op: String) -> Result<(Driver, Vec<String>), StepError> {
        let mut driver = crate::flow::driver::Driver::new(&op).map_err(step_error)?;
        let batch = driver.step(&self.0, &[]).map_err(step_error)?;
        let resource = Driver::new(DriverResource {
            flow: std::rc::Rc::clone(&self.0),
            driver: std::cell::RefCell::new(driver),
        });
        Ok((resource, batch))
    }
}

export!(Component);
