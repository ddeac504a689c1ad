//! The configuration of one deployment, read from JSON.
//!
//! Every field is optional; `{}` is the default policy. Unknown fields are an error
//! rather than ignored, because a misspelt `denied_tools` silently allowing a tool
//! is exactly the failure a policy must not have.

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

pub mod layers;
mod locate;
mod names;
mod seed002;
pub mod workflow;

/// How far a model's own `risk_level: "low"` is trusted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelTrust {
    /// `low` allows the call unless the code layer proves it destructive: a
    /// prompt-injected model cannot wave `DROP TABLE` through.
    #[default]
    Guarded,
    /// `low` always allows: the literal behaviour of the origin design.
    Trust,
}

/// What a model's `risk_level: "medium"` means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MediumRisk {
    /// Medium is treated as high: a person confirms.
    #[default]
    Confirm,
    /// Medium is treated as low (and so still subject to the guarded floor).
    Allow,
}

/// The policy's configuration. See the README for each field.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Confirm every call that is not denied, whatever the model or the assessors say.
    pub strict: bool,
    /// How far the model's `low` is trusted.
    pub model_trust: ModelTrust,
    /// What the model's `medium` means.
    pub medium_risk: MediumRisk,
    /// Tools that are never run.
    pub denied_tools: BTreeSet<String>,
    /// Tools that always run without confirmation (the approval flow's whitelist).
    pub auto_approved_tools: BTreeSet<String>,
    /// Arguments longer than this many bytes are not analysed: confirm.
    pub max_args_bytes: usize,
    /// Per-tool settings, by tool name: the assessor a tool uses and its options.
    pub tools: BTreeMap<String, ToolConfig>,
    /// MCP servers by name, and whether their read-only hints are trusted.
    pub mcp_servers: BTreeMap<String, McpServer>,
    /// What a registry tool of level 2 (modifies) gets: `confirm` (the
    /// default), `notify` (allowed, with a `registry.notify` finding a UI
    /// shows the user) or `inform` (seed 002 §6.2's word: allowed, with a
    /// `registry.inform` finding).
    pub registry_level2: Level2,
    /// What an outbound network read may reach: `public` (the default),
    /// `allow_hosts` or `confirm`. `deny_hosts` denies in every setting.
    pub egress: Egress,
    /// Rules people write: allow, ask or deny what they match (see
    /// [`crate::rules`]).
    pub rules: Vec<crate::rules::Rule>,
    /// What a managed layer keeps lower layers from loosening (see
    /// [`layers`]); read by the merge, refused in other layers, nothing in a
    /// configuration of its own.
    pub locks: Locks,
    /// How calls no rule decides are treated: `default`, `read-only`,
    /// `accept-edits` or `allowlist` (see [`Mode`]).
    pub mode: Mode,
    /// How long a gate waits for a person's answer, in milliseconds (seed
    /// 004's `approvalTimeout`); `None` leaves the gate's own default. The
    /// policy does not wait: the hosts' gates read it from here.
    pub approval_timeout_ms: Option<u64>,
    /// A named set of settings: `default`, or `seeds` (seeds 001–004 as
    /// written; see [`Profile`]). A setting the profile fixes may be written
    /// beside it only with the profile's value.
    pub profile: Profile,
    /// How the hosts' command executors (`toolgate exec`) run what is
    /// allowed: confined, and refused where no confinement can be set up,
    /// unless `unconfined: "allow"` (unsafe; see docs/confinement.md). The
    /// policy's decisions do not read it.
    pub exec: Exec,
    /// How commands are judged: `history_is_secret` (see [`Commands`]).
    pub commands: Commands,
}

/// How the command assessor reads what a command prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Commands {
    /// Content committed to the repository's history is secret: commands
    /// that print it (`git log -p`, `git show`, `git grep` over a revision,
    /// `git diff` against one, `git blame` of one) are confirmed with
    /// `command.history`. Off by default: history counts as the user's code,
    /// as the working tree does (SECURITY.md, "Commands").
    pub history_is_secret: bool,
}

/// The command executors' settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Exec {
    /// Whether a command may run without the confinement.
    pub unconfined: Unconfined,
    /// Wall time of one command, in milliseconds (else the executor's
    /// default, two minutes).
    pub timeout_ms: Option<u64>,
    /// Bytes of output passed on (else 16 MiB).
    pub max_output_bytes: Option<u64>,
    /// Processes and threads at once (else 256).
    pub max_processes: Option<u32>,
    /// Memory (else 2 GiB).
    pub max_memory_bytes: Option<u64>,
}

/// Whether a command may run unconfined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unconfined {
    /// Never: where the confinement cannot be set up, the command is refused
    /// with what is missing.
    #[default]
    Refuse,
    /// Where the confinement cannot be set up, or the command needs more
    /// than it grants, the command runs on the machine itself. Unsafe: a
    /// wrong "read-only" then has its real effect.
    Allow,
}

/// What lower layers may not loosen under a managed layer (see [`layers`]).
/// Whatever the managed layer denies or confirms is locked without these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Locks {
    /// Lower layers' `auto_approved_tools` are dropped.
    pub auto_approved_tools: bool,
    /// Lower layers' allow rules are dropped.
    pub allow_rules: bool,
    /// Lower layers' `mode`, `strict`, `model_trust`, `medium_risk`,
    /// `egress`, `registry_level2` and `profile` are ignored.
    pub modes: bool,
}

/// One setting for how calls that no rule decides are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The built-in order: proven reads run, the model's rating counts.
    #[default]
    Default,
    /// Planning: anything not proven read-only is denied, not asked; no rule
    /// or grant allows it.
    ReadOnly,
    /// File writes and creates on clean paths under the file tool's roots
    /// run unasked, as if an allow rule said so.
    AcceptEdits,
    /// Seed 004: only `auto_approved_tools` and allow rules (and grants) run
    /// unasked; every other call is confirmed, even a proven read, whatever
    /// the model says. Denies still deny.
    Allowlist,
}

impl Mode {
    /// The name as the configuration spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::ReadOnly => "read-only",
            Mode::AcceptEdits => "accept-edits",
            Mode::Allowlist => "allowlist",
        }
    }
}

/// An MCP server's settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpServer {
    /// Whether a read-only hint from this server may allow a call.
    pub trusted: bool,
}

/// What registry level 2 means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level2 {
    /// A person confirms.
    #[default]
    Confirm,
    /// Allowed, and the decision says to tell the user.
    Notify,
    /// Seed 002 §6.2 as written, "执行前告知用户操作内容": allowed, with a
    /// `registry.inform` finding that a host shows the user as the call
    /// runs (the seed-faithful profile's setting).
    Inform,
}

/// A named set of settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The settings as written (the guarded defaults where none is).
    #[default]
    Default,
    /// Seeds 001–004 as written: the model's `low` is trusted even for a
    /// call the code layer proves destructive (`model_trust: "trust"`), its
    /// `medium` is confirmed (`medium_risk: "confirm"`), and registry level
    /// 2 runs and informs (`registry_level2: "inform"`). What no setting
    /// lifts stays: denials, the approval channel, toolgate's self-protection
    /// and a managed layer's locks.
    Seeds,
}

impl Profile {
    /// The settings the profile fixes, as the configuration spells them.
    pub const SEEDS: [(&'static str, &'static str); 3] = [
        ("model_trust", "trust"),
        ("medium_risk", "confirm"),
        ("registry_level2", "inform"),
    ];
}

/// What an outbound network read may reach: one setting for `http_request`
/// and for the command-line programs that contact a host (`curl`, `ping`,
/// `dig`, `host`, `nslookup`). An agent that holds private data and reads
/// untrusted content can be steered to put that data in a URL or a name it
/// looks up; a read-only GET is then an exfiltration channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Egress {
    /// A read from any public host is read-only (internal hosts still need
    /// `allow_hosts`).
    #[default]
    Public,
    /// A read is allowed only from a host on the tool's `allow_hosts`.
    AllowHosts,
    /// Every outbound network read is confirmed.
    Confirm,
}

/// Which built-in assessor a tool uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// SQL text, proven read-only statement by statement.
    Sql,
    /// A shell command line (or an argv array), proven read-only segment by segment.
    Command,
    /// A file operation with a path.
    File,
    /// An HTTP request with a method and a URL.
    Http,
    /// A registry API tool: one endpoint of the deployment's own system.
    Api,
    /// A tool of an MCP server, judged by its annotations.
    Mcp,
    /// Seed 002's third type: a script the deployment runs. Seed 002's
    /// executor refuses it (`unsupported tool type`) and seed 000 counts
    /// custom scripts among the uncertain operations, so no check can prove
    /// one harmless: a person confirms (see [`crate::assess::api`]).
    Script,
}

impl ToolKind {
    /// The four built-in tools and their kinds.
    pub const BUILTIN: [(&'static str, ToolKind); 4] = [
        ("execute_sql", ToolKind::Sql),
        ("execute_command", ToolKind::Command),
        ("file_operations", ToolKind::File),
        ("http_request", ToolKind::Http),
    ];

    /// The kind of a built-in tool name.
    pub fn builtin(tool: &str) -> Option<ToolKind> {
        ToolKind::BUILTIN
            .iter()
            .find(|(name, _)| *name == tool)
            .map(|&(_, kind)| kind)
    }

    /// The kind's name as the configuration spells it.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Sql => "sql",
            ToolKind::Command => "command",
            ToolKind::File => "file",
            ToolKind::Http => "http",
            ToolKind::Api => "api",
            ToolKind::Mcp => "mcp",
            ToolKind::Script => "script",
        }
    }
}

/// Settings for one tool. `kind` may be omitted for the four built-in tool
/// names; every other field is optional and belongs to one kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolConfig {
    /// The assessor to use.
    pub kind: Option<ToolKind>,
    /// The argument holding the SQL text, command line, or URL (http), or the
    /// operation name (file). Defaults: `sql`, `command`, `operation`, `url`.
    pub field: Option<String>,
    /// sql: the SQL dialect (`generic`, `postgres`, `mysql`, `sqlite`, `mssql`,
    /// `snowflake`, `bigquery`, `duckdb`, `redshift`, `clickhouse`, `hive`,
    /// `ansi`, `databricks`, `oracle`). Default `generic`.
    pub dialect: Option<String>,
    /// sql: functions to accept as read-only in addition to the built-in list.
    /// Functions with side effects (sleep, file access, locks…) stay refused.
    pub allow_functions: Vec<String>,
    /// file, mcp: the argument holding the path (default `path`). On an MCP
    /// tool it declares the tool a file tool: the path (a string, or an
    /// array of strings) must pass the secret-file table and `roots` before
    /// a read-only hint can allow. Undeclared MCP tools still have the
    /// secret-file table applied to `path`, `paths`, `file`, `file_path`,
    /// `filename`, `source` and `destination` arguments.
    pub path_field: Option<String>,
    /// file, mcp: directories the tool may read without confirmation; paths
    /// outside them (in any reading: POSIX, Windows, file URL) need
    /// confirmation. Empty: any path that is not sensitive.
    pub roots: Vec<String>,
    /// file: the one operation the tool performs (`read` for a tool such as
    /// `read_text_file`), when its arguments name none.
    pub operation: Option<String>,
    /// http: the argument holding the method (default `method`).
    pub method_field: Option<String>,
    /// http: the method when the call names none (default `GET`).
    pub default_method: Option<String>,
    /// http, command: hosts that may be read even if private or local
    /// (`localhost`, `10.0.0.5`, `*.internal.example`); with `egress:
    /// "allow_hosts"`, the only hosts a network read may reach.
    pub allow_hosts: Vec<String>,
    /// http, command: hosts that are configured off (denied).
    pub deny_hosts: Vec<String>,
    /// api: the HTTP method.
    pub method: Option<String>,
    /// api: the URL pattern, with `:name` or `{name}` path parameters
    /// (`url_pattern` in seed 002 is accepted as well).
    #[serde(alias = "url_pattern")]
    pub url: Option<String>,
    /// api, mcp, script: 1 = query, 2 = modify, 3 = delete (seed 002 §2.1,
    /// §6.2). api: derived from the method if absent. mcp, script: level 3
    /// makes the call destructive (confirmed, floored); a lower level lifts
    /// nothing the annotations or the script's uncertainty hold back.
    pub risk_level: Option<u8>,
    /// api, mcp, script: the permission a user needs (checked against the
    /// call's context).
    pub required_permission: Option<String>,
    /// api, mcp, script: whether the tool may be called (default true).
    pub enabled: Option<bool>,
    /// mcp: the server the tool belongs to (see `mcp_servers`).
    pub server: Option<String>,
    /// mcp: the tool's annotations from `tools/list`.
    pub annotations: Option<crate::assess::mcp::Annotations>,
    /// mcp: the name the server exposes the tool under (seed 002's
    /// `mcp_tool_name`), when it is not the entry's own name. Recorded for
    /// the host that forwards the call; the policy decides by the entry's
    /// name.
    pub mcp_tool_name: Option<String>,
    /// api, mcp, script: a name for people and prompts (seed 002's `display_name`).
    pub display_name: Option<String>,
    /// api, mcp, script: what the tool does, for discovery and prompts.
    pub description: Option<String>,
    /// api, mcp, script: the tool's category (`alert`, `target`, …), a discovery filter.
    pub category: Option<String>,
    /// api, mcp, script: words that point to the tool in a user's request, any language
    /// (`["屏蔽", "mute"]`).
    pub keywords: Vec<String>,
    /// api, mcp, script: an example of a request the tool serves, for prompts.
    pub example_prompt: Option<String>,
    /// api, mcp, script: an example of the arguments (a JSON object), for
    /// prompts. `config check` warns about names in it that no schema
    /// declares (see [`Config::warnings`]).
    pub example_params: Option<serde_json::Value>,
    /// api: JSON Schema of the path parameters (its `required` is checked).
    pub path_params_schema: Option<serde_json::Value>,
    /// api: JSON Schema of the query parameters: the arguments it names go to
    /// the query string.
    pub query_params_schema: Option<serde_json::Value>,
    /// api: JSON Schema of the request body: the arguments it names go to the
    /// JSON body.
    pub request_body_schema: Option<serde_json::Value>,
    /// api: the one argument whose value is the whole JSON body, for a body
    /// that is not an object of named fields (an array, or fields whose names
    /// clash with query parameters). Without it the body's fields are
    /// arguments of their own.
    pub body_field: Option<String>,
    /// api, mcp, script: the model's names for arguments the API names
    /// otherwise (seed 002 §7.2: the model says `cause`, the body says
    /// `note`): `{"cause": "note"}`. Argument completion renames them before
    /// the call is decided and its request built.
    pub argument_names: BTreeMap<String, String>,
    /// api: how a response becomes the text given back to the model (see
    /// [`crate::api::template`]); without it the response is passed as it is.
    pub response_template: Option<String>,
    /// Any kind: a person confirms every call of this tool that is not
    /// denied, whatever the model says (a deployment's own side-effect tool,
    /// such as `send_email`, that a model would rate low). Allow rules and
    /// auto-approval do not lift it.
    pub always_confirm: bool,
}

/// The default bound on argument size: far above any real tool call, far below
/// what would make a check slow.
pub const DEFAULT_MAX_ARGS_BYTES: usize = 1024 * 1024;

impl Default for Config {
    fn default() -> Self {
        Config {
            locks: Locks::default(),
            strict: false,
            model_trust: ModelTrust::default(),
            medium_risk: MediumRisk::default(),
            denied_tools: BTreeSet::new(),
            auto_approved_tools: BTreeSet::new(),
            max_args_bytes: DEFAULT_MAX_ARGS_BYTES,
            tools: BTreeMap::new(),
            mcp_servers: BTreeMap::new(),
            registry_level2: Level2::default(),
            egress: Egress::default(),
            rules: Vec::new(),
            mode: Mode::default(),
            approval_timeout_ms: None,
            exec: Exec::default(),
            commands: Commands::default(),
            profile: Profile::default(),
        }
    }
}

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// One layer of a layered configuration was refused (see
    /// [`layers`]): which, and why.
    #[error("the {layer} layer: {source}")]
    InLayer {
        /// `managed`, `project` or `user`.
        layer: &'static str,
        /// Why that layer was refused.
        source: Box<ConfigError>,
    },
    /// The text is not JSON, or a field has the wrong name, type or value.
    #[error("invalid configuration at `{path}`: {message}")]
    Invalid {
        /// The path of the offending field (`.` for the top level).
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// Two spellings of one tool name ([`crate::toolname::fold`]) in the
    /// lists a call's name meets.
    #[error("`{first}` and `{second}` are one tool name in different spellings (case, width or invisible characters); write it once")]
    SameName {
        /// The first spelling.
        first: String,
        /// The second.
        second: String,
    },
    /// A tool is both denied and auto-approved.
    #[error("tool `{tool}` is in both `denied_tools` and `auto_approved_tools`")]
    Conflict {
        /// The tool's name.
        tool: String,
    },
    /// `max_args_bytes` is zero.
    #[error("`max_args_bytes` must be at least 1")]
    ZeroLimit,
    /// A tool that is not built in names no `kind`.
    #[error("`tools.{tool}.kind` is required: `{tool}` is not a built-in tool")]
    MissingKind {
        /// The tool's name.
        tool: String,
    },
    /// A setting that belongs to another kind of tool.
    #[error("`tools.{tool}.{field}` does not apply to a {kind} tool")]
    WrongKind {
        /// The tool's name.
        tool: String,
        /// The setting.
        field: &'static str,
        /// The tool's kind.
        kind: &'static str,
    },
    /// An SQL dialect sqlparser does not know.
    #[error("`tools.{tool}.dialect`: unknown SQL dialect `{dialect}`")]
    UnknownDialect {
        /// The tool's name.
        tool: String,
        /// The dialect named.
        dialect: String,
    },
    /// A rule that would match nothing, or more than its author meant.
    #[error("`rules[{index}]`: {problem}")]
    Rule {
        /// The rule's position in `rules`.
        index: usize,
        /// What is wrong with it.
        problem: crate::rules::RuleProblem,
    },
    /// Seed 004's `workflow` shape holds something the policy cannot map.
    #[error("`{path}`: {message}")]
    Workflow {
        /// Where (`workflow.config.toolApproval.approvalTimeout`).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A value that is empty or malformed.
    #[error("`tools.{tool}.{field}`: {message}")]
    BadValue {
        /// The tool's name.
        tool: String,
        /// The setting.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// Reads a configuration from JSON. An empty or whitespace-only text is the
    /// default configuration.
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        // Deserialize from the text itself, so errors carry line and column.
        if !text.trim_start().starts_with('{') {
            let kind = serde_json::from_str::<serde_json::Value>(text)
                .map(|v| crate::args::json_type(&v))
                .unwrap_or("not JSON");
            return Err(ConfigError::Invalid {
                path: String::from("."),
                message: format!("expected an object, not {kind}"),
            });
        }
        let value: serde_json::Value =
            names::json_value(text).map_err(|e| ConfigError::Invalid {
                path: String::from("."),
                message: e.to_string(),
            })?;
        check_profile(&value)?;
        let config: Config = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            // The position of the member at fault, found in the text by its path.
            let at = locate::locate(text, &path)
                .map(|(line, column)| format!(" at line {line} column {column}"))
                .unwrap_or_default();
            ConfigError::Invalid {
                message: format!("{}{at}", e.into_inner()),
                path,
            }
        })?;
        let config = config.with_profile();
        config.validate()?;
        Ok(config)
    }

    /// Reads a configuration from JSON or TOML (text whose first non-blank
    /// character is not `{`, and that is not a JSON array, is read as TOML).
    /// Either may be written in seed 004's shape (`workflow.config.
    /// toolApproval`; see [`workflow`]) or carry seed 002's tool definitions
    /// (one, a list, or a list under `tools`; see `config::seed002`).
    pub fn from_text(text: &str) -> Result<Config, ConfigError> {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Ok(Config::default());
        }
        // The policy's own JSON is read from its text, so errors carry line
        // and column; seed 004's and seed 002's shapes are lifted first.
        if trimmed.starts_with('{')
            && !workflow::mentions_workflow(text)
            && names::json_value(text).map_or(true, |v| !seed002::applies(&v))
        {
            return Config::from_json(text);
        }
        let value = Config::value_of_text(text)?;
        check_profile(&value)?;
        // Read from the value itself: positions in a JSON text made from TOML
        // would point nowhere the author wrote.
        let config: Config = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            ConfigError::Invalid {
                path,
                message: e.into_inner().to_string(),
            }
        })?;
        let config = config.with_profile();
        config.validate()?;
        Ok(config)
    }

    /// The JSON value of a configuration text (JSON or TOML, seed 004's shape
    /// lifted into the policy's own), not yet checked.
    pub(crate) fn value_of_text(text: &str) -> Result<serde_json::Value, ConfigError> {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Ok(serde_json::Value::Object(serde_json::Map::new()));
        }
        // A JSON array is seed 002's list of tool definitions; TOML may
        // also begin with `[` (a table header), so it is JSON only if it reads.
        let json_list = trimmed
            .starts_with('[')
            .then(|| names::json_value(text).ok())
            .flatten();
        let value: serde_json::Value = if let Some(list) = json_list {
            list
        } else if trimmed.starts_with('{') {
            names::json_value(text).map_err(|e| ConfigError::Invalid {
                path: String::from("."),
                message: e.to_string(),
            })?
        } else {
            toml::from_str(text).map_err(|e| {
                // Where: the line of the error's first byte, as JSON errors say.
                let line = e.span().map_or(0, |span| {
                    text.get(..span.start)
                        .map_or(0, |before| before.matches('\n').count())
                        + 1
                });
                let at = if line > 0 {
                    format!(" at line {line}")
                } else {
                    String::new()
                };
                ConfigError::Invalid {
                    path: String::from("."),
                    message: format!("not JSON, and not TOML: {}{at}", e.message().trim_end()),
                }
            })?
        };
        workflow::lift(seed002::lift(value)?)
    }

    /// The configuration with its profile's settings in force.
    fn with_profile(mut self) -> Config {
        if self.profile == Profile::Seeds {
            self.model_trust = ModelTrust::Trust;
            self.medium_risk = MediumRisk::Confirm;
            self.registry_level2 = Level2::Inform;
        }
        self
    }

    fn validate(&self) -> Result<(), ConfigError> {
        names::check_names(self)?;
        if let Some(tool) = self
            .denied_tools
            .intersection(&self.auto_approved_tools)
            .next()
        {
            return Err(ConfigError::Conflict { tool: tool.clone() });
        }
        if self.max_args_bytes == 0 {
            return Err(ConfigError::ZeroLimit);
        }
        for (tool, settings) in &self.tools {
            settings.validate(tool)?;
        }
        for (index, rule) in self.rules.iter().enumerate() {
            crate::rules::check_rule(self, rule)
                .map_err(|problem| ConfigError::Rule { index, problem })?;
        }
        Ok(())
    }

    /// What the configuration says that contradicts itself without making
    /// it unusable, one sentence each, by tool name: `config check` and
    /// `config explain` print them. Seed 002 §2.3's own example is one: its
    /// `example_params` use `targets` and `duration`, which none of its
    /// schemas declare, and leave out the `btime` and `etime` its body
    /// schema requires (§4.3 has the model compute them). A warning never
    /// refuses a configuration.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, tool) in &self.tools {
            let kind = self.kind_of(name);
            if kind == Some(ToolKind::Script) {
                out.push(format!(
                    "`tools.{name}` is a script tool: seed 002's executor runs none (`unsupported tool type`) and no check can prove one harmless, so every call of it is confirmed"
                ));
            }
            if kind == Some(ToolKind::Api) {
                out.extend(example_warnings(name, tool));
            }
        }
        out
    }

    /// The kind of a tool: configured, or built in.
    pub fn kind_of(&self, tool: &str) -> Option<ToolKind> {
        self.tools
            .get(tool)
            .and_then(|t| t.kind)
            .or_else(|| ToolKind::builtin(tool))
    }
}

/// A setting written beside `profile: "seeds"` with another value than the
/// profile's: refused, so a configuration never says two things at once.
fn check_profile(value: &serde_json::Value) -> Result<(), ConfigError> {
    if value.get("profile").and_then(|p| p.as_str()) != Some("seeds") {
        return Ok(());
    }
    for (key, fixed) in Profile::SEEDS {
        if let Some(written) = value.get(key) {
            if written.as_str() != Some(fixed) {
                return Err(ConfigError::Invalid {
                    path: key.to_owned(),
                    message: format!(
                        "`profile: \"seeds\"` sets `{key}` to \"{fixed}\"; another value beside it contradicts the profile"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// How an API tool's `example_params` disagree with its schemas: names no
/// schema declares, and names a schema requires that the example leaves out.
/// Nothing is said of a tool without schemas (every name is then a body or
/// query field).
fn example_warnings(name: &str, tool: &ToolConfig) -> Vec<String> {
    let Some(serde_json::Value::Object(example)) = &tool.example_params else {
        return Vec::new();
    };
    let schemas = [
        ("path_params_schema", &tool.path_params_schema),
        ("query_params_schema", &tool.query_params_schema),
        ("request_body_schema", &tool.request_body_schema),
    ];
    if schemas.iter().all(|(_, s)| s.is_none()) {
        return Vec::new();
    }
    let declared = tool.declared_params();
    let mut out = Vec::new();
    for (field, schema) in schemas {
        let Some(schema) = schema else { continue };
        let missing: Vec<String> = schema
            .get("required")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str())
            .filter(|r| !example.contains_key(*r))
            .map(|r| format!("`{r}`"))
            .collect();
        if !missing.is_empty() {
            out.push(format!(
                "`tools.{name}.example_params` leaves out {}, which `{field}` requires: a call written like the example does not fit the tool",
                missing.join(", ")
            ));
        }
    }
    for key in example.keys() {
        if key != "risk_level" && !declared.contains(key) {
            out.push(format!(
                "`tools.{name}.example_params.{key}` is declared by none of the tool's schemas: the example teaches the model an argument the request has no place for"
            ));
        }
    }
    out
}

impl ToolConfig {
    /// Every parameter name the tool declares: its URL pattern's path
    /// parameters, its schemas' properties, its `body_field`.
    pub(crate) fn declared_params(&self) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = self
            .url
            .as_deref()
            .map(crate::assess::api::path_params)
            .unwrap_or_default()
            .into_iter()
            .collect();
        names.extend(self.body_field.iter().cloned());
        for schema in [
            &self.path_params_schema,
            &self.query_params_schema,
            &self.request_body_schema,
        ]
        .into_iter()
        .flatten()
        {
            if let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) {
                names.extend(properties.keys().cloned());
            }
        }
        names
    }

    fn validate(&self, tool: &str) -> Result<(), ConfigError> {
        // A tool without an assessor may still be pinned to confirmation.
        let pinned_only = ToolConfig {
            always_confirm: self.always_confirm,
            ..ToolConfig::default()
        };
        if self.always_confirm
            && self.kind.is_none()
            && ToolKind::builtin(tool).is_none()
            && *self == pinned_only
        {
            return Ok(());
        }
        let kind = self
            .kind
            .or_else(|| ToolKind::builtin(tool))
            .ok_or_else(|| ConfigError::MissingKind {
                tool: tool.to_owned(),
            })?;
        let wrong = |field: &'static str| ConfigError::WrongKind {
            tool: tool.to_owned(),
            field,
            kind: kind.name(),
        };
        let present: [(&'static str, bool, ToolKind); 12] = [
            ("body_field", self.body_field.is_some(), ToolKind::Api),
            (
                "response_template",
                self.response_template.is_some(),
                ToolKind::Api,
            ),
            ("method", self.method.is_some(), ToolKind::Api),
            ("url", self.url.is_some(), ToolKind::Api),
            ("server", self.server.is_some(), ToolKind::Mcp),
            ("mcp_tool_name", self.mcp_tool_name.is_some(), ToolKind::Mcp),
            ("annotations", self.annotations.is_some(), ToolKind::Mcp),
            ("dialect", self.dialect.is_some(), ToolKind::Sql),
            (
                "allow_functions",
                !self.allow_functions.is_empty(),
                ToolKind::Sql,
            ),
            ("operation", self.operation.is_some(), ToolKind::File),
            ("method_field", self.method_field.is_some(), ToolKind::Http),
            (
                "default_method",
                self.default_method.is_some(),
                ToolKind::Http,
            ),
        ];
        for (field, set, owner) in present {
            if set && owner != kind {
                return Err(wrong(field));
            }
        }
        if let Some(Err(e)) = self
            .response_template
            .as_deref()
            .map(crate::api::template::Template::parse)
        {
            return Err(ConfigError::BadValue {
                tool: tool.to_owned(),
                field: "response_template",
                message: e.to_string(),
            });
        }
        // Host lists: the tools that reach the network.
        for (field, set) in [
            ("allow_hosts", !self.allow_hosts.is_empty()),
            ("deny_hosts", !self.deny_hosts.is_empty()),
        ] {
            if set && kind != ToolKind::Http && kind != ToolKind::Command {
                return Err(wrong(field));
            }
        }
        // Path settings: file tools, and MCP tools that read files.
        for (field, set) in [
            ("path_field", self.path_field.is_some()),
            ("roots", !self.roots.is_empty()),
        ] {
            if set && kind != ToolKind::File && kind != ToolKind::Mcp {
                return Err(wrong(field));
            }
        }
        // The registry's columns (seed 002 §2.1), for every row of its
        // table: API, MCP and script tools.
        let metadata: [(&'static str, bool); 10] = [
            ("argument_names", !self.argument_names.is_empty()),
            ("display_name", self.display_name.is_some()),
            ("description", self.description.is_some()),
            ("category", self.category.is_some()),
            ("keywords", !self.keywords.is_empty()),
            ("example_prompt", self.example_prompt.is_some()),
            ("example_params", self.example_params.is_some()),
            ("risk_level", self.risk_level.is_some()),
            ("required_permission", self.required_permission.is_some()),
            ("enabled", self.enabled.is_some()),
        ];
        let registry = matches!(kind, ToolKind::Api | ToolKind::Mcp | ToolKind::Script);
        for (field, set) in metadata {
            if set && !registry {
                return Err(wrong(field));
            }
        }
        if self.example_params.as_ref().is_some_and(|v| !v.is_object()) {
            return Err(ConfigError::BadValue {
                tool: tool.to_owned(),
                field: "example_params",
                message: String::from("must be a JSON object"),
            });
        }
        let schemas: [(&'static str, &Option<serde_json::Value>); 3] = [
            ("path_params_schema", &self.path_params_schema),
            ("query_params_schema", &self.query_params_schema),
            ("request_body_schema", &self.request_body_schema),
        ];
        for (field, value) in schemas {
            match value {
                Some(v) if kind != ToolKind::Api => {
                    let _ = v;
                    return Err(wrong(field));
                }
                Some(v) if !v.is_object() => {
                    return Err(ConfigError::BadValue {
                        tool: tool.to_owned(),
                        field,
                        message: String::from("must be a JSON object"),
                    })
                }
                _ => {}
            }
        }
        if let Some(dialect) = &self.dialect {
            if sqlparser::dialect::dialect_from_str(dialect).is_none() {
                return Err(ConfigError::UnknownDialect {
                    tool: tool.to_owned(),
                    dialect: dialect.clone(),
                });
            }
        }
        let bad = |field: &'static str, message: &str| ConfigError::BadValue {
            tool: tool.to_owned(),
            field,
            message: message.to_owned(),
        };
        for (field, value) in [
            ("field", &self.field),
            ("path_field", &self.path_field),
            ("operation", &self.operation),
            ("method_field", &self.method_field),
            ("default_method", &self.default_method),
        ] {
            if value.as_deref().is_some_and(str::is_empty) {
                return Err(bad(field, "must not be empty"));
            }
        }
        if self.roots.iter().any(|r| !r.starts_with('/')) {
            return Err(bad("roots", "each root must be an absolute path"));
        }
        if kind == ToolKind::Api {
            match &self.method {
                None => return Err(bad("method", "an api tool needs its HTTP method")),
                Some(m) if m.is_empty() || !m.chars().all(|c| c.is_ascii_alphabetic()) => {
                    return Err(bad("method", "must be an HTTP method such as GET"))
                }
                Some(_) => {}
            }
            if self.url.as_deref().is_none_or(str::is_empty) {
                return Err(bad("url", "an api tool needs its URL pattern"));
            }
        }
        if self
            .risk_level
            .is_some_and(|level| !(1..=3).contains(&level))
        {
            return Err(bad(
                "risk_level",
                "must be 1 (query), 2 (modify) or 3 (delete)",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_the_default() {
        assert_eq!(Config::from_json("  "), Ok(Config::default()));
        assert_eq!(Config::from_json("{}"), Ok(Config::default()));
    }

    #[test]
    fn unknown_field_is_named() {
        let err = Config::from_json(r#"{"denied_tool": ["x"]}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("denied_tool"), "{text}");
    }

    #[test]
    fn bad_value_names_its_path() {
        let err = Config::from_json(r#"{"model_trust": "blind"}"#).unwrap_err();
        match err {
            ConfigError::Invalid { path, message } => {
                assert_eq!(path, "model_trust");
                assert!(message.contains("blind"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// A text that is not JSON is named by line and column; a value of the
    /// wrong shape by its path and the position of the member at fault (the
    /// configuration is read as a JSON value first — one deserializer for every
    /// configuration, about 130 KB less component than deserializing the text
    /// directly as well — and the position is found along the path).
    #[test]
    fn errors_carry_the_line_and_the_path() {
        let err =
            Config::from_json("{\n  \"strict\": true,\n  \"denied_tools\": [5,]\n}").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("line 3"), "{text}");
        let err =
            Config::from_json("{\n  \"strict\": true,\n  \"denied_tools\": 5\n}").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("`denied_tools`") && text.contains("line 3"),
            "{text}"
        );
        let err = Config::from_json(
            "{\"rules\": [{\"action\": \"allow\", \"match\": {\"sql\": {\"statements\": [1]}}}]}",
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("rules[0]"), "{text}");
    }

    #[test]
    fn conflicting_lists_are_refused() {
        let err = Config::from_json(r#"{"denied_tools": ["x"], "auto_approved_tools": ["x"]}"#)
            .unwrap_err();
        assert_eq!(err, ConfigError::Conflict { tool: "x".into() });
    }

    #[test]
    fn tool_settings_are_checked() {
        let ok = Config::from_json(
            r#"{"tools": {"execute_sql": {"dialect": "postgres"},
                          "run_query": {"kind": "sql", "field": "q", "dialect": "mysql"}}}"#,
        )
        .unwrap();
        assert_eq!(ok.kind_of("run_query"), Some(ToolKind::Sql));
        assert_eq!(ok.kind_of("execute_command"), Some(ToolKind::Command));
        assert_eq!(ok.kind_of("other"), None);
        let err = |json: &str| Config::from_json(json).unwrap_err().to_string();
        assert!(err(r#"{"tools": {"x": {}}}"#).contains("tools.x.kind"));
        assert!(err(r#"{"tools": {"execute_sql": {"dialect": "cobol"}}}"#).contains("cobol"));
        assert!(err(r#"{"tools": {"execute_sql": {"roots": ["/srv"]}}}"#)
            .contains("tools.execute_sql.roots"));
        assert!(
            err(r#"{"tools": {"x": {"kind": "file", "roots": ["srv"]}}}"#).contains("absolute")
        );
        assert!(err(r#"{"tools": {"x": {"kind": "teapot"}}}"#).contains("teapot"));
        assert!(err(r#"{"tools": {"x": {"kind": "sql", "feild": "q"}}}"#).contains("feild"));
    }

    #[test]
    fn registry_and_mcp_settings_are_checked() {
        let err = |json: &str| Config::from_json(json).unwrap_err().to_string();
        assert!(err(r#"{"tools": {"x": {"kind": "api", "url": "/a"}}}"#).contains("tools.x.method"));
        assert!(
            err(r#"{"tools": {"x": {"kind": "api", "method": "GET"}}}"#).contains("tools.x.url")
        );
        assert!(err(
            r#"{"tools": {"x": {"kind": "api", "method": "GET", "url": "/a", "risk_level": 4}}}"#
        )
        .contains("risk_level"));
        assert!(err(r#"{"tools": {"x": {"kind": "sql", "risk_level": 1}}}"#)
            .contains("tools.x.risk_level"));
        // Annotations are pasted from servers and the MCP specification adds
        // hints over time: unknown ones are ignored, which can only make the
        // policy stricter (a misspelt `readOnlyHint` leaves the default, false).
        assert!(Config::from_json(
            r#"{"tools": {"x": {"kind": "mcp", "annotations": {"readOnly": true}}}}"#
        )
        .is_ok());
        assert!(err(r#"{"mcp_servers": {"gh": {"trust": true}}}"#).contains("trust"));
        assert!(err(r#"{"registry_level2": "maybe"}"#).contains("registry_level2"));
        let ok = Config::from_json(
            r#"{"tools": {"m": {"kind": "api", "method": "post", "url": "/a/:id", "risk_level": 2,
                               "required_permission": "p", "enabled": true},
                         "t": {"kind": "mcp", "server": "gh", "annotations": {"readOnlyHint": true}}},
                "mcp_servers": {"gh": {"trusted": true}}, "registry_level2": "notify"}"#,
        );
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn egress_is_one_of_three() {
        assert_eq!(Config::default().egress, Egress::Public);
        for (text, egress) in [
            ("public", Egress::Public),
            ("allow_hosts", Egress::AllowHosts),
            ("confirm", Egress::Confirm),
        ] {
            let config = Config::from_json(&format!(r#"{{"egress": "{text}"}}"#));
            assert_eq!(config.map(|c| c.egress), Ok(egress), "{text}");
        }
        let err = Config::from_json(r#"{"egress": "private"}"#).unwrap_err();
        match err {
            ConfigError::Invalid { path, message } => {
                assert_eq!(path, "egress");
                assert!(message.contains("allow_hosts"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(Config::from_json(
            r#"{"tools": {"execute_command": {"allow_hosts": ["example.com"], "deny_hosts": ["x.test"]}}}"#
        )
        .is_ok());
        let err = Config::from_json(r#"{"tools": {"execute_sql": {"allow_hosts": ["a"]}}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("tools.execute_sql.allow_hosts"), "{err}");
    }

    /// Seed 002 §2.3's definition, byte for byte, is a configuration; its
    /// self-contradictions are warnings, and the §2.1 row shape reads too.
    #[test]
    fn seed_002_as_written_is_read_and_its_contradictions_warned() {
        let text = include_str!("../../tests/config/seed-002-definition.json");
        let config = Config::from_text(text).unwrap();
        let tool = &config.tools["alert_mute_create"];
        assert_eq!(tool.kind, Some(ToolKind::Api));
        assert_eq!(
            tool.url.as_deref(),
            Some("/api/n9e/busi-group/{group_id}/alert-mutes")
        );
        assert_eq!(tool.risk_level, Some(2));
        let warnings = config.warnings();
        assert_eq!(warnings.len(), 3, "{warnings:#?}");
        assert!(
            warnings[0].contains("leaves out `btime`, `etime`"),
            "{warnings:#?}"
        );
        // In the order the seed writes them.
        assert!(
            warnings[1].contains("example_params.targets"),
            "{warnings:#?}"
        );
        assert!(
            warnings[2].contains("example_params.duration"),
            "{warnings:#?}"
        );
        let rows =
            Config::from_text(include_str!("../../tests/config/seed-002-rows.json")).unwrap();
        assert_eq!(rows.kind_of("restart_agent"), Some(ToolKind::Script));
        assert_eq!(rows.tools["wiki_search"].server.as_deref(), Some("12"));
        assert_eq!(rows.tools["legacy_export"].enabled, Some(false));
        assert!(rows
            .warnings()
            .iter()
            .any(|w| w.contains("`tools.restart_agent` is a script tool")));
        // The policy's own shape keeps its errors' positions.
        let err =
            Config::from_text("{\n  \"tools\": {\"x\": {\"kind\": \"api\", \"metod\": 1}}\n}")
                .unwrap_err()
                .to_string();
        assert!(err.contains("line 2"), "{err}");
        // A TOML table header is still TOML.
        assert!(Config::from_text("[tools.run]\nkind = \"command\"\n").is_ok());
    }

    /// The seed-faithful profile fixes three settings; a contradicting one
    /// beside it is refused, and a managed layer's locked modes keep a lower
    /// layer from choosing it.
    #[test]
    fn the_seeds_profile_and_what_it_never_lifts() {
        let config = Config::from_text(r#"{"profile": "seeds"}"#).unwrap();
        assert_eq!(config.model_trust, ModelTrust::Trust);
        assert_eq!(config.medium_risk, MediumRisk::Confirm);
        assert_eq!(config.registry_level2, Level2::Inform);
        assert!(Config::from_text("profile = \"seeds\"\nmodel_trust = \"trust\"\n").is_ok());
        let err = Config::from_text(r#"{"profile": "seeds", "model_trust": "guarded"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("model_trust") && err.contains("profile"),
            "{err}"
        );
        assert!(
            Config::from_text(r#"{"profile": "seeds", "registry_level2": "confirm"}"#).is_err()
        );
        use layers::{layered, Layer, LayerText};
        let merged = layered(&[
            LayerText {
                layer: Layer::Managed,
                config: String::from(r#"{"locks": {"modes": true}}"#),
            },
            LayerText {
                layer: Layer::User,
                config: String::from(r#"{"profile": "seeds"}"#),
            },
        ])
        .unwrap();
        let config = Config::from_json(&merged.config).unwrap();
        assert_eq!(config.model_trust, ModelTrust::Guarded);
        assert_eq!(config.profile, Profile::Default);
    }

    #[test]
    fn trailing_garbage_is_refused() {
        assert!(Config::from_json("{} {}").is_err());
        assert!(Config::from_json("[]").is_err());
    }
}
