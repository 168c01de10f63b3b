//! `muster record`: a server's match as stock .dm_3 files.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use super::out;
use super::spectate::{spectate, Line, SpectateOptions};
use serde::Serialize;

use crate::demos::{DemoFile, RecordTarget};

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
    #[command(flatten)]
    password: super::spectate::ServerPassword,
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
        password: args.password.read()?,
        ..Default::default()
    };
    let mut reason = None;
    let recorder = spectate(server, options, |line| {
        if let Line::Disconnect { reason: why } = line {
            reason = Some(why);
        }
        Ok(())
    })
    .await?;
    let recorder = recorder.context("no recording")?;
    if recorder.written().is_empty() {
        let why = reason
            .as_deref()
            .unwrap_or("the session never became active");
        let hint = if why.contains("INVALIDPASSWORD") {
            " (the server needs its password: --password-file FILE or MUSTER_SERVER_PASSWORD)"
        } else {
            ""
        };
        anyhow::bail!("nothing recorded: {why}{hint}");
    }
    let recorded = Recorded::read_back(recorder.written(), recorder.stopped.clone())?;
    if args.json {
        out(serde_json::to_string_pretty(&recorded)?)
    } else {
        out(recorded)
    }
}

/// What `muster record` prints: each file written, read back.
#[derive(Clone, Debug, Serialize)]
pub struct Recorded {
    pub demos: Vec<RecordedDemo>,
    /// Why the recording stopped itself, if it did.
    pub stopped: Option<String>,
}

/// One file of a recording, as read back from disk.
#[derive(Clone, Debug, Serialize)]
pub struct RecordedDemo {
    pub path: String,
    pub map: String,
    pub bytes: u64,
    pub records: u32,
    pub snapshots: u32,
    pub duration_ms: u32,
    pub players: Vec<String>,
    pub kills: usize,
}

impl Recorded {
    /// Reads every written file back, so what is printed is what a player will play.
    pub fn read_back(files: &[DemoFile], stopped: Option<String>) -> anyhow::Result<Self> {
        let demos = files
            .iter()
            .map(|f| {
                let s = super::demo::summary(&f.path)?;
                Ok(RecordedDemo {
                    path: f.path.display().to_string(),
                    map: f.map.clone(),
                    bytes: f.bytes,
                    records: s.records,
                    snapshots: s.snapshots,
                    duration_ms: s.duration_ms,
                    players: s.players,
                    kills: s.kills.len(),
                })
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(Self { demos, stopped })
    }
}

impl std::fmt::Display for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut lines = Vec::new();
        for demo in &self.demos {
            lines.push(format!(
                "{}: {}, {} bytes, {} records, {:.1} s, {} players, {} kills",
                demo.path,
                demo.map,
                demo.bytes,
                demo.records,
                f64::from(demo.duration_ms) / 1000.0,
                demo.players.len(),
                demo.kills,
            ));
        }
        if let Some(stopped) = &self.stopped {
            lines.push(format!("stopped: {stopped}"));
        }
        f.write_str(&lines.join("\n"))
    }
}
