//! `muster master-server`: the replacement master on its own.

use std::net::SocketAddr;

use super::out;
use crate::master::MasterArgs;

/// Run a master server: heartbeats verified by challenge, lists for stock clients, QStat
/// and relays, with limits on by default.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where the master listens (stock clients ask port 20610).
    #[arg(long, default_value = "0.0.0.0:20610")]
    listen: SocketAddr,
    /// Accept heartbeats and queries from private and loopback addresses (a LAN, the lab).
    #[arg(long = "allow-private")]
    allow_private: bool,
    #[command(flatten)]
    master: MasterArgs,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let config = args.master.config(args.allow_private);
    let (master, _task) =
        crate::master::start(args.listen, config, args.master.federate.clone()).await?;
    out(format_args!("muster: master listening on {}", master.addr))?;
    tokio::signal::ctrl_c().await?;
    Ok(())
}
