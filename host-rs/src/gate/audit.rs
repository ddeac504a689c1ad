//! Where audit lines go. The gate seals every line through the component
//! (hash-chained, see the `records` interface) and hands the text to a sink.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

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
    /// The PostgreSQL database failed.
    #[cfg(feature = "postgres")]
    #[error("audit sink: {0}")]
    Postgres(#[from] postgres::Error),
}

/// A destination for sealed audit lines.
pub trait AuditSink: Send + Sync {
    /// Appends one sealed line (without a newline).
    fn append(&self, line: &str) -> Result<(), SinkError>;
    /// The last line already stored, so a new gate continues the chain.
    fn last(&self) -> Result<Option<String>, SinkError> {
        Ok(None)
    }
    /// Seals and appends one line as a single writer: the sink holds its
    /// lock, reads its own last line, hands it to `seal` and appends what
    /// comes back, so gates in several processes writing one log never fork
    /// the chain. `None` when the sink cannot do this (the gate then chains
    /// from the last line it wrote itself).
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        let _ = seal;
        None
    }
    /// [`AuditSink::append_sealed`] without waiting for the line to be
    /// durable: the line and a ticket for [`AuditSink::wait_durable`], which
    /// the caller must wait on before it acts on the record (runs a tool).
    /// A sink that syncs as it writes answers ticket 0 (durable already).
    /// The gate writes under its chain's lock and waits outside it, so
    /// concurrent calls share one sync of the log (group commit) instead of
    /// queueing one sync each.
    fn append_sealed_deferred(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<(String, u64), String>> {
        self.append_sealed(seal).map(|r| r.map(|line| (line, 0)))
    }
    /// Waits until the line of `ticket` is durable; an error when it never
    /// will be (the sync failed and the lines it covered were cut off).
    fn wait_durable(&self, ticket: u64) -> Result<(), String> {
        let _ = ticket;
        Ok(())
    }
    /// What the sink found torn and set aside when it opened (a partial last
    /// record after a crash or a full disk), for the gate to record as a gap.
    fn gap(&self) -> Option<String> {
        None
    }
    /// Whether the log holds a record of approval `approval`'s settlement
    /// (a record whose `approval.id` names it), looking back no further than
    /// records stamped before `since` (ms since the Unix epoch). The gate
    /// asks under [`AuditSink::append_sealed`]'s lock, where every claim is
    /// made and recorded, so a claim found without a record is one whose
    /// holder died (or could not write) in between. `None`: the sink cannot
    /// say, and such a claim is left alone.
    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        let _ = (approval, since);
        Ok(None)
    }
    /// A name for the database this sink writes, when it keeps a checkpoint
    /// store's claims too ([`crate::gate::store::CheckpointStore::database`]
    /// says the same name): the gate then claims and records in one
    /// transaction through [`AuditSink::append_claimed`].
    fn database(&self) -> Option<String> {
        None
    }
    /// Claims approval `id` (until `deadline`), removes its checkpoint, and
    /// seals and appends its record, all in one transaction: either all of it
    /// happens or none of it does, whatever crashes or fills up. `None` when
    /// the sink cannot.
    fn append_claimed(
        &self,
        id: &str,
        deadline: u64,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<Claimed, String>> {
        let _ = (id, deadline, seal);
        None
    }
}

/// What [`AuditSink::append_claimed`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claimed {
    /// Claimed and recorded: the sealed line.
    Recorded(String),
    /// Claimed already (by any gate sharing the database): nothing was
    /// sealed or written.
    Taken,
}

/// The fields of an audit line [`recorded_in`] reads.
#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    time: Option<u64>,
    #[serde(default)]
    approval: Option<ProbeApproval>,
}

#[derive(serde::Deserialize)]
struct ProbeApproval {
    id: String,
}

/// What one line says about approval `approval`: `Some(true)` it is its
/// record, `Some(false)` it is older than `since` (look no further).
fn probe(line: &[u8], approval: &str, since: u64) -> Option<bool> {
    let probe = serde_json::from_slice::<Probe>(line).ok()?;
    if probe.approval.as_ref().is_some_and(|a| a.id == approval) {
        return Some(true);
    }
    probe.time.filter(|t| *t < since).map(|_| false)
}

/// Whether the JSON Lines log at `path` holds a record of `approval`,
/// read backwards from its end in [`TAIL`]-sized windows down to the
/// records older than `since`.
fn recorded_in(path: &Path, approval: &str, since: u64) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let mut end = file.metadata()?.len();
    let needle = approval.as_bytes();
    if needle.is_empty() {
        return Ok(false);
    }
    // The start of a line cut by the window before, completed by this one.
    let mut carry: Vec<u8> = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(TAIL);
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity(usize::try_from(end - start).unwrap_or(0) + carry.len());
        Read::by_ref(&mut file)
            .take(end - start)
            .read_to_end(&mut buf)?;
        buf.extend_from_slice(&carry);
        let mut lines: Vec<&[u8]> = buf.split(|b| *b == b'\n').collect();
        let first = if start > 0 && !lines.is_empty() {
            lines.remove(0).to_vec()
        } else {
            Vec::new()
        };
        for line in lines.iter().rev() {
            if line.is_empty() {
                continue;
            }
            let names = line.windows(needle.len()).any(|w| w == needle);
            match probe(line, if names { approval } else { "" }, since) {
                Some(true) if names => return Ok(true),
                Some(false) => return Ok(false),
                _ => {}
            }
        }
        carry = first;
        end = start;
    }
    Ok(false)
}

/// How much of a log's end is read at first to find its last line.
const TAIL: u64 = 64 * 1024;

/// The last complete line of the first `len` bytes of `file` (without its
/// newline) and the offset just after that newline, reading only the end:
/// backwards in growing windows until a whole line is in view.
fn tail(file: &mut std::fs::File, len: u64) -> std::io::Result<(Option<Vec<u8>>, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut window = TAIL.min(len);
    loop {
        let start = len - window;
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity(usize::try_from(window).unwrap_or(0));
        Read::by_ref(file).take(window).read_to_end(&mut buf)?;
        let Some(end) = buf.iter().rposition(|b| *b == b'\n') else {
            if start == 0 {
                return Ok((None, 0));
            }
            window = (window * 2).min(len);
            continue;
        };
        let before = buf.get(..end).unwrap_or_default();
        match before.iter().rposition(|b| *b == b'\n') {
            Some(begin) => {
                let line = before.get(begin + 1..).unwrap_or_default().to_vec();
                return Ok((Some(line), start + end as u64 + 1));
            }
            None if start == 0 => return Ok((Some(before.to_vec()), end as u64 + 1)),
            None => window = (window * 2).min(len),
        }
    }
}

/// Whether `line` looks like a sealed record (a JSON object with a string
/// `hash`); the component checks the rest when it chains the next one.
fn sealed(line: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("hash").map(serde_json::Value::is_string))
        .unwrap_or(false)
}

/// A JSON Lines file, appended to and synced before any record is acted on;
/// `toolgate audit verify FILE` checks it.
///
/// Writers in one process share syncs (group commit): each seals and writes
/// its line under the log's locks, then waits until a sync covers it; one
/// waiter syncs for all lines written so far while the others wait. The
/// cross-process locks (the file's `flock` and the writer lock both hosts
/// honour) stay held from a batch's first line until a sync covers its last,
/// so another process never chains onto a line that is not durable, and a
/// failed sync cuts the whole batch off (every writer in it gets the error:
/// none of them runs its tool). A batch takes new lines for at most
/// 20 ms or 128 lines, so writers of other processes
/// get their turn under a steady load.
///
/// A log found torn when it opens (bytes after the last newline, or a last
/// line that is not a sealed record) is repaired: those bytes are moved to
/// `<file>.torn-<ms>`, the file is cut back to the last sealed record, and
/// the gate records the gap, so later records chain and verify again.
#[derive(Debug)]
pub struct JsonlSink {
    path: PathBuf,
    writer: Mutex<Writer>,
    /// Told when a sync ends or a batch closes.
    turn: Condvar,
    /// A second handle on the file, synced outside the writer's lock (a
    /// sync through any handle covers every write to the file).
    syncer: std::fs::File,
    gap: Option<String>,
}

/// How long a batch takes new lines (see [`JsonlSink`]).
const BATCH_TIME: std::time::Duration = std::time::Duration::from_millis(20);
/// How many lines a batch takes at most.
const BATCH_LINES: u32 = 128;

/// The writing state of a [`JsonlSink`].
#[derive(Debug)]
struct Writer {
    /// The log, opened for appending.
    file: std::fs::File,
    /// The batch being written, its locks held.
    batch: Option<Batch>,
    /// The ticket of the last line written.
    written: u64,
    /// Every line up to this ticket is durable.
    synced: u64,
    /// A waiter is syncing (outside the lock).
    syncing: bool,
    /// Tickets lost to failed syncs, `(after, up to]`, and why.
    lost: Vec<(u64, u64, String)>,
}

/// Lines written under the log's locks and not yet all durable.
#[derive(Debug)]
struct Batch {
    /// The writer lock both hosts honour (the `flock` is on [`Writer::file`]).
    _lock: WriterLock,
    /// The file's length when the batch began: a failed sync cuts back to it.
    start: u64,
    /// The batch's last line (the chain's last), or the log's when it began.
    last: Option<String>,
    /// When the batch began.
    began: std::time::Instant,
    /// Lines written in it.
    lines: u32,
}

impl Batch {
    /// Whether the batch takes no more lines.
    fn full(&self) -> bool {
        self.lines >= BATCH_LINES || self.began.elapsed() >= BATCH_TIME
    }
}

impl Writer {
    /// Why ticket `ticket` was lost, if it was.
    fn lost(&self, ticket: u64) -> Option<String> {
        self.lost
            .iter()
            .find(|(after, upto, _)| *after < ticket && ticket <= *upto)
            .map(|(_, _, why)| why.clone())
    }

    /// Ends the batch, releasing the log's locks, when nothing in it waits
    /// for a sync.
    fn close_if_idle(&mut self) {
        if self.written == self.synced && !self.syncing {
            self.close();
        }
    }

    /// Ends the batch, releasing the log's locks.
    fn close(&mut self) {
        if self.batch.take().is_some() {
            let _ = self.file.unlock();
        }
    }
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
        let gap = repair(&path)?;
        let syncer = file.try_clone()?;
        Ok(JsonlSink {
            path,
            writer: Mutex::new(Writer {
                file,
                batch: None,
                written: 0,
                synced: 0,
                syncing: false,
                lost: Vec::new(),
            }),
            turn: Condvar::new(),
            syncer,
            gap,
        })
    }

    fn writer(&self) -> MutexGuard<'_, Writer> {
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for JsonlSink {
    /// Lines nobody waited for are synced before the locks go.
    fn drop(&mut self) {
        let writer = self.writer.get_mut().unwrap_or_else(|p| p.into_inner());
        if writer.batch.is_some() {
            let _ = writer.file.sync_data();
            writer.close();
        }
    }
}

/// Cuts a torn end off the log at `path`, keeping the bytes aside; returns a
/// description of the gap, or `None` when the log ends in a sealed record.
fn repair(path: &Path) -> Result<Option<String>, SinkError> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let len = file.metadata()?.len();
    let mut limit = len;
    let mut keep = None;
    // Walk back over lines that are not sealed records (a torn write, text
    // glued after it), a few at most: a file of something else is left alone.
    for _ in 0..16 {
        match tail(&mut file, limit)? {
            (None, _) => {
                keep = Some(0);
                break;
            }
            (Some(line), after) if sealed(&line) => {
                keep = Some(after);
                break;
            }
            (Some(line), after) => limit = after.saturating_sub(line.len() as u64 + 1),
        }
    }
    let Some(keep) = keep.filter(|k| *k < len) else {
        return Ok(None);
    };
    file.seek(SeekFrom::Start(keep))?;
    let mut torn = Vec::new();
    file.read_to_end(&mut torn)?;
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".torn-{millis}"));
    let aside = PathBuf::from(aside);
    std::fs::write(&aside, &torn)?;
    file.set_len(keep)?;
    file.sync_all()?;
    Ok(Some(format!(
        "{} torn bytes after offset {keep} were set aside in {}",
        torn.len(),
        aside.display()
    )))
}

/// Appends `line` and its newline to `file` (synced when `sync`); on a
/// failure the file is cut back, so a partial line never stays for the next
/// record to glue onto.
fn write_line(file: &std::fs::File, line: &str, sync: bool) -> std::io::Result<()> {
    let before = file.metadata()?.len();
    let mut writer = file;
    let written = writer
        .write_all(format!("{line}\n").as_bytes())
        .and_then(|()| if sync { file.sync_data() } else { Ok(()) });
    if written.is_err() {
        let _ = file.set_len(before);
    }
    written
}

impl AuditSink for JsonlSink {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        let writer = self.writer();
        write_line(&writer.file, line, true)?;
        Ok(())
    }

    fn last(&self) -> Result<Option<String>, SinkError> {
        let mut file = std::fs::File::open(&self.path)?;
        let len = file.metadata()?.len();
        let (line, _) = tail(&mut file, len)?;
        Ok(line.map(|l| String::from_utf8_lossy(&l).into_owned()))
    }

    fn gap(&self) -> Option<String> {
        self.gap.clone()
    }

    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        Ok(Some(recorded_in(&self.path, approval, since)?))
    }

    /// Under an exclusive lock on the file (held by one process at a time),
    /// synced before it answers.
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        Some(
            self.append_sealed_deferred(seal)?
                .and_then(|(line, ticket)| {
                    self.wait_durable(ticket)?;
                    Ok(line)
                }),
        )
    }

    fn append_sealed_deferred(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<(String, u64), String>> {
        let mut writer = self.writer();
        // A batch that takes no more lines closes before a new one begins.
        while writer.batch.as_ref().is_some_and(Batch::full) {
            writer = self.turn.wait(writer).unwrap_or_else(|p| p.into_inner());
        }
        if writer.batch.is_none() {
            if let Err(e) = self.begin(&mut writer) {
                return Some(Err(e));
            }
        }
        let last = writer.batch.as_ref().and_then(|b| b.last.clone());
        let line = match seal(last.as_deref()) {
            Ok(line) => line,
            Err(e) => {
                writer.close_if_idle();
                return Some(Err(e));
            }
        };
        if let Err(e) = write_line(&writer.file, line.as_str(), false) {
            writer.close_if_idle();
            return Some(Err(format!("audit sink: {e}")));
        }
        writer.written += 1;
        let ticket = writer.written;
        if let Some(batch) = writer.batch.as_mut() {
            batch.last = Some(line.clone());
            batch.lines += 1;
        }
        Some(Ok((line, ticket)))
    }

    fn wait_durable(&self, ticket: u64) -> Result<(), String> {
        let mut writer = self.writer();
        loop {
            if let Some(why) = writer.lost(ticket) {
                return Err(why);
            }
            if writer.synced >= ticket {
                return Ok(());
            }
            if writer.syncing {
                writer = self.turn.wait(writer).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            // This waiter syncs every line written so far, for all of them.
            writer.syncing = true;
            let target = writer.written;
            drop(writer);
            let synced = self.syncer.sync_data();
            writer = self.writer();
            writer.syncing = false;
            match synced {
                Ok(()) => {
                    writer.synced = writer.synced.max(target);
                    writer.close_if_idle();
                }
                Err(e) => {
                    // Nothing of the batch is known to be on disk: it is cut
                    // off whole, and every writer in it is told.
                    let why = format!("audit sink: the log could not be synced: {e}");
                    if let Some(start) = writer.batch.as_ref().map(|b| b.start) {
                        let _ = writer.file.set_len(start);
                        let _ = writer.file.sync_data();
                    }
                    let lost = (writer.synced, writer.written, why);
                    writer.lost.push(lost);
                    if writer.lost.len() > 64 {
                        writer.lost.remove(0);
                    }
                    writer.synced = writer.synced.max(writer.written);
                    writer.close();
                }
            }
            self.turn.notify_all();
        }
    }
}

impl JsonlSink {
    /// Begins a batch: takes the file's `flock` and the writer lock both
    /// hosts honour, and reads the log's last line (another process may
    /// have written since this one's last batch).
    fn begin(&self, writer: &mut Writer) -> Result<(), String> {
        writer
            .file
            .lock()
            .map_err(|e| format!("audit sink: cannot lock the log: {e}"))?;
        let lock = match WriterLock::take(&self.path) {
            Ok(lock) => lock,
            Err(e) => {
                let _ = writer.file.unlock();
                return Err(e);
            }
        };
        let read = (|| {
            let mut reader = std::fs::File::open(&self.path)?;
            let len = reader.metadata()?.len();
            let (last, _) = tail(&mut reader, len)?;
            Ok::<_, std::io::Error>((last, len))
        })();
        let (last, start) = match read {
            Ok(read) => read,
            Err(e) => {
                drop(lock);
                let _ = writer.file.unlock();
                return Err(format!("audit sink: {e}"));
            }
        };
        writer.batch = Some(Batch {
            _lock: lock,
            start,
            last: last.map(|l| String::from_utf8_lossy(&l).into_owned()),
            began: std::time::Instant::now(),
            lines: 0,
        });
        Ok(())
    }
}

/// A writer lock older than this, whose holder cannot be checked (another
/// machine, another PID namespace, a system without `/proc`), was left by a
/// writer that died: taken over.
const LOCK_STALE: std::time::Duration = std::time::Duration::from_secs(30);

/// `<log>.lock`, the one writer lock of an audit log that both hosts honour
/// (Node has no OS file lock, so the Rust sink takes this one too, inside
/// its `flock`): created exclusively, removed when dropped. It names its
/// holder (process id, the process's start time and its PID namespace), so a
/// writer that died holding it (`kill -9`, a crash) is seen to be gone at
/// once and its lock taken over, instead of stalling every other writer;
/// only a holder that cannot be checked waits out [`LOCK_STALE`].
#[derive(Debug)]
struct WriterLock(PathBuf);

/// This process as a lock's holder: `<pid> <start time> <pid namespace>`
/// (the last two empty where `/proc` does not say).
fn holder() -> String {
    let start = start_time("self").unwrap_or_default();
    let ns = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    format!("{} {start} {ns}", std::process::id())
}

/// A process's start time (clock ticks since boot, `/proc/PID/stat` field
/// 22), which tells a process from a later one given the same id.
fn start_time(pid: &str) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.get(stat.rfind(')')? + 1..)?;
    after.split_whitespace().nth(19).map(str::to_owned)
}

/// Whether the holder a lock names is certainly gone: in this PID namespace,
/// and no process has its id, or the one that has it started at another
/// time. A holder that cannot be checked is not gone.
fn holder_gone(named: &str) -> bool {
    let mut fields = named.split(' ');
    let (Some(pid), Some(start), Some(ns)) = (fields.next(), fields.next(), fields.next()) else {
        return false;
    };
    if pid.parse::<u32>().is_err() || start.is_empty() || ns.is_empty() {
        return false;
    }
    let ours = std::fs::read_link("/proc/self/ns/pid").map(|p| p.display().to_string());
    if ours.as_deref().ok() != Some(ns) {
        return false;
    }
    match start_time(pid) {
        Some(now) => now != start,
        None => !std::path::Path::new(&format!("/proc/{pid}")).exists(),
    }
}

impl WriterLock {
    fn take(log: &Path) -> Result<WriterLock, String> {
        use std::io::Write as _;
        let mut name = log.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let started = std::time::Instant::now();
        let mut delay = std::time::Duration::from_millis(1);
        // The lock is the holder's name written in full to a file of its own
        // and then linked into place: a lock file never exists without its
        // holder's name, so a writer killed while taking it leaves either
        // nothing or a lock the others see is dead (never one they must
        // wait out). Written afresh at each attempt: the lock's age (its
        // mtime) is the age of the holding, which the stale rule reads.
        // Where there is no room for the name (a full disk) the lock is
        // created bare, its holder unknown while held.
        let mut own = path.as_os_str().to_owned();
        own.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            super::random_hex(4)
        ));
        let own = PathBuf::from(own);
        let me = holder();
        loop {
            let written =
                std::fs::File::create(&own).and_then(|mut file| file.write_all(me.as_bytes()));
            let named = match written {
                Ok(()) => std::fs::hard_link(&own, &path),
                Err(_) => std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .map(|mut file| {
                        let _ = file.write_all(me.as_bytes());
                    }),
            };
            let _ = std::fs::remove_file(&own);
            match named {
                Ok(()) => break Ok(WriterLock(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let named = std::fs::read_to_string(&path).unwrap_or_default();
                    if holder_gone(&named) {
                        take_over(&path, &named);
                        continue;
                    }
                    let stale = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > LOCK_STALE);
                    if stale {
                        let _ = std::fs::remove_file(&path);
                        continue;
                    }
                    if started.elapsed() > LOCK_STALE * 2 {
                        break Err(format!(
                            "audit sink: cannot lock the log: {} is held",
                            path.display()
                        ));
                    }
                    std::thread::sleep(delay);
                    delay = (delay * 2).min(std::time::Duration::from_millis(50));
                }
                Err(e) => break Err(format!("audit sink: cannot lock the log: {e}")),
            }
        }
    }
}

/// Removes the lock a dead holder left, and only that one: it is renamed
/// aside first and read again; if another waiter took it over meanwhile
/// (the name now holds a live writer's lock), that lock is put back.
fn take_over(path: &Path, named: &str) {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".dead-{}", std::process::id()));
    let aside = PathBuf::from(aside);
    if std::fs::rename(path, &aside).is_err() {
        return;
    }
    let moved = std::fs::read_to_string(&aside).unwrap_or_default();
    if moved != named {
        // A live lock: back under its name, unless a third writer holds that
        // name by now (then the live one's holder keeps its open file).
        let _ = std::fs::hard_link(&aside, path);
    }
    let _ = std::fs::remove_file(&aside);
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
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
    /// A second connection to the same file for [`AuditSink::recorded`]:
    /// the gate asks from inside [`AuditSink::append_sealed`]'s seal, where
    /// `db` is held with its write transaction open, so the committed rows
    /// are read beside it (the write lock held keeps any other writer out
    /// meanwhile). `None` for a database without a file (in memory): then
    /// the sink cannot say.
    reader: Option<Mutex<rusqlite::Connection>>,
}

#[cfg(feature = "sqlite")]
impl SqliteSink {
    /// Opens (or creates) the database file.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteSink, SinkError> {
        let db = rusqlite::Connection::open(path)?;
        // Writers wait for each other's transactions (a dead writer's lock
        // is released by the kernel with its file descriptors).
        db.busy_timeout(WRITER_WAIT)?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS toolgate_audit (
                 seq INTEGER PRIMARY KEY,
                 line TEXT NOT NULL
             )",
        )?;
        let reader = match db.path().filter(|p| !p.is_empty()) {
            Some(file) => {
                let reader = rusqlite::Connection::open(file)?;
                reader.busy_timeout(WRITER_WAIT)?;
                Some(Mutex::new(reader))
            }
            None => None,
        };
        Ok(SqliteSink {
            db: Mutex::new(db),
            reader,
        })
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
        last_sqlite(&db)
    }

    /// One writer at a time across every process writing the database:
    /// `BEGIN IMMEDIATE` takes SQLite's write lock (a file lock the kernel
    /// releases if its holder dies), the last line is read under it, the new
    /// one sealed after it and inserted, and the transaction commits; any
    /// failure rolls the append back. Two gates on one database never fork
    /// the chain.
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let result = (|| -> Result<Result<String, String>, SinkError> {
            let tx = db.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let previous = last_sqlite(&tx)?;
            let sealed = match seal(previous.as_deref()) {
                Ok(sealed) => sealed,
                Err(e) => return Ok(Err(e)),
            };
            tx.execute("INSERT INTO toolgate_audit (line) VALUES (?1)", (&sealed,))?;
            tx.commit()?;
            Ok(Ok(sealed))
        })();
        Some(result.unwrap_or_else(|e| Err(e.to_string())))
    }

    /// The rows of `toolgate_audit` every host's SQLite sink writes, as the
    /// PostgreSQL sink and the other hosts' SQLite sinks read them:
    /// candidates by `LIKE` on the id (`\`, `%` and `_` escaped), each then
    /// parsed, its `approval.id` compared and its `time` (when it has one)
    /// at `since` or later. An unreadable table is an error, never a guess.
    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        if approval.is_empty() {
            return Ok(Some(false));
        }
        let db = reader.lock().unwrap_or_else(|p| p.into_inner());
        let mut stmt = db.prepare(
            "SELECT line FROM toolgate_audit WHERE line LIKE ?1 ESCAPE '\\' ORDER BY seq DESC",
        )?;
        let lines = stmt.query_map((like_containing(approval),), |row| row.get::<_, String>(0))?;
        for line in lines {
            if names_approval(&line?, approval, since) {
                return Ok(Some(true));
            }
        }
        Ok(Some(false))
    }
}

/// A `LIKE` pattern (escape character `\\`) for lines containing `text`: the
/// database's prefilter before [`names_approval`] reads each line.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn like_containing(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// Whether audit line `line` records approval `approval`, stamped at `since`
/// (ms) or later (a line without a time counts).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn names_approval(line: &str, approval: &str, since: u64) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .is_some_and(|v| {
            v.pointer("/approval/id")
                .and_then(serde_json::Value::as_str)
                == Some(approval)
                && v.get("time")
                    .and_then(serde_json::Value::as_u64)
                    .is_none_or(|t| t >= since)
        })
}

/// How long an SQLite writer waits for another's transaction.
#[cfg(feature = "sqlite")]
const WRITER_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

#[cfg(feature = "sqlite")]
fn last_sqlite(db: &rusqlite::Connection) -> Result<Option<String>, SinkError> {
    let mut stmt = db.prepare("SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1")?;
    let mut rows = stmt.query(())?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}
