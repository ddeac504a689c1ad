//! Reads that do not finish: work with no bound the text can show.
//!
//! A read-only statement can still hold a server for hours or fill its memory.
//! Three shapes are recognised, each with a check linear in the query:
//! - `WITH RECURSIVE` that no proof shows stopping (a counter stepped toward
//!   its bound, `UNION` of plain columns, a `LIMIT`: see `cte_stops`) and whose
//!   outer query has no `LIMIT`/`FETCH` it stops at;
//! - a cartesian product: three or more relations in one `FROM` that no join
//!   condition (`ON`/`USING`/`NATURAL` comparing columns, or a `WHERE`
//!   equality `a.x = b.y`) links — the rule counts the unlinked groups;
//! - generators and string builders with huge constant bounds
//!   (`generate_series(1, 10^12)`, `repeat('x', 2147483647)`), a string
//!   builder whose count is not a constant, or one nested in another.

use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    JoinConstraint, JoinOperator, LimitClause, Offset, Query, Select, SelectItem, SetExpr,
    SetOperator, TableFactor, TopQuantity, UnaryOperator, Value,
};

/// The most rows a generator may produce from constant bounds.
pub const MAX_SERIES: f64 = 10_000_000.0;
/// The longest string (or blob) a builder may produce from a constant count.
pub const MAX_STRING: f64 = 1_000_000.0;
/// Unlinked groups of relations in one `FROM` from which a product is unbounded.
pub const MAX_UNLINKED: usize = 3;
/// More terms than this in a recursive CTE's `UNION` chain, or conjuncts in a
/// recursive term's `WHERE`, are not analysed for a proof that it stops.
const MAX_TERMS: usize = 64;
/// More relations than this in one `FROM` are not analysed for links.
const MAX_RELATIONS: usize = 64;

/// The largest argument `factorial` may take.
const MAX_FACTORIAL: f64 = 10_000.0;

/// Functions that pad to a width written in their format string.
const FORMATTERS: &[&str] = &["format", "printf", "sprintf"];

/// Whether a format call pads to a huge or unknown width: a width in the
/// format string above the bound, or a `*` width taken from an argument that
/// is not a small constant.
fn format_width(args: &[&Expr]) -> Option<String> {
    let template = args.first().and_then(|e| text(e))?;
    let mut widest = 0f64;
    let mut digits = String::new();
    for c in template.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if let Ok(n) = digits.parse::<f64>() {
                widest = widest.max(n);
            }
            digits.clear();
        }
    }
    if widest > MAX_STRING {
        return Some(format!("pads to a width of {widest:e}"));
    }
    if template.contains('*') {
        let huge = args.iter().skip(1).any(|e| {
            number(e).is_none_or(|n| n.abs() > MAX_STRING)
                && !matches!(e, Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_)))
        });
        if huge {
            return Some(String::from("pads to a width taken from an argument"));
        }
    }
    None
}

/// Row generators: every numeric argument is a bound.
const GENERATORS: &[&str] = &[
    "generate_series",
    "range",
    "generate_array",
    "sequence",
    "generate_subscripts",
    "array_fill",
];

/// String and blob builders, with the position of their count argument.
const BUILDERS: &[(&str, usize)] = &[
    ("repeat", 1),
    ("replicate", 1),
    ("lpad", 1),
    ("rpad", 1),
    ("space", 0),
    ("zeroblob", 0),
    ("randomblob", 0),
    ("spaces", 0),
];

/// Aggregates that join their rows' values into one value.
const AGGREGATORS: &[&str] = &[
    "string_agg",
    "group_concat",
    "listagg",
    "array_agg",
    "json_agg",
    "jsonb_agg",
    "json_object_agg",
    "jsonb_object_agg",
    "json_group_array",
    "json_group_object",
    "json_arrayagg",
    "json_objectagg",
    "xmlagg",
    "array_concat_agg",
    "list",
];

/// Checks one function call (by its lowercase unqualified name).
pub fn function(name: &str, args: &[FunctionArg]) -> Option<String> {
    let exprs = || {
        args.iter().filter_map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
            | FunctionArg::Named {
                arg: FunctionArgExpr::Expr(e),
                ..
            }
            | FunctionArg::ExprNamed {
                arg: FunctionArgExpr::Expr(e),
                ..
            } => Some(e),
            _ => None,
        })
    };
    if GENERATORS.contains(&name) {
        // A bound must be a constant the check can evaluate (a number, a date,
        // an interval) or read a column; a subquery or a computation it cannot
        // follow (`(SELECT n FROM (VALUES (1e12)) v(n))`) is not bounded.
        if let Some(opaque) = exprs().find(|e| {
            number(e).is_none()
                && text(e).is_none()
                && timestamp(e).is_none()
                && !has_column(e)
                && !matches!(e, Expr::Array(_) | Expr::Value(_))
        }) {
            return Some(format!(
                "`{name}` with the bound `{opaque}` (not a constant) may generate any number of rows"
            ));
        }
        if let Some(n) = exprs()
            .flat_map(|e| match e {
                Expr::Array(array) => array.elem.iter().filter_map(number).collect(),
                other => number(other).into_iter().collect::<Vec<_>>(),
            })
            .find(|n| n.abs() > MAX_SERIES || n.is_nan())
        {
            return Some(format!(
                "`{name}` with a bound of {n:e} generates too many rows"
            ));
        }
        return series_rows(name, args)
            .filter(|rows| *rows > MAX_SERIES)
            .map(|rows| format!("`{name}` generates about {rows:e} rows"));
    }
    // `factorial(1e7)` computes a number of tens of millions of digits.
    if name == "factorial" {
        return exprs()
            .next()
            .and_then(number)
            .filter(|n| n.abs() > MAX_FACTORIAL || n.is_nan())
            .map(|n| format!("`factorial` of {n:e} computes a huge number"));
    }
    // A width in a format string pads to that many characters:
    // `format('%1000000000s', 'x')`, `printf('%.*c', 1e9, 'x')`.
    if FORMATTERS.contains(&name) {
        return format_width(&exprs().collect::<Vec<_>>()).map(|what| format!("`{name}` {what}"));
    }
    // `string_agg(repeat('x', 1000000), '')` over ten million rows: each
    // row's string is bounded, their sum is not.
    if AGGREGATORS.contains(&name) && exprs().any(holds_builder) {
        return Some(format!(
            "`{name}` of a built string joins one per row: its size multiplies by the rows"
        ));
    }
    // `replace(big, 'x', big)` multiplies one built string by another.
    if name == "replace" || name == "regexp_replace" {
        let parts: Vec<&Expr> = exprs().collect();
        return (parts.first().is_some_and(|e| holds_builder(e))
            && parts.get(2).is_some_and(|e| holds_builder(e)))
        .then(|| format!("`{name}` of a built string by a built string multiplies its size"));
    }
    let &(_, position) = BUILDERS.iter().find(|(b, _)| *b == name)?;
    let count = exprs().nth(position);
    match count.map(|e| (e, number(e))) {
        Some((_, Some(n))) if n.abs() > MAX_STRING || n.is_nan() => Some(format!(
            "`{name}` with a count of {n:e} builds a huge string"
        )),
        Some((_, Some(_))) | None => exprs()
            .take(position.max(1))
            .any(holds_builder)
            .then(|| format!("`{name}` of a built string multiplies its size")),
        Some((e, None)) => Some(format!(
            "`{name}` with the count `{e}` (not a constant) may build a huge string"
        )),
    }
}

/// The arguments of a call that are plain expressions.
fn arg_exprs(args: &[FunctionArg]) -> Vec<&Expr> {
    args.iter()
        .filter_map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect()
}

/// How many rows a generator yields, when its bounds are constants: numbers,
/// or timestamps with an interval step.
pub fn series_rows(name: &str, args: &[FunctionArg]) -> Option<f64> {
    if !GENERATORS.contains(&name) {
        return None;
    }
    let exprs = arg_exprs(args);
    let numbers: Option<Vec<f64>> = exprs.iter().map(|e| number(e)).collect();
    if let Some(numbers) = numbers {
        return match numbers.as_slice() {
            [stop] => Some(stop.abs()),
            [start, stop] => Some((stop - start).abs() + 1.0),
            [start, stop, step] if *step != 0.0 => Some(((stop - start) / step).abs() + 1.0),
            _ => None,
        };
    }
    match exprs.as_slice() {
        [start, stop, step] => {
            let span = (timestamp(stop)? - timestamp(start)?).abs();
            let step = interval(step)?;
            (step > 0.0).then(|| span / step + 1.0)
        }
        _ => None,
    }
}

/// The text of a string constant, through casts (`'2024-01-01'::date`,
/// `DATE '2024-01-01'`, `INTERVAL '1 day'`).
fn text(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        Expr::TypedString(t) => match &t.value.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        Expr::Nested(e) | Expr::Cast { expr: e, .. } => text(e),
        Expr::Interval(i) => {
            let value = text(&i.value).or_else(|| number(&i.value).map(|n| n.to_string()))?;
            Some(match &i.leading_field {
                Some(field) => format!("{value} {field}"),
                None => value,
            })
        }
        _ => None,
    }
}

/// A timestamp constant in seconds (roughly: years of 365.25 days, months of
/// 30.44), from its digit groups `YYYY-MM-DD HH:MM:SS`.
fn timestamp(expr: &Expr) -> Option<f64> {
    /// `now()` and its kin, as a fixed instant: only differences matter.
    const NOW: f64 = 2025.0 * 365.25 * 86_400.0;
    const CLOCKS: &[&str] = &[
        "now",
        "current_timestamp",
        "current_date",
        "localtimestamp",
        "transaction_timestamp",
        "statement_timestamp",
        "clock_timestamp",
        "getdate",
        "sysdate",
        "current_datetime",
    ];
    match expr {
        Expr::Function(f)
            if f.name
                .0
                .last()
                .and_then(|p| p.as_ident())
                .is_some_and(|i| CLOCKS.iter().any(|c| c.eq_ignore_ascii_case(&i.value))) =>
        {
            return Some(NOW)
        }
        Expr::BinaryOp { left, op, right } => {
            let base = timestamp(left)?;
            let offset = interval(right)?;
            return match op {
                BinaryOperator::Plus => Some(base + offset),
                BinaryOperator::Minus => Some(base - offset),
                _ => None,
            };
        }
        Expr::Nested(e) => return timestamp(e),
        _ => {}
    }
    let text = text(expr)?;
    let parts: Vec<f64> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .take(6)
        .filter_map(|p| p.parse().ok())
        .collect();
    let (year, rest) = parts.split_first()?;
    let factors = [30.44 * 86_400.0, 86_400.0, 3_600.0, 60.0, 1.0];
    let seconds = year * 365.25 * 86_400.0
        + rest
            .iter()
            .zip(factors)
            .map(|(value, factor)| value * factor)
            .sum::<f64>();
    Some(seconds)
}

/// An interval constant in seconds: `'1 day'`, `'15 minutes'`, `'1 second'::interval`.
fn interval(expr: &Expr) -> Option<f64> {
    const UNITS: &[(&str, f64)] = &[
        ("microsecond", 1e-6),
        ("us", 1e-6),
        ("millisecond", 1e-3),
        ("ms", 1e-3),
        ("second", 1.0),
        ("sec", 1.0),
        ("s", 1.0),
        ("minute", 60.0),
        ("min", 60.0),
        ("m", 60.0),
        ("hour", 3_600.0),
        ("h", 3_600.0),
        ("day", 86_400.0),
        ("d", 86_400.0),
        ("week", 604_800.0),
        ("month", 2_629_800.0),
        ("mon", 2_629_800.0),
        ("year", 31_557_600.0),
        ("y", 31_557_600.0),
    ];
    let text = text(expr)?.to_ascii_lowercase();
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let (amount, unit) = match first.parse::<f64>() {
        Ok(n) => (n, words.next().unwrap_or("second")),
        Err(_) => {
            // `1day`, or a bare unit.
            let split = first.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(0);
            let (n, u) = first.split_at(split);
            (if n.is_empty() { 1.0 } else { n.parse().ok()? }, u)
        }
    };
    let unit = unit.trim_end_matches('s');
    let unit = if unit.is_empty() { "s" } else { unit };
    let factor = UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|(_, f)| *f)?;
    Some(amount.abs() * factor)
}

/// Whether an argument itself builds a string (a builder nested in a builder).
fn holds_builder(expr: &Expr) -> bool {
    match expr {
        Expr::Function(f) => {
            let name = f
                .name
                .0
                .last()
                .and_then(|p| p.as_ident())
                .map(|i| i.value.to_ascii_lowercase())
                .unwrap_or_default();
            BUILDERS.iter().any(|(b, _)| *b == name)
                || match &f.args {
                    FunctionArguments::List(list) => list.args.iter().any(|arg| match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => holds_builder(e),
                        _ => false,
                    }),
                    _ => false,
                }
        }
        Expr::Nested(e) | Expr::Cast { expr: e, .. } => holds_builder(e),
        Expr::BinaryOp { left, right, .. } => holds_builder(left) || holds_builder(right),
        _ => false,
    }
}

/// The value of a constant numeric expression, if it is one. `^` counts as a
/// power in every dialect (it is one in PostgreSQL).
pub fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok().or_else(|| {
                let hex = n.strip_prefix("0x").or_else(|| n.strip_prefix("0X"))?;
                u64::from_str_radix(hex, 16).ok().map(|v| v as f64)
            }),
            Value::SingleQuotedString(s) => s.trim().parse().ok(),
            Value::HexStringLiteral(h) => u64::from_str_radix(h, 16).ok().map(|v| v as f64),
            _ => None,
        },
        Expr::Nested(e) | Expr::Cast { expr: e, .. } => number(e),
        Expr::UnaryOp { op, expr } => {
            let n = number(expr)?;
            match op {
                UnaryOperator::Minus => Some(-n),
                UnaryOperator::Plus => Some(n),
                _ => None,
            }
        }
        Expr::BinaryOp { left, op, right } => {
            let (a, b) = (number(left)?, number(right)?);
            match op {
                BinaryOperator::Plus => Some(a + b),
                BinaryOperator::Minus => Some(a - b),
                BinaryOperator::Multiply => Some(a * b),
                BinaryOperator::Divide if b != 0.0 => Some(a / b),
                BinaryOperator::PGExp | BinaryOperator::BitwiseXor => Some(a.powf(b)),
                BinaryOperator::PGBitwiseShiftLeft => Some(a * 2f64.powf(b)),
                BinaryOperator::Modulo if b != 0.0 => Some(a % b),
                _ => None,
            }
        }
        Expr::Function(f) => {
            let name = f.name.0.last()?.as_ident()?.value.to_ascii_lowercase();
            let FunctionArguments::List(list) = &f.args else {
                return None;
            };
            let args: Vec<f64> = list
                .args
                .iter()
                .map(|arg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => number(e),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            match (name.as_str(), args.as_slice()) {
                ("power" | "pow", [a, b]) => Some(a.powf(*b)),
                ("exp", [a]) => Some(a.exp()),
                _ => None,
            }
        }
        // `(SELECT 10^12)`: a scalar subquery of a constant.
        Expr::Subquery(query) => match query.body.as_ref() {
            SetExpr::Select(select) if select.from.is_empty() => match select.projection.as_slice()
            {
                [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }] => {
                    number(e)
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The value of an exact integer constant: digits, a hexadecimal number, a
/// cast of one to an integer type, and sums, differences and products of
/// those within 2^53. A counter proof takes only these: a float, double or
/// real counter never steps once it is large (`1e16 + 1 = 1e16`), and
/// `1e16`, `2^53.0`, `1::float8` and `10 / 4` are not integers in every
/// engine (DuckDB reads `1e16` as a double, PostgreSQL's `^` is a double).
pub fn integer(expr: &Expr) -> Option<f64> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let value = match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                n.parse().ok()
            }
            Value::Number(n, _) => {
                let hex = n.strip_prefix("0x").or_else(|| n.strip_prefix("0X"))?;
                u64::from_str_radix(hex, 16).ok().map(|v| v as f64)
            }
            _ => None,
        },
        Expr::Nested(e) => integer(e),
        Expr::Cast {
            expr: e, data_type, ..
        } if integer_type(data_type) => integer(e),
        Expr::UnaryOp { op, expr } => {
            let n = integer(expr)?;
            match op {
                UnaryOperator::Minus => Some(-n),
                UnaryOperator::Plus => Some(n),
                _ => None,
            }
        }
        Expr::BinaryOp { left, op, right } => {
            let (a, b) = (integer(left)?, integer(right)?);
            match op {
                BinaryOperator::Plus => Some(a + b),
                BinaryOperator::Minus => Some(a - b),
                BinaryOperator::Multiply => Some(a * b),
                _ => None,
            }
        }
        _ => None,
    }?;
    (value.abs() <= EXACT).then_some(value)
}

/// Whether a cast target is an exact integer type in some engine.
fn integer_type(data_type: &sqlparser::ast::DataType) -> bool {
    const TYPES: &[&str] = &[
        "INT",
        "INTEGER",
        "BIGINT",
        "SMALLINT",
        "TINYINT",
        "MEDIUMINT",
        "INT2",
        "INT4",
        "INT8",
        "INT16",
        "INT32",
        "INT64",
        "INT128",
        "HUGEINT",
        "UHUGEINT",
        "UBIGINT",
        "UINTEGER",
        "USMALLINT",
        "UTINYINT",
        "SIGNED",
        "UNSIGNED",
        "SIGNED INTEGER",
        "UNSIGNED INTEGER",
        "INT UNSIGNED",
        "BIGINT UNSIGNED",
        "INTEGER UNSIGNED",
        "SMALLINT UNSIGNED",
    ];
    let text = data_type.to_string().to_ascii_uppercase();
    TYPES.contains(&text.as_str())
}

/// Rounds a recursive term that joins a relation on a key not known unique may
/// run: each round multiplies the rows by the join's fan-out, so only a small
/// depth bound is a proof (a tree walk `WHERE depth < 10`). Worst case: the
/// anchor's rows times the fan-out to this power.
pub const MAX_JOIN_DEPTH: f64 = 10.0;

/// Catalog keys known unique: a join on one adds at most one row per row.
const UNIQUE_KEYS: &[(&str, &str)] = &[
    ("pg_class", "oid"),
    ("pg_namespace", "oid"),
    ("pg_proc", "oid"),
    ("pg_type", "oid"),
    ("pg_database", "oid"),
    ("pg_roles", "oid"),
    ("pg_constraint", "oid"),
    ("pg_am", "oid"),
    ("pg_operator", "oid"),
    ("pg_tablespace", "oid"),
    ("pg_index", "indexrelid"),
    ("pg_class", "relname"),
];

/// Checks a query's recursive CTEs (with or without `RECURSIVE`).
pub fn recursion(query: &Query) -> Option<String> {
    let with = query.with.as_ref()?;
    if limit_stops(query) && streams(query) {
        return None;
    }
    with.cte_tables.iter().find_map(|cte| {
        let name = &cte.alias.name.value;
        // A CTE recurses when it names itself (T-SQL, Oracle and DB2 need no
        // RECURSIVE keyword; with it, other CTEs of the list need not recurse).
        let recursive =
            super::walk::relations(&cte.query, |relation| match relation.0.as_slice() {
                [part]
                    if part
                        .as_ident()
                        .is_some_and(|ident| ident.value.eq_ignore_ascii_case(name)) =>
                {
                    std::ops::ControlFlow::Break(())
                }
                _ => std::ops::ControlFlow::Continue(()),
            })
            .is_break();
        if !recursive {
            return None;
        }
        let bounded = cte_stops(cte);
        (!bounded).then(|| {
            format!("the recursive CTE `{name}` has no terminating condition and no outer LIMIT")
        })
    })
}

/// Whether a query can stop reading early at its LIMIT: no ordering, grouping,
/// distinct or function over the rows (an aggregate must read them all).
fn streams(query: &Query) -> bool {
    query.order_by.is_none()
        && match query.body.as_ref() {
            SetExpr::Select(select) => {
                // One relation read as it comes: a filter may pass no row (the
                // limit is never met), a join or a derived table may sort or
                // aggregate the endless rows first.
                select.selection.is_none()
                    && select.qualify.is_none()
                    && select.prewhere.is_none()
                    && matches!(select.from.as_slice(), [only] if only.joins.is_empty()
                        && matches!(&only.relation, TableFactor::Table { args: None, .. }))
                    && matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
                    && select.having.is_none()
                    && select.distinct.is_none()
                    && select.projection.iter().all(|item| match item {
                        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                            matches!(
                                e,
                                Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
                            )
                        }
                        _ => true,
                    })
            }
            _ => false,
        }
}

/// Whether a recursive CTE is proven to stop (and within [`MAX_SERIES`]
/// rounds when a counter bounds it). Proofs, in an allowlist:
/// - a `LIMIT`/`FETCH` on the CTE's own query;
/// - `UNION` (distinct) whose recursive terms select only columns and
///   constants: every row comes from finite tables, so the rows run out;
/// - a counter: a column the anchor starts at a constant, that each
///   recursive term steps by a constant (`n + 1`, `depth - 2`), and that a
///   conjunct of the term's `WHERE` bounds in the direction it moves
///   (`n < 10`, `depth >= 0`, `n + 1 <= 10`, `n BETWEEN 1 AND 9`), in at most
///   [`MAX_SERIES`] steps.
///
/// A comparison alone proves nothing (`WHERE n > 0` while `n` grows), nor a
/// join (a cycle in the data repeats for ever under `UNION ALL`), nor `EXISTS`.
fn cte_stops(cte: &sqlparser::ast::Cte) -> bool {
    let query = &cte.query;
    if limit_stops(query) {
        return true;
    }
    let SetExpr::SetOperation { .. } = query.body.as_ref() else {
        // Not a union: not recursive in a way the server repeats.
        return true;
    };
    let mut terms = Vec::new();
    let mut distinct = true;
    // Each recursive term is checked against every anchor: the bound keeps
    // that linear in the text.
    if !union_terms(&query.body, &mut terms, &mut distinct) || terms.len() > MAX_TERMS {
        return false;
    }
    let name = &cte.alias.name.value;
    let (anchors, recursive): (Vec<&SetExpr>, Vec<&SetExpr>) =
        terms.into_iter().partition(|term| !names(term, name));
    let Some(anchor) = anchors.first().and_then(|a| plain_select(a)) else {
        return false;
    };
    let columns: Vec<String> = if cte.alias.columns.is_empty() {
        anchor.projection.iter().map(item_name).collect()
    } else {
        cte.alias
            .columns
            .iter()
            .map(|c| c.name.value.to_ascii_lowercase())
            .collect()
    };
    // One recursive term: two or more each feed every row back, and the rows
    // multiply each round.
    matches!(recursive.as_slice(), [term] if term_stops(term, name, &columns, &anchors, distinct))
}

/// The terms of a chain of `UNION`s, left to right; false when another set
/// operation is in the chain. `distinct` turns false when any `UNION` is `ALL`.
fn union_terms<'a>(body: &'a SetExpr, terms: &mut Vec<&'a SetExpr>, distinct: &mut bool) -> bool {
    match body {
        SetExpr::SetOperation {
            op: SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            if matches!(
                set_quantifier,
                sqlparser::ast::SetQuantifier::All | sqlparser::ast::SetQuantifier::AllByName
            ) {
                *distinct = false;
            }
            union_terms(left, terms, distinct) && union_terms(right, terms, distinct)
        }
        SetExpr::SetOperation { .. } => false,
        term => {
            terms.push(term);
            true
        }
    }
}

/// Whether a term reads the relation `name` (unqualified, any case).
fn names(term: &SetExpr, name: &str) -> bool {
    super::walk::relations(term, |relation| match relation.0.as_slice() {
        [part]
            if part
                .as_ident()
                .is_some_and(|ident| ident.value.eq_ignore_ascii_case(name)) =>
        {
            std::ops::ControlFlow::Break(())
        }
        _ => std::ops::ControlFlow::Continue(()),
    })
    .is_break()
}

/// The `SELECT` of a term (through parentheses without clauses of their own).
fn plain_select(term: &SetExpr) -> Option<&Select> {
    match term {
        SetExpr::Select(select) => Some(select),
        SetExpr::Query(query)
            if query.limit_clause.is_none()
                && query.fetch.is_none()
                && query.order_by.is_none() =>
        {
            plain_select(&query.body)
        }
        _ => None,
    }
}

/// The lower-cased output name of a projection item ("" when it has none).
fn item_name(item: &SelectItem) -> String {
    match item {
        SelectItem::ExprWithAlias { alias, .. } => alias.value.to_ascii_lowercase(),
        SelectItem::UnnamedExpr(Expr::Identifier(id)) => id.value.to_ascii_lowercase(),
        SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => parts
            .last()
            .map(|id| id.value.to_ascii_lowercase())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The expression of a projection item, when it is one.
fn item_expr(item: &SelectItem) -> Option<&Expr> {
    match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

fn unnested(mut expr: &Expr) -> &Expr {
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

/// Whether one recursive term stops (see [`cte_stops`]).
fn term_stops(
    term: &SetExpr,
    name: &str,
    columns: &[String],
    anchors: &[&SetExpr],
    distinct: bool,
) -> bool {
    if let SetExpr::Query(query) = term {
        if limit_stops(query) {
            return true;
        }
    }
    let Some(select) = plain_select(term) else {
        return false;
    };
    // A recursive self-join (`FROM r a JOIN r b`) squares the rows each round.
    let mut references = 0usize;
    let _ = super::walk::relations(term, |relation| {
        if let [part] = relation.0.as_slice() {
            if part
                .as_ident()
                .is_some_and(|ident| ident.value.eq_ignore_ascii_case(name))
            {
                references += 1;
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    if references != 1 {
        return false;
    }
    if select.top.as_ref().is_some_and(|top| {
        !top.percent
            && !top.with_ties
            && match &top.quantity {
                Some(TopQuantity::Constant(n)) => *n <= MAX_SERIES as u64,
                Some(TopQuantity::Expr(e)) => small_count(e),
                None => false,
            }
    }) {
        return true;
    }
    // The names the term reads the CTE by: its own, or an alias for it.
    let mut own = vec![name.to_ascii_lowercase()];
    for factor in select
        .from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
    {
        if let TableFactor::Table {
            name: table,
            alias: Some(alias),
            ..
        } = factor
        {
            let itself = match table.0.as_slice() {
                [part] => part
                    .as_ident()
                    .is_some_and(|id| id.value.eq_ignore_ascii_case(name)),
                _ => false,
            };
            if itself {
                own.push(alias.name.value.to_ascii_lowercase());
            }
        }
    }
    let column_of = |expr: &Expr| -> Option<usize> {
        let column = match unnested(expr) {
            Expr::Identifier(id) => id.value.to_ascii_lowercase(),
            Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [q, id] if own.contains(&q.value.to_ascii_lowercase()) => {
                    id.value.to_ascii_lowercase()
                }
                _ => return None,
            },
            _ => return None,
        };
        columns.iter().position(|c| *c == column)
    };
    if distinct
        && select.projection.iter().all(|item| {
            item_expr(item).is_some_and(|e| {
                matches!(
                    unnested(e),
                    Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
                )
            })
        })
    {
        return true;
    }
    // A value that doubles each round (`s || s`, `repeat(s, 2)`) fills the
    // memory within a few dozen rounds, however few rows there are.
    if select
        .projection
        .iter()
        .any(|item| item_expr(item).is_none_or(|e| grows(e, &column_of)))
    {
        return false;
    }
    let Some(selection) = &select.selection else {
        return false;
    };
    let mut conjuncts = Vec::new();
    split_and(selection, &mut conjuncts);
    // A counter bounds the rounds, not the rows of each: every other relation
    // the term reads must be joined to the CTE by an equality, or each round
    // multiplies the rows (`FROM r, t`, `CROSS JOIN generate_series(1, 1000)`);
    // a join on a key not known unique multiplies them by its fan-out, so
    // only a small depth bound proves it.
    let Some(fans_out) = joins_linked(select, &own, &conjuncts) else {
        return false;
    };
    let rounds = if fans_out { MAX_JOIN_DEPTH } else { MAX_SERIES };
    conjuncts.into_iter().take(MAX_TERMS).any(|conjunct| {
        bounds(conjunct, &column_of)
            .into_iter()
            .any(|(at, limit, upward)| {
                counts(select, anchors, at, limit, upward, &column_of, rounds)
            })
    })
}

/// Whether a recursive term's output value may grow geometrically: it reads
/// the CTE's columns twice (`s || s`, `a + a`), or hands one to a builder
/// (`repeat(s, 2)`, `lpad(s, 2 * length(s))`).
fn grows(expr: &Expr, column_of: &dyn Fn(&Expr) -> Option<usize>) -> bool {
    struct Reads<'a> {
        column_of: &'a dyn Fn(&Expr) -> Option<usize>,
        columns: usize,
        builder: bool,
    }
    impl sqlparser::ast::Visitor for Reads<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> std::ops::ControlFlow<()> {
            if matches!(expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
                && (self.column_of)(expr).is_some()
            {
                self.columns += 1;
            }
            if let Expr::Function(f) = expr {
                let name = f
                    .name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.to_ascii_lowercase())
                    .unwrap_or_default();
                if BUILDERS.iter().any(|(b, _)| *b == name) || FORMATTERS.contains(&name.as_str()) {
                    self.builder = true;
                }
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut reads = Reads {
        column_of,
        columns: 0,
        builder: false,
    };
    let _ = super::walk::walk(expr, &mut reads);
    reads.columns >= 2 || (reads.builder && reads.columns >= 1)
}

/// A count the text proves small: a constant from zero to [`MAX_SERIES`]
/// (`NULL`, `ALL`, a parameter or `10^12` are not).
fn small_count(expr: &Expr) -> bool {
    number(expr).is_some_and(|n| (0.0..=MAX_SERIES).contains(&n))
}

/// Whether a query's `LIMIT`/`FETCH` stops it: a small constant count, and no
/// offset past [`MAX_SERIES`] rows (`LIMIT 10 OFFSET 10^12` reads 10^12 rows
/// first; `LIMIT NULL` and `LIMIT ALL` are no limit).
fn limit_stops(query: &Query) -> bool {
    let offset_ok = |offset: Option<&Offset>| offset.is_none_or(|o| small_count(&o.value));
    let fetch_ok = |fetch: &sqlparser::ast::Fetch| {
        !fetch.percent && !fetch.with_ties && fetch.quantity.as_ref().is_some_and(small_count)
    };
    match (&query.limit_clause, &query.fetch) {
        (
            Some(LimitClause::LimitOffset {
                limit: Some(limit),
                offset,
                limit_by,
            }),
            None,
        ) => limit_by.is_empty() && small_count(limit) && offset_ok(offset.as_ref()),
        (Some(LimitClause::OffsetCommaLimit { offset, limit }), None) => {
            small_count(offset) && small_count(limit)
        }
        (None, Some(fetch)) => fetch_ok(fetch),
        // T-SQL's `OFFSET n ROWS FETCH NEXT m ROWS ONLY`.
        (
            Some(LimitClause::LimitOffset {
                limit: None,
                offset,
                limit_by,
            }),
            Some(fetch),
        ) => limit_by.is_empty() && offset_ok(offset.as_ref()) && fetch_ok(fetch),
        _ => false,
    }
}

/// Whether every relation of a recursive term other than the CTE itself
/// (named by `own`) is a table joined to the CTE by an equality between their
/// qualified columns, in its `ON` or in the term's `WHERE`: `None` when one is
/// not, `Some(true)` when a link's key is not known unique (the join fans
/// out), `Some(false)` otherwise.
fn joins_linked(select: &Select, own: &[String], conjuncts: &[&Expr]) -> Option<bool> {
    // Stricter than [`qualifier`]: only `t.col`, no casts or schema paths.
    let table_of = |expr: &Expr| -> Option<String> {
        match unnested(expr) {
            Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [q, _] => Some(q.value.to_ascii_lowercase()),
                _ => None,
            },
            _ => None,
        }
    };
    let column_name = |expr: &Expr| -> String {
        match unnested(expr) {
            Expr::CompoundIdentifier(parts) => parts
                .last()
                .map(|p| p.value.to_ascii_lowercase())
                .unwrap_or_default(),
            _ => String::new(),
        }
    };
    // The other relation's column a conjunct links the CTE by.
    let links = |conjunct: &Expr, other: &str| -> Option<String> {
        let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = unnested(conjunct)
        else {
            return None;
        };
        match (table_of(left), table_of(right)) {
            (Some(a), Some(b)) if own.contains(&a) && b == other => Some(column_name(right)),
            (Some(a), Some(b)) if own.contains(&b) && a == other => Some(column_name(left)),
            _ => None,
        }
    };
    let mut fans_out = false;
    // Every join condition of the term counts for every pair it links, with
    // the `WHERE` conjuncts (`FROM org o JOIN sub s ON o.parent = s.id`).
    let mut pool: Vec<&Expr> = conjuncts.to_vec();
    let mut relations = Vec::new();
    for item in &select.from {
        relations.push(&item.relation);
        for join in &item.joins {
            relations.push(&join.relation);
            match &join.join_operator {
                JoinOperator::Join(JoinConstraint::On(e))
                | JoinOperator::Inner(JoinConstraint::On(e))
                | JoinOperator::Left(JoinConstraint::On(e))
                | JoinOperator::LeftOuter(JoinConstraint::On(e)) => split_and(e, &mut pool),
                _ => {}
            }
        }
    }
    for relation in relations {
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = relation
        else {
            return None;
        };
        let table = name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|id| id.value.to_ascii_lowercase())
            .unwrap_or_default();
        let reference = alias
            .as_ref()
            .map_or(table.clone(), |a| a.name.value.to_ascii_lowercase());
        if own.contains(&reference) || (alias.is_none() && own.contains(&table)) {
            continue;
        }
        let keys: Vec<String> = pool
            .iter()
            .take(MAX_TERMS)
            .filter_map(|c| links(c, &reference))
            .collect();
        if keys.is_empty() {
            return None;
        }
        if !keys
            .iter()
            .any(|key| UNIQUE_KEYS.contains(&(table.as_str(), key.as_str())))
        {
            // A catalog's other keys fan out by the number of objects in the
            // database (`pg_attribute.attnum = r.n` matches every table's
            // n-th column): no depth bound keeps that small.
            let catalog = table.starts_with("pg_")
                || table.starts_with("sqlite_")
                || table.starts_with("duckdb_")
                || name.0.len() >= 2
                    && name.0.first().and_then(|p| p.as_ident()).is_some_and(|s| {
                        let schema = s.value.to_ascii_lowercase();
                        schema == "information_schema"
                            || schema == "pg_catalog"
                            || schema == "sys"
                            || schema == "mysql"
                    });
            if catalog {
                return None;
            }
            fans_out = true;
        }
    }
    Some(fans_out)
}

/// The conjuncts of a condition joined by `AND`.
fn split_and<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>) {
    match unnested(expr) {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(left, out);
            split_and(right, out);
        }
        other => out.push(other),
    }
}

/// A column and a constant offset: `n`, `n + 2`, `n - 1`.
fn offset_column(expr: &Expr, column_of: &dyn Fn(&Expr) -> Option<usize>) -> Option<(usize, f64)> {
    if let Some(at) = column_of(expr) {
        return Some((at, 0.0));
    }
    match unnested(expr) {
        Expr::BinaryOp { left, op, right } => {
            let step = integer(right)?;
            let at = column_of(left)?;
            match op {
                BinaryOperator::Plus => Some((at, step)),
                BinaryOperator::Minus => Some((at, -step)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The bounds a conjunct puts on a column: (column, limit, true for an upper
/// bound). `n + 2 < 10` bounds `n` above by 8.
fn bounds(expr: &Expr, column_of: &dyn Fn(&Expr) -> Option<usize>) -> Vec<(usize, f64, bool)> {
    match expr {
        Expr::BinaryOp { left, op, right } => {
            let (side, limit, upper) = match (
                offset_column(left, column_of),
                integer(right),
                offset_column(right, column_of),
                integer(left),
            ) {
                (Some(side), Some(limit), _, _) => (
                    side,
                    limit,
                    matches!(op, BinaryOperator::Lt | BinaryOperator::LtEq),
                ),
                (_, _, Some(side), Some(limit)) => (
                    side,
                    limit,
                    matches!(op, BinaryOperator::Gt | BinaryOperator::GtEq),
                ),
                _ => return Vec::new(),
            };
            let compares = matches!(
                op,
                BinaryOperator::Lt
                    | BinaryOperator::LtEq
                    | BinaryOperator::Gt
                    | BinaryOperator::GtEq
            );
            if !compares || !limit.is_finite() {
                return Vec::new();
            }
            vec![(side.0, limit - side.1, upper)]
        }
        Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } => match (offset_column(expr, column_of), integer(low), integer(high)) {
            (Some((at, shift)), Some(low), Some(high)) if low.is_finite() && high.is_finite() => {
                vec![(at, high - shift, true), (at, low - shift, false)]
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Whether column `at` is a counter the bound stops within `rounds` steps:
/// every anchor starts it at an exact integer constant, and the term steps it
/// by one toward `limit`.
fn counts(
    select: &Select,
    anchors: &[&SetExpr],
    at: usize,
    limit: f64,
    upward: bool,
    column_of: &dyn Fn(&Expr) -> Option<usize>,
    rounds: f64,
) -> bool {
    let Some(step) = select
        .projection
        .get(at)
        .and_then(item_expr)
        .and_then(|e| offset_column(e, column_of))
        .filter(|(from, _)| *from == at)
        .map(|(_, step)| step)
    else {
        return false;
    };
    let toward = if upward { step } else { -step };
    if !(toward.is_finite() && toward > 0.0) {
        return false;
    }
    anchors.iter().all(|anchor| {
        plain_select(anchor)
            .and_then(|a| a.projection.get(at))
            .and_then(item_expr)
            .and_then(integer)
            .is_some_and(|start| {
                let distance = if upward { limit - start } else { start - limit };
                start.is_finite() && distance / toward <= rounds
            })
    })
}

/// Whether a join condition selects: one of its conjuncts is an equality
/// between plain columns (through casts) of two relations. `OR true`, `<>`,
/// `>=`, `a.x * 0 = b.y * 0`, `EXISTS (…)` and `a.id = a.id` may keep every
/// pair of rows, so they link nothing and the join is counted as a product.
fn compares_columns(expr: &Expr) -> bool {
    fn plain(expr: &Expr) -> bool {
        match expr {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
            Expr::Nested(e) | Expr::Cast { expr: e, .. } => plain(e),
            _ => false,
        }
    }
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => compares_columns(left) || compares_columns(right),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => {
            plain(left)
                && plain(right)
                && !matches!((qualifier(left), qualifier(right)), (Some(a), Some(b)) if a == b)
        }
        Expr::Nested(e) => compares_columns(e),
        _ => false,
    }
}

/// Whether an expression reads a column (shallowly: through operators, casts and
/// function arguments).
fn has_column(expr: &Expr) -> bool {
    match expr {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        Expr::Nested(e) | Expr::Cast { expr: e, .. } | Expr::UnaryOp { expr: e, .. } => {
            has_column(e)
        }
        Expr::BinaryOp { left, right, .. } => has_column(left) || has_column(right),
        Expr::Function(f) => match &f.args {
            FunctionArguments::List(list) => list.args.iter().any(|arg| match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => has_column(e),
                _ => false,
            }),
            _ => false,
        },
        _ => false,
    }
}

/// A CTE as a product sees it: its name, the unlinked groups its body
/// multiplies, and the rows it is known to yield (`None`: unknown).
pub type CteWeight = (String, usize, Option<f64>);

/// Rows a relation of known size may multiply a table of unknown size by.
pub const MAX_FANOUT: f64 = 1_000.0;
/// Bytes a string builder may make per row of a relation of unknown size.
pub const MAX_ROW_STRING: f64 = 10_000.0;
/// Bytes a string builder may make over all the rows of known size.
pub const MAX_BUILT: f64 = 1_000_000_000.0;

/// Checks one `SELECT`'s `FROM` for a product of unlinked relations, and its
/// projection for strings built once per row of a large product.
pub fn cartesian(select: &Select, ctes: &[CteWeight]) -> Option<String> {
    let shape = product(select, 0, ctes);
    if shape.groups >= MAX_UNLINKED {
        return Some(if shape.groups > MAX_RELATIONS {
            format!("more than {MAX_RELATIONS} relations in one FROM are not analysed")
        } else {
            format!(
                "{} relations with no join condition linking them (a cartesian product)",
                shape.groups
            )
        });
    }
    // Two tables crossed openly (`a CROSS JOIN b`, `FROM a, b`) are read as
    // written; a join whose condition does not select (`ON a.x <> b.y`,
    // `ON … OR true`) is a product written as a join.
    if shape.unknown >= 2 && shape.disguised {
        return Some(String::from(
            "two relations of unknown size joined by a condition that does not select (an equality of their columns): a cartesian product",
        ));
    }
    if shape.unknown == 1 && shape.groups >= 2 && shape.rows > MAX_FANOUT {
        return Some(format!(
            "a relation of unknown size crossed with about {:e} rows and no join condition that selects",
            shape.rows
        ));
    }
    if shape.groups >= 2 && shape.rows > MAX_SERIES {
        return Some(format!(
            "generators crossed with no join condition yield about {:e} rows",
            shape.rows
        ));
    }
    let built = built_per_row(select);
    if shape.unknown > 0 && built > MAX_ROW_STRING {
        return Some(format!(
            "a string of about {built:e} bytes is built for every row of a relation of unknown size"
        ));
    }
    (shape.unknown == 0 && built * shape.rows > MAX_BUILT).then(|| {
        format!(
            "a string of about {built:e} bytes is built for each of about {:e} rows",
            shape.rows
        )
    })
}

/// The largest constant count of a string builder in a projection
/// (`md5(repeat('x', 1000000))` builds a million bytes per row).
fn built_per_row(select: &Select) -> f64 {
    struct Builders(f64);
    impl sqlparser::ast::Visitor for Builders {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> std::ops::ControlFlow<()> {
            if let Expr::Function(f) = expr {
                let name = f
                    .name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.to_ascii_lowercase())
                    .unwrap_or_default();
                if let (Some(&(_, position)), FunctionArguments::List(list)) =
                    (BUILDERS.iter().find(|(b, _)| *b == name), &f.args)
                {
                    let count = list.args.get(position).and_then(|arg| match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => number(e),
                        _ => None,
                    });
                    if let Some(count) = count {
                        self.0 = self.0.max(count.abs());
                    }
                }
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut builders = Builders(0.0);
    for item in &select.projection {
        let _ = super::walk::walk(item, &mut builders);
    }
    builders.0
}

/// What one `SELECT`'s `FROM` multiplies: its unlinked groups (each counted
/// by its heaviest member), how many of them are of unknown size (tables),
/// and the rows the groups of known size multiply to.
struct Shape {
    groups: usize,
    unknown: usize,
    rows: f64,
    /// A join with an `ON` condition that does not select.
    disguised: bool,
}

/// How a relation weighs in a product: the unlinked groups inside it (a
/// derived table that is itself a product) and the rows it is known to yield
/// (a generator with constant bounds, a CTE or derived table of constants;
/// `None` when unknown).
fn weight(factor: &TableFactor, depth: usize, ctes: &[CteWeight]) -> (usize, Option<f64>) {
    let generator = |name: &sqlparser::ast::ObjectName, args: &[FunctionArg]| {
        let last = name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.to_ascii_lowercase())
            .unwrap_or_default();
        (1, series_rows(&last, args))
    };
    match factor {
        TableFactor::Derived { subquery, .. } if depth < 8 => {
            let groups = if subquery.limit_clause.is_none() && subquery.fetch.is_none() {
                match subquery.body.as_ref() {
                    SetExpr::Select(select) => product(select, depth + 1, ctes).groups,
                    _ => 1,
                }
            } else {
                1
            };
            (groups.max(1), query_rows(subquery, depth + 1, ctes))
        }
        TableFactor::Function { name, args, .. } => generator(name, args),
        TableFactor::Table {
            name,
            args: Some(args),
            ..
        } => generator(name, &args.args),
        // A CTE weighs what its body does.
        TableFactor::Table {
            name, args: None, ..
        } => match name.0.as_slice() {
            [part] => part
                .as_ident()
                .and_then(|ident| {
                    ctes.iter()
                        .rev()
                        .find(|(cte, _, _)| cte.eq_ignore_ascii_case(&ident.value))
                })
                .map_or((1, None), |(_, groups, rows)| ((*groups).max(1), *rows)),
            _ => (1, None),
        },
        _ => (1, None),
    }
}

/// Aggregates that fold all rows into one.
const FOLDS: &[&str] = &[
    "count", "sum", "min", "max", "avg", "bool_and", "bool_or", "every",
];

/// The rows a query is known to yield: a small `LIMIT`, a `SELECT` with no
/// `FROM` or only aggregates and no grouping, `VALUES`, a `UNION` of those, a
/// product of relations of known size.
fn query_rows(query: &Query, depth: usize, ctes: &[CteWeight]) -> Option<f64> {
    if let Some(LimitClause::LimitOffset {
        limit: Some(limit), ..
    }) = &query.limit_clause
    {
        if small_count(limit) {
            return number(limit);
        }
    }
    body_rows(&query.body, depth, ctes)
}

fn body_rows(body: &SetExpr, depth: usize, ctes: &[CteWeight]) -> Option<f64> {
    if depth > 8 {
        return None;
    }
    match body {
        SetExpr::Select(select) => {
            if select.from.is_empty() {
                return Some(1.0);
            }
            let ungrouped =
                matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty());
            let folds = !select.projection.is_empty()
                && select.projection.iter().all(|item| {
                    item_expr(item).is_some_and(|e| match unnested(e) {
                        Expr::Function(f) => {
                            f.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| {
                                FOLDS.contains(&i.value.to_ascii_lowercase().as_str())
                            })
                        }
                        _ => false,
                    })
                });
            if ungrouped && folds {
                return Some(1.0);
            }
            let shape = product(select, depth + 1, ctes);
            (shape.unknown == 0).then_some(shape.rows)
        }
        SetExpr::Values(values) => Some(values.rows.len() as f64),
        SetExpr::Query(query) => query_rows(query, depth + 1, ctes),
        SetExpr::SetOperation {
            op: SetOperator::Union,
            left,
            right,
            ..
        } => Some(body_rows(left, depth + 1, ctes)? + body_rows(right, depth + 1, ctes)?),
        _ => None,
    }
}

/// The unlinked groups a query's body multiplies (1 for anything but a plain
/// `SELECT`, or under a `LIMIT`) and the rows it is known to yield: what a
/// CTE weighs where it is used.
pub fn query_weight(query: &Query, ctes: &[CteWeight]) -> (usize, Option<f64>) {
    let rows = query_rows(query, 0, ctes);
    if query.limit_clause.is_some() || query.fetch.is_some() {
        return (1, rows);
    }
    match query.body.as_ref() {
        SetExpr::Select(select) => (product(select, 0, ctes).groups.max(1), rows),
        _ => (1, rows),
    }
}

/// The shape of one `SELECT`'s `FROM`.
fn product(select: &Select, depth: usize, ctes: &[CteWeight]) -> Shape {
    // Each relation: the name a condition qualifies it by, and its group.
    let mut names: Vec<Option<String>> = Vec::new();
    let mut group: Vec<usize> = Vec::new();
    let mut weights: Vec<(usize, Option<f64>)> = Vec::new();
    let disguised = select.from.iter().flat_map(|t| &t.joins).any(|join| {
        !lateral(&join.relation)
            && matches!(
                &join.join_operator,
                JoinOperator::Join(JoinConstraint::On(e))
                    | JoinOperator::Inner(JoinConstraint::On(e))
                    | JoinOperator::Left(JoinConstraint::On(e))
                    | JoinOperator::LeftOuter(JoinConstraint::On(e))
                    | JoinOperator::Right(JoinConstraint::On(e))
                    | JoinOperator::RightOuter(JoinConstraint::On(e))
                    | JoinOperator::FullOuter(JoinConstraint::On(e))
                    if !compares_columns(e)
            )
    });
    for table in &select.from {
        let first = names.len();
        names.push(relation_name(&table.relation));
        weights.push(weight(&table.relation, depth, ctes));
        group.push(first);
        for join in &table.joins {
            let id = names.len();
            names.push(relation_name(&join.relation));
            weights.push(weight(&join.relation, depth, ctes));
            group.push(if joined(&join.join_operator) || lateral(&join.relation) {
                first
            } else {
                id
            });
        }
        if names.len() > MAX_RELATIONS {
            return Shape {
                groups: MAX_RELATIONS + 1,
                unknown: 0,
                rows: 1.0,
                disguised: false,
            };
        }
    }
    // A table function that reads another relation's columns is lateral: linked.
    let mut next = 0;
    for table in &select.from {
        if next > 0 && lateral(&table.relation) {
            union(&mut group, next, 0);
        }
        next += 1 + table.joins.len();
    }
    if let Some(selection) = &select.selection {
        let mut pending = vec![selection];
        while let Some(expr) = pending.pop() {
            match expr {
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::And,
                    right,
                } => {
                    pending.push(left);
                    pending.push(right);
                }
                Expr::Nested(e) => pending.push(e),
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                } => {
                    if let (Some(a), Some(b)) = (
                        qualifier(left).and_then(|q| find(&names, &q)),
                        qualifier(right).and_then(|q| find(&names, &q)),
                    ) {
                        union(&mut group, a, b);
                    }
                }
                _ => {}
            }
        }
    }
    // A `WHERE` that compares columns of two relations it leaves unlinked
    // (`a.oid <> b.oid`, `a.x >= b.y OR true`) is a join condition that does
    // not select, as it is in an `ON`.
    let disguised = disguised
        || select.selection.as_ref().is_some_and(|selection| {
            struct Qualifiers(Vec<String>);
            impl sqlparser::ast::Visitor for Qualifiers {
                type Break = ();
                fn pre_visit_expr(&mut self, expr: &Expr) -> std::ops::ControlFlow<()> {
                    if let Some(q) = qualifier(expr) {
                        if self.0.len() < MAX_TERMS && !self.0.contains(&q) {
                            self.0.push(q);
                        }
                    }
                    std::ops::ControlFlow::Continue(())
                }
            }
            // One conjunct at a time: `a.x = 1 AND b.y = 2` filters each
            // relation on its own and compares none with the other.
            let mut conjuncts = Vec::new();
            split_and(selection, &mut conjuncts);
            conjuncts.into_iter().take(MAX_TERMS).any(|conjunct| {
                let mut seen = Qualifiers(Vec::new());
                let _ = super::walk::walk(conjunct, &mut seen);
                let mut roots: Vec<usize> = seen
                    .0
                    .iter()
                    .filter_map(|q| find(&names, q))
                    .map(|i| root(&group, i))
                    .collect();
                roots.sort_unstable();
                roots.dedup();
                roots.len() >= 2
            })
        });
    // Each linked group counts once and weighs its heaviest member's rows
    // (unknown when any member's are); a member that is itself a product (a
    // derived table, a CTE, a `LATERAL` subquery crossing two tables) adds
    // its own unlinked groups: a link to it does not bound the product inside it.
    let mut heaviest: Vec<Option<Option<f64>>> = vec![None; group.len()];
    let mut inner = 0usize;
    for (i, &(groups, rows)) in weights.iter().enumerate() {
        inner += groups.saturating_sub(1);
        if let Some(slot) = heaviest.get_mut(root(&group, i)) {
            *slot = Some(match (*slot, rows) {
                (None, rows) => rows,
                (Some(Some(a)), Some(b)) => Some(a.max(b)),
                _ => None,
            });
        }
    }
    let mut shape = Shape {
        groups: inner,
        unknown: 0,
        rows: 1.0,
        disguised,
    };
    for slot in heaviest.into_iter().flatten() {
        shape.groups += 1;
        match slot {
            Some(rows) => shape.rows *= rows,
            None => shape.unknown += 1,
        }
    }
    shape
}

fn joined(operator: &JoinOperator) -> bool {
    let constraint = match operator {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c)
        | JoinOperator::Semi(c)
        | JoinOperator::LeftSemi(c)
        | JoinOperator::RightSemi(c)
        | JoinOperator::Anti(c)
        | JoinOperator::LeftAnti(c)
        | JoinOperator::RightAnti(c)
        | JoinOperator::StraightJoin(c) => c,
        // Semi-joins by nature, or correlated: bounded by the left side.
        JoinOperator::CrossApply | JoinOperator::OuterApply | JoinOperator::AsOf { .. } => {
            return true
        }
        _ => return false,
    };
    match constraint {
        JoinConstraint::On(expr) => compares_columns(expr),
        JoinConstraint::Using(_) | JoinConstraint::Natural => true,
        JoinConstraint::None => false,
    }
}

/// A relation that reads another's columns: `LATERAL`, or a table function
/// with a qualified column argument (`unnest(t.tags)`).
fn lateral(factor: &TableFactor) -> bool {
    match factor {
        // `LATERAL` links only a subquery that reads the outer relations
        // (`WHERE b.a_id = a.id`); one that does not is a plain product.
        TableFactor::Derived {
            lateral, subquery, ..
        } => *lateral && correlated(subquery),
        TableFactor::Function { lateral, args, .. } => {
            *lateral
                || args.iter().any(|arg| {
                    matches!(arg, FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if has_column(e))
                })
        }
        TableFactor::Table {
            args: Some(args), ..
        } => args.args.iter().any(|arg| {
            matches!(arg, FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if has_column(e))
        }),
        TableFactor::UNNEST { array_exprs, .. } => array_exprs.iter().any(has_column),
        _ => false,
    }
}

/// Whether a subquery's `WHERE` compares a column of a relation it does not
/// name itself (an outer one). Other bodies than a plain `SELECT` are taken
/// as correlated, as before.
fn correlated(subquery: &Query) -> bool {
    let SetExpr::Select(select) = subquery.body.as_ref() else {
        return true;
    };
    let inner: Vec<Option<String>> = select
        .from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
        .map(relation_name)
        .collect();
    let Some(selection) = &select.selection else {
        return false;
    };
    let mut pending = vec![selection];
    let mut seen = 0usize;
    while let Some(expr) = pending.pop() {
        seen += 1;
        if seen > MAX_TERMS {
            return true;
        }
        match expr {
            Expr::BinaryOp { left, op, right } => {
                if matches!(op, BinaryOperator::And | BinaryOperator::Or) {
                    pending.push(left);
                    pending.push(right);
                    continue;
                }
                let outer = |e: &Expr| qualifier(e).is_some_and(|q| find(&inner, &q).is_none());
                if outer(left) || outer(right) {
                    return true;
                }
            }
            Expr::Nested(e) => pending.push(e),
            _ => {}
        }
    }
    false
}

fn relation_name(factor: &TableFactor) -> Option<String> {
    let (alias, name) = match factor {
        TableFactor::Table { alias, name, .. } => (alias, name.0.last().and_then(|p| p.as_ident())),
        TableFactor::Derived { alias, .. }
        | TableFactor::Function { alias, .. }
        | TableFactor::UNNEST { alias, .. }
        | TableFactor::NestedJoin { alias, .. } => (alias, None),
        _ => (&None, None),
    };
    alias
        .as_ref()
        .map(|a| &a.name)
        .or(name)
        .map(|ident| ident.value.to_ascii_lowercase())
}

/// The relation a column reference names (`a` in `a.x`, `s.a.x`).
fn qualifier(expr: &Expr) -> Option<String> {
    match expr {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => parts
            .get(parts.len() - 2)
            .map(|ident| ident.value.to_ascii_lowercase()),
        Expr::Nested(e) | Expr::Cast { expr: e, .. } => qualifier(e),
        _ => None,
    }
}

fn find(names: &[Option<String>], qualifier: &str) -> Option<usize> {
    names
        .iter()
        .position(|name| name.as_deref() == Some(qualifier))
}

fn root(group: &[usize], mut i: usize) -> usize {
    // Bounded: a parent is never larger than its child.
    while let Some(&parent) = group.get(i) {
        if parent == i {
            break;
        }
        i = parent;
    }
    i
}

fn union(group: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (root(group, a), root(group, b));
    let (low, high) = (ra.min(rb), ra.max(rb));
    if let Some(slot) = group.get_mut(high) {
        *slot = low;
    }
}
