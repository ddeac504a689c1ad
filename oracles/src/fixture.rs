//! The fixture database both engine oracles load: the tables, columns, a view
//! and an index the conformance statements name, so most statements execute
//! instead of failing on a missing name. Every table carries every column (a
//! wide, uniform schema): the vectors name many tables with overlapping
//! columns, and a uniform schema makes joins, `USING` and `NATURAL JOIN` work
//! everywhere.

/// The tables, as the statements spell them (quoted where case matters).
pub const TABLES: &[&str] = &[
    "users",
    "orders",
    "customers",
    "events",
    "a",
    "b",
    "c",
    "t",
    "t1",
    "t2",
    "staff",
    "results",
    "sales",
    "ticks",
    "items",
    "people",
    "files",
    "contacts",
    "documents",
    "posts",
    "tags",
    "requests",
    "logs",
    "accounts",
    "admins",
    "audit",
    "samples",
    "sessions",
    "points",
    "profiles",
    "r",
    "visits",
    "products",
    "employees",
    "departments",
    "invoices",
    "payments",
    "\"Orders\"",
];

/// A column's type on each engine.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An integer.
    Int,
    /// A number with a fraction.
    Num,
    /// Text.
    Text,
    /// A point in time.
    Time,
    /// A calendar day.
    Date,
    /// A truth value.
    Bool,
    /// A JSON document (text on SQLite).
    Json,
    /// A text array (JSON text on SQLite).
    Array,
}

/// Every column every table has.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("id", Kind::Int),
    ("user_id", Kind::Int),
    ("customer_id", Kind::Int),
    ("post_id", Kind::Int),
    ("a_id", Kind::Int),
    ("order_id", Kind::Int),
    ("product_id", Kind::Int),
    ("department_id", Kind::Int),
    ("name", Kind::Text),
    ("email", Kind::Text),
    ("nickname", Kind::Text),
    ("first", Kind::Text),
    ("last", Kind::Text),
    ("bio", Kind::Text),
    ("country", Kind::Text),
    ("status", Kind::Text),
    ("role", Kind::Text),
    ("dept", Kind::Text),
    ("team", Kind::Text),
    ("tag", Kind::Text),
    ("code", Kind::Text),
    ("phone", Kind::Text),
    ("path", Kind::Text),
    ("action", Kind::Text),
    ("title", Kind::Text),
    ("category", Kind::Text),
    ("quarter", Kind::Text),
    ("level", Kind::Text),
    ("message", Kind::Text),
    ("description", Kind::Text),
    ("type", Kind::Text),
    ("created_at", Kind::Time),
    ("updated_at", Kind::Time),
    ("created", Kind::Time),
    ("ts", Kind::Time),
    ("deleted_at", Kind::Time),
    ("day", Kind::Date),
    ("birthday", Kind::Date),
    ("total", Kind::Num),
    ("amount", Kind::Num),
    ("price", Kind::Num),
    ("salary", Kind::Num),
    ("score", Kind::Int),
    ("x", Kind::Int),
    ("y", Kind::Int),
    ("a", Kind::Int),
    ("b", Kind::Int),
    ("delta", Kind::Int),
    ("n", Kind::Int),
    ("qty", Kind::Int),
    ("quantity", Kind::Int),
    ("age", Kind::Int),
    ("latency", Kind::Num),
    ("value", Kind::Num),
    ("active", Kind::Bool),
    ("admin", Kind::Bool),
    ("data", Kind::Json),
    ("payload", Kind::Json),
    ("tags", Kind::Array),
    ("roles", Kind::Array),
    ("Order Id", Kind::Int),
];

/// The rows per table.
pub const ROWS: usize = 3;

/// The engine a statement is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// DuckDB.
    Duckdb,
}

fn type_name(kind: Kind, flavor: Flavor) -> &'static str {
    match (flavor, kind) {
        (Flavor::Sqlite, Kind::Int | Kind::Bool) => "INTEGER",
        (Flavor::Sqlite, Kind::Num) => "REAL",
        (Flavor::Sqlite, _) => "TEXT",
        (Flavor::Postgres, Kind::Int) => "integer",
        (Flavor::Postgres, Kind::Num) => "numeric",
        (Flavor::Postgres, Kind::Text) => "text",
        (Flavor::Postgres, Kind::Time) => "timestamptz",
        (Flavor::Postgres, Kind::Date) => "date",
        (Flavor::Postgres, Kind::Bool) => "boolean",
        (Flavor::Postgres, Kind::Json) => "jsonb",
        (Flavor::Postgres, Kind::Array) => "text[]",
        (Flavor::Duckdb, Kind::Int) => "INTEGER",
        (Flavor::Duckdb, Kind::Num) => "DECIMAL(18, 3)",
        (Flavor::Duckdb, Kind::Text) => "VARCHAR",
        (Flavor::Duckdb, Kind::Time) => "TIMESTAMPTZ",
        (Flavor::Duckdb, Kind::Date) => "DATE",
        (Flavor::Duckdb, Kind::Bool) => "BOOLEAN",
        (Flavor::Duckdb, Kind::Json) => "JSON",
        (Flavor::Duckdb, Kind::Array) => "VARCHAR[]",
    }
}

/// Row `row`'s value of a column, as an SQL literal.
fn value(name: &str, kind: Kind, row: usize, flavor: Flavor) -> String {
    let n = row + 1;
    match (kind, flavor) {
        (Kind::Int, _) => format!("{n}"),
        (Kind::Num, _) => format!("{}.5", n * 10),
        (Kind::Text, _) if name == "email" => format!("'user{n}@example.test'"),
        (Kind::Text, _) => format!("'{name} {n}'"),
        (Kind::Time, _) => format!("'2024-01-0{n} 10:00:00'"),
        (Kind::Date, _) => format!("'2024-02-0{n}'"),
        (Kind::Bool, Flavor::Sqlite) => format!("{}", n % 2),
        (Kind::Bool, Flavor::Postgres | Flavor::Duckdb) => {
            (if n % 2 == 1 { "true" } else { "false" }).to_owned()
        }
        (Kind::Json, _) => {
            format!(r#"'{{"name": "n{n}", "active": true, "user": {{"id": {n}}}}}'"#)
        }
        (Kind::Array, Flavor::Sqlite) => format!(r#"'["t{n}", "x"]'"#),
        (Kind::Array, Flavor::Postgres | Flavor::Duckdb) => format!("ARRAY['t{n}', 'x']"),
    }
}

/// The statements that build the fixture on `flavor`: every table with every
/// column and [`ROWS`] rows, a view `v_users`, an index on `users(email)`.
pub fn schema(flavor: Flavor) -> Vec<String> {
    let mut out = Vec::new();
    for table in TABLES {
        // SQLite and DuckDB fold even quoted names' case: `"Orders"` is
        // `orders` there.
        if flavor != Flavor::Postgres && table.starts_with('"') {
            continue;
        }
        let cols: Vec<String> = COLUMNS
            .iter()
            .map(|(name, kind)| format!("\"{name}\" {}", type_name(*kind, flavor)))
            .collect();
        out.push(format!("CREATE TABLE {table} ({})", cols.join(", ")));
        for row in 0..ROWS {
            let values: Vec<String> = COLUMNS
                .iter()
                .map(|(name, kind)| value(name, *kind, row, flavor))
                .collect();
            out.push(format!(
                "INSERT INTO {table} VALUES ({})",
                values.join(", ")
            ));
        }
    }
    out.push("CREATE VIEW v_users AS SELECT id, name, email FROM users".to_owned());
    out.push("CREATE INDEX users_email ON users (email)".to_owned());
    out
}
