//! The `pace` binary is self-contained. Copied alone into an empty directory outside the
//! checkout, it runs in a sandbox that cannot see the checkout (nor `$CARGO_HOME`): a new mount
//! namespace with an empty read-only tmpfs over each, as the unprivileged user `nobody`, with an
//! empty environment, and `/dev/null` in place of node and solc. A binary that fell back on its build-time
//! source path would fail here. It must also write nothing but the outputs named on its
//! command line. Needs root (as here and in CI) for `unshare --mount`; without it the test
//! fails, it does not skip.
//!
//! `PACE_PORTABLE_BIN` names another binary to test instead of this build's (`make
//! install-check` passes the one `cargo install` produced).

use crate::{example, stderr, stdout};
use std::{
    collections::BTreeSet,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The unprivileged user the binary runs as.
const NOBODY: &str = "65534";

struct Sandbox {
    /// The working directory: the binary and its inputs, writable by `nobody`.
    dir: PathBuf,
    /// Hidden from inside: the checkout and cargo's home.
    hidden: Vec<PathBuf>,
}

impl Sandbox {
    fn new(test: &str) -> Self {
        let checkout =
            std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
        let dir = std::env::temp_dir().join(format!("pace-portable-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dir = std::fs::canonicalize(dir).unwrap();
        assert!(
            !dir.starts_with(&checkout),
            "the temp dir {} is inside the checkout; set TMPDIR elsewhere",
            dir.display()
        );
        // World-writable, so that a stray write would succeed and be seen.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let binary = std::env::var_os("PACE_PORTABLE_BIN")
            .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_pace")), PathBuf::from);
        std::fs::copy(&binary, dir.join("pace"))
            .unwrap_or_else(|e| panic!("copying {}: {e}", binary.display()));
        let mut hidden = vec![checkout];
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
        hidden.extend(cargo_home.filter(|p| p.is_dir()));
        Self { dir, hidden }
    }

    fn add(&self, name: &str, from: &Path) {
        std::fs::copy(from, self.dir.join(name)).unwrap();
    }

    /// Runs `program args` inside the sandbox, in [`Self::dir`].
    fn exec(&self, program: &str, args: &[&str]) -> Output {
        // The JavaScript and Solidity tools on the host's PATH become /dev/null inside, since
        // even with no PATH a shell or `execvp` would search /bin:/usr/bin.
        let mut script = String::from(
            "set -e\nfor tool in node nodejs solc solcjs forge anvil; do\n  \
             p=$(command -v \"$tool\" || true)\n  \
             if [ -n \"$p\" ] && [ -f \"$p\" ]; then mount --bind /dev/null \"$(readlink -f \"$p\")\"; fi\n\
             done\n",
        );
        for path in &self.hidden {
            script.push_str(&format!(
                "mount -t tmpfs -o ro,size=64k pace-hidden '{}'\n",
                path.display()
            ));
        }
        script.push_str(&format!(
            "cd '{}'\nexec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups -- \
             env -i \"$@\"\n",
            self.dir.display()
        ));
        let out = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "--", "/bin/sh", "-c"])
            .arg(script)
            .arg("sandbox")
            .arg(program)
            .args(args)
            .output()
            .expect("unshare runs (util-linux)");
        assert!(
            !stderr(&out).contains("unshare:") && !stderr(&out).contains("mount:"),
            "the sandbox could not be set up (needs root): {}",
            stderr(&out)
        );
        out
    }

    fn pace(&self, args: &[&str]) -> Output {
        self.exec("./pace", args)
    }

    /// Every path under [`Self::dir`], relative to it.
    fn files(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut stack = vec![self.dir.clone()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                out.insert(path.strip_prefix(&self.dir).unwrap().display().to_string());
                if path.is_dir() {
                    stack.push(path);
                }
            }
        }
        out
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_binary_runs_alone_without_the_checkout_node_or_solc() {
    let sb = Sandbox::new("alone");

    // The sandbox is what it claims: nobody, no environment, the checkout and cargo empty.
    let probe = sb.exec("/usr/bin/id", &["-u"]);
    assert_eq!(stdout(&probe).trim(), NOBODY, "{}", stderr(&probe));
    let env = sb.exec("/usr/bin/env", &[]);
    assert_eq!(stdout(&env), "", "the environment is not empty");
    for hidden in &sb.hidden {
        // Outside, as root, there is something to see; inside, nothing (an empty tmpfs, or no
        // permission at all where a parent directory is closed to nobody, as /root is).
        let path = hidden.display().to_string();
        let outside = Command::new("/bin/ls")
            .args(["-A", &path])
            .output()
            .unwrap();
        assert_ne!(stdout(&outside), "", "{path} is empty even outside");
        let inside = sb.exec("/bin/ls", &["-A", &path]);
        assert_eq!(stdout(&inside), "", "{path} is visible inside");
        assert!(
            inside.status.success() || stderr(&inside).contains("Permission denied"),
            "{}",
            stderr(&inside)
        );
    }
    let checkout = sb.hidden[0].join("Cargo.toml").display().to_string();
    assert!(
        !sb.exec("/usr/bin/test", &["-e", &checkout])
            .status
            .success()
    );
    assert!(
        !sb.exec("/bin/sh", &["-c", "command -v node"])
            .status
            .success()
    );

    for name in [
        "policy.json",
        "benign-swap.intent.json",
        "benign-swap.simulation.json",
    ] {
        sb.add(name, &example(name));
    }
    let before = sb.files();

    let demo = sb.pace(&["demo"]);
    assert!(demo.status.success(), "pace demo: {}", stderr(&demo));
    let text = stdout(&demo);
    assert!(
        text.contains("APPROVE") && text.contains("REJECT"),
        "{text}"
    );
    assert!(text.contains("EXECUTED"), "{text}");

    let world = sb.pace(&["world"]);
    assert!(world.status.success(), "pace world: {}", stderr(&world));
    let world: serde_json::Value = serde_json::from_str(&stdout(&world)).unwrap();
    let a = &world["addresses"];
    let (account, dai, payee) = (
        a["account"].as_str().unwrap(),
        a["dai"].as_str().unwrap(),
        a["router"].as_str().unwrap(),
    );

    // A DAI transfer on the embedded world, written next to the binary.
    let transfer = format!(
        "0xa9059cbb{:0>64}{:064x}",
        payee.trim_start_matches("0x"),
        7u8
    );
    let intent = serde_json::json!({
        "chain_id": world["chain_id"],
        "account": account,
        "calls": [{"target": dai, "value": "0", "data": transfer}],
    });
    let intent_path = sb.dir.join("transfer.intent.json");
    std::fs::write(&intent_path, intent.to_string()).unwrap();
    let before = {
        let mut b = before;
        b.insert("transfer.intent.json".into());
        b
    };
    let sim = sb.pace(&["simulate", "--intent", "transfer.intent.json"]);
    assert!(sim.status.success(), "pace simulate: {}", stderr(&sim));
    let report: serde_json::Value = serde_json::from_str(&stdout(&sim)).unwrap();
    assert_eq!(report["success"], true, "{report:#}");
    assert_eq!(report["block_number"], world["block_number"]);

    let verify = sb.pace(&[
        "verify",
        "--policy",
        "policy.json",
        "--intent",
        "benign-swap.intent.json",
        "--simulation",
        "benign-swap.simulation.json",
        "--now",
        crate::NOW,
    ]);
    assert_eq!(
        verify.status.code(),
        Some(0),
        "pace verify: {}",
        stderr(&verify)
    );
    assert!(stdout(&verify).contains("\"outcome\": \"approve\""));

    // Nothing was written but the one output named on a command line.
    assert_eq!(
        sb.files(),
        before,
        "a command wrote into its working directory"
    );
    let export = sb.pace(&["bench", "--export-tasks", "tasks", "--seeds", "0"]);
    assert!(
        export.status.success(),
        "pace bench --export-tasks: {}",
        stderr(&export)
    );
    let after = sb.files();
    let new: Vec<_> = after.difference(&before).collect();
    assert!(!new.is_empty());
    assert!(
        new.iter().all(|p| p.starts_with("tasks")),
        "written outside the named output: {new:?}"
    );
}

/// On a machine without CA certificates an RPC command fails with an error that says so (exit
/// 2), rather than a panic inside the HTTP client's constructor.
#[test]
fn no_ca_certificates_is_an_error_not_a_panic() {
    let mut sb = Sandbox::new("no-ca");
    sb.hidden.extend(
        ["/etc/ssl", "/usr/lib/ssl"]
            .map(PathBuf::from)
            .into_iter()
            .filter(|p| p.is_dir()),
    );
    sb.add(
        "benign-swap.intent.json",
        &example("benign-swap.intent.json"),
    );
    let sim = sb.pace(&[
        "simulate",
        "--rpc",
        "http://127.0.0.1:1",
        "--intent",
        "benign-swap.intent.json",
    ]);
    let err = stderr(&sim);
    assert_eq!(sim.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("CA certificates"), "{err}");
}
