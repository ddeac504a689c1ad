//! Stable finding codes.
//!
//! A code never changes meaning once released: tests, UIs and audit queries match
//! on them. Messages are for people and may be reworded at any time.

// The decision rules.
/// The arguments are not a JSON object (invalid JSON, another JSON type, too large).
pub const ARGS_INVALID: &str = "args.invalid";
/// A field the assessor needs is absent.
pub const ARGS_MISSING_FIELD: &str = "args.missing-field";
/// An argument of a registry API tool does not fit the entry's schemas (its
/// path names the field, its message what was expected): confirm.
pub const ARGS_SCHEMA: &str = "args.schema";
/// The arguments hold a field the tool's check does not read (an `env`, a
/// `cwd`, a `proxy`): the call is not proven, whatever the rest says.
pub const ARGS_UNKNOWN_FIELD: &str = "args.unknown-field";
/// A field the assessor needs has the wrong JSON type.
pub const ARGS_WRONG_TYPE: &str = "args.wrong-type";
/// The tool is listed in `denied_tools`.
pub const CONFIG_DENIED_TOOL: &str = "config.denied-tool";
/// The tool is listed in `auto_approved_tools`.
pub const CONFIG_AUTO_APPROVED: &str = "config.auto-approved";
/// Strict mode is on.
pub const CONFIG_STRICT: &str = "config.strict";
/// A deny rule (of the configuration) matched the call.
pub const RULE_DENY: &str = "rule.deny";
/// An ask rule matched the call: a person confirms whatever the model says.
pub const RULE_ASK: &str = "rule.ask";
/// Allow rules or grants cover every part of the call that is not proven read-only.
pub const RULE_ALLOW: &str = "rule.allow";
/// A deny or ask rule applies to the tool, but what the call holds could not
/// be parsed to check it: a person confirms.
pub const RULE_UNCHECKED: &str = "rule.unchecked";
/// The tool is configured `always_confirm`: a person confirms whatever the
/// model says.
pub const RULE_ALWAYS_CONFIRM: &str = "rule.always-confirm";
/// `mode: "read-only"`: the call is not proven read-only, so it is denied.
pub const MODE_READ_ONLY: &str = "mode.read-only";
/// `mode: "allowlist"`: the tool is not auto-approved and no rule allows the
/// call, so a person confirms (even a proven read).
pub const MODE_ALLOWLIST: &str = "mode.allowlist";
/// `mode: "accept-edits"`: a file write or create on a clean path under the
/// tool's roots is allowed.
pub const MODE_ACCEPT_EDITS: &str = "mode.accept-edits";
/// The model rated the call high.
pub const LLM_HIGH: &str = "llm.high";
/// The model rated the call medium.
pub const LLM_MEDIUM: &str = "llm.medium";
/// The model rated the call low and was trusted.
pub const LLM_LOW: &str = "llm.low";
/// `risk_level` was present but not one of low, medium, high (or null).
pub const LLM_INVALID_RISK_LEVEL: &str = "llm.invalid-risk-level";
/// The model rated a destructive call low; the guarded floor overrode it.
pub const FLOOR_DESTRUCTIVE: &str = "floor.destructive";
/// The model rated low a call that reads secrets or reaches inside (a key
/// file, a credential table, a metadata address); the guarded floor overrode it.
pub const FLOOR_SENSITIVE: &str = "floor.sensitive";
/// The call reaches the approval channel (`toolgate approvals …`, the grant
/// or checkpoint store, toolgate's configuration, an approval page on this
/// machine): denied in every mode and never granted, since the agent must
/// not answer for the person (see the policy's `channel` module).
pub const FLOOR_APPROVAL_CHANNEL: &str = "floor.approval-channel";
/// A call that is not proven read-only names toolgate's configuration, a
/// coding agent's settings, git hooks or CI files: a person confirms it
/// whatever allowed it (a mode, a rule, a grant, an auto-approval, the
/// model's rating), since writing them changes what runs unasked later (see
/// `selfprotect` module).
pub const FLOOR_SELF_PROTECTION: &str = "floor.self-protection";
/// Findings that name a harm other than destruction: a secret read, an
/// internal address, credentials in a URL, a host the deployment denies. A
/// model's `low` is not enough for them under guarded trust; a prompt-injected
/// model sets `low` at will, and "never leak a key unasked" holds as firmly as
/// "never drop a table".
pub const SENSITIVE: &[&str] = &[
    COMMAND_SENSITIVE_PATH,
    COMMAND_ENVIRONMENT,
    COMMAND_CREDENTIALS,
    COMMAND_HISTORY,
    FILE_SENSITIVE_PATH,
    SQL_SECRETS,
    SQL_FILE_ACCESS,
    HTTP_LOCAL_TARGET,
    HTTP_USERINFO,
    HTTP_SECRET_URL,
    HTTP_DENIED_HOST,
];
/// The model rated low a call the code layer could not read (a command
/// with syntax it does not analyse, a path no reading places, SQL that
/// does not parse in every reading, a URL clients read differently); the
/// guarded floor overrode it: a low is trusted for meaning, never for reading.
pub const FLOOR_UNREADABLE: &str = "floor.unreadable";
/// Findings that say the code layer could not read the call: under guarded
/// trust a model's `low` does not stand in for the reading.
pub const UNREADABLE: &[&str] = &[
    COMMAND_PARSE_ERROR,
    COMMAND_SYNTAX,
    COMMAND_UNSUPPORTED_SYNTAX,
    COMMAND_UNRESOLVABLE_PATH,
    COMMAND_UNREAD_FILES,
    FILE_UNRESOLVABLE_PATH,
    SQL_PARSE_ERROR,
    SQL_AMBIGUOUS,
    SQL_TOO_COMPLEX,
    SQL_CATALOG_FUNCTION,
    HTTP_BAD_URL,
    HTTP_AMBIGUOUS_URL,
    REGISTRY_SCRIPT,
];
/// Nothing proved the call safe.
pub const DEFAULT_UNPROVEN: &str = "default.unproven";
/// No assessor knows this tool.
pub const TOOL_UNKNOWN: &str = "tool.unknown";
/// A tool call in no recognised shape (no tool name could be found).
pub const CALL_INVALID: &str = "call.invalid";

// execute_sql
/// Every statement was proven read-only.
pub const SQL_READ_ONLY: &str = "sql.read-only";
/// The SQL could not be tokenized or parsed.
pub const SQL_PARSE_ERROR: &str = "sql.parse-error";
/// The SQL holds no statement.
pub const SQL_EMPTY: &str = "sql.empty";
/// More than one statement; each was judged on its own.
pub const SQL_MULTI_STATEMENT: &str = "sql.multi-statement";
/// A statement that is not a read (INSERT, CREATE, SET, …).
pub const SQL_WRITE: &str = "sql.write";
/// A statement that destroys data or objects (DROP, DELETE, TRUNCATE, UPDATE, …).
pub const SQL_DESTRUCTIVE: &str = "sql.destructive";
/// A query that writes or locks: `SELECT … INTO`, a locking clause, a nested
/// data-modifying statement.
pub const SQL_QUERY_WRITES: &str = "sql.query-writes";
/// `EXPLAIN ANALYZE` runs its statement.
pub const SQL_EXPLAIN_ANALYZE: &str = "sql.explain-analyze";
/// A function with side effects (sleep, file access, locks, sequences, …).
pub const SQL_SIDE_EFFECT_FUNCTION: &str = "sql.side-effect-function";
/// A function not known to be read-only (user-defined, extension, unqualified).
pub const SQL_UNKNOWN_FUNCTION: &str = "sql.unknown-function";
/// Brackets nested deeper than the analyser goes.
pub const SQL_TOO_COMPLEX: &str = "sql.too-complex";
/// A comment the server executes (`/*! … */`, `/*M! … */`).
pub const SQL_EXECUTABLE_COMMENT: &str = "sql.executable-comment";
/// Readings the server might take (another dialect, a lexing setting such as
/// `NO_BACKSLASH_ESCAPES` or `standard_conforming_strings`) split the statements
/// or separate code from strings and comments differently from the parse.
pub const SQL_AMBIGUOUS: &str = "sql.ambiguous";
/// A statement that changes session state later statements run under (`USE`,
/// `SET`, `RESET`, transaction control, cursors, `LISTEN`, `PREPARE`).
pub const SQL_SESSION_STATE: &str = "sql.session-state";
/// The server would read or write files, URLs, programs or extensions (`COPY …
/// PROGRAM`, `ATTACH`, `LOAD`, `read_csv`, a file path as a table).
pub const SQL_FILE_ACCESS: &str = "sql.file-access";
/// Work with no bound the text shows: recursion without a terminating
/// condition, a cartesian product, a generator or string builder with a huge bound.
pub const SQL_UNBOUNDED: &str = "sql.unbounded";
/// SQL run from a string or a prepared name (`EXECUTE`, `EXEC`, `EXECUTE IMMEDIATE`).
pub const SQL_DYNAMIC: &str = "sql.dynamic";
/// A function called in another syntax: attribute notation (`(x).f`, `t.col.f`),
/// a sequence pseudo-column (`seq.nextval`), a custom operator (`OPERATOR(…)`).
pub const SQL_CALL_SYNTAX: &str = "sql.call-syntax";
/// A read of password hashes, credentials or secret settings (`pg_authid`,
/// `mysql.user`, `current_setting('s3_secret_access_key')`).
pub const SQL_SECRETS: &str = "sql.secrets";
/// A function the policy does not know is applied to a system catalog (its
/// relation named as text or read in the same statement): what it returns
/// cannot be read, so it feeds the guarded floor (`floor.unreadable`).
pub const SQL_CATALOG_FUNCTION: &str = "sql.catalog-function";

// execute_command
/// Every segment's program was proven read-only.
pub const COMMAND_READ_ONLY: &str = "command.read-only";
/// The command line is empty.
pub const COMMAND_EMPTY: &str = "command.empty";
/// The command line could not be split (unterminated quote, trailing escape).
pub const COMMAND_PARSE_ERROR: &str = "command.parse-error";
/// A program that is not on the read-only list.
pub const COMMAND_UNKNOWN_PROGRAM: &str = "command.unknown-program";
/// A read-only program with an argument that writes or executes (`find -delete`).
pub const COMMAND_UNSAFE_ARGUMENT: &str = "command.unsafe-argument";
/// A read-only command would print a file that holds secrets (keys, credentials,
/// another process's environment).
pub const COMMAND_SENSITIVE_PATH: &str = "command.sensitive-path";
/// Output redirected into a file.
pub const COMMAND_REDIRECT_WRITE: &str = "command.redirect-write";
/// Command or process substitution: `$(…)`, backticks, `<(…)`.
pub const COMMAND_SUBSTITUTION: &str = "command.substitution";
/// A variable expansion where it could change which program runs.
pub const COMMAND_EXPANSION: &str = "command.expansion";
/// `NAME=value` before a program.
pub const COMMAND_ENV_ASSIGNMENT: &str = "command.env-assignment";
/// Shell syntax the assessor does not model: subshells, groups, here-documents.
pub const COMMAND_UNSUPPORTED_SYNTAX: &str = "command.unsupported-syntax";
/// A program known to destroy data or stop the system (rm, dd, mkfs, shutdown, …).
pub const COMMAND_DESTRUCTIVE: &str = "command.destructive";
/// A line a shell would reject (`ls &&`, `;;`, an unterminated `for`).
pub const COMMAND_SYNTAX: &str = "command.syntax";
/// Work that may never end or floods (`tail -f`, `sleep infinity`, `while true`).
pub const COMMAND_UNBOUNDED: &str = "command.unbounded";
/// Prints the environment or a variable that may hold a secret (`env`, `$TOKEN`).
pub const COMMAND_ENVIRONMENT: &str = "command.environment";
/// A command line that prints a stored credential (`gh auth token`, `aws
/// configure get aws_secret_access_key`, `vault kv get`, `git credential fill`).
pub const COMMAND_CREDENTIALS: &str = "command.credentials";
/// With `commands.history_is_secret`, a command that prints content committed
/// to the repository's history (`git log -p`, `git show`, `git grep` over a
/// revision, `git diff` against one, `git blame` of one): the deployment
/// counts history as secret, so a person confirms.
pub const COMMAND_HISTORY: &str = "command.history";
/// A builtin that assigns, evaluates or changes the shell (`read`, `eval`, `export`).
pub const COMMAND_SHELL_STATE: &str = "command.shell-state";
/// A word of a command names a path no reading can place (`%USERPROFILE%\…`,
/// another user's `~name`): feeds the guarded floor (`floor.unreadable`).
pub const COMMAND_UNRESOLVABLE_PATH: &str = "command.unresolvable-path";
/// A program that prints the files it reads was handed words the line does
/// not hold (names `xargs` appends, a variable or substitution), or a reader
/// with no writing form was given an option outside its grammar (`rg -uu`,
/// `diff -r`): which files it reads the code layer could not read, so it
/// feeds the guarded floor (`floor.unreadable`).
pub const COMMAND_UNREAD_FILES: &str = "command.unread-files";

// file_operations
/// read, list or exists.
pub const FILE_READ_ONLY: &str = "file.read-only";
/// An operation that changes files.
pub const FILE_WRITE: &str = "file.write";
/// An operation that deletes files.
pub const FILE_DELETE: &str = "file.delete";
/// An operation name the assessor does not know.
pub const FILE_UNKNOWN_OPERATION: &str = "file.unknown-operation";

// http_request
/// GET, HEAD or OPTIONS.
pub const HTTP_SAFE_METHOD: &str = "http.safe-method";
/// A method that may change state (POST, PUT, PATCH, …).
pub const HTTP_UNSAFE_METHOD: &str = "http.unsafe-method";
/// DELETE.
pub const HTTP_DELETE: &str = "http.delete";
/// A path that holds keys, credentials or other secrets, or another process's data.
pub const FILE_SENSITIVE_PATH: &str = "file.sensitive-path";
/// A path outside the configured roots.
pub const FILE_OUTSIDE_ROOTS: &str = "file.outside-roots";
/// A URL that could not be parsed.
pub const HTTP_BAD_URL: &str = "http.bad-url";
/// A scheme other than http and https.
pub const HTTP_SCHEME: &str = "http.scheme";
/// A URL with credentials in it (`user:pass@`).
pub const HTTP_USERINFO: &str = "http.userinfo";
/// A URL that carries a credential: a query parameter named as one
/// (`token`, `key`, `access_token`, `api_key`, …) or a value shaped as a
/// provider's token (gitleaks' rules); see the URL assessor's `secrets` table.
pub const HTTP_SECRET_URL: &str = "http.secret-url";
/// A loopback, private, link-local or cloud-metadata target.
pub const HTTP_LOCAL_TARGET: &str = "http.local-target";
/// A host on the configured deny list.
pub const HTTP_DENIED_HOST: &str = "http.denied-host";

// Registry, permissions and MCP.
/// The registry's level for the tool (1 query, 2 modify, 3 delete) decided.
pub const REGISTRY_LEVEL: &str = "registry.level";
/// Level 2 allowed by configuration: the user must be told.
pub const REGISTRY_NOTIFY: &str = "registry.notify";
/// Level 2 allowed as seed 002 §6.2 writes it (`registry_level2:
/// "inform"`, the seed-faithful profile): the user is informed of the
/// operation as it runs.
pub const REGISTRY_INFORM: &str = "registry.inform";
/// A registry `script` tool (seed 002 §2.1's third type): its executor
/// runs none and what a script does is not read, so a person confirms.
pub const REGISTRY_SCRIPT: &str = "registry.script";
/// The tool is disabled in the registry.
pub const REGISTRY_DISABLED: &str = "registry.disabled";
/// A path parameter that would change the URL's path.
pub const REGISTRY_BAD_PATH_PARAM: &str = "registry.bad-path-param";
/// Request building: the tool is not a registry API tool (or has no URL).
pub const REQUEST_NOT_API: &str = "request.not-api";
/// Request building: required parameters are missing.
pub const REQUEST_MISSING_PARAM: &str = "request.missing-param";
/// The user lacks the permission the tool requires.
pub const PERMISSION_MISSING: &str = "permission.missing";
/// The tool requires a permission and the caller gave no permissions to check.
pub const PERMISSION_UNCHECKED: &str = "permission.unchecked";
/// The call names a resource (an argument the caller's context lists under
/// `resources`, such as a business group) the user does not own (seed 002
/// §6.1's resource check).
pub const PERMISSION_NOT_OWNER: &str = "permission.not-owner";

// Seed 002 §4.2's multi-step plans.
/// The step's arguments hold a reference (`$step1.result.ident`) to a result
/// not known yet: an unknown value, so the step is never allowed in this
/// form; it is decided again once the result is substituted.
pub const PLAN_UNRESOLVED: &str = "plan.unresolved";
/// A path parameter of a registry tool comes from a reference not yet
/// resolved: which resource the call reaches is unknown.
pub const PLAN_REFERENCE_PATH: &str = "plan.reference-path";
/// A reference names what the referenced step's result does not hold.
pub const PLAN_REFERENCE_MISSING: &str = "plan.reference-missing";
/// The caller's context could not be read.
pub const CONTEXT_INVALID: &str = "context.invalid";
/// A trusted MCP server marks the tool read-only.
pub const MCP_READ_ONLY_HINT: &str = "mcp.read-only-hint";
/// An untrusted MCP server marks the tool read-only: not enough to allow.
pub const MCP_UNTRUSTED_HINT: &str = "mcp.untrusted-hint";
/// The MCP tool is (or by default may be) destructive.
pub const MCP_DESTRUCTIVE_HINT: &str = "mcp.destructive-hint";
/// The MCP tool is marked neither read-only nor destructive.
pub const MCP_NOT_READ_ONLY: &str = "mcp.not-read-only";
/// A path whose target the text does not determine (`C:foo`, `$HOME/x`,
/// `%APPDATA%`, an 8.3 short name, a reserved device name).
pub const FILE_UNRESOLVABLE_PATH: &str = "file.unresolvable-path";
/// Clients (WHATWG, curl, Python, urllib3) read different hosts in the URL.
pub const HTTP_AMBIGUOUS_URL: &str = "http.ambiguous-url";
/// A header or parameter (`X-HTTP-Method-Override`, `_method`) names another method.
pub const HTTP_METHOD_OVERRIDE: &str = "http.method-override";
/// The tool name is not configured but looks like one that is (case,
/// spacing, invisible or confusable characters).
pub const TOOL_LOOKALIKE: &str = "tool.lookalike";
/// An option outside the program's declared grammar, or an abbreviation of a
/// long option (getopt resolves abbreviations against lists we do not hold).
pub const COMMAND_OPTION: &str = "command.option";
/// A command line longer than the assessor reads (256 KiB): confirmed, and the
/// floor assumes the worst, since nothing in it was read.
pub const COMMAND_TOO_LONG: &str = "command.too-long";
/// An outbound network read the `egress` setting does not allow without
/// confirmation (`confirm`, or a host off `allow_hosts`).
pub const NETWORK_EGRESS: &str = "network.egress";

// Grants (answers "for this session" or "always"): a grant passed with a call
// that does not apply, and the audit of a revocation.

/// A grant whose signature does not match: forged or changed.
pub const GRANT_FORGED: &str = "grant.forged";
/// An unsigned grant where only signed ones are accepted (every stored grant,
/// and any grant at a gate with a key).
pub const GRANT_UNSIGNED: &str = "grant.unsigned";
/// A grant past its expiry.
pub const GRANT_EXPIRED: &str = "grant.expired";
/// Not a sealed grant of the expected shape.
pub const GRANT_INVALID: &str = "grant.invalid";
/// A grant was revoked (the finding of the revocation's audit record).
pub const GRANT_REVOKED: &str = "grant.revoked";

// Coding-agent hooks (`toolgate hook FORMAT`): why an event was answered
// "ask" without a decision of the policy, or why a decision was capped.

/// The hook event could not be read: not UTF-8, not JSON, too large, another
/// event than the format's before-tool event, no tool name, or tool input
/// that is not an object. The agent is told to ask a person.
pub const HOOK_MALFORMED: &str = "hook.malformed";
/// A tool the format's table does not map onto an assessor, nor a configured
/// MCP tool: its decision is capped at confirm ("ask"), never allow.
pub const HOOK_UNKNOWN_TOOL: &str = "hook.unknown-tool";
/// A relative (or missing) path that would resolve against the event's `cwd`,
/// and `cwd` is missing or not absolute: confirm, never a guess.
pub const HOOK_CWD: &str = "hook.cwd";
/// One of the agent's own tools that only keeps its state (a to-do list, a
/// subagent, a background shell's output): allowed, as the agent would.
pub const HOOK_AGENT_TOOL: &str = "hook.agent-tool";
/// No policy could be made for the event (the configuration is missing,
/// unreadable or refused): the agent's "ask" with the error, never an allow.
pub const HOOK_CONFIG: &str = "hook.config";
