//! `muster record`: a server's match as stock .dm_3 files.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use super::out;
use super::spectate::{spectate, SpectateOptions};
use crate::demos::RecordTarget;

/// Join a server as a spectator and record the match as a stock .dm_3 demo (one file per
/// map), then print what was written.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server, HOST[:PORT] (default port 28960).
    server: String,
    /// The first file (later maps add -MAP); default: demos/DATE-TIME-SERVER-MAP.dm_3.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Seconds to record before leaving cleanly; default: until the server drops the session.
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
    /// The recording stops, with its end marker, before its files reach this many MB.
    #[arg(long = "record-max-mb", default_value_t = 256)]
    record_max_mb: u64,
    /// The userinfo name.
    #[arg(long, default_value = "Muster")]
    name: String,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let addrs = crate::net::resolve(&args.server, protocol::cod::DEFAULT_SERVER_PORT).await?;
    let server = SocketAddr::V4(addrs[0]);
    let target = RecordTarget {
        dir: PathBuf::from("demos"),
        server: server.to_string().replace(':', "_"),
        out: args.out,
        max_bytes: args.record_max_mb.saturating_mul(1_000_000),
    };
    let options = SpectateOptions {
        name: args.name,
        duration: args
            .duration
            .map(|secs| Duration::from_secs_f64(secs.max(0.0))),
        record: Some(target),
        ..Default::default()
    };
    let mut reason = None;
    let recorder = spectate(server, options, |line| {
        if line["type"] == "disconnect" {
            reason = line["reason"].as_str().map(String::from);
        }
        Ok(())
    })
    .await?;
    let recorder = recorder.context("no recording")?;
    if recorder.written().is_empty() {
        anyhow::bail!(
            "nothing recorded: {}",
            reason
                .as_deref()
                .unwrap_or("the session never became active")
        );
    }
    let summary = super::demo::recorded_json(recorder.written(), recorder.stopped.as_deref())?;
    if args.json {
        out(serde_json::to_string_pretty(&summary)?)?;
    } else {
        for demo in summary["demos"].as_array().into_iter().flatten() {
            out(format!(
                "{}: {}, {} bytes, {} records, {:.1} s, {} players, {} kills",
                demo["path"].as_str().unwrap_or_default(),
                demo["map"].as_str().unwrap_or_default(),
                demo["bytes"],
                demo["records"],
                demo["duration_ms"].as_f64().unwrap_or(0.0) / 1000.0,
                demo["players"].as_array().map_or(0, Vec::len),
                demo["kills"],
            ))?;
        }
        if let Some(stopped) = &recorder.stopped {
            out(format!("stopped: {stopped}"))?;
        }
    }
    Ok(())
}
