//! The configuration of one deployment, as plain data.
//!
//! These types hold what a configuration says and nothing else: reading one
//! from JSON or TOML and checking it against the rules and the assessors it
//! names is done elsewhere (`Config::from_text`, `Config::from_json`), and the
//! assessors read these types, never the reverse.
//!
//! Every field is optional; `{}` is the default policy. Unknown fields are an error
//! rather than ignored, because a misspelt `denied_tools` silently allowing a tool
//! is exactly the failure a policy must not have.

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// The rules' shapes, shared with the hosts (a grant carries rules).
pub use toolgate_shapes::rules::{Effect, FileMatch, HttpMatch, Rule, SqlMatch};

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
    /// the policy's `rules` module).
    pub rules: Vec<Rule>,
    /// What a managed layer keeps lower layers from loosening (see
    /// [`crate::layered`]); read by the merge, refused in other layers, nothing in a
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

/// What lower layers may not loosen under a managed layer (see [`crate::layered`]).
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
    /// one harmless: a person confirms (the registry API assessor).
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

/// A tool's MCP annotations, as `tools/list` reports them. Unknown annotations
/// are ignored (the specification adds hints over time); that can only make the
/// policy stricter, since every hint's default is the cautious one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Annotations {
    /// The tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (only meaningful when not read-only).
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
    /// A human-readable title (ignored by the policy).
    pub title: Option<String>,
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
    pub annotations: Option<Annotations>,
    /// mcp: the name the server exposes the tool under (seed 002's
    /// `mcp_tool_name`), when it is not the entry's own name: a gateway's
    /// call `mcp:SERVER/NAME` is decided as this entry ([`Config::mcp_entry`]).
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
    /// the registry tools' `template` module); without it the response is passed as it is.
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
    /// [`crate::layered`]): which, and why.
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
    /// Two spellings of one tool name (folded as the `toolname` module folds them) in the
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
        problem: RuleProblem,
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
    /// The kind of a tool: configured, or built in.
    pub fn kind_of(&self, tool: &str) -> Option<ToolKind> {
        self.tools
            .get(tool)
            .and_then(|t| t.kind)
            .or_else(|| ToolKind::builtin(tool))
    }
}

/// Why a rule was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleProblem {
    /// Neither `tool` nor a matcher: it would match every call.
    #[error("a rule needs `tool`, a matcher (`command`, `sql`, `file`, `http`) or both")]
    NoTarget,
    /// More than one matcher in one rule.
    #[error("a rule holds one matcher; `{0}` and `{1}` are both set (write two rules)")]
    TwoMatchers(&'static str, &'static str),
    /// The matcher is for another kind of tool than the one named.
    #[error("a `{matcher}` matcher cannot apply to `{tool}`, a {kind} tool")]
    WrongKind {
        /// The matcher.
        matcher: &'static str,
        /// The tool named.
        tool: String,
        /// Its kind (`unknown` when it has none).
        kind: &'static str,
    },
    /// `command: []`.
    #[error("`command` must name at least the program")]
    EmptyArgv,
    /// `*` in `command` other than as its last word.
    #[error("`*` may only be the last word of `command` (it stands for the remaining arguments)")]
    WildcardNotLast,
    /// A required list is empty.
    #[error("`{0}` must not be empty")]
    Empty(&'static str),
    /// An SQL statement kind the rules do not know.
    #[error("unknown SQL statement kind `{0}` (known: SELECT, INSERT, UPDATE, DELETE, MERGE, TRUNCATE, CREATE, ALTER, DROP)")]
    UnknownStatement(String),
    /// A file operation the file assessor does not know.
    #[error("unknown file operation `{0}`")]
    UnknownOperation(String),
    /// An HTTP method that is not a token of letters.
    #[error("`{0}` is not an HTTP method")]
    BadMethod(String),
    /// An empty pattern.
    #[error("`{0}` holds an empty pattern")]
    EmptyPattern(&'static str),
}
