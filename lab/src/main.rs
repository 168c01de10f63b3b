//! `muster-lab`: a loopback fleet of protocol-22 servers and a master.

use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use lab::{FaultPlan, Lab, LabConfig};

/// A loopback fleet of protocol-22 servers and a master, all on 127.0.0.1.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The address to bind: 127.0.0.1, or an address of the network namespace the lab runs in.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::Ipv4Addr,
    /// Number of game servers.
    #[arg(long, default_value_t = 24)]
    servers: usize,
    /// Port of the first server; the others follow it.
    #[arg(long, default_value_t = 28960)]
    port: u16,
    /// Port of the master.
    #[arg(long = "master-port", default_value_t = 20611)]
    master_port: u16,
    /// Seed for the generated fleet.
    #[arg(long, default_value_t = 22)]
    seed: u64,
    /// Seconds between player changes on each server; 0 freezes the fleet.
    #[arg(long, default_value_t = 5.0)]
    churn: f64,
    /// Also run a Wulfram II endpoint (TCP and UDP) on this port of 127.0.0.1; 0 takes any.
    #[arg(long = "wulfram-port")]
    wulfram_port: Option<u16>,
    /// Seconds a map runs while sessions watch before the next loads (0 keeps one map).
    #[arg(long, default_value_t = 600.0)]
    map_time: f64,
    /// Seconds of intermission at a map's end, before the next (stock's scripts: about 10).
    #[arg(long, default_value_t = 10.0)]
    intermission: f64,
    /// Seconds between heartbeats to the master (stock: 180).
    #[arg(long, default_value_t = 180.0)]
    heartbeat: f64,
    /// Addresses per getserversResponse packet.
    #[arg(long = "list-packet-size", default_value_t = 100)]
    list_packet_size: usize,
    /// End the master's last list packet with \EOF instead of the stock \EOT.
    #[arg(long)]
    list_eof: bool,
    /// Make some servers misbehave: 10% lossy at 30%, 5% late by 800 ms, 5% silent, 5% garbage.
    /// The shares can be set one by one with the flags below.
    #[arg(long)]
    faults: bool,
    /// Share of servers that drop --loss-rate of their queries.
    #[arg(long)]
    lossy: Option<f64>,
    #[arg(long)]
    loss_rate: Option<f64>,
    /// Share of servers that answer --late-ms late.
    #[arg(long)]
    late: Option<f64>,
    #[arg(long)]
    late_ms: Option<u64>,
    /// Share of servers that never answer.
    #[arg(long)]
    silent: Option<f64>,
    /// Share of servers that answer with malformed responses.
    #[arg(long)]
    garbage: Option<f64>,
    /// How far a spectator sees, in world units: the fog of configstring 13 (0: a clear map).
    /// Entities beyond it are not sent, as a stock server culls them.
    #[arg(long, default_value_t = lab::sessions::DEFAULT_VISIBILITY)]
    visibility: f32,
    /// g_inactivityspectator: seconds before an idle spectator is dropped (0: never).
    #[arg(long = "inactivity-spectator", default_value_t = 0.0)]
    inactivity_spectator: f64,
    /// Write the true match to FILE: one JSON line per server frame of every watched server
    /// (server time, every soldier's position, team, alive).
    #[arg(long, value_name = "FILE")]
    truth: Option<std::path::PathBuf>,
    /// Give every server exactly N players and keep its roster.
    #[arg(long)]
    players: Option<usize>,
    /// How fast matches play: `busy` (a kill a second, any two foes: plays within seconds, for
    /// tests) or `public` (each soldier kills about once a minute, the nearest foe).
    #[arg(long, default_value = "busy", value_parser = ["busy", "public"])]
    pace: String,
    /// Also heartbeat this master, as a stock server does its sv_master list: every
    /// --heartbeat seconds, a full status every 600 s, `flatline` on exit; repeat for more.
    #[arg(long = "heartbeat-to", value_name = "HOST:PORT")]
    heartbeat_to: Vec<String>,
    /// rconpassword of every server; without it a server answers rcon as stock does when it
    /// has none. (The lab's servers are nobody's; a real password never belongs here.)
    #[arg(long = "rcon-password")]
    rcon_password: Option<String>,
}

impl Args {
    fn faults(&self) -> FaultPlan {
        let base = if self.faults {
            FaultPlan::mixed()
        } else {
            FaultPlan {
                loss_rate: FaultPlan::mixed().loss_rate,
                late_by: FaultPlan::mixed().late_by,
                ..FaultPlan::default()
            }
        };
        FaultPlan {
            lossy: self.lossy.unwrap_or(base.lossy),
            loss_rate: self.loss_rate.unwrap_or(base.loss_rate),
            late: self.late.unwrap_or(base.late),
            late_by: self.late_ms.map_or(base.late_by, Duration::from_millis),
            silent: self.silent.unwrap_or(base.silent),
            garbage: self.garbage.unwrap_or(base.garbage),
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = Args::parse();
    let config = LabConfig {
        host: args.host,
        servers: args.servers,
        base_port: args.port,
        master_port: args.master_port,
        seed: args.seed,
        churn: (args.churn > 0.0).then(|| Duration::from_secs_f64(args.churn)),
        heartbeat: Duration::from_secs_f64(args.heartbeat.max(1.0)),
        map_time: (args.map_time > 0.0).then(|| Duration::from_secs_f64(args.map_time)),
        intermission: Duration::from_secs_f64(args.intermission.max(0.0)),
        wulfram_port: args.wulfram_port,
        list_packet_size: args.list_packet_size,
        list_end: if args.list_eof {
            lab::ListEnd::Eof
        } else {
            lab::ListEnd::Eot
        },
        faults: args.faults(),
        visibility: args.visibility.max(0.0),
        inactivity_spectator: (args.inactivity_spectator > 0.0)
            .then(|| Duration::from_secs_f64(args.inactivity_spectator)),
        truth: match &args.truth {
            Some(path) => Some(lab::Truth::create(path)?),
            None => None,
        },
        players: args.players,
        pace: if args.pace == "public" {
            lab::Pace::Public
        } else {
            lab::Pace::Busy
        },
        heartbeat_to: {
            let mut masters = Vec::new();
            for name in &args.heartbeat_to {
                let addr = tokio::net::lookup_host(name)
                    .await
                    .with_context(|| format!("resolving {name}"))?
                    .next()
                    .with_context(|| format!("{name} has no address"))?;
                masters.push(addr);
            }
            masters
        },
        rcon_password: args.rcon_password.clone(),
        ..LabConfig::default()
    };
    let lab = Lab::start(config).await?;
    lab.wait_registered(Duration::from_secs(10)).await?;
    let first = lab
        .servers
        .first()
        .map(|s| s.addr.to_string())
        .unwrap_or_default();
    let last = lab
        .servers
        .last()
        .map(|s| s.addr.to_string())
        .unwrap_or_default();
    let wulfram = lab
        .wulfram
        .map(|addr| format!(", Wulfram II {addr}"))
        .unwrap_or_default();
    println!(
        "muster-lab: {} servers ({first} .. {last}), master {} (all verified){wulfram}",
        lab.servers.len(),
        lab.master
    );
    tokio::signal::ctrl_c().await?;
    // As a stock server does on shutdown: `heartbeat flatline` to every master.
    lab.shutdown().await;
    Ok(())
}
