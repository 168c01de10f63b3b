//! The offline demo tools: `muster demo info` (map, duration, players, kills, from the same
//! timeline the page plays) and `muster wire demo` (each record dissected as `muster wire`
//! dissects captured server messages), and the summary `muster record` prints.

use std::path::{Path, PathBuf};

use anyhow::Context;
use protocol::cod::demo::Records;
use protocol::cod::netchan::Side;
use protocol::cod::watch::timeline::{DemoSummary, Timeline};
use serde::Serialize;

use super::wire::{Command, Dissector};
use super::{out, out_json};

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// Decodes a demo file whole.
pub fn summary(path: &Path) -> anyhow::Result<DemoSummary> {
    let timeline =
        Timeline::open(read(path)?).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(timeline.summary().clone())
}

fn clock(ms: u32) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// `muster demo info`: the summary, as JSON or as text for people.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(transparent)]
pub struct DemoInfo(pub DemoSummary);

impl std::fmt::Display for DemoInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.0;
        writeln!(
            f,
            "{} ({}) on {}\n{} long, {} records, {} snapshots, {} bytes{}",
            s.maps.join(", "),
            s.gametype,
            s.hostname,
            clock(s.duration_ms),
            s.records,
            s.snapshots,
            s.bytes,
            if s.ended { "" } else { ", no end marker" },
        )?;
        if let Some(problem) = &s.problem {
            writeln!(f, "stopped early: {problem}")?;
        }
        writeln!(f, "{} players: {}", s.players.len(), s.players.join(", "))?;
        write!(f, "{} kills:", s.kills.len())?;
        for k in &s.kills {
            write!(
                f,
                "\n  {} {} [{}] {}",
                clock(k.at_ms),
                k.attacker.as_deref().unwrap_or("the world"),
                k.weapon,
                k.victim
            )?;
        }
        Ok(())
    }
}

/// One line of `muster wire demo`: a record, or how the file ended.
#[derive(Serialize)]
#[serde(untagged)]
pub enum DemoLine {
    Record {
        offset: usize,
        sequence: i32,
        length: usize,
        reliable_acknowledge: i32,
        #[serde(skip_serializing_if = "Option::is_none")]
        commands: Option<Vec<Command>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    Unreadable {
        error: String,
    },
    End {
        /// `end marker` (the stock recorder's closing record) or `end of file`.
        end: &'static str,
    },
}

/// `muster wire demo`: one JSON object per record, then one for how the file ended.
pub fn dissect(path: &Path) -> anyhow::Result<()> {
    let data = read(path)?;
    let mut dissector = Dissector::new(Side::Server, None);
    let mut records = Records::new(&data);
    for record in records.by_ref() {
        let line = match record {
            Ok(r) => {
                let (commands, error) = match r.body() {
                    Ok(body) => (Some(dissector.server_body(&body, r.sequence as u32)), None),
                    Err(e) => (None, Some(e.to_string())),
                };
                DemoLine::Record {
                    offset: r.offset,
                    sequence: r.sequence,
                    length: r.payload.len(),
                    reliable_acknowledge: r.reliable_acknowledge(),
                    commands,
                    error,
                }
            }
            Err(e) => DemoLine::Unreadable {
                error: e.to_string(),
            },
        };
        out_json(&line)?;
    }
    out_json(&DemoLine::End {
        end: if records.ended {
            "end marker"
        } else {
            "end of file"
        },
    })
}

#[derive(clap::Subcommand, Debug)]
pub enum DemoTool {
    /// Map, duration, players and kills of a .dm_3.
    Info {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(tool: DemoTool) -> anyhow::Result<()> {
    match tool {
        DemoTool::Info { file, json } => {
            let info = DemoInfo(summary(&file)?);
            if json {
                out(serde_json::to_string_pretty(&info)?)?;
            } else {
                out(info)?;
            }
        }
    }
    Ok(())
}
