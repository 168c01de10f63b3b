//! `muster master`: ask masters for their lists.

use super::out;
use super::query::{report_masters, resolve_masters};
use crate::browse::query::results;

/// Ask masters for their server lists, merged, each server with the masters that listed it.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Masters as HOST[:PORT] (default port 20610).
    #[arg(required = true)]
    masters: Vec<String>,
    #[arg(long)]
    json: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let names = resolve_masters(&args.masters).await?;
    let listing = results::masters(&names, Default::default()).await?;
    if args.json {
        out(serde_json::to_string_pretty(&listing)?)?;
    } else {
        for server in &listing.servers {
            out(&server.addr)?;
        }
    }
    report_masters(&listing);
    Ok(())
}
