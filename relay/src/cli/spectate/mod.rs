//! `muster spectate`: joins a server as a protocol-22 client and reports the match as it
//! arrives, as text or as one JSON object per line.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use protocol::cod::client::{ClientConfig, DownloadEvent, Event, State};

use super::out;
use crate::demos::{RecordTarget, Recorder};
use crate::game_link::GameLink;

mod line;

pub use line::{
    describe_command, event_lines, obituaries, snapshot_line, CommandRead, Line, ObituaryLine,
};

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
    /// The server's password (`g_password`), for a passworded match.
    pub password: Option<protocol::secret::Secret>,
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
            password: None,
        }
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

/// Runs one session with `server`, handing every event's lines to `emit`, until the server
/// drops us, the session times out, or `duration` passes (then it disconnects cleanly).
/// Returns the recording, when one was asked for.
pub async fn spectate(
    server: SocketAddr,
    options: SpectateOptions,
    mut emit: impl FnMut(Line) -> anyhow::Result<()>,
) -> anyhow::Result<Option<Recorder>> {
    let config = ClientConfig {
        name: options.name.clone(),
        rate: options.rate,
        snaps: options.snaps,
        // Any 16-bit value; the process id keeps two spectators on one host apart.
        qport: (std::process::id() & 0xffff) as u16,
        password: options.password.clone(),
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
                let saved = save(&options.download_dir, name, data)?;
                for mut line in event_lines(&event) {
                    if let Line::DownloadComplete { path, .. } = &mut line {
                        *path = Some(saved.display().to_string());
                    }
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
            for line in event_lines(&event) {
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
    #[command(flatten)]
    password: ServerPassword,
}

/// Where a passworded server's password comes from: never a flag's value.
#[derive(clap::Args, Debug)]
pub struct ServerPassword {
    /// Read the server's password (g_password) from the first line of FILE; otherwise
    /// MUSTER_SERVER_PASSWORD, when set.
    #[arg(long = "password-file", value_name = "FILE")]
    file: Option<PathBuf>,
}

/// The environment variable a server's password may come from.
pub const SERVER_PASSWORD_ENV: &str = "MUSTER_SERVER_PASSWORD";

impl ServerPassword {
    pub fn read(&self) -> anyhow::Result<Option<protocol::secret::Secret>> {
        crate::secrets::read(self.file.as_deref(), SERVER_PASSWORD_ENV)
    }
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
        password: args.password.read()?,
    };
    let json = args.json;
    spectate(SocketAddr::V4(addrs[0]), options, |line| {
        if json {
            out(serde_json::to_string(&line)?)
        } else {
            out(line)
        }
    })
    .await?;
    Ok(())
}
