//! `muster spectate`: joins a server as a protocol-22 client and reports the match as it
//! arrives, as text or as one JSON object per line.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use protocol::cod::client::{ClientConfig, DownloadEvent, Event, State};
use protocol::cod::commands::{display_text, ServerCommand};
use protocol::cod::entity::{EntityState, ET_VEHICLE};
use protocol::cod::fields::Named;
use protocol::cod::obituary::{Cause, Obituary, ET_EVENTS, ET_OBITUARY, MEANS_OF_DEATH};
use protocol::cod::snapshot::Snapshot;
use protocol::cod::spectator::{EF_DEAD, ET_PLAYER, PM_DEAD, PSF_FOLLOWING};
use protocol::cod::text::strip as strip_colours;
use protocol::relay_api::watch::Team;
use serde_json::{json, Value};

use super::out;
use crate::demos::{RecordTarget, Recorder};
use crate::game_link::GameLink;

/// What to join as and for how long.
#[derive(Clone, Debug)]
pub struct SpectateOptions {
    pub name: String,
    pub rate: u32,
    pub snaps: u32,
    /// Stop (with a clean disconnect) after this long; `None` runs until the session ends.
    pub duration: Option<Duration>,
    /// Files to fetch in-band once the session is active, written under `download_dir`.
    pub downloads: Vec<String>,
    pub download_dir: PathBuf,
    /// Press fire to step through follow targets, as a spectator cycles (otherwise stay in
    /// free-fly where the server put us).
    pub follow: bool,
    /// Record a demo from the first snapshot on (`muster record`).
    pub record: Option<RecordTarget>,
}

impl Default for SpectateOptions {
    fn default() -> Self {
        Self {
            name: "Muster".into(),
            rate: 25000,
            snaps: 20,
            duration: None,
            downloads: Vec::new(),
            download_dir: PathBuf::from("."),
            follow: true,
            record: None,
        }
    }
}

fn team_name(team: u32) -> &'static str {
    Team::from_wire(team).name()
}

fn entity_kind(e: &EntityState) -> &'static str {
    match e.get("eType") {
        ET_PLAYER => "player",
        ET_VEHICLE => "vehicle",
        ET_OBITUARY => "obituary",
        t if t >= ET_EVENTS => "event",
        _ => "general",
    }
}

/// A server command with what the stock client reads in it.
fn command_json(sequence: i32, text: &str) -> Value {
    let mut line = json!({"type": "server_command", "sequence": sequence, "text": text});
    if let (Value::Object(line), Value::Object(read)) = (&mut line, describe_command(text)) {
        line.extend(read);
    }
    line
}

/// What the stock client reads in a server command: its kind (`chat`, `team_chat`, `scores`,
/// `message`, `configstring`, `disconnect`, `map_restart`, `other`), the text a player is
/// shown, and a scoreboard's rows.
pub fn describe_command(text: &str) -> Value {
    let mut read = json!({});
    let (kind, shown) = match ServerCommand::parse(text) {
        ServerCommand::Chat(t) => ("chat", display_text(&t)),
        ServerCommand::TeamChat(t) => ("team_chat", display_text(&t)),
        ServerCommand::Scores(s) => {
            read["scores"] = json!({
                "axis": s.axis,
                "allies": s.allies,
                "rows": s.rows.iter().map(|r| json!({
                    "client": r.client, "score": r.score, "ping": r.ping, "deaths": r.deaths,
                })).collect::<Vec<_>>(),
            });
            ("scores", String::new())
        }
        ServerCommand::GameMessage(t)
        | ServerCommand::ScriptMessage(t)
        | ServerCommand::BoldMessage(t)
        | ServerCommand::Announcement(t) => ("message", display_text(&t)),
        ServerCommand::Configstring { .. } | ServerCommand::ConfigstringChunk { .. } => {
            ("configstring", String::new())
        }
        ServerCommand::Disconnect(reason) => ("disconnect", reason),
        ServerCommand::MapRestart { .. } => ("map_restart", String::new()),
        _ => ("other", String::new()),
    };
    read["command"] = json!(kind);
    if !shown.is_empty() {
        read["shown"] = json!(shown);
    }
    read
}

/// The obituary events a snapshot carries.
pub fn obituaries_json(s: &Snapshot) -> Vec<Value> {
    s.entities
        .values()
        .filter_map(Obituary::from_entity)
        .map(|o| {
            let cause = match o.cause {
                Cause::Weapon(w) => json!({"weapon": w}),
                Cause::Means(m) => json!({"means": MEANS_OF_DEATH.get(usize::from(m))}),
            };
            json!({"victim": o.victim, "attacker": o.attacker, "cause": cause})
        })
        .collect()
}

/// One snapshot as tools read it: the players (client state joined with their entity, or for
/// the followed player its player state, since the server never sends it as an entity), the
/// other entities with positions, and the obituaries.
pub fn snapshot_json(s: &Snapshot) -> Value {
    let following = s.player.get("pm_flags") & PSF_FOLLOWING != 0;
    let followed = following.then(|| s.player.get("clientNum") as u8);
    let players: Vec<Value> = s
        .clients
        .iter()
        .map(|(&number, c)| {
            let entity = s.entities.get(&u16::from(number));
            if followed == Some(number) {
                let ps = &s.player;
                let origin = ["origin[0]", "origin[1]", "origin[2]"].map(|n| ps.get_f32(n));
                return json!({
                    "client": number,
                    "name": c.name(),
                    "team": team_name(c.get("team")),
                    "origin": origin,
                    "yaw": ps.get_f32("viewangles[1]"),
                    "weapon": ps.get("weapon"),
                    "dead": ps.get("pm_type") >= PM_DEAD,
                    "followed": true,
                });
            }
            json!({
                "client": number,
                "name": c.name(),
                "team": team_name(c.get("team")),
                "origin": entity.map(|e| e.origin()),
                "yaw": entity.map(|e| e.get_f32("apos.trBase[1]")),
                "weapon": entity.map(|e| e.get("weapon")),
                "dead": entity.map(|e| e.get("eFlags") & EF_DEAD != 0),
            })
        })
        .collect();
    let entities: Vec<Value> = s
        .entities
        .values()
        .filter(|e| !(e.get("eType") == ET_PLAYER && s.clients.contains_key(&(e.number as u8))))
        .map(|e| {
            json!({
                "number": e.number,
                "kind": entity_kind(e),
                "origin": e.origin(),
                "yaw": e.get_f32("apos.trBase[1]"),
            })
        })
        .collect();
    let obituaries = obituaries_json(s);
    let view = ["origin[0]", "origin[1]", "origin[2]"].map(|n| s.player.get_f32(n));
    json!({
        "type": "snapshot",
        "server_time": s.server_time,
        "delta_num": s.delta_num,
        "flags": s.flags,
        "view": {
            "origin": view,
            "client": s.player.get("clientNum"),
            "following": following,
        },
        "players": players,
        "entities": entities,
        "obituaries": obituaries,
    })
}

/// The JSON lines one session event becomes (a gamestate also lists its configstrings).
pub fn event_json(event: &Event) -> Vec<Value> {
    match event {
        Event::State(state) => vec![json!({"type": "state", "state": state.name()})],
        Event::LoadingNewMap { mapname, gametype } => vec![json!({
            "type": "loadingnewmap", "mapname": mapname, "gametype": gametype,
        })],
        Event::Gamestate(g) => {
            let mut lines = vec![json!({
                "type": "gamestate",
                "server_command_sequence": g.server_command_sequence,
                "client_num": g.client_num,
                "checksum_feed": g.checksum_feed,
                "configstrings": g.configstrings.len(),
                "baselines": g.baselines.len(),
            })];
            lines.extend(g.configstrings.iter().map(
                |(index, value)| json!({"type": "configstring", "index": index, "value": value}),
            ));
            lines
        }
        Event::Configstring { index, value } => {
            vec![json!({"type": "configstring", "index": index, "value": value})]
        }
        Event::ServerCommand { sequence, text } => vec![command_json(*sequence, text)],
        Event::Snapshot(s) => vec![snapshot_json(s)],
        Event::Download(DownloadEvent::Progress {
            name,
            received,
            total,
        }) => vec![json!({
            "type": "download", "name": name, "received": received, "total": total,
        })],
        Event::Download(DownloadEvent::Complete { name, data }) => vec![json!({
            "type": "download", "name": name, "received": data.len(), "total": data.len(),
            "complete": true,
        })],
        Event::Download(DownloadEvent::Failed { name, reason }) => vec![json!({
            "type": "download", "name": name, "error": reason,
        })],
        Event::Disconnected(reason) => vec![json!({"type": "disconnect", "reason": reason})],
    }
}

fn origin_text(origin: &Value) -> String {
    match origin.as_array() {
        Some(xyz) => xyz
            .iter()
            .map(|v| format!("{:.0}", v.as_f64().unwrap_or(0.0)))
            .collect::<Vec<_>>()
            .join(","),
        None => "-".into(),
    }
}

/// The human-readable lines of one JSON event.
pub fn event_text(v: &Value) -> String {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    match v["type"].as_str().unwrap_or_default() {
        "state" => format!("state {}", s("state")),
        "loadingnewmap" => format!("loading new map {} ({})", s("mapname"), s("gametype")),
        "gamestate" => format!(
            "gamestate: {} configstrings, {} baselines, client {}",
            v["configstrings"], v["baselines"], v["client_num"]
        ),
        "configstring" => format!(
            "configstring {} = {}",
            v["index"],
            strip_colours(&s("value"))
        ),
        "server_command" if v["shown"].is_string() => format!(
            "{} {}: {}",
            s("command"),
            v["sequence"],
            strip_colours(&s("shown"))
        ),
        "server_command" => format!(
            "command {}: {}",
            v["sequence"],
            strip_colours(&s("text")).escape_debug()
        ),
        "download" if v["error"].is_string() => {
            format!("download {} failed: {}", s("name"), s("error"))
        }
        "download" => format!(
            "download {}: {}/{} bytes",
            s("name"),
            v["received"],
            v["total"]
        ),
        "disconnect" => format!("disconnected: {}", s("reason")),
        "snapshot" => {
            let mut text = format!(
                "snapshot t={} delta={} flags={}",
                v["server_time"], v["delta_num"], v["flags"]
            );
            for p in v["players"].as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "\n  {:>2} {:<20} {:<9} {}{}",
                    p["client"],
                    strip_colours(p["name"].as_str().unwrap_or_default()),
                    p["team"].as_str().unwrap_or_default(),
                    origin_text(&p["origin"]),
                    if p["dead"] == json!(true) {
                        " dead"
                    } else {
                        ""
                    }
                ));
            }
            for o in v["obituaries"].as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "\n  obituary: {} killed {} ({})",
                    o["attacker"], o["victim"], o["cause"]
                ));
            }
            for e in v["entities"].as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "\n  #{} {} {}",
                    e["number"],
                    e["kind"].as_str().unwrap_or_default(),
                    origin_text(&e["origin"])
                ));
            }
            text
        }
        _ => v.to_string(),
    }
}

/// Writes a completed download under `dir`, by the file's base name only.
fn save(dir: &std::path::Path, name: &str, data: &[u8]) -> anyhow::Result<PathBuf> {
    let base = std::path::Path::new(name)
        .file_name()
        .context("download name has no file name")?;
    let path = dir.join(base);
    std::fs::write(&path, data).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// Runs one session with `server`, handing every event's JSON to `emit`, until the server
/// drops us, the session times out, or `duration` passes (then it disconnects cleanly).
/// Returns the recording, when one was asked for.
pub async fn spectate(
    server: SocketAddr,
    options: SpectateOptions,
    mut emit: impl FnMut(Value) -> anyhow::Result<()>,
) -> anyhow::Result<Option<Recorder>> {
    let config = ClientConfig {
        name: options.name.clone(),
        rate: options.rate,
        snaps: options.snaps,
        // Any 16-bit value; the process id keeps two spectators on one host apart.
        qport: (std::process::id() & 0xffff) as u16,
        ..ClientConfig::default()
    };
    let mut link = GameLink::open(server, config, options.follow).await?;
    let deadline = options.duration.map(|d| Instant::now() + d);
    let mut pending_downloads = options.downloads.clone();
    let mut recorder = options.record.clone().map(Recorder::new);
    loop {
        link.flush().await;
        let client = &mut link.client;
        let mut ended = false;
        while let Some(event) = client.poll_event() {
            if let Event::Download(DownloadEvent::Complete { name, data }) = &event {
                let path = save(&options.download_dir, name, data)?;
                for mut line in event_json(&event) {
                    line["path"] = json!(path.display().to_string());
                    emit(line)?;
                }
                continue;
            }
            if let Event::State(State::Active) = event {
                for name in pending_downloads.drain(..) {
                    client.download(&name).map_err(|e| anyhow::anyhow!("{e}"))?;
                }
                // Once per session: a new map keeps the recording going in a new file.
                if recorder
                    .as_ref()
                    .is_some_and(|r| r.written().is_empty() && r.current().is_none())
                {
                    client
                        .record()
                        .map_err(|e| anyhow::anyhow!("record: {e}"))?;
                }
            }
            ended |= matches!(event, Event::Disconnected(_));
            for line in event_json(&event) {
                emit(line)?;
            }
        }
        if let Some(recorder) = recorder.as_mut() {
            recorder.drain(client).context("writing the demo")?;
        }
        if ended {
            return Ok(recorder);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            // The disconnect comes back as an event, which ends the loop above.
            link.farewell().await;
            continue;
        }
        let wake = link
            .deadline()
            .into_iter()
            .chain(deadline)
            .min()
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(1));
        link.step(wake).await;
    }
}

/// Join a server as a spectator and print the match as it arrives: state changes,
/// configstrings, server commands, and per snapshot the players and entities with
/// positions. Leaves cleanly after --duration, or runs until the server drops the session.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server, HOST[:PORT] (default port 28960).
    server: String,
    /// One JSON object per line, each with a "type": state, gamestate, configstring,
    /// server_command, snapshot, download, loadingnewmap, disconnect.
    #[arg(long)]
    json: bool,
    /// Seconds to watch before disconnecting cleanly.
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
    /// The userinfo name.
    #[arg(long, default_value = "Muster")]
    name: String,
    /// The userinfo rate, bytes per second (the server clamps it to 1000-90000).
    #[arg(long, default_value_t = 25000)]
    rate: u32,
    /// The userinfo snaps, snapshots per second (the server clamps it to 1-30).
    #[arg(long, default_value_t = 20)]
    snaps: u32,
    /// Fetch this server-relative file in-band once active; repeat for more.
    #[arg(long = "download", value_name = "FILE")]
    downloads: Vec<String>,
    /// Where downloaded files are written.
    #[arg(long = "download-dir", default_value = ".")]
    download_dir: PathBuf,
    /// Stay in free-fly instead of pressing fire to cycle through the players (a stock server
    /// sends a spectator only what is visible from its view point).
    #[arg(long)]
    free: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let addrs = crate::net::resolve(&args.server, protocol::cod::DEFAULT_SERVER_PORT).await?;
    let options = SpectateOptions {
        name: args.name,
        rate: args.rate,
        snaps: args.snaps,
        duration: args
            .duration
            .map(|secs| Duration::from_secs_f64(secs.max(0.0))),
        downloads: args.downloads,
        download_dir: args.download_dir,
        follow: !args.free,
        record: None,
    };
    let json = args.json;
    spectate(SocketAddr::V4(addrs[0]), options, |line| {
        if json {
            out(line)
        } else {
            out(event_text(&line))
        }
    })
    .await?;
    Ok(())
}
