//! A PostgreSQL server of the test's own: a fresh cluster in a temporary directory, listening
//! on a free loopback port (and a Unix socket in that directory), stopped and removed when the
//! handle is dropped, or by its watchdog when the process that started it ends (a test binary
//! never drops its statics; a check killed by a signal cannot clean up).
//!
//! The server refuses to run as root: as root it runs as the `postgres` user (Debian's
//! package makes it) or `nobody`, through `runuser`. The binaries are found in
//! `PACE_PG_BINDIR` when it is set, else with `pg_config --bindir`, then `initdb` on the
//! `PATH`, then `/usr/lib/postgresql/*/bin`.
//!
//! [`for_tests`] is what tests call: the process's one server, or `None` with a note on
//! stderr when PostgreSQL is not installed, except under `CI=true`, where a missing
//! PostgreSQL fails the test instead of skipping it.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

/// A running server of the test's own.
#[derive(Debug)]
pub struct TempPostgres {
    dir: PathBuf,
    bindir: PathBuf,
    user: Option<String>,
    port: u16,
    watchdog: Option<Child>,
}

/// The directory holding `initdb`, `pg_ctl` and `postgres`, if PostgreSQL is installed:
/// `PACE_PG_BINDIR` when set (and only it), else as the module says.
pub fn bindir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Some(d) = std::env::var_os("PACE_PG_BINDIR") {
        let d = PathBuf::from(d);
        return has(&d).then_some(d);
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let d = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if has(&d) {
            return Some(d);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            if d.join("initdb").is_file() {
                let real = std::fs::canonicalize(d.join("initdb")).ok()?;
                let d = real.parent()?.to_owned();
                if has(&d) {
                    return Some(d);
                }
            }
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| has(d))
        .collect();
    found.sort();
    found.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The unprivileged user a root process runs the server as.
fn server_user() -> String {
    let known = |u: &str| {
        Command::new("id")
            .arg(u)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if known("postgres") {
        "postgres".to_owned()
    } else {
        "nobody".to_owned()
    }
}

/// A free loopback port (bound, then released).
fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

impl TempPostgres {
    /// Starts a fresh server (`fsync` off: a test's data need not survive a power cut).
    pub fn start() -> Result<Self, String> {
        Self::start_with(false)
    }

    /// Starts a fresh server, with `fsync` on when `durable`.
    pub fn start_with(durable: bool) -> Result<Self, String> {
        let bindir = bindir().ok_or(
            "PostgreSQL is not installed: no initdb under `pg_config --bindir`, on the PATH or \
             in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)",
        )?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("pace-pg-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let user = is_root().then(server_user);
        let mut pg = Self {
            dir,
            bindir,
            user,
            port: 0,
            watchdog: None,
        };
        if let Some(u) = &pg.user {
            run(Command::new("chown").arg(u).arg(&pg.dir))?;
        }
        pg.watchdog = Some(pg.spawn_watchdog()?);
        let data = pg.data();
        run(pg.as_user("initdb").arg("-D").arg(&data).args([
            "-A",
            "trust",
            "-U",
            "pace",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]))?;
        // The port is chosen at start; a race with another process for it is retried.
        let mut last = String::new();
        for _ in 0..5 {
            pg.port = free_port()?;
            let mut conf = format!(
                "port = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
                 max_connections = 200\nshared_buffers = 64MB\n",
                pg.port,
                pg.dir.display()
            );
            if !durable {
                conf.push_str("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n");
            }
            std::fs::write(data.join("postgresql.auto.conf"), conf)
                .map_err(|e| format!("postgresql.auto.conf: {e}"))?;
            match pg.pg_ctl_start() {
                Ok(()) => return Ok(pg),
                Err(e) => last = e,
            }
        }
        Err(format!("PostgreSQL would not start: {last}"))
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// `program` of the server's binaries, run as the server's user.
    fn as_user(&self, program: &str) -> Command {
        let bin = self.bindir.join(program);
        match &self.user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--"]).arg(bin);
                c
            }
            None => Command::new(bin),
        }
    }

    fn pg_ctl_start(&self) -> Result<(), String> {
        run(self
            .as_user("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-w", "-t", "30", "start"]))
        .map_err(|e| {
            let log = std::fs::read_to_string(self.dir.join("log")).unwrap_or_default();
            format!(
                "{e}; log: {}",
                log.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
            )
        })
    }

    /// A shell that stops the server and removes its directory once this process is gone.
    fn spawn_watchdog(&self) -> Result<Child, String> {
        let pg_ctl = self.bindir.join("pg_ctl");
        let stop = match &self.user {
            Some(u) => format!(
                "runuser -u {u} -- {} -D {} -m immediate stop",
                pg_ctl.display(),
                self.data().display()
            ),
            None => format!(
                "{} -D {} -m immediate stop",
                pg_ctl.display(),
                self.data().display()
            ),
        };
        let script = format!(
            "while kill -0 {parent} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; \
             rm -rf {dir}",
            parent = std::process::id(),
            dir = self.dir.display()
        );
        Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("watchdog: {e}"))
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `db` as the superuser `pace` (no password: the cluster trusts
    /// local connections).
    pub fn url(&self, db: &str) -> String {
        format!("postgres://pace@127.0.0.1:{}/{db}", self.port)
    }

    /// Creates database `name`; its URL.
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        run(Command::new(self.bindir.join("createdb"))
            .args(["-h", "127.0.0.1", "-U", "pace", "-p"])
            .arg(self.port.to_string())
            .arg(name))?;
        Ok(self.url(name))
    }

    /// A fresh database of its own for one test; its URL.
    pub fn fresh_database(&self, prefix: &str) -> Result<String, String> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.create_database(&format!("{prefix}_{}_{n}", std::process::id()))
    }

    /// Runs SQL on database `db` with `psql` (one number or nothing out).
    pub fn psql(&self, db: &str, sql: &str) -> Result<String, String> {
        let out = Command::new(self.bindir.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-U",
                "pace",
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-p",
            ])
            .arg(self.port.to_string())
            .args(["-d", db, "-c", sql])
            .output()
            .map_err(|e| format!("psql: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "psql: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// The server's process id.
    pub fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.data().join("postmaster.pid"))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }

    /// Stops the server (fast shutdown: connections are cut).
    pub fn stop(&self) -> Result<(), String> {
        run(self
            .as_user("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "fast", "-w", "stop"]))
    }

    /// Starts it again after [`Self::stop`], on the same port.
    pub fn restart(&self) -> Result<(), String> {
        self.pg_ctl_start()
    }

    /// Waits until it accepts connections again.
    pub fn wait_ready(&self, within: Duration) -> Result<(), String> {
        let until = Instant::now() + within;
        loop {
            let ok = Command::new(self.bindir.join("pg_isready"))
                .args(["-h", "127.0.0.1", "-p"])
                .arg(self.port.to_string())
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return Ok(());
            }
            if Instant::now() > until {
                return Err(format!("PostgreSQL not ready within {within:?}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        let _ = self
            .as_user("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `c`; its stderr in the error when it fails.
fn run(c: &mut Command) -> Result<(), String> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{c:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{:?} failed: {}",
            c.get_program(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The test process's one server: started on first use, stopped by its watchdog when the
/// process ends. `None` when PostgreSQL is not installed (noted on stderr), unless `CI=true`:
/// then a missing PostgreSQL panics, so that CI fails instead of skipping the tests.
pub fn for_tests() -> Option<&'static TempPostgres> {
    static SERVER: OnceLock<Result<TempPostgres, String>> = OnceLock::new();
    match SERVER.get_or_init(TempPostgres::start) {
        Ok(pg) => Some(pg),
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true and no PostgreSQL for the store's tests: {e}")
        }
        Err(e) => {
            eprintln!("skipping the PostgreSQL half of this test: {e}");
            None
        }
    }
}
