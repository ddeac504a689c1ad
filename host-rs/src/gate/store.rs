//! Where pending approvals are checkpointed while they wait, so a restarted
//! process can list and resume them. A store keeps checkpoint texts by id; it
//! never interprets them (the component writes and checks them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why a store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or directory could not be read or written.
    #[error("checkpoint store: {0}")]
    Io(#[from] std::io::Error),
    /// The database failed.
    #[cfg(feature = "sqlite")]
    #[error("checkpoint store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The PostgreSQL database failed.
    #[cfg(feature = "postgres")]
    #[error("checkpoint store: {0}")]
    Postgres(#[from] postgres::Error),
    /// An id that cannot name a checkpoint (empty, or not made of letters,
    /// digits, `-` and `_`).
    #[error("checkpoint store: `{0}` is not a valid approval id")]
    BadId(String),
}

/// The prefix under which a store keeps grants (approval ids never take it).
pub const GRANT_PREFIX: &str = "grant-";

/// The prefix of a revoked grant's tombstone. Its text is the time (ms since
/// the Unix epoch) until which it must stay, the grant's expiry, or `never`
/// for a grant that does not expire: a sealed grant put back in the store
/// after its revocation (a restored backup, a copied file) never applies
/// again, because its MAC is still good and only the tombstone says no.
pub const REVOKED_PREFIX: &str = "revoked-";

/// A place for checkpoints of pending approvals, and for the grants
/// (project, user) approvals "always" leave: sealed texts the component
/// writes and checks, kept beside the checkpoints under [`GRANT_PREFIX`], so
/// gates sharing a store share their grants too.
pub trait CheckpointStore: Send + Sync {
    /// Saves (or replaces) the checkpoint of approval `id`.
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError>;
    /// Removes it; removing what is not there is not an error.
    fn remove(&self, id: &str) -> Result<(), StoreError>;
    /// Claims approval `id` for the one answer that settles it, atomically:
    /// `Ok(true)` for the first claim, `Ok(false)` when any gate (in any
    /// process sharing the store) has claimed it already. The claim stays as
    /// a tombstone at least until `deadline` (ms since the Unix epoch), so a
    /// settled checkpoint put back in the store never runs again. A gate runs
    /// nothing unless its claim succeeded.
    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError>;
    /// Removes the claims (tombstones) whose deadline is before `now`: a
    /// checkpoint put back after that is past its deadline and expires
    /// unrun. Returns how many were removed.
    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let _ = now;
        Ok(0)
    }
    /// Takes back the claim on approval `id`, whose record was never written
    /// (the audit log is full, or its holder died between the claim and the
    /// record): the approval is pending again, not used up. The gate calls
    /// it only under the audit log's writer lock, after finding no record of
    /// the approval, so no claim that was recorded is ever taken back.
    /// `Ok(false)` for a store that cannot (the claim then stays).
    fn release(&self, id: &str) -> Result<bool, StoreError> {
        let _ = id;
        Ok(false)
    }
    /// A name for the database the store keeps its claims in, for a sink
    /// that writes the same database ([`crate::gate::audit::AuditSink::database`]):
    /// the gate then claims and records in one transaction. `None`: the
    /// store shares no transaction with any sink.
    fn database(&self) -> Option<String> {
        None
    }
    /// Whether approval `id` has been claimed (its tombstone is there): a
    /// checkpoint found with a claim was settled, and one put back after
    /// that is never shown as a live dialog again. `false` for a store that
    /// cannot say (the claim still refuses it).
    fn claimed(&self, id: &str) -> Result<bool, StoreError> {
        let _ = id;
        Ok(false)
    }
    /// The store's own clock (ms since the Unix epoch), for stores several
    /// machines share: deadlines and sweeps are then judged by one clock, so
    /// a replica whose clock runs ahead never sweeps live claims. `None`: the
    /// gate's clock.
    fn now(&self) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }
    /// Every checkpoint, by id.
    fn list(&self) -> Result<Vec<(String, String)>, StoreError>;
    /// Keeps (or replaces) sealed grant `id`.
    fn put_grant(&self, id: &str, sealed: &str) -> Result<(), StoreError> {
        self.put(&format!("{GRANT_PREFIX}{id}"), sealed)
    }
    /// Removes grant `id`; removing what is not there is not an error.
    fn remove_grant(&self, id: &str) -> Result<(), StoreError> {
        self.remove(&format!("{GRANT_PREFIX}{id}"))
    }
    /// Revokes grant `id`: leaves its tombstone (kept until `until`, ms since
    /// the Unix epoch, or for good when `None`), then removes the grant. The
    /// tombstone is written first, so a failure leaves the grant revoked or
    /// untouched, never half done.
    fn revoke_grant(&self, id: &str, until: Option<u64>) -> Result<(), StoreError> {
        let until = until.map_or_else(|| "never".to_owned(), |t| t.to_string());
        self.put(&format!("{REVOKED_PREFIX}{id}"), &until)?;
        self.remove_grant(id)
    }
    /// Every sealed grant, by the key it is stored under, but those revoked
    /// (see [`REVOKED_PREFIX`]): by that key, and by the id sealed inside the
    /// grant, so a revoked grant copied back under another key (another file
    /// name, another row) stays revoked.
    fn grants(&self) -> Result<Vec<(String, String)>, StoreError> {
        let all = self.list()?;
        let revoked: std::collections::BTreeSet<&str> = all
            .iter()
            .filter_map(|(key, _)| key.strip_prefix(REVOKED_PREFIX))
            .collect();
        Ok(all
            .iter()
            .filter_map(|(key, text)| {
                key.strip_prefix(GRANT_PREFIX)
                    .filter(|id| !revoked.contains(id))
                    .filter(|_| sealed_id(text).is_none_or(|id| !revoked.contains(id.as_str())))
                    .map(|id| (id.to_owned(), text.clone()))
            })
            .collect())
    }
    /// The tombstones of revoked grants: grant id and the time until which
    /// each must stay (`None`: for good).
    fn revoked(&self) -> Result<Vec<(String, Option<u64>)>, StoreError> {
        Ok(self
            .list()?
            .into_iter()
            .filter_map(|(key, text)| {
                key.strip_prefix(REVOKED_PREFIX)
                    .map(|id| (id.to_owned(), text.trim().parse::<u64>().ok()))
            })
            .collect())
    }
    /// Every checkpoint of a pending approval, by id (what [`Self::list`]
    /// holds but the grants).
    fn approvals(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(self
            .list()?
            .into_iter()
            .filter(|(key, _)| !key.starts_with(GRANT_PREFIX) && !key.starts_with(REVOKED_PREFIX))
            .collect())
    }
    /// One checkpoint.
    fn get(&self, id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .list()?
            .into_iter()
            .find_map(|(key, text)| (key == id).then_some(text)))
    }
}

/// The id a sealed grant carries inside it (`grant.id`), read without
/// checking its MAC: the MAC covers the id, so a grant whose id was changed
/// is refused as forged anyway. `None` for a text that is not a sealed grant
/// (the component refuses it).
pub fn sealed_id(sealed: &str) -> Option<String> {
    sealed_field(sealed, "/grant/id")
}

/// The scope a sealed grant carries inside it (`session`, `project`,
/// `user`), read as [`sealed_id`] reads the id.
pub fn sealed_scope(sealed: &str) -> Option<String> {
    sealed_field(sealed, "/grant/scope")
}

fn sealed_field(sealed: &str, pointer: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(sealed)
        .ok()?
        .pointer(pointer)?
        .as_str()
        .map(str::to_owned)
}

pub(crate) fn check_id(id: &str) -> Result<(), StoreError> {
    if !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Ok(())
    } else {
        Err(StoreError::BadId(id.to_owned()))
    }
}

/// Checkpoints in memory: nothing survives the process. The default.
#[derive(Debug, Default)]
pub struct MemoryStore {
    items: Mutex<BTreeMap<String, String>>,
    claims: Mutex<BTreeMap<String, u64>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn items(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A store shared by handle: the gate and its caller (or several gates) use
/// one store, each call forwarded as it is.
impl<S: CheckpointStore + ?Sized> CheckpointStore for std::sync::Arc<S> {
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError> {
        (**self).put(id, checkpoint)
    }
    fn remove(&self, id: &str) -> Result<(), StoreError> {
        (**self).remove(id)
    }
    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError> {
        (**self).claim(id, deadline)
    }
    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        (**self).sweep(now)
    }
    fn release(&self, id: &str) -> Result<bool, StoreError> {
        (**self).release(id)
    }
    fn database(&self) -> Option<String> {
        (**self).database()
    }
    fn claimed(&self, id: &str) -> Result<bool, StoreError> {
        (**self).claimed(id)
    }
    fn now(&self) -> Result<Option<u64>, StoreError> {
        (**self).now()
    }
    fn list(&self) -> Result<Vec<(String, String)>, StoreError> {
        (**self).list()
    }
    fn put_grant(&self, id: &str, sealed: &str) -> Result<(), StoreError> {
        (**self).put_grant(id, sealed)
    }
    fn remove_grant(&self, id: &str) -> Result<(), StoreError> {
        (**self).remove_grant(id)
    }
    fn revoke_grant(&self, id: &str, until: Option<u64>) -> Result<(), StoreError> {
        (**self).revoke_grant(id, until)
    }
    fn grants(&self) -> Result<Vec<(String, String)>, StoreError> {
        (**self).grants()
    }
    fn revoked(&self) -> Result<Vec<(String, Option<u64>)>, StoreError> {
        (**self).revoked()
    }
    fn approvals(&self) -> Result<Vec<(String, String)>, StoreError> {
        (**self).approvals()
    }
    fn get(&self, id: &str) -> Result<Option<String>, StoreError> {
        (**self).get(id)
    }
}

impl CheckpointStore for MemoryStore {
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError> {
        check_id(id)?;
        self.items().insert(id.to_owned(), checkpoint.to_owned());
        Ok(())
    }

    fn remove(&self, id: &str) -> Result<(), StoreError> {
        self.items().remove(id);
        Ok(())
    }

    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError> {
        check_id(id)?;
        let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
        if claims.contains_key(id) {
            return Ok(false);
        }
        claims.insert(id.to_owned(), deadline);
        Ok(true)
    }

    fn release(&self, id: &str) -> Result<bool, StoreError> {
        let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
        claims.remove(id);
        Ok(true)
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
        let before = claims.len();
        claims.retain(|_, deadline| *deadline >= now);
        Ok(before - claims.len())
    }

    fn claimed(&self, id: &str) -> Result<bool, StoreError> {
        let claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
        Ok(claims.contains_key(id))
    }

    fn list(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(self
            .items()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}

/// Checkpoints as files in a directory, one `<id>.json` each — the format the
/// JavaScript host's file store shares, so either host resumes the other's.
/// Files are written to a temporary name and renamed into place.
#[derive(Debug, Clone)]
pub struct DirStore {
    dir: PathBuf,
}

impl DirStore {
    /// A store in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> DirStore {
        DirStore { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl CheckpointStore for DirStore {
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError> {
        use std::io::Write;
        check_id(id)?;
        std::fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(".{id}.{}.tmp", std::process::id()));
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(checkpoint.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, self.dir.join(format!("{id}.json")))?;
        Ok(())
    }

    fn remove(&self, id: &str) -> Result<(), StoreError> {
        check_id(id)?;
        match std::fs::remove_file(self.dir.join(format!("{id}.json"))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    /// An exclusive create of `<id>.claim` holding the deadline: written in
    /// full to a temporary file first and then hard-linked to its name, which
    /// the file system lets exactly one process do, in this host or the
    /// other. A full disk fails the write before anything is claimed, so no
    /// empty claim (one that blocks for good) is ever left.
    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError> {
        use std::io::Write;
        check_id(id)?;
        std::fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(
            ".{id}.{}.{}.claim-tmp",
            std::process::id(),
            super::random_hex(4)
        ));
        let written = (|| {
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(deadline.to_string().as_bytes())?;
            file.sync_all()
        })();
        let linked =
            written.and_then(|()| std::fs::hard_link(&tmp, self.dir.join(format!("{id}.claim"))));
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    fn release(&self, id: &str) -> Result<bool, StoreError> {
        check_id(id)?;
        match std::fs::remove_file(self.dir.join(format!("{id}.claim"))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(true),
        }
    }

    fn claimed(&self, id: &str) -> Result<bool, StoreError> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.claim")).try_exists()?)
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e.into()),
        };
        let mut removed = 0;
        for entry in entries {
            let path = entry?.path();
            let is_claim = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".claim"))
                .is_some_and(|id| check_id(id).is_ok());
            if !is_claim {
                continue;
            }
            // A claim whose deadline cannot be read is kept: it still blocks.
            let deadline = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok());
            if deadline.is_some_and(|d| d < now) {
                std::fs::remove_file(&path)?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    fn list(&self) -> Result<Vec<(String, String)>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for entry in entries {
            let path = entry?.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
            else {
                continue;
            };
            if check_id(id).is_err() {
                continue;
            }
            // A checkpoint that is not UTF-8 is kept as text the component
            // refuses; one removed since the listing (settled by another
            // process meanwhile) is not listed.
            let bytes = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e.into()),
            };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            out.push((id.to_owned(), text));
        }
        out.sort();
        Ok(out)
    }

    fn get(&self, id: &str) -> Result<Option<String>, StoreError> {
        check_id(id)?;
        match std::fs::read(self.dir.join(format!("{id}.json"))) {
            Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// Checkpoints in an SQLite database (embedded, no server): a table
/// `toolgate_checkpoints(id TEXT PRIMARY KEY, checkpoint TEXT)`.
#[cfg(feature = "sqlite")]
pub struct SqliteStore {
    db: Mutex<rusqlite::Connection>,
}

#[cfg(feature = "sqlite")]
impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

#[cfg(feature = "sqlite")]
impl SqliteStore {
    /// Opens (or creates) the database file.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::with(rusqlite::Connection::open(path)?)
    }

    /// A store on an open connection.
    pub fn with(db: rusqlite::Connection) -> Result<SqliteStore, StoreError> {
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS toolgate_checkpoints (
                 id TEXT PRIMARY KEY NOT NULL,
                 checkpoint TEXT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS toolgate_claims (
                 id TEXT PRIMARY KEY NOT NULL,
                 deadline INTEGER NOT NULL
             )",
        )?;
        Ok(SqliteStore { db: Mutex::new(db) })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, rusqlite::Connection> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(feature = "sqlite")]
impl CheckpointStore for SqliteStore {
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError> {
        check_id(id)?;
        self.db().execute(
            "INSERT OR REPLACE INTO toolgate_checkpoints (id, checkpoint) VALUES (?1, ?2)",
            (id, checkpoint),
        )?;
        Ok(())
    }

    fn remove(&self, id: &str) -> Result<(), StoreError> {
        self.db()
            .execute("DELETE FROM toolgate_checkpoints WHERE id = ?1", (id,))?;
        Ok(())
    }

    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError> {
        check_id(id)?;
        let deadline = i64::try_from(deadline).unwrap_or(i64::MAX);
        let inserted = self.db().execute(
            "INSERT OR IGNORE INTO toolgate_claims (id, deadline) VALUES (?1, ?2)",
            (id, deadline),
        )?;
        Ok(inserted == 1)
    }

    fn release(&self, id: &str) -> Result<bool, StoreError> {
        self.db()
            .execute("DELETE FROM toolgate_claims WHERE id = ?1", (id,))?;
        Ok(true)
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let now = i64::try_from(now).unwrap_or(i64::MAX);
        Ok(self
            .db()
            .execute("DELETE FROM toolgate_claims WHERE deadline < ?1", (now,))?)
    }

    fn claimed(&self, id: &str) -> Result<bool, StoreError> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT 1 FROM toolgate_claims WHERE id = ?1")?;
        Ok(stmt.exists((id,))?)
    }

    fn list(&self) -> Result<Vec<(String, String)>, StoreError> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT id, checkpoint FROM toolgate_checkpoints ORDER BY id")?;
        let rows = stmt.query_map((), |row| Ok((row.get(0)?, row.get(1)?)))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}
