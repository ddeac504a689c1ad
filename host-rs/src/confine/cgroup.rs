//! Process and memory limits by a control group, where one can be made (as
//! root, on cgroup v1 with the `memory` and `pids` controllers, or on the
//! unified v2 hierarchy). The sandbox's first process joins it before it
//! starts bubblewrap, so everything the command starts is counted.

use std::path::{Path, PathBuf};

const ROOT: &str = "/sys/fs/cgroup";

/// A control group made for one run; removed by [`Cgroup::finish`].
#[derive(Debug)]
pub struct Cgroup {
    /// The directories made (one per v1 controller, or one v2 group).
    dirs: Vec<PathBuf>,
    /// Unified (v2) hierarchy.
    unified: bool,
    memory: u64,
    processes: u32,
}

/// What the group saw when the run ended.
#[derive(Debug, Default)]
pub struct Seen {
    /// The memory limit was hit (allocations failed or a process was killed).
    pub memory: bool,
    /// A fork was refused at the process limit.
    pub processes: bool,
}

/// Removes groups an earlier run left (its last process was slow to go):
/// only those older than ten minutes, so a run still setting up keeps its
/// own, and only empty ones (the kernel refuses the rest).
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 600);
        if old && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

fn write(path: &Path, value: &str) -> std::io::Result<()> {
    std::fs::write(path, value)
}

impl Cgroup {
    /// Makes a group named `name` with these limits; `None` where no group
    /// can be made here (not root, no controller): rlimits then apply.
    pub fn make(name: &str, memory: u64, processes: u32) -> Option<Cgroup> {
        let root = Path::new(ROOT);
        if root.join("cgroup.controllers").exists() {
            return Cgroup::unified(name, memory, processes);
        }
        let mut group = Cgroup {
            dirs: Vec::new(),
            unified: false,
            memory,
            processes,
        };
        for controller in ["memory", "pids"] {
            let parent = root.join(controller).join("toolgate");
            sweep(&parent);
            let dir = parent.join(name);
            let made = std::fs::create_dir_all(&dir);
            if made.is_err() {
                group.remove();
                return None;
            }
            group.dirs.push(dir);
        }
        let [memory_dir, pids_dir] = group.dirs.as_slice() else {
            return None;
        };
        let limits = write(
            &memory_dir.join("memory.limit_in_bytes"),
            &memory.to_string(),
        )
        .and_then(|()| write(&pids_dir.join("pids.max"), &processes.to_string()));
        // Swap counted too where the kernel accounts it (else the limit is
        // memory alone).
        let _ = write(
            &memory_dir.join("memory.memsw.limit_in_bytes"),
            &memory.to_string(),
        );
        if limits.is_err() {
            group.remove();
            return None;
        }
        Some(group)
    }

    fn unified(name: &str, memory: u64, processes: u32) -> Option<Cgroup> {
        let root = Path::new(ROOT);
        let parent = root.join("toolgate");
        std::fs::create_dir_all(&parent).ok()?;
        // Controllers must be enabled for the children of each level.
        let _ = write(&root.join("cgroup.subtree_control"), "+memory +pids");
        let _ = write(&parent.join("cgroup.subtree_control"), "+memory +pids");
        let dir = parent.join(name);
        std::fs::create_dir(&dir).ok()?;
        let mut group = Cgroup {
            dirs: vec![dir.clone()],
            unified: true,
            memory,
            processes,
        };
        let limits = write(&dir.join("memory.max"), &memory.to_string())
            .and_then(|()| write(&dir.join("memory.swap.max"), "0"))
            .and_then(|()| write(&dir.join("pids.max"), &processes.to_string()));
        if limits.is_err() {
            group.remove();
            return None;
        }
        Some(group)
    }

    /// The `cgroup.procs` files a process writes its pid to, to join.
    pub fn procs(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    /// Lets `uid` join (the sandbox's first process may run as another
    /// user than the one that made the group).
    pub fn allow(&self, uid: u32, gid: u32) -> std::io::Result<()> {
        for procs in self.procs() {
            std::os::unix::fs::chown(&procs, Some(uid), Some(gid))?;
        }
        Ok(())
    }

    /// The limits, in words.
    pub fn describe(&self) -> String {
        format!(
            "cgroup {}: memory {} MiB, {} processes",
            if self.unified { "v2" } else { "v1" },
            self.memory / (1024 * 1024),
            self.processes
        )
    }

    /// Reads what the limits stopped, then removes the group.
    pub fn finish(mut self) -> Seen {
        let mut seen = Seen::default();
        let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
        let counter = |text: &str, key: &str| {
            text.lines()
                .filter_map(|l| l.strip_prefix(key))
                .filter_map(|n| n.trim().parse::<u64>().ok())
                .any(|n| n > 0)
        };
        if self.unified {
            if let Some(dir) = self.dirs.first() {
                let events = read(dir.join("memory.events"));
                seen.memory = counter(&events, "max ") || counter(&events, "oom_kill ");
                seen.processes = counter(&read(dir.join("pids.events")), "max ");
            }
        } else if let [memory, pids] = self.dirs.as_slice() {
            seen.memory = counter(&read(memory.join("memory.failcnt")), "")
                || counter(&read(memory.join("memory.oom_control")), "oom_kill ");
            seen.processes = counter(&read(pids.join("pids.events")), "max ");
        }
        self.remove();
        seen
    }

    fn remove(&mut self) {
        for dir in self.dirs.drain(..) {
            // The sandbox's processes are gone when bubblewrap has exited
            // (its PID namespace ends with it); a group still busy for a
            // moment is retried briefly, then left (empty groups cost
            // nothing).
            for attempt in 0..100u64 {
                if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                    break;
                }
                // A process the memory limit killed may take a moment to go.
                std::thread::sleep(std::time::Duration::from_millis(attempt.min(20)));
            }
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        self.remove();
    }
}
