//! Seed 002's generic API tools, end to end: discovery and the tool prompt, the
//! request (built by the component, so every runtime sends the same request
//! for the same call), and [`ApiClient`], which sends it with the caller's base
//! URL and credentials and turns the response into a result for the model.
//!
//! Wired through the approval gate, a registry tool call is: discover → the
//! model picks → assess → (approve) → build → execute → result → audit:
//!
//! ```no_run
//! # use toolgate::{Call, Gate, Policy, registry::ApiClient};
//! # let policy = Policy::embedded()?;
//! # let config = "{}";
//! let gate = Gate::builder(&policy).config(config).build()?;
//! let client = ApiClient::new(&policy, "http://monitoring.internal")
//!     .header("Authorization", "Bearer <the user's token>");
//! let call = Call::new("alert_mute_create", r#"{"id": 1, "targets": ["host-01"]}"#);
//! let result = gate.run(&call, client.executor(gate.engine(), &call.tool))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::bindings::exports::toolgate::policy::types as wit;
use crate::decision::Finding;
use crate::runtime::{Engine, Error, Policy};
use toolgate_shapes::config::{LayerText, Layered};

pub use toolgate_shapes::registry::{ApiRequest, Candidate};

fn candidate(c: wit::Candidate) -> Candidate {
    Candidate {
        name: c.name,
        display_name: c.display_name,
        description: c.description,
        category: c.category,
        risk_level: c.risk_level,
        score: c.score,
        matched: c.matched,
    }
}

/// Why no request was built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The call cannot become a request: missing parameters, a path parameter
    /// that would change the path, not a registry API tool. Every reason is
    /// listed; nothing was sent.
    #[error("{}", .0.iter().map(|f| f.message.as_str()).collect::<Vec<_>>().join("; "))]
    Refused(Vec<Finding>),
    /// The policy faulted.
    #[error(transparent)]
    Policy(#[from] Error),
}

impl Engine {
    /// The enabled API and MCP tools of this configuration that match a user's
    /// intent, best first, at most `limit` (0: all), optionally in one category.
    pub fn discover(
        &self,
        intent: &str,
        category: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Candidate>, Error> {
        let found = self.call_engine_fn(|policy, store, resource| {
            policy
                .engine()
                .call_discover(store, resource, intent, category, limit)
        })?;
        Ok(found.into_iter().map(candidate).collect())
    }

    /// The named tools as a numbered list for the model, in `language` (`en`
    /// or `zh`).
    pub fn tool_prompt(&self, tools: &[String], language: &str) -> Result<String, Error> {
        self.call_engine_fn(|policy, store, resource| {
            policy
                .engine()
                .call_tool_prompt(store, resource, tools, language)
        })
    }

    /// [`Policy::read_response`] for registry tool `tool`: rendered through
    /// the tool's `response_template` when it has one.
    pub fn read_tool_response(
        &self,
        tool: &str,
        status: u16,
        body: &str,
    ) -> Result<Result<String, String>, Error> {
        self.call_engine_fn(|policy, store, resource| {
            policy
                .engine()
                .call_read_tool_response(store, resource, tool, status, body)
        })
    }

    /// Seed 002 §4.3's argument completion for registry tool `tool`: the
    /// model's argument names mapped to the API's (the tool's
    /// `argument_names`), parameters left out filled from the context's
    /// `defaults` (the user's default business group), a `duration` in
    /// seconds turned into `btime`/`etime` from `now_ms` (the caller's
    /// clock, ms since the Unix epoch). Complete a call before it is
    /// decided, so the call a person approves is the one sent.
    pub fn complete_args(
        &self,
        tool: &str,
        args: &str,
        context: &str,
        now_ms: u64,
    ) -> Result<String, RequestError> {
        let completed = self.call_engine_fn(|policy, store, resource| {
            policy
                .engine()
                .call_complete_args(store, resource, tool, args, context, now_ms)
        })?;
        completed.map_err(|findings| {
            RequestError::Refused(
                findings
                    .into_iter()
                    .map(|f| Finding {
                        code: f.code,
                        message: f.message,
                    })
                    .collect(),
            )
        })
    }

    /// Decides every step of seed 002 §4.2's multi-step plan with the
    /// results known so far (`results`: JSON, step number → result; `""`
    /// for none) in the caller's context (`""` for none). A step holding a
    /// reference to a result not known yet is never allowed; see
    /// [`crate::plan::run_plan`] for running a plan through a gate.
    /// [`Error::Rejected`] says why a plan cannot be read.
    pub fn assess_plan(
        &self,
        plan: &str,
        results: &str,
        context: &str,
    ) -> Result<toolgate_shapes::plan::PlanDecision, Error> {
        let decided = self.call_engine_fn(|policy, store, resource| {
            policy
                .engine()
                .call_assess_plan(store, resource, plan, results, context)
        })?;
        let text = decided.map_err(Error::Rejected)?;
        serde_json::from_str(&text).map_err(|e| Error::Rejected(format!("plan decision: {e}")))
    }

    /// The request for calling registry tool `tool` with `args`.
    pub fn build_request(&self, tool: &str, args: &str) -> Result<ApiRequest, RequestError> {
        let built = self.call_engine_fn(|policy, store, resource| {
            policy
                .engine()
                .call_build_request(store, resource, tool, args)
        })?;
        built
            .map(|r| ApiRequest {
                method: r.method,
                path: r.path,
                query: r.query,
                url: r.url,
                body: r.body,
            })
            .map_err(|findings| {
                RequestError::Refused(
                    findings
                        .into_iter()
                        .map(|f| Finding {
                            code: f.code,
                            message: f.message,
                        })
                        .collect(),
                )
            })
    }
}

impl Policy {
    /// A registry API's response as a result for the model (`Ok`) or an error
    /// for it (`Err`): the `dat` of a `{"dat", "error"}` envelope, plain JSON or
    /// text; a non-empty `error` or a status outside 2xx is an error.
    pub fn read_response(&self, status: u16, body: &str) -> Result<Result<String, String>, Error> {
        self.call_policy_fn(|policy, store| policy.call_read_response(store, status, body))
    }

    /// Layered configuration: the managed, project and user `layers` merged
    /// into the configuration a policy runs with (pass `config` to
    /// [`Policy::engine`] or a gate), with one line per effective setting
    /// saying where it came from. A refused layer is
    /// [`Error::Rejected`], naming it.
    pub fn layer_config(&self, layers: &[LayerText]) -> Result<Layered, Error> {
        let text = serde_json::to_string(layers)
            .map_err(|e| Error::Rejected(format!("invalid layers: {e}")))?;
        let answer = self.call_policy_fn(|policy, store| policy.call_layer_config(store, &text))?;
        let json = answer.map_err(Error::Rejected)?;
        serde_json::from_str(&json)
            .map_err(|e| Error::Fault(format!("the merge could not be read: {e}")))
    }

    /// Registry entries and tool definitions from an OpenAPI document given as
    /// JSON text, as the component's JSON answer (`Ok`) or its reason for
    /// refusing (`Err`); see [`crate::openapi::import`] for YAML and typed
    /// results.
    pub fn import_openapi(
        &self,
        spec: &str,
        options: &str,
    ) -> Result<Result<String, String>, Error> {
        self.call_policy_fn(|policy, store| policy.call_import_openapi(store, spec, options))
    }
}

/// Sends registry API requests: a base URL, headers from the caller (the
/// user's credentials; never from the model's arguments), a timeout and a bound
/// on the response size.
#[cfg(feature = "http")]
#[derive(Clone)]
pub struct ApiClient {
    policy: Policy,
    base_url: String,
    headers: Vec<(String, String)>,
    timeout: std::time::Duration,
    max_response_bytes: u64,
    /// Made once per timeout, so requests share its connection pool.
    agent: ureq::Agent,
}

#[cfg(feature = "http")]
impl std::fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values are credentials: never printed.
        f.debug_struct("ApiClient")
            .field("base_url", &self.base_url)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The default bound on a response body: 1 MiB.
#[cfg(feature = "http")]
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 1024 * 1024;

#[cfg(feature = "http")]
impl ApiClient {
    /// A client for the system at `base_url` (`https://monitoring.example`);
    /// 30 s timeout, 1 MiB responses.
    pub fn new(policy: &Policy, base_url: impl Into<String>) -> ApiClient {
        let timeout = std::time::Duration::from_secs(30);
        ApiClient {
            policy: policy.clone(),
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            headers: Vec::new(),
            timeout,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            agent: agent(timeout),
        }
    }

    /// Sends this header with every request (`Authorization`, a tenant id).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> ApiClient {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The whole request's time limit.
    pub fn timeout(mut self, timeout: std::time::Duration) -> ApiClient {
        self.timeout = timeout;
        self.agent = agent(timeout);
        self
    }

    /// The largest response body accepted; a larger one is an error.
    pub fn max_response_bytes(mut self, bytes: u64) -> ApiClient {
        self.max_response_bytes = bytes;
        self
    }

    /// Sends `request` and returns the result for the model, or the error for
    /// it (unreachable server, timeout, oversized response, non-2xx status, an
    /// `error` in the envelope).
    pub fn execute(&self, request: &ApiRequest) -> Result<String, String> {
        let (status, body) = self.send(request)?;
        self.policy
            .read_response(status, &body)
            .map_err(|e| format!("the response could not be read: {e}"))?
    }

    /// [`ApiClient::execute`] for registry tool `tool` of `engine`: the
    /// response is read with the tool's `response_template`, if it has one.
    pub fn execute_tool(
        &self,
        engine: &Engine,
        tool: &str,
        request: &ApiRequest,
    ) -> Result<String, String> {
        let (status, body) = self.send(request)?;
        engine
            .read_tool_response(tool, status, &body)
            .map_err(|e| format!("the response could not be read: {e}"))?
    }

    /// Sends `request`: its status and body (bounded), or the error for the model.
    fn send(&self, request: &ApiRequest) -> Result<(u16, String), String> {
        let mut builder = ureq::http::Request::builder()
            .method(request.method.as_str())
            .uri(format!("{}{}", self.base_url, request.url));
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let made = |e: ureq::http::Error| format!("the request could not be made: {e}");
        let sent = match &request.body {
            Some(body) => builder
                .header("Content-Type", "application/json")
                .body(body.clone())
                .map_err(made)
                .and_then(|r| self.agent.run(r).map_err(|e| self.describe(&e))),
            // No body at all (not an empty one) for GET and the like.
            None => builder
                .body(())
                .map_err(made)
                .and_then(|r| self.agent.run(r).map_err(|e| self.describe(&e))),
        };
        let mut response = sent?;
        let status = response.status().as_u16();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(self.max_response_bytes)
            .read_to_vec()
            .map_err(|e| self.describe(&e))?;
        Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
    }

    fn describe(&self, error: &ureq::Error) -> String {
        match error {
            ureq::Error::Timeout(_) => format!("no answer within {} s", self.timeout.as_secs_f64()),
            ureq::Error::BodyExceedsLimit(limit) => {
                format!("the response is larger than {limit} bytes")
            }
            other => format!("the request failed: {other}"),
        }
    }

    /// An executor for [`crate::Gate::run`]: builds the request for `tool` from
    /// the arguments the gate passes (after approval and edits) and sends it. A
    /// call that cannot become a request fails with the reasons; nothing is sent.
    pub fn executor<'a>(
        &'a self,
        engine: &'a Engine,
        tool: &'a str,
    ) -> impl FnOnce(&str) -> Result<String, String> + 'a {
        move |args| {
            let request = engine
                .build_request(tool, args)
                .map_err(|e| e.to_string())?;
            self.execute_tool(engine, tool, &request)
        }
    }
}

/// An HTTP agent with this whole-request time limit, treating every status as
/// a response (the policy reads non-2xx answers) and following no redirect.
#[cfg(feature = "http")]
fn agent(timeout: std::time::Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}
