//! The confinement's seccomp filters, compiled to classic BPF for
//! bubblewrap's `--add-seccomp-fd`.
//!
//! Why a compiler and not a hand-written program: the filter is a table of
//! system calls, and the compiler (`seccompiler`, maintained by the
//! Firecracker project, which confines its own VMM with it) checks the
//! architecture field, lays out the jumps and compares 64-bit arguments in
//! two halves; hand-written BPF gets exactly those details wrong. Its output
//! is the kernel's `sock_filter` array, written here as bytes.
//!
//! Two filters, because a filter has one action for every match: the first
//! refuses with `EPERM` what a confined command never needs and what could
//! undo the confinement (mounts and the new mount API, namespaces, keyrings,
//! BPF, tracing other processes, the clock, modules, reboot, swap, the
//! terminal's input queue); the second answers `clone3` with `ENOSYS`, so the
//! C library falls back to `clone`, whose flags the first filter can read
//! (`clone3` passes them in memory, out of a filter's sight).

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// System calls refused outright, with why.
const REFUSED: &[(i64, &str)] = &[
    (libc::SYS_mount, "mount: would remove or add masks"),
    (libc::SYS_umount2, "umount: would remove a mask"),
    (libc::SYS_pivot_root, "changes the root"),
    (libc::SYS_chroot, "changes the root"),
    (
        libc::SYS_unshare,
        "new namespaces, where mounts could change",
    ),
    (libc::SYS_setns, "enters another namespace"),
    (libc::SYS_open_tree, "the new mount API"),
    (libc::SYS_move_mount, "the new mount API"),
    (libc::SYS_fsopen, "the new mount API"),
    (libc::SYS_fsmount, "the new mount API"),
    (libc::SYS_fsconfig, "the new mount API"),
    (libc::SYS_fspick, "the new mount API"),
    (libc::SYS_mount_setattr, "the new mount API"),
    (libc::SYS_keyctl, "the kernel keyrings hold credentials"),
    (libc::SYS_add_key, "the kernel keyrings hold credentials"),
    (
        libc::SYS_request_key,
        "the kernel keyrings hold credentials",
    ),
    (libc::SYS_bpf, "loads programs into the kernel"),
    (
        libc::SYS_perf_event_open,
        "observes other processes and the kernel",
    ),
    (libc::SYS_ptrace, "controls another process"),
    (libc::SYS_process_vm_readv, "reads another process's memory"),
    (
        libc::SYS_process_vm_writev,
        "writes another process's memory",
    ),
    (libc::SYS_userfaultfd, "a tool of kernel exploits"),
    (libc::SYS_settimeofday, "sets the host's clock"),
    (libc::SYS_clock_settime, "sets the host's clock"),
    (libc::SYS_clock_adjtime, "sets the host's clock"),
    (libc::SYS_adjtimex, "sets the host's clock"),
    (libc::SYS_sethostname, "renames the host"),
    (libc::SYS_setdomainname, "renames the host"),
    (libc::SYS_init_module, "loads kernel modules"),
    (libc::SYS_finit_module, "loads kernel modules"),
    (libc::SYS_delete_module, "unloads kernel modules"),
    (libc::SYS_kexec_load, "replaces the kernel"),
    (libc::SYS_kexec_file_load, "replaces the kernel"),
    (libc::SYS_reboot, "reboots the host"),
    (libc::SYS_swapon, "changes the host's swap"),
    (libc::SYS_swapoff, "changes the host's swap"),
    (libc::SYS_acct, "process accounting"),
    (libc::SYS_quotactl, "disk quotas"),
    (
        libc::SYS_name_to_handle_at,
        "opens files by handle, around the mounts",
    ),
    (
        libc::SYS_open_by_handle_at,
        "opens files by handle, around the mounts",
    ),
    (libc::SYS_syslog, "the kernel's log"),
    (libc::SYS_vhangup, "hangs up the terminal"),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_iopl, "raw I/O ports"),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_ioperm, "raw I/O ports"),
];

/// `clone` flags that make a namespace.
const NAMESPACE_FLAGS: &[u64] = &[
    0x0002_0000, // CLONE_NEWNS
    0x0200_0000, // CLONE_NEWCGROUP
    0x0400_0000, // CLONE_NEWUTS
    0x0800_0000, // CLONE_NEWIPC
    0x1000_0000, // CLONE_NEWUSER
    0x2000_0000, // CLONE_NEWPID
    0x4000_0000, // CLONE_NEWNET
    0x0000_0080, // CLONE_NEWTIME
];

/// `ioctl` requests that push input into the terminal or drive the console.
const IOCTLS: &[u64] = &[
    0x5412, // TIOCSTI
    0x541C, // TIOCLINUX
];

/// The x32 ABI's system calls have this bit set (and the same architecture
/// value): each number is refused in both spellings.
#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;

fn rule(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, String> {
    let condition = SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value)
        .map_err(|e| e.to_string())?;
    SeccompRule::new(vec![condition]).map_err(|e| e.to_string())
}

fn insert(rules: &mut BTreeMap<i64, Vec<SeccompRule>>, nr: i64, list: Vec<SeccompRule>) {
    #[cfg(target_arch = "x86_64")]
    rules.insert(nr | X32, list.clone());
    rules.insert(nr, list);
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    action: SeccompAction,
) -> Result<Vec<u8>, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let filter =
        SeccompFilter::new(rules, SeccompAction::Allow, action, arch).map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for instruction in &program {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    Ok(bytes)
}

/// The two filters' BPF programs, as bubblewrap reads them from a file
/// descriptor: the refusals (`EPERM`), then `clone3` (`ENOSYS`).
pub fn programs() -> Result<[Vec<u8>; 2], String> {
    let mut refused = BTreeMap::new();
    for (nr, _why) in REFUSED {
        insert(&mut refused, *nr, Vec::new());
    }
    let clone_flags = NAMESPACE_FLAGS
        .iter()
        .map(|flag| rule(0, SeccompCmpOp::MaskedEq(*flag), *flag))
        .collect::<Result<Vec<_>, _>>()?;
    insert(&mut refused, libc::SYS_clone, clone_flags);
    let ioctls = IOCTLS
        .iter()
        .map(|request| rule(1, SeccompCmpOp::MaskedEq(0xFFFF_FFFF), *request))
        .collect::<Result<Vec<_>, _>>()?;
    insert(&mut refused, libc::SYS_ioctl, ioctls);
    let mut clone3 = BTreeMap::new();
    insert(&mut clone3, libc::SYS_clone3, Vec::new());
    Ok([
        compile(refused, SeccompAction::Errno(libc::EPERM as u32))?,
        compile(clone3, SeccompAction::Errno(libc::ENOSYS as u32))?,
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_programs_compile_to_whole_instructions() {
        let [refused, clone3] = super::programs().unwrap();
        assert!(refused.len() > 8 * 40 && refused.len() % 8 == 0);
        assert!(!clone3.is_empty() && clone3.len() % 8 == 0);
    }
}
