//! Which SQL functions a read-only query may call.
//!
//! A function call inside a `SELECT` can do anything a statement can: sleep,
//! kill sessions, read server files, take locks, advance sequences, write large
//! objects, reach other servers. So a query is read-only only if every function
//! it calls is on the pure list below (or the deployment's own additions), and a
//! function on the side-effect list is refused even if a deployment adds it:
//! those feed the guarded floor.

/// Functions with side effects, by lowercase unqualified name. Matched on the last
/// part of a qualified name (`pg_catalog.pg_sleep`), so a schema cannot hide them.
const SIDE_EFFECTS: &[&str] = &[
    // Delays and denial of service.
    "pg_sleep", "pg_sleep_for", "pg_sleep_until", "sleep", "benchmark",
    // Sessions and server control.
    "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
    "pg_switch_wal", "pg_create_restore_point", "pg_promote", "pg_logical_emit_message",
    "pg_create_logical_replication_slot", "pg_create_physical_replication_slot",
    "pg_drop_replication_slot", "pg_replication_origin_create", "pg_stat_reset",
    "pg_stat_statements_reset", "set_config",
    // Sequences.
    "nextval", "setval",
    // Large objects.
    "lo_import", "lo_export", "lo_unlink", "lo_create", "lo_creat", "lo_open", "lo_write",
    "lowrite", "lo_put", "lo_from_bytea", "lo_truncate",
    // Server file access.
    "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_ls_logdir", "pg_ls_waldir",
    "pg_ls_tmpdir", "pg_ls_archive_statusdir", "pg_stat_file", "pg_file_write",
    "pg_file_rename", "pg_file_unlink", "pg_file_sync", "pg_logdir_ls", "load_file",
    "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer",
    // Advisory and named locks.
    "pg_advisory_lock", "pg_advisory_lock_shared", "pg_advisory_xact_lock",
    "pg_advisory_xact_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared",
    "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared", "pg_advisory_unlock",
    "pg_advisory_unlock_shared", "pg_advisory_unlock_all", "get_lock", "release_lock",
    "release_all_locks", "is_free_lock",
    // Notifications and other servers.
    "pg_notify", "dblink", "dblink_exec", "dblink_connect", "dblink_connect_u",
    "dblink_send_query", "dblink_open", "dblink_fetch", "openrowset", "opendatasource",
    "openquery", "http_get", "http_post", "http_put", "http_delete", "http",
    // Running arbitrary SQL or programs from inside a query.
    "query_to_xml", "query_to_xml_and_xmlschema", "cursor_to_xml", "xp_cmdshell",
    "sys_exec", "sys_eval", "sp_oacreate", "sp_oamethod", "sp_execute_external_script",
    "exec", "execute",
];

/// Built-in functions that only compute, by lowercase unqualified name.
const PURE: &[&str] = &[
    // Aggregates.
    "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "group_concat",
    "listagg", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor", "stddev",
    "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "corr", "covar_pop",
    "covar_samp", "regr_slope", "regr_intercept", "regr_count", "regr_r2", "regr_avgx",
    "regr_avgy", "percentile_cont", "percentile_disc", "mode", "median", "any_value",
    "approx_count_distinct", "approx_distinct", "approx_percentile", "json_agg",
    "jsonb_agg", "json_object_agg", "jsonb_object_agg", "json_group_array",
    "json_group_object", "json_arrayagg", "json_objectagg", "xmlagg", "count_if",
    "countif", "array_concat_agg", "logical_and", "logical_or", "total", "arg_max",
    "arg_min", "max_by", "min_by", "first", "last", "list", "histogram",
    // Window functions.
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
    // Strings.
    "lower", "upper", "lcase", "ucase", "length", "len", "char_length", "character_length",
    "octet_length", "bit_length", "datalength", "concat", "concat_ws", "substring", "substr",
    "mid", "left", "right", "trim", "ltrim", "rtrim", "btrim", "lpad", "rpad", "replace",
    "reverse", "repeat", "replicate", "space", "position", "strpos", "instr", "locate",
    "charindex", "patindex", "split_part", "initcap", "format", "translate", "ascii", "chr",
    "char", "unicode", "md5", "sha1", "sha2", "sha224", "sha256", "sha384", "sha512",
    "encode", "decode", "to_hex", "hex", "unhex", "to_base64", "from_base64",
    "quote_ident", "quote_literal", "quote_nullable", "quote", "regexp_replace",
    "regexp_match", "regexp_matches", "regexp_like", "regexp_substr", "regexp_instr",
    "regexp_count", "regexp_split_to_array", "regexp_split_to_table", "regexp_extract",
    "starts_with", "ends_with", "contains", "string_to_array", "array_to_string", "soundex",
    "difference", "levenshtein", "stuff", "string_split", "str", "field", "find_in_set",
    "elt", "insert", "strcmp", "split", "printf", "glob", "like", "char_index", "to_ascii",
    "normalize", "casefold", "overlay", "bin", "oct", "conv", "unistr", "string_escape",
    "uuid", "gen_random_uuid", "uuid_generate_v4", "newid",
    // Numbers.
    "abs", "ceil", "ceiling", "floor", "round", "trunc", "truncate", "mod", "power", "pow",
    "sqrt", "cbrt", "exp", "ln", "log", "log10", "log2", "sign", "sin", "cos", "tan", "asin",
    "acos", "atan", "atan2", "cot", "degrees", "radians", "pi", "random", "rand", "greatest",
    "least", "div", "width_bucket", "gcd", "lcm", "factorial", "scale", "square",
    "setseed",
    // Dates and times.
    "now", "current_date", "current_time", "current_timestamp", "localtime",
    "localtimestamp", "clock_timestamp", "statement_timestamp", "transaction_timestamp",
    "timeofday", "date_trunc", "date_part", "datepart", "extract", "age", "date_add",
    "date_sub", "datediff", "dateadd", "datename", "date_diff", "timestampdiff",
    "timestampadd", "timestamp_diff", "to_days", "from_days", "from_unixtime",
    "unix_timestamp", "strftime", "date", "time", "datetime", "julianday", "unixepoch",
    "year", "month", "day", "hour", "minute", "second", "week", "weekday", "dayofweek",
    "dayofmonth", "dayofyear", "weekofyear", "quarter", "last_day", "make_date",
    "make_time", "make_timestamp", "make_timestamptz", "make_interval", "date_format",
    "time_format", "str_to_date", "getdate", "getutcdate", "sysdate", "systimestamp",
    "sysdatetime", "curdate", "curtime", "utc_date", "utc_time", "utc_timestamp",
    "isfinite", "justify_days", "justify_hours", "justify_interval", "to_char",
    "to_number", "to_date", "to_timestamp", "date_bin", "eomonth", "datefromparts",
    "format_date", "format_timestamp", "parse_date", "parse_timestamp", "timestamp",
    "current_datetime", "epoch", "epoch_ms", "monthname", "dayname", "period_diff",
    "convert_tz", "timezone", "at_timezone",
    // Conversions and conditionals.
    "cast", "try_cast", "safe_cast", "convert", "try_convert", "coalesce", "nullif",
    "ifnull", "isnull", "nvl", "nvl2", "iif", "if", "decode_nvl", "typeof", "pg_typeof",
    "to_jsonb", "to_json", "to_text", "to_varchar", "is_nan", "isnan", "zeroifnull",
    "nullifzero",
    // JSON.
    "json", "jsonb", "json_extract", "json_extract_scalar", "json_extract_path",
    "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text",
    "json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array",
    "json_array_length", "jsonb_array_length", "json_each", "jsonb_each", "json_each_text",
    "jsonb_each_text", "json_array_elements", "jsonb_array_elements",
    "json_array_elements_text", "jsonb_array_elements_text", "json_object_keys",
    "jsonb_object_keys", "json_typeof", "jsonb_typeof", "row_to_json", "array_to_json",
    "jsonb_pretty", "jsonb_set", "jsonb_insert", "jsonb_strip_nulls", "json_strip_nulls",
    "json_object", "json_array", "json_value", "json_query", "json_valid", "json_set",
    "json_insert", "json_replace", "json_remove", "json_type", "json_unquote",
    "json_contains", "json_contains_path", "json_keys", "json_length", "json_depth",
    "json_search", "json_quote", "json_pretty", "json_patch", "json_tree", "json_parse",
    "jsonb_path_query", "jsonb_path_query_array", "jsonb_path_query_first",
    "jsonb_path_exists", "jsonb_path_match", "json_populate_record", "jsonb_populate_record",
    "json_to_record", "jsonb_to_record", "json_to_recordset", "jsonb_to_recordset",
    "parse_json", "to_json_string", "json_extract_string",
    // Arrays and sets.
    "array_length", "cardinality", "unnest", "array_append", "array_prepend", "array_cat",
    "array_position", "array_positions", "array_remove", "array_replace",
    "generate_series", "generate_subscripts", "array_lower", "array_upper", "array_ndims",
    "array_dims", "array_fill", "array_contains", "array_size", "array", "range",
    "array_distinct", "array_sort", "flatten", "list_value", "struct_pack", "row",
    // Read-only information about the session and the catalog.
    "version", "current_user", "session_user", "user", "system_user", "current_role",
    "current_schema", "current_schemas", "current_database", "current_catalog",
    "database", "schema", "db_name", "schema_name", "user_name", "suser_name",
    "current_setting", "pg_backend_pid", "inet_server_addr", "inet_server_port",
    "inet_client_addr", "pg_postmaster_start_time", "pg_conf_load_time",
    "pg_is_in_recovery", "has_table_privilege", "has_schema_privilege",
    "has_database_privilege", "has_column_privilege", "has_function_privilege",
    "pg_has_role", "pg_get_viewdef", "pg_get_functiondef", "pg_get_indexdef",
    "pg_get_constraintdef", "pg_get_triggerdef", "pg_get_ruledef", "pg_get_expr",
    "pg_get_keywords", "pg_get_userbyid", "pg_get_serial_sequence", "pg_table_size",
    "pg_relation_size", "pg_total_relation_size", "pg_indexes_size", "pg_database_size",
    "pg_column_size", "pg_size_pretty", "pg_size_bytes", "obj_description",
    "col_description", "shobj_description", "format_type", "pg_encoding_to_char",
    "to_regclass", "to_regtype", "to_regproc", "pg_table_is_visible",
    "pg_function_is_visible", "txid_current_snapshot", "pg_current_wal_lsn",
    "pg_last_wal_replay_lsn", "pg_wal_lsn_diff", "pg_stat_get_numscans",
    "pg_relation_filepath", "pg_tablespace_location", "pg_typeof", "row_count",
    "found_rows", "last_insert_id", "connection_id", "sqlite_version", "changes",
    "total_changes", "last_insert_rowid", "object_id", "object_name", "schema_id",
    "db_id", "col_name", "col_length", "columnproperty", "objectproperty", "serverproperty",
    "databasepropertyex", "host_name", "app_name", "scope_identity", "ident_current",
    "error_message", "error_number", "current_version", "current_region",
    "current_account", "current_warehouse", "current_session", "current_client",
    "current_statement", "session_id", "getvariable",
];

/// What a query may do by calling a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Computes only.
    Pure,
    /// Has side effects: refused, and feeds the floor.
    SideEffect,
    /// Not known: user-defined, extension, or a schema-qualified name outside
    /// the system catalogs.
    Unknown,
}

/// Schemas whose functions are the system's own.
const SYSTEM_SCHEMAS: &[&str] = &["pg_catalog", "information_schema", "sys", "main", "dbo"];

/// Classifies a function by the parts of its (possibly qualified) name.
pub fn classify(parts: &[String], extra_pure: &[String]) -> Class {
    let Some(last) = parts.last() else {
        return Class::Unknown;
    };
    let name = last.to_ascii_lowercase();
    if SIDE_EFFECTS.contains(&name.as_str()) {
        return Class::SideEffect;
    }
    let qualifier_ok = match parts {
        [_] => true,
        [schema, _] => SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(schema)),
        _ => false,
    };
    if extra_pure.iter().any(|f| f.eq_ignore_ascii_case(&name) || f.eq_ignore_ascii_case(&parts.join("."))) {
        return Class::Pure;
    }
    if qualifier_ok && PURE.contains(&name.as_str()) {
        Class::Pure
    } else {
        Class::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(name: &str) -> Vec<String> {
        name.split('.').map(str::to_owned).collect()
    }

    #[test]
    fn classes() {
        assert_eq!(classify(&parts("COUNT"), &[]), Class::Pure);
        assert_eq!(classify(&parts("pg_catalog.lower"), &[]), Class::Pure);
        assert_eq!(classify(&parts("myschema.lower"), &[]), Class::Unknown);
        assert_eq!(classify(&parts("pg_catalog.pg_sleep"), &[]), Class::SideEffect);
        assert_eq!(classify(&parts("evil.pg_sleep"), &[]), Class::SideEffect);
        assert_eq!(classify(&parts("my_udf"), &[]), Class::Unknown);
        assert_eq!(classify(&parts("my_udf"), &["MY_UDF".into()]), Class::Pure);
        assert_eq!(classify(&parts("pg_sleep"), &["pg_sleep".into()]), Class::SideEffect);
    }

    #[test]
    fn lists_are_disjoint_and_lowercase() {
        for name in SIDE_EFFECTS.iter().chain(PURE) {
            assert_eq!(*name, name.to_ascii_lowercase());
        }
        for name in SIDE_EFFECTS {
            assert!(!PURE.contains(name), "{name} is in both lists");
        }
    }
}
