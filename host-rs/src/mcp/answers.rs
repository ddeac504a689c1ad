//! A person's answers to the approvals a client without elicitation left
//! pending: `toolgate approvals approve|reject DIR ID` writes
//! `DIR/answers/ID.json`, and the gateway settles the approval with it when
//! the client calls the same tool with the same arguments again.
//!
//! An answer binds, under an HMAC-SHA-256 with the key the gateway keeps
//! in `DIR/key` (made on first start, readable by its owner only), the
//! approval's id, the verdict and a digest of the tool and the arguments
//! the person saw: an answer written without the key, or moved to another
//! approval, or for arguments edited since, settles nothing. The directory
//! and its key must be out of the agent's reach (a separate user, or a
//! sandbox that cannot write there): whoever holds the key can approve.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The key's file name in the approvals directory.
pub const KEY_FILE: &str = "key";

/// The answers' subdirectory.
const ANSWERS: &str = "answers";

/// A person's verdict.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Run it.
    Approve,
    /// Never run it.
    Reject,
}

/// An answer as stored.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    /// The approval.
    pub id: String,
    /// The verdict.
    pub answer: Verdict,
    /// A message for the model (a rejection's reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Who answered (the user name of the process that wrote it).
    pub by: String,
    /// The digest of the tool and arguments the person saw.
    pub call: String,
    /// HMAC-SHA-256 over the fields above, hex.
    pub mac: String,
}

fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    let digest;
    let key = if key.len() > 64 {
        digest = Sha256::digest(key);
        digest.as_slice()
    } else {
        key
    };
    for (slot, byte) in block.iter_mut().zip(key) {
        *slot = *byte;
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of a call: its tool and its arguments (as JSON, key order
/// kept as stored), length-prefixed.
pub fn call_digest(tool: &str, args: &str) -> String {
    let mut h = Sha256::new();
    for part in [tool, args] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
}

fn signed(answer: &Answer) -> Vec<u8> {
    let verdict = match answer.answer {
        Verdict::Approve => "approve",
        Verdict::Reject => "reject",
    };
    let message = answer.message.as_deref().unwrap_or_default();
    let mut text = Vec::new();
    for part in [
        "toolgate.mcp-answer/1",
        &answer.id,
        verdict,
        message,
        &answer.by,
        &answer.call,
    ] {
        text.extend_from_slice(&(part.len() as u64).to_le_bytes());
        text.extend_from_slice(part.as_bytes());
    }
    text
}

/// Why an answer could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The file system.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The key is too short.
    #[error("the key {0} holds fewer than 32 bytes")]
    ShortKey(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AnswerError + '_ {
    move |source| AnswerError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The approvals directory's key, made (32 bytes from the kernel's CSPRNG,
/// mode 0600, in a directory of mode 0700) when missing.
pub fn key(dir: &Path) -> Result<Vec<u8>, AnswerError> {
    let path = dir.join(KEY_FILE);
    match std::fs::read(&path) {
        Ok(key) if key.len() >= 32 => return Ok(key),
        Ok(_) => return Err(AnswerError::ShortKey(path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(&path)(e)),
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(io(dir))?;
    let mut key = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
        .map_err(io(Path::new("/dev/urandom")))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(&path) {
        Ok(mut file) => {
            file.write_all(&key).map_err(io(&path))?;
            file.sync_all().map_err(io(&path))?;
            Ok(key)
        }
        // Another gateway made it meanwhile: its key is the key.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::read(&path).map_err(io(&path))
        }
        Err(e) => Err(io(&path)(e)),
    }
}

fn answer_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(ANSWERS).join(format!("{id}.json"))
}

/// Writes a person's answer (the approval's tool and arguments as the
/// checkpoint holds them).
#[allow(clippy::too_many_arguments)]
pub fn write(
    dir: &Path,
    key: &[u8],
    id: &str,
    verdict: Verdict,
    message: Option<String>,
    by: &str,
    tool: &str,
    args: &str,
) -> Result<(), AnswerError> {
    let mut answer = Answer {
        id: id.to_owned(),
        answer: verdict,
        message,
        by: by.to_owned(),
        call: call_digest(tool, args),
        mac: String::new(),
    };
    answer.mac = hex(&hmac(key, &signed(&answer)));
    let answers = dir.join(ANSWERS);
    std::fs::create_dir_all(&answers).map_err(io(&answers))?;
    let path = answer_path(dir, id);
    let tmp = answers.join(format!(".{id}.tmp"));
    let text = serde_json::to_string(&answer).unwrap_or_default();
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

/// The answer to `id` for this tool and these arguments, when one was
/// written with the key; anything else (none, unreadable, forged, for
/// another call) is no answer.
pub fn read(dir: &Path, key: &[u8], id: &str, tool: &str, args: &str) -> Option<Answer> {
    let text = std::fs::read(answer_path(dir, id)).ok()?;
    let answer: Answer = serde_json::from_slice(&text).ok()?;
    let expected = hex(&hmac(key, &signed(&answer)));
    let genuine = expected.len() == answer.mac.len()
        && expected
            .bytes()
            .zip(answer.mac.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    (genuine && answer.id == id && answer.call == call_digest(tool, args)).then_some(answer)
}

/// Removes an answer once its approval is settled.
pub fn remove(dir: &Path, id: &str) {
    let _ = std::fs::remove_file(answer_path(dir, id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn an_answer_holds_only_for_its_call_and_key() {
        let dir = std::env::temp_dir().join(format!("toolgate-answers-{}", std::process::id()));
        let key = key(&dir).expect("key");
        assert_eq!(super::key(&dir).expect("again"), key, "the key is kept");
        write(
            &dir,
            &key,
            "a1",
            Verdict::Approve,
            None,
            "me",
            "mcp:fs/write_file",
            "{\"path\":\"x\"}",
        )
        .expect("write");
        assert!(read(&dir, &key, "a1", "mcp:fs/write_file", "{\"path\":\"x\"}").is_some());
        assert!(read(&dir, &key, "a1", "mcp:fs/write_file", "{\"path\":\"y\"}").is_none());
        assert!(read(
            &dir,
            b"another key of 32 bytes at least!",
            "a1",
            "mcp:fs/write_file",
            "{\"path\":\"x\"}"
        )
        .is_none());
        let path = answer_path(&dir, "a1");
        let forged = std::fs::read_to_string(&path)
            .expect("read")
            .replace("approve", "reject");
        std::fs::write(&path, forged).expect("forge");
        assert!(read(&dir, &key, "a1", "mcp:fs/write_file", "{\"path\":\"x\"}").is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
