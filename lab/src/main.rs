//! `muster-lab`: a loopback fleet of protocol-22 servers and a master.

use std::time::Duration;

use clap::Parser;
use lab::{Lab, LabConfig};

/// A loopback fleet of protocol-22 servers and a master, all on 127.0.0.1.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
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
    /// Seconds between heartbeats to the master (stock: 180).
    #[arg(long, default_value_t = 180.0)]
    heartbeat: f64,
    /// Addresses per getserversResponse packet.
    #[arg(long = "list-packet-size", default_value_t = 100)]
    list_packet_size: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = Args::parse();
    let config = LabConfig {
        servers: args.servers,
        base_port: args.port,
        master_port: args.master_port,
        seed: args.seed,
        churn: (args.churn > 0.0).then(|| Duration::from_secs_f64(args.churn)),
        heartbeat: Duration::from_secs_f64(args.heartbeat.max(1.0)),
        list_packet_size: args.list_packet_size,
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
    println!(
        "muster-lab: {} servers ({first} .. {last}), master {} (all verified)",
        lab.servers.len(),
        lab.master
    );
    tokio::signal::ctrl_c().await?;
    Ok(())
}
