//! cargo-fuzz runs: a short smoke run of every target in `cargo xtask test`, and long runs in
//! `cargo xtask fuzz`. The stable toolchain is told to accept cargo-fuzz's nightly flags.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{status, tools};

fn targets(root: &Path) -> Result<Vec<String>> {
    let out = Command::new("cargo")
        .args(["fuzz", "list"])
        .current_dir(root.join("fuzz"))
        .output()
        .context("cargo fuzz list")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect())
}

/// How a fuzz run explores.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Exploration {
    /// `cargo xtask test`: a fixed seed from an empty corpus, so every machine walks the same
    /// inputs (a slower one walks a prefix of them) and a test run is reproducible.
    Smoke,
    /// `cargo xtask fuzz`: a fresh seed each run, growing the kept corpus.
    Search,
}

/// Runs each of `targets` (all when empty) for `seconds`.
pub fn run_targets(
    root: &Path,
    seconds: u64,
    wanted: &[String],
    exploration: Exploration,
) -> Result<()> {
    tools::ensure_cargo_fuzz()?;
    let all = targets(root)?;
    let chosen: Vec<&String> = if wanted.is_empty() {
        all.iter().collect()
    } else {
        wanted.iter().collect()
    };
    for target in chosen {
        if !all.contains(target) {
            bail!("no fuzz target {target}; targets: {}", all.join(", "));
        }
        let mut command = Command::new("cargo");
        command.args(["fuzz", "run", target]);
        if exploration == Exploration::Smoke {
            let corpus = root.join("target/fuzz-smoke").join(target);
            let _ = std::fs::remove_dir_all(&corpus);
            std::fs::create_dir_all(&corpus)?;
            command.arg(&corpus).args(["--", "-seed=1"]);
        } else {
            command.arg("--");
        }
        status(
            command
                .arg(format!("-max_total_time={seconds}"))
                .current_dir(root.join("fuzz"))
                .env("RUSTC_BOOTSTRAP", "1"),
        )?;
    }
    Ok(())
}

/// `cargo xtask fuzz [--seconds N] [TARGET...]`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let mut seconds = 300;
    let mut wanted = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--seconds" {
            seconds = args
                .next()
                .context("--seconds N")?
                .parse()
                .context("--seconds takes whole seconds")?;
        } else {
            wanted.push(arg.clone());
        }
    }
    run_targets(root, seconds, &wanted, Exploration::Search)
}
