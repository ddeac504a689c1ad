//! The one table of files that hold secrets, shared by `file_operations`, MCP
//! file tools and the command assessor (for the files a read-only command
//! would print).
//!
//! Every rule is judged on a path already resolved by [`super::paths`]: `..`
//! removed, `\` read as a separator in the Windows reading, drive letters,
//! NTFS streams and trailing dots stripped, and the text lower-cased, because
//! Windows and macOS match names without regard to case and a rule that
//! misses `.ENV` on them misses the file.
//!
//! Rules are data, not code: add a row to [`SECRET_RULES`] to add a file.

/// Why a path is secret, as the message says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// System files that hold password hashes, host keys or cluster credentials.
    System,
    /// Another process's memory, environment or file descriptors, or a device.
    Process,
    /// A directory whose whole content is keys or credentials.
    KeyDirectory,
    /// A file that holds keys, tokens, passwords or session cookies.
    Credentials,
    /// A Windows registry hive or credential store.
    WindowsStore,
    /// A raw device or a Windows device namespace path.
    Device,
}

impl Why {
    /// The message fragment (follows the path in a finding).
    pub fn message(self) -> &'static str {
        match self {
            Why::System => "is a system file that holds secrets",
            Why::Process => "is a system location that holds secrets or other processes' data",
            Why::KeyDirectory => "is inside a directory of keys or credentials",
            Why::Credentials => "holds keys, credentials or secrets",
            Why::WindowsStore => "is a Windows registry hive or credential store",
            Why::Device => "is a device, not a file",
        }
    }
}

/// How a rule matches a resolved, lower-cased path.
#[derive(Clone, Copy, Debug)]
pub enum Match {
    /// The absolute path is this one or lies under it (component boundary).
    Under(&'static str),
    /// The absolute path's text starts with this (backups such as
    /// `/etc/shadow-`, families such as `/etc/ssh/ssh_host_*`).
    TextPrefix(&'static str),
    /// These components follow each other somewhere in the path (a Windows
    /// tree under a drive, a WSL mount `/mnt/c/…` or an admin share).
    Sequence(&'static [&'static str]),
    /// Some directory component of the path (absolute or relative) is this.
    Directory(&'static str),
    /// Two consecutive components, anywhere (`.config/gcloud`).
    Pair(&'static str, &'static str),
    /// The file name is this.
    Name(&'static str),
    /// The file name starts with this.
    NamePrefix(&'static str),
    /// The file name ends with this.
    Suffix(&'static str),
    /// A dotenv file: `.env`, `.envrc`, `.env.*`, `.env_*`, `.env-*` (and the
    /// same family of `.dev.vars` and `.flaskenv`), but not a
    /// template (`.example`, `.sample`, `.template`, `.dist`, `.tmpl`).
    EnvFile,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct SecretRule {
    /// What it matches.
    pub matches: Match,
    /// Why that is secret.
    pub why: Why,
}

const fn rule(matches: Match, why: Why) -> SecretRule {
    SecretRule { matches, why }
}

use Match::{
    Directory, EnvFile, Name, NamePrefix, Pair, Sequence, Suffix, TextPrefix as Text, Under,
};
use Why::{Credentials, Device as Dev, KeyDirectory as Keys, Process, System, WindowsStore};

/// Every file and directory known to hold secrets.
pub const SECRET_RULES: &[SecretRule] = &[
    // System password hashes and their backups (`/etc/shadow-`, `/etc/gshadow.bak`).
    rule(Text("/etc/shadow"), System),
    rule(Text("/etc/gshadow"), System),
    rule(Text("/etc/master.passwd"), System),
    rule(Text("/etc/spwd.db"), System),
    rule(Text("/etc/security/opasswd"), System),
    rule(Text("/etc/sudoers"), System),
    // SSH host keys (`ssh_host_ed25519_key` and friends), wherever sshd keeps them.
    rule(NamePrefix("ssh_host_"), System),
    rule(Under("/etc/ssl/private"), System),
    rule(Under("/etc/pki/tls/private"), System),
    rule(Under("/etc/letsencrypt"), System),
    // Kerberos keytabs and ticket caches.
    rule(Text("/etc/krb5.keytab"), System),
    rule(Suffix(".keytab"), Credentials),
    rule(NamePrefix("krb5cc_"), Credentials),
    // Cluster credentials: kubeadm's admin, kubelet, controller and scheduler
    // configs, k3s and rke2 configs, kubelet secret volumes.
    rule(Under("/etc/kubernetes"), System),
    rule(Under("/etc/rancher"), System),
    rule(Under("/var/lib/rancher"), System),
    rule(Under("/var/lib/kubelet"), System),
    rule(Directory("kubernetes.io~secret"), Keys),
    rule(Directory("kubernetes.io~projected"), Keys),
    rule(Under("/var/run/secrets"), Process),
    rule(Under("/run/secrets"), Process),
    rule(Under("/etc/networkmanager/system-connections"), System),
    rule(Under("/etc/wpa_supplicant"), System),
    rule(Text("/etc/ppp/chap-secrets"), System),
    rule(Text("/etc/ppp/pap-secrets"), System),
    // Whole locations: root's home, other processes, devices, boot, containers.
    rule(Under("/root"), Process),
    rule(Under("/proc"), Process),
    rule(Under("/sys"), Process),
    rule(Under("/dev"), Dev),
    rule(Under("/boot"), Process),
    rule(Under("/var/lib/docker"), Process),
    rule(Under("/var/run/docker.sock"), Process),
    rule(Under("/run/docker.sock"), Process),
    // Windows registry hives (SAM, SYSTEM, SECURITY, their backups) and stores.
    rule(Sequence(&["windows", "system32", "config"]), WindowsStore),
    rule(Sequence(&["windows", "repair"]), WindowsStore),
    rule(Sequence(&["windows", "ntds"]), WindowsStore),
    rule(Sequence(&["windows", "panther"]), WindowsStore),
    rule(
        Sequence(&["windows", "system32", "microsoft", "protect"]),
        WindowsStore,
    ),
    // macOS keychains and local directory service (password hashes).
    rule(Suffix(".keychain"), Credentials),
    rule(Suffix(".keychain-db"), Credentials),
    rule(Pair("library", "keychains"), Keys),
    rule(Under("/var/db/dslocal"), System),
    rule(Name("ntuser.dat"), WindowsStore),
    rule(Name("ntds.dit"), WindowsStore),
    rule(Name("unattend.xml"), WindowsStore),
    rule(Name("sysprep.xml"), WindowsStore),
    rule(Name("sysprep.inf"), WindowsStore),
    rule(Pair("microsoft", "credentials"), WindowsStore),
    rule(Pair("microsoft", "protect"), WindowsStore),
    rule(Pair("microsoft", "vault"), WindowsStore),
    // Directories whose whole content is keys or credentials.
    rule(Directory(".ssh"), Keys),
    rule(Directory(".gnupg"), Keys),
    rule(Directory(".aws"), Keys),
    rule(Directory(".azure"), Keys),
    rule(Directory(".kube"), Keys),
    rule(Directory(".docker"), Keys),
    rule(Directory(".password-store"), Keys),
    rule(Directory(".secrets"), Keys),
    rule(Directory(".oci"), Keys),
    rule(Directory(".aliyun"), Keys),
    rule(Directory(".tccli"), Keys),
    rule(Directory(".bluemix"), Keys),
    rule(Directory(".gcloud"), Keys),
    rule(Directory(".minikube"), Keys),
    rule(Pair(".config", "gcloud"), Keys),
    rule(Pair(".config", "gh"), Keys),
    rule(Pair(".config", "hub"), Keys),
    rule(Pair(".config", "op"), Keys),
    rule(Pair(".config", "rclone"), Keys),
    rule(Pair(".config", "doctl"), Keys),
    rule(Pair(".config", "heroku"), Keys),
    rule(Pair(".config", "hcloud"), Keys),
    rule(Pair(".config", "scw"), Keys),
    rule(Pair(".config", "linode-cli"), Keys),
    rule(Pair("share", "keyrings"), Keys),
    rule(Pair(".cargo", "credentials"), Credentials),
    rule(Pair(".cargo", "credentials.toml"), Credentials),
    // Dotenv files and tool credential files, wherever they are.
    rule(EnvFile, Credentials),
    rule(Name(".netrc"), Credentials),
    rule(Name("_netrc"), Credentials),
    rule(Name(".pgpass"), Credentials),
    rule(Name(".my.cnf"), Credentials),
    rule(Name(".mylogin.cnf"), Credentials),
    rule(Name(".s3cfg"), Credentials),
    rule(Name(".passwd-s3fs"), Credentials),
    rule(Name(".boto"), Credentials),
    rule(Name(".dockercfg"), Credentials),
    rule(Name(".git-credentials"), Credentials),
    rule(Name(".npmrc"), Credentials),
    rule(Name(".yarnrc.yml"), Credentials),
    rule(Name(".pypirc"), Credentials),
    rule(Name(".htpasswd"), Credentials),
    rule(Name(".vault-token"), Credentials),
    rule(Name(".terraformrc"), Credentials),
    rule(Name("terraform.rc"), Credentials),
    rule(Name("credentials"), Credentials),
    rule(Name("credentials.json"), Credentials),
    rule(Name("credentials.toml"), Credentials),
    rule(Name("credentials.tfrc.json"), Credentials),
    rule(Name("service-account.json"), Credentials),
    rule(Name("kubeconfig"), Credentials),
    rule(Suffix(".kubeconfig"), Credentials),
    rule(Name("admin.conf"), Credentials),
    rule(Name("terraform.tfstate"), Credentials),
    rule(Name("terraform.tfstate.backup"), Credentials),
    rule(Name("master.key"), Credentials),
    rule(Name("secrets.yml"), Credentials),
    rule(Name("secrets.yaml"), Credentials),
    rule(Name("secrets.json"), Credentials),
    rule(Name("keystore"), Credentials),
    rule(Name("wp-config.php"), Credentials),
    rule(Name("web.config"), Credentials),
    rule(Name("ipsec.secrets"), Credentials),
    rule(Name("shadow"), System),
    rule(Name("gshadow"), System),
    rule(Name("sudoers"), System),
    // Private keys by name.
    rule(NamePrefix("id_rsa"), Credentials),
    rule(NamePrefix("id_dsa"), Credentials),
    rule(NamePrefix("id_ecdsa"), Credentials),
    rule(NamePrefix("id_ed25519"), Credentials),
    rule(NamePrefix("id_xmss"), Credentials),
    rule(Name("authorized_keys"), Credentials),
    rule(Name("known_hosts"), Credentials),
    // Shell and client histories (they hold typed passwords and tokens).
    rule(Name(".bash_history"), Credentials),
    rule(Name(".zsh_history"), Credentials),
    rule(Name(".python_history"), Credentials),
    rule(Name(".psql_history"), Credentials),
    rule(Name(".mysql_history"), Credentials),
    rule(Name(".sqlite_history"), Credentials),
    rule(Name(".rediscli_history"), Credentials),
    rule(Name(".node_repl_history"), Credentials),
    rule(Name("fish_history"), Credentials),
    rule(Name(".lesshst"), Credentials),
    rule(Name(".viminfo"), Credentials),
    // Browser password and cookie stores.
    rule(Name("logins.json"), Credentials),
    rule(Name("key3.db"), Credentials),
    rule(Name("key4.db"), Credentials),
    rule(Name("cookies.sqlite"), Credentials),
    rule(Name("login data"), Credentials),
    rule(Name("cookies"), Credentials),
    // Key and certificate-store suffixes.
    rule(Suffix(".pem"), Credentials),
    rule(Suffix(".key"), Credentials),
    rule(Suffix(".p12"), Credentials),
    rule(Suffix(".pfx"), Credentials),
    rule(Suffix(".jks"), Credentials),
    rule(Suffix(".keystore"), Credentials),
    rule(Suffix(".kdbx"), Credentials),
    rule(Suffix(".ovpn"), Credentials),
    rule(Suffix(".gpg"), Credentials),
    rule(Suffix(".asc"), Credentials),
    rule(Suffix(".tfvars"), Credentials),
    rule(Suffix(".ppk"), Credentials),
    // Backups of the password databases kept elsewhere, service secrets kept
    // in system files, cloud-init user data (it carries passwords and keys).
    rule(Under("/var/backups"), System),
    rule(Text("/etc/mysql/debian.cnf"), System),
    rule(Under("/etc/wireguard"), System),
    rule(Text("/etc/samba/smbpasswd"), System),
    rule(Under("/var/lib/samba/private"), System),
    rule(Text("/etc/postfix/sasl_passwd"), System),
    rule(Name("ldap.secret"), System),
    rule(Name("initial_root_password"), System),
    rule(Under("/etc/gitlab"), System),
    rule(Under("/var/lib/jenkins/secrets"), System),
    rule(Name("credentials.xml"), Credentials),
    rule(Under("/var/lib/cloud"), System),
    rule(NamePrefix("user-data"), Credentials),
    // Tool and service credential files found in projects and homes.
    rule(Name("service_account.json"), Credentials),
    rule(Name("gcp-key.json"), Credentials),
    rule(Name("firebase-adminsdk.json"), Credentials),
    rule(NamePrefix("deploy_key"), Credentials),
    rule(Name("github_rsa"), Credentials),
    rule(Pair(".streamlit", "secrets.toml"), Credentials),
    rule(Name("credentials.yml"), Credentials),
    rule(Name("credentials.yaml"), Credentials),
    rule(Name("credentials.ini"), Credentials),
    rule(Name("secret.yml"), Credentials),
    rule(Name("secret.yaml"), Credentials),
    rule(Name("secret.json"), Credentials),
    rule(Name("secrets.toml"), Credentials),
    rule(Pair(".git", "config"), Credentials),
    rule(Pair(".m2", "settings.xml"), Credentials),
    rule(Pair(".m2", "settings-security.xml"), Credentials),
    rule(Pair("composer", "auth.json"), Credentials),
    rule(Name("auth.json"), Credentials),
    rule(Pair(".config", "containers"), Keys),
    rule(Pair(".config", "sops"), Keys),
    rule(Pair(".config", "ngrok"), Keys),
    rule(Directory(".ngrok2"), Keys),
    rule(Directory(".vercel"), Keys),
    rule(Directory(".ansible"), Keys),
    rule(Name(".databrickscfg"), Credentials),
    rule(NamePrefix(".vault_pass"), Credentials),
    rule(NamePrefix("vault_pass"), Credentials),
    rule(Name(".irb_history"), Credentials),
    rule(Name(".histfile"), Credentials),
    rule(Name(".history"), Credentials),
    rule(Name(".sh_history"), Credentials),
    rule(Name(".pry_history"), Credentials),
    // More histories, by shell, REPL and client.
    rule(Name(".zhistory"), Credentials),
    rule(Name(".ash_history"), Credentials),
    rule(Pair("zsh", "history"), Credentials),
    rule(Name("history.sqlite"), Credentials),
    rule(Name("repl_history.jl"), Credentials),
    rule(Name(".scala_history"), Credentials),
    rule(Name(".rhistory"), Credentials),
    rule(Name(".dbshell"), Credentials),
    rule(Name("mongosh_repl_history"), Credentials),
    rule(Pair("atuin", "history.db"), Credentials),
    rule(Pair("mc", "history"), Credentials),
    // Session cookies and tokens of desktops, runtimes and tools.
    rule(Name(".xauthority"), Credentials),
    rule(Pair(".vnc", "passwd"), Credentials),
    rule(Name(".erlang.cookie"), Credentials),
    rule(Suffix(".keyring"), Credentials),
    rule(Pair("huggingface", "token"), Credentials),
    // huggingface_hub's earlier token place, ~/.huggingface/token.
    rule(Pair(".huggingface", "token"), Credentials),
    // keytool's default keystore is `.keystore` in the home (keytool(1)).
    rule(Name(".keystore"), Credentials),
    // Tokens that command-line clients keep in the home: Supabase CLI
    // (~/.supabase/access-token), Railway CLI (~/.railway/config.json),
    // Netlify CLI (~/.config/netlify/config.json), clasp (~/.clasprc.json),
    // legacy linode-cli (~/.linode-cli), IBM Cloud CLI (~/.ibmcloud/), the
    // Snowflake connectors and CLI (~/.snowflake/connections.toml), rclone's
    // configuration file wherever it is kept (rclone.conf, its remotes' keys).
    rule(Pair(".supabase", "access-token"), Credentials),
    rule(Pair(".railway", "config.json"), Credentials),
    rule(Pair("netlify", "config.json"), Credentials),
    rule(Name(".clasprc.json"), Credentials),
    rule(Name(".linode-cli"), Keys),
    rule(Directory(".ibmcloud"), Keys),
    rule(Directory(".snowflake"), Keys),
    rule(Name("rclone.conf"), Keys),
    rule(Pair("huggingface", "stored_tokens"), Credentials),
    rule(Pair(".kaggle", "kaggle.json"), Credentials),
    rule(Name(".credentials.json"), Credentials),
    rule(Name(".credentials"), Credentials),
    rule(Pair("github-copilot", "hosts.json"), Credentials),
    rule(Pair("github-copilot", "apps.json"), Credentials),
    rule(Pair(".config", "glab-cli"), Keys),
    rule(Pair(".config", "age"), Keys),
    rule(Directory(".age"), Keys),
    rule(Pair(".mc", "config.json"), Credentials),
    rule(Directory(".fly"), Keys),
    rule(Pair(".wrangler", "config"), Keys),
    rule(Pair(".config", "stripe"), Keys),
    rule(Under("/var/lib/tailscale"), System),
    rule(Pair(".purple", "accounts.xml"), Credentials),
    rule(Pair("filezilla", "sitemanager.xml"), Credentials),
    rule(Pair("filezilla", "recentservers.xml"), Credentials),
    rule(Suffix(".tfstate"), Credentials),
    rule(Suffix(".p8"), Credentials),
    rule(Suffix(".pkcs12"), Credentials),
    // Servers' own credential stores.
    rule(Pair("mysql", "user.myd"), System),
    rule(Under("/var/lib/krb5kdc"), System),
    rule(Under("/var/kerberos/krb5kdc"), System),
    rule(Under("/var/lib/sss"), System),
    // Framework and tool secret files, from their own documentation:
    // Cloudflare Wrangler's local secrets (developers.cloudflare.com/workers/
    // configuration/secrets/, "Local development with secrets": `.dev.vars`,
    // `.dev.vars.<environment>`); Flask's `.flaskenv` (flask.palletsprojects.com,
    // "Environment Variables From dotenv", read like `.env`); Gradle's user
    // properties (docs.gradle.org, "Gradle properties": `GRADLE_USER_HOME/
    // gradle.properties` holds repository and signing credentials); Azure
    // Functions' `local.settings.json` (learn.microsoft.com, "App settings in
    // local.settings.json", which its template keeps out of source control);
    // Sentry CLI's `.sentryclirc` (docs.sentry.io/cli/configuration, an auth
    // token); dbt's `profiles.yml` (docs.getdbt.com, "About profiles.yml":
    // warehouse passwords); SnowSQL's `~/.snowsql/config`; the Pulumi CLI's
    // `~/.pulumi/credentials.json`; Teleport's `~/.tsh` keys; NuGet's
    // `NuGet.Config` (package source passwords); Bundler's `~/.bundle/config`
    // (gem server credentials); sbt's and Ivy's `.credentials`; the CircleCI
    // CLI's `~/.circleci/cli.yml` (API token); Firebase tools' configstore.
    // (`.dev.vars` and `.flaskenv` are read as dotenv files: `EnvFile`.)
    rule(Pair(".gradle", "gradle.properties"), Credentials),
    rule(Name("local.settings.json"), Credentials),
    rule(Name(".sentryclirc"), Credentials),
    rule(Pair(".dbt", "profiles.yml"), Credentials),
    rule(Directory(".snowsql"), Keys),
    rule(Pair(".pulumi", "credentials.json"), Credentials),
    rule(Directory(".tsh"), Keys),
    rule(Name("nuget.config"), Credentials),
    rule(Pair(".bundle", "config"), Credentials),
    rule(Pair(".sbt", "credentials"), Credentials),
    rule(Pair(".ivy2", ".credentials"), Credentials),
    rule(Pair(".circleci", "cli.yml"), Credentials),
    rule(Pair("configstore", "firebase-tools.json"), Credentials),
    // Gitrob's file signatures (github.com/michenriksen/gitrob,
    // `filesignatures.json`): the rows that name a file of secrets and were
    // not here, each under its signature's description. Its broad rows
    // (`.log`, `.sqlite`, `.sql`, `settings.py`, any path with `password`)
    // name everyday files and are left out: a read of them is a project's own.
    rule(Suffix(".agilekeychain"), Credentials), // 1Password database
    rule(Suffix(".cscfg"), Credentials),         // Azure service configuration
    rule(Pair(".chef", "client.pem"), Credentials), // Chef private key (also `.pem`)
    rule(Name("dbeaver-data-sources.xml"), Credentials), // DBeaver data sources
    rule(Name(".dbeaver-data-sources.xml"), Credentials),
    rule(Name("credentials-config.json"), Credentials), // DBeaver's saved credentials
    rule(Pair(".gem", "credentials"), Credentials),     // Rubygems API key
    rule(Name("credentials.db"), Credentials),          // gcloud credential database
    rule(Name("access_tokens.db"), Credentials),        // gcloud access tokens
    rule(Name("adc.json"), Credentials),                // legacy gcloud keyfile
    rule(Pair(".irssi", "config"), Credentials),        // Irssi IRC client
    rule(Suffix(".kwallet"), Credentials),              // KDE Wallet database
    rule(Suffix(".kdb"), Credentials),                  // KeePass (older format)
    rule(Suffix(".tpm"), Credentials),                  // BitLocker TPM password
    rule(Suffix(".bek"), Credentials),                  // BitLocker recovery key
    rule(Name(".muttrc"), Credentials),                 // Mutt e-mail client
    rule(Name("muttrc"), Credentials),
    rule(Name("otr.private_key"), Credentials), // Pidgin OTR private key
    rule(Suffix(".psafe3"), Credentials),       // Password Safe database
    rule(Pair(".recon-ng", "keys.db"), Credentials), // recon-ng API keys
    rule(Name("robomongo.json"), Credentials),  // Robomongo connections
    rule(Name("secret_token.rb"), Credentials), // Rails secret token
    rule(NamePrefix("sftp-config"), Credentials), // SFTP connection file
    rule(Name(".trc"), Credentials),            // T Twitter client
    rule(Name(".tugboat"), Credentials),        // Tugboat DigitalOcean client
    rule(
        Name("jenkins.plugins.publish_over_ssh.bapsshpublisherplugin.xml"),
        Credentials,
    ),
    rule(Suffix(".rdp"), Credentials), // Remote Desktop connection
    rule(Suffix(".dayone"), Credentials), // Day One journal
    rule(Pair(".xchat2", "servlist_.conf"), Credentials), // XChat server list
    rule(Pair(".config", "hexchat"), Keys),
];

/// Endings that keep a copy of a file under another name (`key.pem.bak`,
/// `.env~`, `id_rsa.orig`), rotate it (`.1`), or compress or archive it
/// (`.zsh_history.gz`, `credentials.json.zst`: `zcat` prints the plain text):
/// the copy is as secret as the file.
const BACKUP_ENDINGS: &[&str] = &[
    "~", ".bak", ".old", ".orig", ".save", ".swp", ".swo", ".backup", ".copy", ".0", ".1", ".2",
    ".gz", ".xz", ".bz2", ".zst", ".lz4", ".lzma", ".lz", ".z", ".br", ".tar", ".zip", ".7z",
];

/// Files under the secret locations that only describe the machine (CPU,
/// memory, load, mounts) or are the standard streams and sources of bytes:
/// everyday reads, never secrets.
pub const BENIGN_SYSTEM_FILES: &[&str] = &[
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/version",
    "/proc/stat",
    "/proc/mounts",
    "/proc/partitions",
    "/proc/swaps",
    "/proc/diskstats",
    "/proc/filesystems",
    "/proc/vmstat",
    "/proc/interrupts",
    "/proc/cgroups",
    "/proc/devices",
    "/proc/modules",
    "/proc/zoneinfo",
    "/proc/buddyinfo",
    "/proc/pressure/cpu",
    "/proc/pressure/memory",
    "/proc/pressure/io",
    "/proc/net/dev",
    "/proc/net/route",
    "/proc/net/snmp",
    "/proc/self/status",
    "/proc/self/limits",
    "/proc/self/mountinfo",
    "/proc/self/cgroup",
    "/proc/self/stat",
    "/proc/self/statm",
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
];

/// Template suffixes of dotenv files: committed examples, not secrets.
const ENV_TEMPLATES: &[&str] = &[".example", ".sample", ".template", ".dist", ".tmpl"];

fn is_env_file(name: &str) -> bool {
    // `.env` and the dotenv files of frameworks: Cloudflare Wrangler's
    // `.dev.vars` (and `.dev.vars.<environment>`), Flask's `.flaskenv`.
    let Some(rest) = [".env", ".dev.vars", ".flaskenv"]
        .iter()
        .find_map(|stem| name.strip_prefix(stem))
    else {
        return false;
    };
    let family = rest.is_empty()
        || rest.starts_with('.')
        || rest.starts_with('_')
        || rest.starts_with('-')
        || rest.starts_with("rc");
    family && !ENV_TEMPLATES.iter().any(|t| rest.ends_with(t))
}

/// Why a resolved, lower-cased path (absolute `/…` or relative) holds
/// secrets, if it does.
pub fn secret(path: &str) -> Option<Why> {
    if BENIGN_SYSTEM_FILES.contains(&path) {
        return None;
    }
    let absolute = path.starts_with('/');
    let components: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let full = components.last().copied().unwrap_or("");
    // A backup's name is read as the name it copies (repeatedly: `a.bak~`).
    let mut name = full;
    while let Some(stripped) = BACKUP_ENDINGS
        .iter()
        .find_map(|e| name.strip_suffix(e).filter(|n| !n.is_empty()))
    {
        name = stripped;
    }
    if name != full {
        let copy = path
            .get(..path.len() - (full.len() - name.len()))
            .unwrap_or(path);
        if let Some(why) = secret(copy) {
            return Some(why);
        }
    }
    index()
        .first(path, absolute, &components, full)
        .and_then(|i| SECRET_RULES.get(i))
        .map(|r| r.why)
}

/// [`SECRET_RULES`] sorted for lookup, so that a path costs a few binary
/// searches per component rather than a pass over every row: a command with
/// thousands of file operands checks each of them in every reading, and the
/// work bound is per byte of input.
///
/// The answer is the same as the first matching row in table order (the
/// tests hold it to the plain scan); rows that cannot be looked up by a key
/// (prefixes, suffixes, runs) are still scanned, in order.
struct Index {
    /// Exact keys, sorted, each with the first row that has it.
    under: Vec<(&'static str, usize)>,
    directory: Vec<(&'static str, usize)>,
    pair: Vec<((&'static str, &'static str), usize)>,
    name: Vec<(&'static str, usize)>,
    /// Everything else, in table order.
    scanned: Vec<usize>,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index {
            under: Vec::new(),
            directory: Vec::new(),
            pair: Vec::new(),
            name: Vec::new(),
            scanned: Vec::new(),
        };
        for (i, rule) in SECRET_RULES.iter().enumerate() {
            match rule.matches {
                Match::Under(prefix) => index.under.push((prefix, i)),
                Match::Directory(dir) => index.directory.push((dir, i)),
                Match::Pair(a, b) => index.pair.push(((a, b), i)),
                Match::Name(n) => index.name.push((n, i)),
                _ => index.scanned.push(i),
            }
        }
        // A stable sort keeps the first row of a repeated key first.
        index.under.sort_by_key(|e| e.0);
        index.directory.sort_by_key(|e| e.0);
        index.pair.sort_by_key(|e| e.0);
        index.name.sort_by_key(|e| e.0);
        index
    })
}

/// The first row with `key`, if any: `entries` is sorted by key, stably.
fn lookup<K: Ord + Copy>(entries: &[(K, usize)], key: K) -> Option<usize> {
    let at = entries.partition_point(|e| e.0 < key);
    entries.get(at).filter(|e| e.0 == key).map(|e| e.1)
}

impl Index {
    /// The first row (in table order) that matches.
    fn first(&self, path: &str, absolute: bool, components: &[&str], name: &str) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut take = |found: Option<usize>| {
            if let Some(i) = found {
                best = Some(best.map_or(i, |b| b.min(i)));
            }
        };
        if absolute {
            // `Under(p)`: the path is `p` or continues after `p` with `/`.
            take(lookup(&self.under, path));
            for (at, _) in path.match_indices('/').filter(|(at, _)| *at > 0) {
                take(path.get(..at).and_then(|p| lookup(&self.under, p)));
            }
        }
        for component in components {
            take(lookup(&self.directory, *component));
        }
        for w in components.windows(2) {
            if let [a, b] = w {
                take(lookup(&self.pair, (*a, *b)));
            }
        }
        take(lookup(&self.name, name));
        let limit = best.unwrap_or(usize::MAX);
        let scanned = self
            .scanned
            .iter()
            .copied()
            .take_while(|i| *i < limit)
            .find(|i| {
                SECRET_RULES
                    .get(*i)
                    .is_some_and(|r| matches(&r.matches, path, absolute, components, name))
            });
        scanned.or(best)
    }
}

/// Whether one row matches (the plain reading of [`Match`]).
fn matches(rule: &Match, path: &str, absolute: bool, components: &[&str], name: &str) -> bool {
    match *rule {
        Match::Under(prefix) => {
            absolute
                && (path == prefix
                    || path
                        .strip_prefix(prefix)
                        .is_some_and(|rest| rest.starts_with('/')))
        }
        Match::TextPrefix(prefix) => absolute && path.starts_with(prefix),
        Match::Directory(dir) => components.contains(&dir),
        Match::Pair(a, b) => components.windows(2).any(|w| w == [a, b]),
        Match::Sequence(run) => components.windows(run.len()).any(|w| w == run),
        Match::Name(n) => name == n,
        Match::NamePrefix(p) => name.starts_with(p),
        Match::Suffix(s) => name.len() > s.len() && name.ends_with(s),
        Match::EnvFile => is_env_file(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows() {
        for path in [
            "/etc/shadow-",
            "/etc/gshadow.bak",
            "/etc/ssh/ssh_host_ed25519_key",
            ".envrc",
            "app/.env_local",
            "/home/u/.cargo/credentials.toml",
            "/etc/kubernetes/admin.conf",
            "/home/u/.my.cnf",
            ".s3cfg",
            ".dockercfg",
            "keys/server.ppk",
            "/etc/krb5.keytab",
            "/var/lib/kubelet/pods/x/volumes/kubernetes.io~secret/db/password",
            "/windows/system32/config/sam",
            "/proc/1/environ",
            "~/.ssh",
            "/var/backups/shadow.bak",
            "/etc/mysql/debian.cnf",
            "/etc/wireguard/wg0.conf",
            "gcp-key.json",
            "keys/key.pem.bak",
            ".env~",
            "project/.git/config",
            "/home/u/.m2/settings.xml",
            "/home/u/.config/containers/auth.json",
            "/home/u/.config/sops/age/keys.txt",
            ".streamlit/secrets.toml",
            "/home/u/.irb_history",
        ] {
            assert!(secret(path).is_some(), "{path}");
        }
        // The rows from framework documentation and Gitrob's signatures, each
        // in several spellings: bare, under a project, under a home,
        // upper-cased (the table is matched lower-cased) and as a backup.
        for path in [
            ".dev.vars",
            ".dev.vars.staging",
            ".flaskenv",
            "/home/u/.gradle/gradle.properties",
            "local.settings.json",
            ".sentryclirc",
            "/home/u/.dbt/profiles.yml",
            "/home/u/.snowsql/config",
            "/home/u/.pulumi/credentials.json",
            "/home/u/.tsh/keys/proxy/u",
            "NuGet.Config",
            "/home/u/.bundle/config",
            "/home/u/.sbt/credentials",
            "/home/u/.ivy2/.credentials",
            "/home/u/.circleci/cli.yml",
            "/home/u/.config/configstore/firebase-tools.json",
            "vault.agilekeychain",
            "ServiceConfiguration.Cloud.cscfg",
            "/home/u/.chef/client.pem",
            ".dbeaver-data-sources.xml",
            "/home/u/.gem/credentials",
            "/home/u/.config/gcloud/credentials.db",
            "adc.json",
            "/home/u/.irssi/config",
            "my.kwallet",
            "old.kdb",
            "recovery.bek",
            ".muttrc",
            "/home/u/.purple/otr.private_key",
            "db.psafe3",
            "robomongo.json",
            "config/initializers/secret_token.rb",
            "sftp-config.json",
            ".trc",
            ".tugboat",
            "server.rdp",
            "/home/u/.config/hexchat/servlist.conf",
        ] {
            for spelling in [
                path.to_owned(),
                format!("project/sub/{}", path.trim_start_matches("/home/u/")),
                format!("/root/{}", path.trim_start_matches("/home/u/")),
                path.to_ascii_uppercase(),
                format!("{path}.bak"),
            ] {
                let lower = spelling.to_ascii_lowercase();
                assert!(
                    secret(&lower).is_some(),
                    "{spelling} (a spelling of {path})"
                );
            }
        }
        // Their benign siblings: a project's own Gradle properties, Flask's
        // application, an example file.
        for path in [
            "gradle.properties",
            "app/flask_app.py",
            ".dev.vars.example",
            "settings.py",
            "app.log",
        ] {
            assert_eq!(secret(path), None, "{path}");
        }
        for path in [
            "/etc/hostname",
            "/home/u/project/.envrc.example",
            ".env.sample",
            "docs/keys.md",
            "environment.txt",
            "/proc/cpuinfo",
            "src/credentials_test.rs",
            "src/main.rs.orig",
            "notes.txt~",
            ".gitignore",
        ] {
            assert_eq!(secret(path), None, "{path}");
        }
    }

    /// The plain scan the index must agree with: the first row that matches.
    fn scan(path: &str) -> Option<usize> {
        let components: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
        let name = components.last().copied().unwrap_or("");
        SECRET_RULES
            .iter()
            .position(|r| matches(&r.matches, path, path.starts_with('/'), &components, name))
    }

    /// Every key of every row, alone, under a directory, as a directory and
    /// in company, is answered by the index exactly as by the scan (the same
    /// row, so the same reason).
    #[test]
    fn index_agrees_with_the_scan() {
        let mut keys: Vec<String> = Vec::new();
        for rule in SECRET_RULES {
            match rule.matches {
                Match::Under(p) | Match::TextPrefix(p) => keys.push(p.to_owned()),
                Match::Directory(d) | Match::Name(d) => keys.push(d.to_owned()),
                Match::NamePrefix(p) => keys.push(format!("{p}x")),
                Match::Suffix(s) => keys.push(format!("x{s}")),
                Match::Pair(a, b) => keys.push(format!("{a}/{b}")),
                Match::Sequence(run) => keys.push(run.join("/")),
                Match::EnvFile => keys.push(".env.local".to_owned()),
            }
        }
        let mut checked = 0;
        for key in &keys {
            let key = key.trim_start_matches('/');
            for path in [
                key.to_owned(),
                format!("/{key}"),
                format!("/{key}/inner"),
                format!("/home/u/{key}"),
                format!("project/{key}/.ssh/config"),
                format!("/{key}/x/.env"),
                format!("/{key}-not"),
                format!("{key}x"),
            ] {
                let components: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
                let name = components.last().copied().unwrap_or("");
                let indexed = index().first(&path, path.starts_with('/'), &components, name);
                assert_eq!(indexed, scan(&path), "{path}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
