//! `cargo xtask test`: every check and every test, with the services they need started here.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::tools::{self, Needs};
use crate::{status, Phases};

use crate::{build_page, deb, fuzz, nats, postgres};

/// `cargo xtask test [-E FILTERSET]`: with a nextest filterset, only the tests it picks, with
/// the installs, services and page they need (no fmt, clippy or fuzzing): a developer's
/// quick look at one corner; CI runs everything.
pub(crate) fn test(root: &Path, args: &[String]) -> Result<()> {
    let began = std::time::Instant::now();
    let mut phases = Phases::default();
    let mut closing = String::new();
    let result = match args {
        [] => phases_of_the_test(root, &mut phases, &mut closing),
        [flag, filter] if flag == "-E" => {
            let only = ["-E".to_owned(), filter.clone()];
            phases
                .time("installs", || tools::ensure(root, Needs::Test))
                .and_then(|()| phases.time("page", || build_page(root)))
                .and_then(|()| test_build_and_tests(root, &mut phases, &mut closing, &only))
        }
        _ => bail!("usage: cargo xtask test [-E FILTERSET] (a cargo-nextest filterset)"),
    };
    eprintln!(
        "xtask: test run {} after {:.0} s ({})",
        if result.is_ok() { "passed" } else { "FAILED" },
        began.elapsed().as_secs_f64(),
        phases.show()
    );
    // The run's last line: the tests' totals.
    if !closing.is_empty() {
        println!("{closing}");
    }
    result
}
fn phases_of_the_test(root: &Path, phases: &mut Phases, closing: &mut String) -> Result<()> {
    phases.time("installs", || tools::ensure(root, Needs::Test))?;
    let cargo = |args: &[&str]| status(Command::new("cargo").args(args));
    phases.time("fmt", || cargo(&["fmt", "--all", "--check"]))?;
    phases.time("clippy", || {
        cargo(&[
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
        ])
    })?;
    // The page's crates for the browser, the protocol and the catalogues among them with the
    // features the page gives them (serde, never std): this is also what proves the protocol
    // crate stays no_std and builds for wasm32 (a build of it of its own took 17-28 s more and
    // proved nothing this and the page's release build do not).
    phases.time("clippy wasm", || {
        cargo(&[
            "clippy",
            "-p",
            "muster-frontend",
            "-p",
            "muster-session",
            "-p",
            "muster-protocol",
            "-p",
            "muster-i18n",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ])
    })?;
    phases.time("page", || build_page(root))?;
    // Every parser under the fuzzer for a few seconds: a smoke run, not a search. At the lowest
    // priority, beside the test build and the tests, which leave a core idle much of the time.
    let fuzzing = {
        let root = root.to_owned();
        std::thread::spawn(move || {
            let began = std::time::Instant::now();
            let result = fuzz::run_targets(
                &root,
                fuzz::Budget::Seconds(10),
                &[],
                fuzz::Exploration::Smoke,
            );
            (result, began.elapsed())
        })
    };
    let tested = test_build_and_tests(root, phases, closing, &[]);
    let (fuzzed, took) = fuzzing.join().unwrap_or_else(|_| {
        (
            Err(anyhow::anyhow!("the fuzz smoke run panicked")),
            Default::default(),
        )
    });
    phases.0.push(("fuzz smoke (beside them)", took));
    tested?;
    fuzzed
}
/// The test build, the Debian package from it, and every test.
fn test_build_and_tests(
    root: &Path,
    phases: &mut Phases,
    closing: &mut String,
    only: &[String],
) -> Result<()> {
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
        deb::package(root, &root.join("target/debug/muster"), deb::Build::Debug)
    })?;
    let mut tests = Command::new("cargo");
    tests
        // Every test in a process of its own, as many at once as .config/nextest.toml's groups
        // allow, across binaries: cargo test ran the binaries one after the other, each
        // finishing on its slowest test with the other core idle.
        .args(["nextest", "run", "--run-ignored", "all", "--no-fail-fast"])
        .args(only)
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
    phases.time("tests", || run_tests(&mut tests, closing))
}
/// Runs the tests under cargo-nextest, echoing its output, then prints the ten slowest, so the
/// next person sees where the time goes; `closing` gets the line totalling them.
pub(crate) fn run_tests(command: &mut Command, closing: &mut String) -> Result<()> {
    use std::io::{BufRead, BufReader};
    eprintln!("xtask: {command:?}");
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .context("starting cargo nextest")?;
    // nextest reports on stderr; the tests' own output it shows only for a failure.
    let stderr = child.stderr.take().context("cargo nextest stderr")?;
    let mut tally = Tally::default();
    for line in BufReader::new(stderr).lines() {
        let line = line?;
        eprintln!("{line}");
        tally.read(&line);
    }
    let status = child.wait()?;
    tally.slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    eprintln!("xtask: the ten slowest tests:");
    for (seconds, name) in tally.slowest.iter().take(10) {
        eprintln!("  {seconds:>7.1} s  {name}");
    }
    *closing = format!(
        "tests: {} passed, {} failed, {} skipped",
        tally.passed, tally.failed, tally.skipped
    );
    if !status.success() || tally.failed > 0 {
        bail!("cargo nextest failed: {status}");
    }
    Ok(())
}
/// What nextest's lines say: each test's time, and its closing summary's counts.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    skipped: u64,
    slowest: Vec<(f64, String)>,
}
impl Tally {
    /// Reads `PASS [   1.234s] (3/549) binary test` and `Summary [ 300.1s] 549 tests run: 548
    /// passed, 1 failed, 0 skipped`.
    fn read(&mut self, line: &str) {
        let line = line.trim();
        if let Some(rest) = line
            .strip_prefix("PASS [")
            .or_else(|| line.strip_prefix("FAIL ["))
            .or_else(|| line.strip_prefix("SLOW ["))
        {
            if line.starts_with("SLOW") {
                return;
            }
            let Some((seconds, name)) = rest.split_once("s]") else {
                return;
            };
            let name = name.trim();
            // The counter nextest puts first, "(3/549)", says nothing of the test.
            let name = match name.strip_prefix('(') {
                Some(counted) => counted.split_once(") ").map_or(name, |(_, n)| n),
                None => name,
            };
            // A failure is told again in the run's closing summary: counted once.
            let told = self.slowest.iter().any(|(_, n)| n == name);
            if let (Ok(seconds), false) = (seconds.trim().parse::<f64>(), told) {
                self.slowest.push((seconds, name.to_owned()));
            }
        } else if let Some(rest) = line.strip_prefix("Summary [") {
            // "1 test run:" or "549 tests run:".
            let Some((_, counts)) = rest.split_once(" run:") else {
                return;
            };
            for part in counts.split(',') {
                let mut words = part.split_whitespace();
                let (Some(n), Some(what)) = (words.next(), words.next()) else {
                    continue;
                };
                let Ok(n) = n.parse::<u64>() else { continue };
                match what {
                    "passed" => self.passed = n,
                    "failed" => self.failed = n,
                    "skipped" => self.skipped = n,
                    _ => {}
                }
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::Tally;

    #[test]
    fn nextest_lines_give_the_counts_and_each_tests_time() {
        let mut tally = Tally::default();
        for line in [
            "        PASS [   0.022s] (1/3) xtask::bin/xtask ports::tests::a",
            "        SLOW [> 60.000s] (2/3) muster-relay::page list::b",
            "        FAIL [  61.500s] (2/3) muster-relay::page list::b",
            "        PASS [   2.000s] muster-lab::lossy_link c",
            "     Summary [  63.001s] 3 tests run: 2 passed, 1 failed, 4 skipped",
            "        FAIL [  61.500s] muster-relay::page list::b",
        ] {
            tally.read(line);
        }
        assert_eq!((tally.passed, tally.failed, tally.skipped), (2, 1, 4));
        let mut one = Tally::default();
        one.read("     Summary [  17.615s] 1 test run: 1 passed, 587 skipped");
        assert_eq!((one.passed, one.failed, one.skipped), (1, 0, 587));
        assert_eq!(
            tally.slowest,
            vec![
                (0.022, "xtask::bin/xtask ports::tests::a".to_owned()),
                (61.5, "muster-relay::page list::b".to_owned()),
                (2.0, "muster-lab::lossy_link c".to_owned()),
            ]
        );
    }
}
