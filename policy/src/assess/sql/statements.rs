//! Every statement form the parser knows, matched exhaustively: a new form in
//! a parser upgrade fails to compile here instead of falling through to a
//! default. Only [`Form::Report`], and the forms the caller checks further
//! (queries, `EXPLAIN`, `SHOW` of a variable, `PRAGMA`, `COPY … TO STDOUT`),
//! can end in an allow.

use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, OnConflict, OnConflictAction, OnInsert, Query,
    Reset, ResetStatement, Set, Statement,
};

/// What kind of statement this is, for the read-only proof and the floor.
#[derive(Clone, Copy, Debug)]
pub enum Form<'a> {
    /// Reports catalog information only (`SHOW …`, `DESCRIBE`).
    Report,
    /// A query: every node in it is checked.
    Query(&'a Query),
    /// `EXPLAIN`: plain plans only, `ANALYZE` in any spelling runs its statement.
    Explain,
    /// `SHOW name`: a read only when the name is a plain name.
    ShowVariable,
    /// SQLite `PRAGMA`: reporting pragmas only.
    Pragma,
    /// Changes session state that later (approved) statements run under.
    Session(&'static str),
    /// A scripting block: its statements are judged; the block itself is session state.
    Block(&'a [Statement]),
    /// `PREPARE p AS …`: the prepared statement is judged.
    Prepare(&'a Statement),
    /// `EXECUTE`, `EXEC`, `EXECUTE IMMEDIATE`: dynamic SQL.
    Execute,
    /// `COPY`: to the client it reads; to files or programs it writes.
    Copy,
    /// `CALL`: a procedure can do anything.
    Call,
    /// Reads or loads server or client files, URLs or extensions.
    FileAccess(&'static str),
    /// Writes or deletes files: feeds the floor.
    FileWrite(&'static str),
    /// Control flow with statements inside (`IF`, `WHILE`, `CASE`…).
    Script,
    /// Changes data or schema.
    Write,
    /// Destroys data or objects: feeds the floor.
    Destroys(&'static str),
}

/// The form of one statement.
pub fn form(statement: &Statement) -> Form<'_> {
    match statement {
        Statement::Query(query) => Form::Query(query),
        Statement::Explain { .. } => Form::Explain,
        Statement::ShowVariable { .. } => Form::ShowVariable,
        Statement::Pragma { .. } => Form::Pragma,
        Statement::ShowFunctions { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowProcessList { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCharset { .. }
        | Statement::ShowObjects { .. }
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. }
        | Statement::ShowCollation { .. }
        | Statement::ExplainTable { .. } => Form::Report,
        // `BEGIN … END` scripting blocks (BigQuery, Snowflake, T-SQL) parse as a
        // transaction start that carries the block's statements.
        Statement::StartTransaction { statements, .. } if !statements.is_empty() => {
            Form::Block(statements)
        }
        Statement::StartTransaction { .. } => Form::Session("opens a transaction"),
        // Acting as another role or user undoes every privilege check after it.
        Statement::Set(Set::SetRole { .. } | Set::SetSessionAuthorization(_)) => {
            Form::Destroys("acts as another role or user")
        }
        Statement::Set { .. } => Form::Session("sets a session setting, role or variable"),
        Statement::Use { .. } => {
            Form::Session("changes the default database, schema, role or warehouse")
        }
        Statement::Commit { .. } => Form::Session("commits the transaction"),
        Statement::Rollback { .. } => Form::Session("rolls back work"),
        Statement::Savepoint { .. } => Form::Session("marks a savepoint"),
        Statement::ReleaseSavepoint { .. } => Form::Session("releases a savepoint"),
        Statement::Discard { .. } => Form::Session("discards session state"),
        Statement::LISTEN { .. } => Form::Session("listens for notifications"),
        Statement::UNLISTEN { .. } => Form::Session("stops listening for notifications"),
        // MySQL's `RESET MASTER`/`RESET REPLICA` read as a parameter: they
        // delete the binary logs or the replication state.
        Statement::Reset(ResetStatement {
            reset: Reset::ConfigurationParameter(name),
        }) if name.0.first().and_then(|p| p.as_ident()).is_some_and(|id| {
            matches!(
                id.value.to_ascii_lowercase().as_str(),
                "master" | "replica" | "slave" | "binary" | "persist"
            )
        }) =>
        {
            Form::Destroys("deletes binary logs or replication state")
        }
        Statement::Reset { .. } => Form::Session("resets session settings"),
        Statement::AlterSession { .. } => Form::Session("changes session settings"),
        Statement::Deallocate { .. } => Form::Session("deallocates a prepared statement"),
        Statement::Declare { .. } => Form::Session("declares a cursor or variable"),
        Statement::Open { .. } => Form::Session("opens a cursor"),
        Statement::Fetch { .. } => Form::Session("fetches from a cursor"),
        Statement::Close { .. } => Form::Session("closes a cursor"),
        Statement::Lock { .. } => Form::Session("takes table locks"),
        Statement::LockTables { .. } => Form::Session("takes table locks"),
        Statement::UnlockTables => Form::Session("releases table locks"),
        Statement::Prepare { statement, .. } => Form::Prepare(statement),
        Statement::Execute { .. } => Form::Execute,
        Statement::Copy { .. } => Form::Copy,
        Statement::Call(_) => Form::Call,
        Statement::AttachDatabase { .. } => Form::FileAccess("attaches a database file"),
        Statement::AttachDuckDBDatabase { .. } => {
            Form::FileAccess("attaches a database file or URL")
        }
        Statement::DetachDuckDBDatabase { .. } => Form::FileAccess("detaches a database"),
        Statement::Install { .. } => Form::FileAccess("installs an extension"),
        Statement::Load { .. } => Form::FileAccess("loads an extension"),
        Statement::LoadData { .. } => Form::FileAccess("loads a file into a table"),
        Statement::List { .. } => Form::FileAccess("lists stage files"),
        Statement::Put { .. } => Form::FileAccess("uploads a local file"),
        Statement::CopyIntoSnowflake { .. } => Form::FileAccess("copies between a table and files"),
        Statement::Directory { .. } => Form::FileWrite("writes query results over files"),
        Statement::Unload { .. } => Form::FileWrite("writes query results to files"),
        Statement::ExportData { .. } => Form::FileWrite("writes query results to files"),
        Statement::Remove { .. } => Form::FileWrite("deletes stage files"),
        // Who may do what: a new superuser or a granted role outlives the
        // session and undoes every other check, so it feeds the floor.
        Statement::CreateRole { .. }
        | Statement::AlterRole { .. }
        | Statement::CreateUser { .. }
        | Statement::AlterUser { .. }
        | Statement::Grant { .. }
        | Statement::Deny { .. }
        | Statement::Revoke { .. } => Form::Destroys("changes users, roles or privileges"),
        Statement::Drop { .. } => Form::Destroys("drops database objects"),
        Statement::DropFunction { .. } => Form::Destroys("drops database objects"),
        Statement::DropDomain { .. } => Form::Destroys("drops database objects"),
        Statement::DropProcedure { .. } => Form::Destroys("drops database objects"),
        Statement::DropSecret { .. } => Form::Destroys("drops database objects"),
        Statement::DropPolicy { .. } => Form::Destroys("drops database objects"),
        Statement::DropConnector { .. } => Form::Destroys("drops database objects"),
        Statement::DropExtension { .. } => Form::Destroys("drops database objects"),
        Statement::DropOperator { .. } => Form::Destroys("drops database objects"),
        Statement::DropOperatorFamily { .. } => Form::Destroys("drops database objects"),
        Statement::DropOperatorClass { .. } => Form::Destroys("drops database objects"),
        Statement::DropTrigger { .. } => Form::Destroys("drops database objects"),
        Statement::Truncate { .. } => Form::Destroys("deletes every row of a table"),
        Statement::Delete { .. } => Form::Destroys("deletes rows"),
        Statement::Update { .. } => Form::Destroys("overwrites rows"),
        Statement::Merge { .. } => Form::Destroys("may update or delete rows"),
        Statement::Kill { .. } => Form::Destroys("kills a session or query"),
        Statement::Msck { .. } => Form::Destroys("repairs (and may drop) table partitions"),
        Statement::Insert(insert) if insert.overwrite => Form::Destroys("overwrites a table"),
        // An upsert or `REPLACE` overwrites the rows it collides with.
        Statement::Insert(insert)
            if insert.replace_into
                || matches!(
                    insert.on,
                    Some(
                        OnInsert::DuplicateKeyUpdate(_)
                            | OnInsert::OnConflict(OnConflict {
                                action: OnConflictAction::DoUpdate(_),
                                ..
                            })
                    )
                ) =>
        {
            Form::Destroys("overwrites the rows it collides with")
        }
        Statement::CreateTable(create) if create.or_replace => {
            Form::Destroys("replaces a table and its rows")
        }
        Statement::CreateView(view) if view.or_replace => {
            Form::Destroys("replaces a view's definition")
        }
        Statement::CreateFunction(function) if function.or_replace => {
            Form::Destroys("replaces a function's definition")
        }
        // A rename moves the table away from every query that names it, as
        // `mv` does to a file.
        Statement::RenameTable(_) => Form::Destroys("renames tables away"),
        Statement::AlterTable(alter) if alter.operations.iter().any(drops_data) => {
            Form::Destroys("drops part of a table")
        }
        Statement::Case { .. }
        | Statement::If { .. }
        | Statement::While { .. }
        | Statement::Raise { .. }
        | Statement::Return { .. }
        | Statement::RaisError { .. }
        | Statement::Throw { .. }
        | Statement::Print { .. }
        | Statement::WaitFor { .. }
        | Statement::Assert { .. } => Form::Script,
        Statement::Insert { .. }
        | Statement::CreateTable { .. }
        | Statement::AlterTable { .. }
        | Statement::Analyze { .. }
        | Statement::CreateView { .. }
        | Statement::CreateVirtualTable { .. }
        | Statement::CreateIndex { .. }
        | Statement::CreateSecret { .. }
        | Statement::CreateServer { .. }
        | Statement::CreatePolicy { .. }
        | Statement::CreateConnector { .. }
        | Statement::CreateOperator { .. }
        | Statement::CreateOperatorFamily { .. }
        | Statement::CreateOperatorClass { .. }
        | Statement::CreateTextSearch { .. }
        | Statement::AlterSchema { .. }
        | Statement::AlterIndex { .. }
        | Statement::AlterView { .. }
        | Statement::AlterFunction { .. }
        | Statement::AlterType { .. }
        | Statement::AlterCollation { .. }
        | Statement::AlterOperator { .. }
        | Statement::AlterOperatorFamily { .. }
        | Statement::AlterOperatorClass { .. }
        | Statement::AlterTextSearch { .. }
        | Statement::AlterPolicy { .. }
        | Statement::AlterConnector { .. }
        | Statement::CreateExtension { .. }
        | Statement::CreateCollation { .. }
        | Statement::Flush { .. }
        | Statement::Comment { .. }
        | Statement::CreateSchema { .. }
        | Statement::CreateDatabase { .. }
        | Statement::CreateFunction { .. }
        | Statement::CreateTrigger { .. }
        | Statement::CreateProcedure { .. }
        | Statement::CreateMacro { .. }
        | Statement::CreateStage { .. }
        | Statement::CreateFileFormat { .. }
        | Statement::CreateWarehouse { .. }
        | Statement::Cache { .. }
        | Statement::UNCache { .. }
        | Statement::CreateSequence { .. }
        | Statement::CreateDomain { .. }
        | Statement::CreateType { .. }
        | Statement::OptimizeTable { .. }
        | Statement::NOTIFY { .. }
        | Statement::Vacuum { .. } => Form::Write,
    }
}

/// `ALTER TABLE` operations that drop data or structure.
fn drops_data(operation: &AlterTableOperation) -> bool {
    matches!(
        operation,
        AlterTableOperation::DropColumn { .. }
            | AlterTableOperation::DropPartitions { .. }
            | AlterTableOperation::DropConstraint { .. }
            | AlterTableOperation::DropPrimaryKey { .. }
            | AlterTableOperation::DropForeignKey { .. }
            | AlterTableOperation::DropIndex { .. }
            | AlterTableOperation::DropProjection { .. }
            // Handing a table to another owner gives away every right on it.
            | AlterTableOperation::OwnerTo { .. }
            | AlterTableOperation::RenameTable { .. }
            // A new type computed `USING` an expression rewrites every value.
            | AlterTableOperation::AlterColumn {
                op: AlterColumnOperation::SetDataType { using: Some(_), .. },
                ..
            }
    )
}
