//! `muster scan`: servers on the LAN.

use std::net::Ipv4Addr;

use super::out;
use crate::browse::query::results;

/// Find servers on the LAN with the stock broadcast probe (ports 28960-28963).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to send the probe; repeat for more.
    #[arg(long = "lan", value_name = "ADDR", default_value = "255.255.255.255")]
    lan: Vec<Ipv4Addr>,
    #[arg(long)]
    json: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let found = results::scan(&args.lan, Default::default()).await?;
    if args.json {
        out(serde_json::to_string_pretty(&found)?)?;
    } else {
        for s in &found {
            out(format_args!(
                "{:<21} {:>2}/{:<2}  {:<16} {:<5} {}",
                s.addr,
                s.clients,
                s.max_clients,
                s.map,
                s.gametype,
                protocol::cod::text::strip(&s.hostname)
            ))?;
        }
    }
    eprintln!("{} servers on the LAN", found.len());
    Ok(())
}
