//! `muster tune`: the tuning guide's figures and advice for a player on a server.

use anyhow::bail;
use protocol::cod::tuning::{
    advise, cadence, published_settings, recommended_profiles, Cadence, ClientProfile,
    ClientSettings, ServerSettings, Severity,
};
use serde::Serialize;

use super::out;
use crate::browse::query::results::QueryResult;

/// The server's settings and where each came from: `server` (published in its status),
/// `flag`, or `stock default`.
#[derive(Clone, Debug, Serialize)]
pub struct ServerSource {
    pub addr: Option<String>,
    pub settings: ServerSettings,
    pub sv_fps_from: &'static str,
    pub sv_max_rate_from: &'static str,
}

impl ServerSource {
    pub fn stock() -> Self {
        Self {
            addr: None,
            settings: ServerSettings::default(),
            sv_fps_from: "stock default",
            sv_max_rate_from: "stock default",
        }
    }

    /// What a queried server reveals: `sv_fps` and `sv_maxRate` when its status publishes them.
    pub fn from_query(result: &QueryResult) -> anyhow::Result<Self> {
        let Some(server) = &result.server else {
            bail!("{} did not answer ({})", result.addr, result.outcome);
        };
        let (fps, rate) =
            published_settings(server.cvars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let mut source = Self::stock();
        source.addr = Some(result.addr.clone());
        if let Some(fps) = fps {
            source.settings.sv_fps = fps;
            source.sv_fps_from = "server";
        }
        if let Some(rate) = rate {
            source.settings.sv_max_rate = rate;
            source.sv_max_rate_from = "server";
        }
        Ok(source)
    }

    /// Flags win over what the server published.
    pub fn override_with(&mut self, sv_fps: Option<i32>, sv_max_rate: Option<i32>) {
        if let Some(fps) = sv_fps {
            self.settings.sv_fps = fps;
            self.sv_fps_from = "flag";
        }
        if let Some(rate) = sv_max_rate {
            self.settings.sv_max_rate = rate;
            self.sv_max_rate_from = "flag";
        }
    }
}

/// `muster tune --json`: the derived figures flattened at the top level, then the inputs,
/// the advice and the profiles the guide recommends for this server.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    #[serde(flatten)]
    pub cadence: Cadence,
    pub packet_size: u32,
    pub client: ClientSettings,
    pub server: ServerSource,
    pub advice: Vec<Advice>,
    pub recommended_profiles: Vec<Profile>,
}

/// One finding as the CLI prints it: its code, its severity and the guide's words, in English
/// (the terminal's language; the page says them in the visitor's).
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
}

/// A recommended profile, its name and tradeoff in English.
#[derive(Clone, Debug, Serialize)]
pub struct Profile {
    pub name: String,
    pub com_maxfps: i32,
    pub cl_maxpackets: i32,
    pub rate: i32,
    pub snaps: i32,
    pub tradeoff: String,
}

pub fn report(client: &ClientSettings, server: &ServerSource, packet_size: u32) -> Report {
    let english = i18n::catalogue(i18n::Lang::En);
    Report {
        cadence: cadence(client, &server.settings, packet_size),
        packet_size,
        client: *client,
        server: server.clone(),
        advice: advise(client, &server.settings, packet_size)
            .into_iter()
            .map(|a| Advice {
                code: a.code,
                severity: a.severity,
                message: english.say(&a.said),
            })
            .collect(),
        recommended_profiles: recommended_profiles(&server.settings)
            .into_iter()
            .map(|p: ClientProfile| Profile {
                name: english.text(p.name),
                com_maxfps: p.com_maxfps,
                cl_maxpackets: p.cl_maxpackets,
                rate: p.rate,
                snaps: p.snaps,
                tradeoff: english.text(p.tradeoff),
            })
            .collect(),
    }
}

/// The report for people: the four clocks, then the advice.
impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.cadence;
        if let Some(addr) = &self.server.addr {
            writeln!(f, "server {addr}")?;
        }
        writeln!(
            f,
            "client frames   {:>6.1}/s  every {} ms (com_maxfps {})",
            c.client_fps, c.client_frame_ms, self.client.com_maxfps
        )?;
        writeln!(
            f,
            "client packets  {:>6.1}/s  every {} ms: {} frame(s) per packet, {} user commands each",
            c.packets_per_second, c.packet_interval_ms, c.frames_per_packet, c.usercmds_per_packet
        )?;
        writeln!(
            f,
            "server frames   {:>6.1}/s  every {} ms (sv_fps {}, {})",
            c.server_fps, c.server_frame_ms, self.server.settings.sv_fps, self.server.sv_fps_from
        )?;
        writeln!(
            f,
            "snapshots       {:>6.1}/s  every {} ms (snaps asks {} ms; rate {} B/s charges {} B in {} ms)",
            c.snapshots_per_second,
            c.actual_snapshot_interval_ms,
            c.requested_snapshot_interval_ms,
            c.effective_rate,
            c.charged_size,
            c.rate_delay_ms
        )?;
        for a in &self.advice {
            let tag = match a.severity {
                Severity::Warning => "warning",
                Severity::Info => "note",
            };
            writeln!(f, "{tag}: {}", a.message)?;
        }
        let names: Vec<&str> = self
            .recommended_profiles
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        write!(f, "recommended here: {}", names.join(", "))
    }
}

/// What a server will deliver to a player: packets, user commands and snapshots per
/// second from the cvars, with the tuning guide's advice. Stock defaults where a flag is
/// absent; with a server address, its published sv_fps and sv_maxRate.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A server to read sv_fps and sv_maxRate from (HOST[:PORT]); flags still override.
    server: Option<String>,
    #[arg(long = "com-maxfps", allow_hyphen_values = true)]
    com_maxfps: Option<i32>,
    #[arg(long = "cl-maxpackets", allow_hyphen_values = true)]
    cl_maxpackets: Option<i32>,
    #[arg(long = "cl-packetdup", allow_hyphen_values = true)]
    cl_packetdup: Option<i32>,
    #[arg(long, allow_hyphen_values = true)]
    rate: Option<i32>,
    #[arg(long, allow_hyphen_values = true)]
    snaps: Option<i32>,
    #[arg(long = "cl-timenudge", allow_hyphen_values = true)]
    cl_timenudge: Option<i32>,
    #[arg(long = "sv-fps", allow_hyphen_values = true)]
    sv_fps: Option<i32>,
    #[arg(long = "sv-maxrate", allow_hyphen_values = true)]
    sv_maxrate: Option<i32>,
    /// Compressed snapshot size in bytes (the scheduler charges at most 1,500).
    #[arg(long = "packet-size", default_value_t = 1500)]
    packet_size: u32,
    /// The server is on the LAN or loopback: both pacing gates are bypassed.
    #[arg(long)]
    lan: bool,
    #[arg(long)]
    json: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    use protocol::cod::tuning::ClientSettings;
    let stock = ClientSettings::default();
    let client = ClientSettings {
        com_maxfps: args.com_maxfps.unwrap_or(stock.com_maxfps),
        cl_maxpackets: args.cl_maxpackets.unwrap_or(stock.cl_maxpackets),
        cl_packetdup: args.cl_packetdup.unwrap_or(stock.cl_packetdup),
        rate: args.rate.unwrap_or(stock.rate),
        snaps: args.snaps.unwrap_or(stock.snaps),
        cl_time_nudge: args.cl_timenudge.unwrap_or(stock.cl_time_nudge),
        lan: args.lan,
    };
    let mut server = ServerSource::stock();
    if let Some(target) = &args.server {
        let addrs = crate::net::resolve(target, protocol::cod::DEFAULT_SERVER_PORT).await?;
        let results = crate::browse::query::results::query(&addrs[..1], Default::default()).await?;
        server = ServerSource::from_query(&results[0])?;
    }
    server.override_with(args.sv_fps, args.sv_maxrate);
    let report = report(&client, &server, args.packet_size);
    if args.json {
        out(serde_json::to_string_pretty(&report)?)?;
    } else {
        out(&report)?;
    }
    Ok(())
}
