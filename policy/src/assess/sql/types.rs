//! Type names a cast may name without running code the policy cannot see.
//!
//! A cast runs the target type's input or cast function. For the built-in
//! types that is the server's own code; for a user-defined type (`CREATE TYPE`
//! with its own input function, a domain whose `CHECK` calls a function, a
//! CLR or object type) it is whatever the database's owner wrote. sqlparser
//! reads every type name it has no variant for as a custom type, so the
//! allowlist below names the built-in types of the dialects the policy reads
//! that reach it that way; any other name is not proven. A type built into one
//! server and loaded from an extension by another is not on it: DuckDB loads
//! `inet` from its extension directory (the DuckDB oracle saw the lookups).

use sqlparser::ast::{ArrayElemTypeDef, DataType, Expr, Ident, ObjectName, SelectItem};

/// Built-in type names (lower case) that sqlparser reads as custom types.
const BUILT_IN: &[&str] = &[
    // PostgreSQL object identifiers, network, text search, ranges, geometry.
    "oid",
    "regclass",
    "regtype",
    "regproc",
    "regprocedure",
    "regoper",
    "regoperator",
    "regnamespace",
    "regrole",
    "regconfig",
    "regdictionary",
    "regcollation",
    "xid",
    "xid8",
    "cid",
    "tid",
    "macaddr",
    "macaddr8",
    "tsvector",
    "tsquery",
    "int4range",
    "int8range",
    "numrange",
    "tsrange",
    "tstzrange",
    "daterange",
    "int4multirange",
    "int8multirange",
    "nummultirange",
    "tsmultirange",
    "tstzmultirange",
    "datemultirange",
    "int2",
    "int4",
    "int8",
    "float4",
    "float8",
    "serial",
    "serial2",
    "serial4",
    "serial8",
    "smallserial",
    "bigserial",
    "money",
    "box",
    "point",
    "line",
    "lseg",
    "path",
    "polygon",
    "circle",
    "pg_lsn",
    "pg_snapshot",
    "txid_snapshot",
    "name",
    "bpchar",
    "varbit",
    "bit",
    "timetz",
    "timestamptz",
    "interval",
    "uuid",
    "json",
    "jsonb",
    "jsonpath",
    "xml",
    "bytea",
    "text",
    "char",
    "record",
    "unknown",
    "aclitem",
    "refcursor",
    // SQL Server, MySQL, Oracle, SQLite, DuckDB and warehouse spellings.
    "nvarchar",
    "ntext",
    "nchar",
    "sql_variant",
    "smallmoney",
    "datetime2",
    "datetimeoffset",
    "smalldatetime",
    "datetime",
    "uniqueidentifier",
    "rowversion",
    "image",
    "sysname",
    "signed",
    "unsigned",
    "year",
    "tinytext",
    "mediumtext",
    "longtext",
    "tinyblob",
    "mediumblob",
    "longblob",
    "number",
    "varchar2",
    "nvarchar2",
    "clob",
    "nclob",
    "raw",
    "rowid",
    "urowid",
    "binary_float",
    "binary_double",
    "string",
    "int64",
    "float64",
    "bignumeric",
    "variant",
    "object",
    "hugeint",
    "uhugeint",
    "ubigint",
    "uinteger",
    "usmallint",
    "utinyint",
    "blob",
    "integer",
    "real",
    "double",
    "numeric",
    "decimal",
    "boolean",
    "bool",
    "date",
    "time",
    "timestamp",
    "varchar",
    "character",
    "float",
    "int",
    "bigint",
    "smallint",
    "tinyint",
    "mediumint",
    "binary",
    "varbinary",
];

/// The user-defined type a select item casts to when PostgreSQL reads it as a
/// typed literal: `SELECT point '(1,2)'` is a cast to `point`, but sqlparser
/// reads a name followed by a string as a column with a quoted alias.
pub fn typed_literal(item: &SelectItem) -> Option<&Ident> {
    match item {
        SelectItem::ExprWithAlias {
            expr: Expr::Identifier(name),
            alias,
        } if alias.quote_style == Some('\'') => {
            let built_in = BUILT_IN
                .iter()
                .any(|t| t.eq_ignore_ascii_case(name.value.as_str()));
            (!built_in).then_some(name)
        }
        _ => None,
    }
}

/// The user-defined type a data type names, if it names one (also as the
/// element of an array).
pub fn user_defined(data_type: &DataType) -> Option<&ObjectName> {
    match data_type {
        DataType::Custom(name, _) => {
            let built_in = match name.0.as_slice() {
                [part] => part.as_ident().is_some_and(|ident| {
                    BUILT_IN
                        .iter()
                        .any(|t| t.eq_ignore_ascii_case(ident.value.as_str()))
                }),
                _ => false,
            };
            (!built_in).then_some(name)
        }
        DataType::Array(
            ArrayElemTypeDef::AngleBracket(inner)
            | ArrayElemTypeDef::SquareBracket(inner, _)
            | ArrayElemTypeDef::Parenthesis(inner),
        ) => user_defined(inner),
        _ => None,
    }
}
