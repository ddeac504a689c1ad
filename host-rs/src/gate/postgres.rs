//! One gate state for services that run several replicas: pending approvals,
//! their claims and the audit chain in a PostgreSQL database, behind the same
//! interfaces as the SQLite store and sink ([`CheckpointStore`],
//! [`AuditSink`]). An approval created on one replica is answered on
//! another; the first claim wins in the database (a primary key), so a call
//! runs once however many replicas approve it; and the audit chain stays
//! linear because each append seals and inserts inside one transaction that
//! holds the table's write lock, reading the last line under that lock.
//!
//! Tables (created when missing):
//! - `toolgate_checkpoints(id text primary key, checkpoint text)`
//! - `toolgate_claims(id text primary key, deadline bigint)`
//! - `toolgate_audit(seq bigserial primary key, line text)`
//!
//! The connection string is libpq's (`host=/run/postgresql dbname=app
//! user=gate`, or a `postgresql://` URL); TLS is not built in — run the
//! database on the same host, a private network or a Unix socket.

use super::audit::{like_containing, names_approval, AuditSink, Claimed, SinkError};
use super::store::{check_id, CheckpointStore, StoreError};
use postgres::{Client, NoTls};
use std::sync::Mutex;

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS toolgate_checkpoints (
        id text PRIMARY KEY NOT NULL,
        checkpoint text NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_claims (
        id text PRIMARY KEY NOT NULL,
        deadline bigint NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_audit (
        seq bigserial PRIMARY KEY,
        line text NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_database (
        token text PRIMARY KEY NOT NULL
    );";

/// The database's name for [`CheckpointStore::database`] and
/// [`AuditSink::database`]: a random token kept in `toolgate_database`,
/// made by the first connection (under the table's lock, so two first
/// connections agree), so a store and a sink on one database know it,
/// whatever connection strings reached it.
fn token(client: &mut Client) -> Result<String, postgres::Error> {
    let mut tx = client.transaction()?;
    tx.batch_execute(
        "LOCK TABLE toolgate_database IN EXCLUSIVE MODE;
         INSERT INTO toolgate_database (token)
             SELECT md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text)
             WHERE NOT EXISTS (SELECT 1 FROM toolgate_database)",
    )?;
    let token: String = tx
        .query_one("SELECT min(token) FROM toolgate_database", &[])?
        .get(0);
    tx.commit()?;
    Ok(token)
}

/// The record of approval `approval` in `toolgate_audit`, stamped no
/// earlier than `since`, found by its id (`LIKE`, its `_` escaped) and read.
fn recorded_pg(client: &mut Client, approval: &str, since: u64) -> Result<bool, postgres::Error> {
    let rows = client.query(
        "SELECT line FROM toolgate_audit WHERE line LIKE $1 ESCAPE '\\' ORDER BY seq DESC",
        &[&like_containing(approval)],
    )?;
    Ok(rows
        .iter()
        .any(|row| names_approval(row.get::<_, &str>(0), approval, since)))
}

/// Connects and creates the tables. Two replicas starting at once may race
/// on `CREATE TABLE IF NOT EXISTS` (its catalogue check is not atomic): the
/// loser's error is retried once.
fn connect(params: &str) -> Result<Client, postgres::Error> {
    let mut client = Client::connect(params, NoTls)?;
    if client.batch_execute(SCHEMA).is_err() {
        client.batch_execute(SCHEMA)?;
    }
    Ok(client)
}

/// Pending approvals and their claims in PostgreSQL.
pub struct PostgresStore {
    db: Mutex<Client>,
    token: String,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects with a libpq connection string and creates the tables.
    pub fn connect(params: &str) -> Result<PostgresStore, StoreError> {
        let mut client = connect(params)?;
        let token = token(&mut client)?;
        Ok(PostgresStore {
            db: Mutex::new(client),
            token,
        })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Client> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The database's clock in ms since the Unix epoch.
const DB_NOW: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

fn millis(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

impl CheckpointStore for PostgresStore {
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError> {
        check_id(id)?;
        self.db().execute(
            "INSERT INTO toolgate_checkpoints (id, checkpoint) VALUES ($1, $2)
             ON CONFLICT (id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint",
            &[&id, &checkpoint],
        )?;
        Ok(())
    }

    fn remove(&self, id: &str) -> Result<(), StoreError> {
        self.db()
            .execute("DELETE FROM toolgate_checkpoints WHERE id = $1", &[&id])?;
        Ok(())
    }

    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError> {
        check_id(id)?;
        let inserted = self.db().execute(
            "INSERT INTO toolgate_claims (id, deadline) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
            &[&id, &millis(deadline)],
        )?;
        Ok(inserted == 1)
    }

    /// Removes the claims past their deadline by the database's clock, never
    /// the caller's: a replica whose clock runs ahead sweeps no live claim
    /// (`now` is not used).
    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let _ = now;
        let removed = self.db().execute(
            &format!("DELETE FROM toolgate_claims WHERE deadline < {DB_NOW}"),
            &[],
        )?;
        Ok(usize::try_from(removed).unwrap_or(usize::MAX))
    }

    fn release(&self, id: &str) -> Result<bool, StoreError> {
        self.db()
            .execute("DELETE FROM toolgate_claims WHERE id = $1", &[&id])?;
        Ok(true)
    }

    /// One database with a [`PostgresSink`] on it: claims and records are
    /// then made in one transaction.
    fn database(&self) -> Option<String> {
        Some(self.token.clone())
    }

    fn claimed(&self, id: &str) -> Result<bool, StoreError> {
        let row = self
            .db()
            .query_opt("SELECT 1 FROM toolgate_claims WHERE id = $1", &[&id])?;
        Ok(row.is_some())
    }

    /// The database's clock: every replica judges deadlines by it.
    fn now(&self) -> Result<Option<u64>, StoreError> {
        let row = self.db().query_one(&format!("SELECT {DB_NOW}"), &[])?;
        let now: i64 = row.get(0);
        Ok(u64::try_from(now).ok())
    }

    fn list(&self) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self.db().query(
            "SELECT id, checkpoint FROM toolgate_checkpoints ORDER BY id",
            &[],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn get(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row = self.db().query_opt(
            "SELECT checkpoint FROM toolgate_checkpoints WHERE id = $1",
            &[&id],
        )?;
        Ok(row.map(|r| r.get(0)))
    }
}

/// The audit chain in PostgreSQL, one chain for every replica writing it.
pub struct PostgresSink {
    db: Mutex<Client>,
    token: String,
}

impl std::fmt::Debug for PostgresSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresSink").finish_non_exhaustive()
    }
}

impl PostgresSink {
    /// Connects with a libpq connection string and creates the tables.
    pub fn connect(params: &str) -> Result<PostgresSink, SinkError> {
        let mut client = connect(params)?;
        let token = token(&mut client)?;
        Ok(PostgresSink {
            db: Mutex::new(client),
            token,
        })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Client> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every line in order, as a JSON Lines text `verify_audit` takes.
    pub fn export(&self) -> Result<String, SinkError> {
        let rows = self
            .db()
            .query("SELECT line FROM toolgate_audit ORDER BY seq", &[])?;
        let mut out = String::new();
        for row in rows {
            out.push_str(row.get::<_, &str>(0));
            out.push('\n');
        }
        Ok(out)
    }
}

impl AuditSink for PostgresSink {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        self.db()
            .execute("INSERT INTO toolgate_audit (line) VALUES ($1)", &[&line])?;
        Ok(())
    }

    fn last(&self) -> Result<Option<String>, SinkError> {
        let row = self.db().query_opt(
            "SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1",
            &[],
        )?;
        Ok(row.map(|r| r.get(0)))
    }

    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        Ok(Some(recorded_pg(&mut self.db(), approval, since)?))
    }

    fn database(&self) -> Option<String> {
        Some(self.token.clone())
    }

    /// The claim, the checkpoint's removal and the record in one
    /// transaction, under the audit table's lock as [`Self::append_sealed`]
    /// takes it: a replica killed anywhere in it, or a database that cannot
    /// write, leaves the approval pending and unclaimed, never claimed
    /// without its record.
    fn append_claimed(
        &self,
        id: &str,
        deadline: u64,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<Claimed, String>> {
        if check_id(id).is_err() {
            return Some(Err(format!(
                "audit sink: `{id}` is not a valid approval id"
            )));
        }
        let mut db = self.db();
        let result = (|| -> Result<Result<Claimed, String>, postgres::Error> {
            let mut tx = db.transaction()?;
            tx.batch_execute("LOCK TABLE toolgate_audit IN EXCLUSIVE MODE")?;
            let claimed = tx.execute(
                "INSERT INTO toolgate_claims (id, deadline) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                &[&id, &millis(deadline)],
            )?;
            if claimed != 1 {
                return Ok(Ok(Claimed::Taken));
            }
            tx.execute("DELETE FROM toolgate_checkpoints WHERE id = $1", &[&id])?;
            let sealed = match seal_after_last(&mut tx, seal)? {
                Ok(sealed) => sealed,
                Err(e) => return Ok(Err(e)),
            };
            tx.commit()?;
            Ok(Ok(Claimed::Recorded(sealed)))
        })();
        Some(result.unwrap_or_else(|e| Err(format!("audit sink: {e}"))))
    }

    /// One writer at a time across every replica: the transaction takes the
    /// table's `EXCLUSIVE` lock (readers go on; other appends wait), reads
    /// the last line, seals the new one after it and inserts it. A failure
    /// anywhere rolls the whole append back.
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        let mut db = self.db();
        let result = (|| -> Result<Result<String, String>, postgres::Error> {
            let mut tx = db.transaction()?;
            tx.batch_execute("LOCK TABLE toolgate_audit IN EXCLUSIVE MODE")?;
            let sealed = match seal_after_last(&mut tx, seal)? {
                Ok(sealed) => sealed,
                Err(e) => return Ok(Err(e)),
            };
            tx.commit()?;
            Ok(Ok(sealed))
        })();
        Some(result.unwrap_or_else(|e| Err(format!("audit sink: {e}"))))
    }
}

/// Inside a transaction that holds the audit table's writer lock: reads the
/// log's last line, seals the new one after it and inserts it. The inner
/// `Err` is `seal`'s refusal, which writes nothing.
fn seal_after_last(
    tx: &mut postgres::Transaction<'_>,
    seal: &dyn Fn(Option<&str>) -> Result<String, String>,
) -> Result<Result<String, String>, postgres::Error> {
    let previous: Option<String> = tx
        .query_opt(
            "SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1",
            &[],
        )?
        .map(|r| r.get(0));
    let sealed = match seal(previous.as_deref()) {
        Ok(sealed) => sealed,
        Err(e) => return Ok(Err(e)),
    };
    tx.execute("INSERT INTO toolgate_audit (line) VALUES ($1)", &[&sealed])?;
    Ok(Ok(sealed))
}
