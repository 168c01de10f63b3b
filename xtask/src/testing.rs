//! `cargo xtask test`: every check and every test, with the services they need started here.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::tools::{self, Needs};
use crate::{status, Phases};

use crate::{build_page, deb, fuzz, nats, postgres};

pub(crate) fn test(root: &Path) -> Result<()> {
    let began = std::time::Instant::now();
    let mut phases = Phases::default();
    let result = phases_of_the_test(root, &mut phases);
    eprintln!(
        "xtask: test run {} after {:.0} s ({})",
        if result.is_ok() { "passed" } else { "FAILED" },
        began.elapsed().as_secs_f64(),
        phases.show()
    );
    result
}
fn phases_of_the_test(root: &Path, phases: &mut Phases) -> Result<()> {
    phases.time("installs", || tools::ensure(root, Needs::Test))?;
    phases.time("fmt", || {
        status(Command::new("cargo").args(["fmt", "--all", "--check"]))
    })?;
    phases.time("clippy", || {
        status(Command::new("cargo").args([
            "clippy",
            "--workspace",
            "--exclude",
            "muster-frontend",
            "--exclude",
            "muster-session",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    phases.time("clippy wasm", || {
        status(Command::new("cargo").args([
            "clippy",
            "-p",
            "muster-frontend",
            "-p",
            "muster-session",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    // The protocol crate must stay no_std and build for the browser.
    phases.time("protocol wasm", || {
        status(Command::new("cargo").args([
            "build",
            "-p",
            "muster-protocol",
            "--target",
            "wasm32-unknown-unknown",
            "--features",
            "serde",
        ]))
    })?;
    phases.time("page", || build_page(root))?;
    // Every parser under the fuzzer for a few seconds: a smoke run, not a search.
    phases.time("fuzz smoke", || {
        fuzz::run_targets(
            root,
            fuzz::Budget::Seconds(10),
            &[],
            fuzz::Exploration::Smoke,
        )
    })?;
    // The PostgreSQL backend's tests get a cluster of their own, stopped when the run ends.
    let postgres = postgres::Cluster::start()?;
    // Every test built first, as the run below builds them, so the Debian package holds this
    // run's own relay binary (relay/tests/deb.rs installs and checks it) at no second build.
    phases.time("test build", || {
        status(
            Command::new("cargo")
                .args(["test", "--no-run"])
                .env("CARGO_INCREMENTAL", "0"),
        )
    })?;
    let deb = phases.time("deb", || {
        deb::package(root, &root.join("target/debug/muster"))
    })?;
    let mut tests = Command::new("cargo");
    tests
        .args(["test", "--", "--include-ignored"])
        // A full run gains nothing from incremental caches (a gigabyte of disk on a fresh clone).
        .env("CARGO_INCREMENTAL", "0")
        .env("MUSTER_TEST_POSTGRES", &postgres.url)
        // The cluster tests start (and restart) NATS servers of their own.
        .env(
            "MUSTER_NATS_SERVER",
            nats::binary().context("nats-server is not installed")?,
        )
        .env("MUSTER_DIST", root.join("dist"))
        .env("MUSTER_DEB", &deb)
        .env("MUSTER_NODE_BIN", tools::node_bin(root))
        .env("MUSTER_SCREENSHOTS", root.join("target/screenshots"));
    phases.time("tests", || run_tests(&mut tests))
}
/// Runs cargo test, echoing its output, and closes with one line totalling every test binary.
pub(crate) fn run_tests(command: &mut Command) -> Result<()> {
    use std::io::{BufRead, BufReader};
    eprintln!("xtask: {command:?}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .context("starting cargo test")?;
    let stdout = child.stdout.take().context("cargo test stdout")?;
    let (mut passed, mut failed, mut ignored) = (0u64, 0u64, 0u64);
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        println!("{line}");
        if let Some(counts) = line.strip_prefix("test result: ") {
            for part in counts.split(['.', ';']) {
                let mut words = part.split_whitespace();
                let (Some(n), Some(what)) = (words.next(), words.next()) else {
                    continue;
                };
                let Ok(n) = n.parse::<u64>() else { continue };
                match what {
                    "passed" => passed += n,
                    "failed" => failed += n,
                    "ignored" => ignored += n,
                    _ => {}
                }
            }
        }
    }
    let status = child.wait()?;
    println!("tests: {passed} passed, {failed} failed, {ignored} skipped");
    if !status.success() {
        bail!("cargo test failed: {status}");
    }
    Ok(())
}
