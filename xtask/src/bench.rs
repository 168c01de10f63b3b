//! `cargo xtask bench NAME`: ours and the peer side by side in one run; the last line printed
//! is one JSON object with both figures and the ratios.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::tools;

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("wire") => wire(root),
        other => bail!("usage: cargo xtask bench wire (got {other:?})"),
    }
}

/// Buffers shaped like message bodies: runs of zeros, small field values, and some text.
fn wire_buffers(count: usize) -> Vec<Vec<u8>> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = 100 + (next() % 1300) as usize;
            (0..len)
                .map(|_| match next() % 20 {
                    0..=4 => 0,
                    5..=14 => (next() % 16) as u8,
                    15..=17 => b' ' + (next() % 95) as u8,
                    _ => next() as u8,
                })
                .collect()
        })
        .collect()
}

fn json_line(command: &mut Command) -> Result<Value> {
    eprintln!("xtask: {command:?}");
    let out = command.output().context("running a bench side")?;
    if !out.status.success() {
        bail!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().context("no output")?;
    let value: Value = serde_json::from_str(line).context("bench output is JSON")?;
    println!("{line}");
    Ok(value)
}

fn ratio(ours: &Value, theirs: &Value, key: &str) -> f64 {
    let (a, b) = (ours[key].as_f64(), theirs[key].as_f64());
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => (a / b * 100.0).round() / 100.0,
        _ => f64::NAN,
    }
}

fn wire(root: &Path) -> Result<()> {
    tools::ensure_python_peers()?;
    let dir = root.join("target/bench");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("wire.bin");
    let mut data = Vec::new();
    for buffer in wire_buffers(4000) {
        data.extend_from_slice(&(buffer.len() as u32).to_le_bytes());
        data.extend_from_slice(&buffer);
    }
    std::fs::write(&file, &data)?;
    let rounds = "20";
    crate::status(Command::new("cargo").args([
        "build",
        "--release",
        "-p",
        "muster-protocol",
        "--example",
        "huffman_throughput",
    ]))?;
    let ours = json_line(
        Command::new(root.join("target/release/examples/huffman_throughput"))
            .arg(&file)
            .arg(rounds),
    )?;
    let theirs = json_line(
        Command::new("python3")
            .arg(root.join("protocol/tests/peers/q3huff2_throughput.py"))
            .arg(&file)
            .arg(rounds),
    )?;
    let summary = json!({
        "bench": "wire",
        "bytes": data.len(),
        "muster": ours,
        "q3huff2": theirs,
        "encode_ratio": ratio(&ours, &theirs, "encode_mb_s"),
        "decode_ratio": ratio(&ours, &theirs, "decode_mb_s"),
    });
    println!("{summary}");
    Ok(())
}
