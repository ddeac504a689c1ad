//! Where audit lines go. The gate seals every line through the component
//! (hash-chained, see the `records` interface) and hands the text to a sink.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why a sink failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// The file could not be written.
    #[error("audit sink: {0}")]
    Io(#[from] std::io::Error),
    /// The database failed.
    #[cfg(feature = "sqlite")]
    #[error("audit sink: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// A destination for sealed audit lines.
pub trait AuditSink: Send + Sync {
    /// Appends one sealed line (without a newline).
    fn append(&self, line: &str) -> Result<(), SinkError>;
    /// The last line already stored, so a new gate continues the chain.
    fn last(&self) -> Result<Option<String>, SinkError> {
        Ok(None)
    }
}

/// A JSON Lines file, appended to and synced line by line; `toolgate audit
/// verify FILE` checks it.
#[derive(Debug)]
pub struct JsonlSink {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl JsonlSink {
    /// Opens (or creates) the file for appending.
    pub fn open(path: impl AsRef<Path>) -> Result<JsonlSink, SinkError> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        Ok(JsonlSink {
            path,
            file: Mutex::new(file),
        })
    }
}

impl AuditSink for JsonlSink {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(format!("{line}\n").as_bytes())?;
        file.sync_data()?;
        Ok(())
    }

    fn last(&self) -> Result<Option<String>, SinkError> {
        let text = std::fs::read_to_string(&self.path)?;
        Ok(text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::to_owned))
    }
}

/// Lines handed to a function (a log shipper, a test).
pub struct CallbackSink<F: Fn(&str) + Send + Sync>(pub F);

impl<F: Fn(&str) + Send + Sync> AuditSink for CallbackSink<F> {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        (self.0)(line);
        Ok(())
    }
}

/// Lines in an SQLite table `toolgate_audit(seq INTEGER PRIMARY KEY, line TEXT)`.
#[cfg(feature = "sqlite")]
pub struct SqliteSink {
    db: Mutex<rusqlite::Connection>,
}

#[cfg(feature = "sqlite")]
impl SqliteSink {
    /// Opens (or creates) the database file.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteSink, SinkError> {
        let db = rusqlite::Connection::open(path)?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS toolgate_audit (
                 seq INTEGER PRIMARY KEY,
                 line TEXT NOT NULL
             )",
        )?;
        Ok(SqliteSink { db: Mutex::new(db) })
    }

    /// Every line in order, as a JSON Lines text `verify_audit` takes.
    pub fn export(&self) -> Result<String, SinkError> {
        let db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let mut stmt = db.prepare("SELECT line FROM toolgate_audit ORDER BY seq")?;
        let lines = stmt.query_map((), |row| row.get::<_, String>(0))?;
        let mut out = String::new();
        for line in lines {
            out.push_str(&line?);
            out.push('\n');
        }
        Ok(out)
    }
}

#[cfg(feature = "sqlite")]
impl AuditSink for SqliteSink {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        let db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        db.execute("INSERT INTO toolgate_audit (line) VALUES (?1)", (line,))?;
        Ok(())
    }

    fn last(&self) -> Result<Option<String>, SinkError> {
        let db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let mut stmt = db.prepare("SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1")?;
        let mut rows = stmt.query(())?;
        Ok(match rows.next()? {
            Some(row) => Some(row.get(0)?),
            None => None,
        })
    }
}
