//! `cargo xtask chaos [--cluster]`: relay/examples/chaos.rs, the relay and the lab on the two
//! sides of an impaired link. The run gets a network namespace of its own (the relay's side;
//! the program makes the lab's), so its addresses, routes and TUN devices never touch the
//! machine's own network: xtask starts itself again inside it (`chaos-inside`), and that copy
//! starts the cluster's engines there, on the namespace's own 127.0.0.1. Needs root, as
//! `ip netns` does.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::tools::{self, Needs};

const RELAY_NS: &str = "muster-chaos-relay";

fn ip(args: &[&str]) -> Result<()> {
    crate::status(Command::new("ip").args(args))
}

/// Deletes the relay's namespace when the run ends, however it ends.
struct Namespace;

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", RELAY_NS]).status();
    }
}

const USAGE: &str =
    "usage: cargo xtask chaos [--cluster] | cargo xtask chaos --kills [--minutes M] [--lease-ttl SECS]";

fn cluster_flag(args: &[String]) -> Result<bool> {
    match args {
        [] => Ok(false),
        [flag] if flag == "--cluster" => Ok(true),
        _ => bail!(USAGE),
    }
}

/// `cargo xtask chaos --kills`: relay/examples/failover_chaos.rs, three relays of one site on
/// this machine's NATS and PostgreSQL (started for the run), one of them stopped every few
/// seconds for M minutes (10 by default). Needs no namespace: it kills processes, not links.
fn kills(root: &Path, args: &[String]) -> Result<()> {
    let (mut minutes, mut args) = ("10".to_owned(), args.iter());
    while let Some(arg) = args.next() {
        let mut value = |what: &str| {
            args.next()
                .with_context(|| format!("{arg} {what}"))
                .cloned()
        };
        match arg.as_str() {
            "--minutes" => minutes = value("M")?,
            "--lease-ttl" => std::env::set_var("MUSTER_BENCH_LEASE_TTL", value("SECS")?),
            _ => bail!(USAGE),
        }
    }
    minutes.parse::<f64>().context("--minutes takes a number")?;
    tools::ensure(root, Needs::Cluster)?;
    crate::bench::build_example(root, "failover_chaos")?;
    let postgres = crate::postgres::Cluster::start()?;
    let nats = crate::nats::Nats::start()?;
    std::env::set_var("MUSTER_BENCH_POSTGRES", &postgres.url);
    std::env::set_var("MUSTER_BENCH_NATS", &nats.url);
    crate::status(crate::bench::example_command(root, "failover_chaos").arg(minutes))
}

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    if args.first().is_some_and(|a| a == "--kills") {
        return kills(root, &args[1..]);
    }
    let cluster = cluster_flag(args)?;
    tools::ensure(root, if cluster { Needs::Cluster } else { Needs::Run })?;
    crate::bench::build_example(root, "chaos")?;
    let _ = Command::new("ip").args(["netns", "del", RELAY_NS]).status();
    ip(&["netns", "add", RELAY_NS])?;
    let _namespace = Namespace;
    ip(&["-n", RELAY_NS, "link", "set", "lo", "up"])?;
    let me = std::env::current_exe().context("where xtask is")?;
    crate::status(
        Command::new("ip")
            .args(["netns", "exec", RELAY_NS])
            .arg(me)
            .arg("chaos-inside")
            .args(args),
    )
}

/// Inside the relay's namespace: the engines if asked for, then the program.
pub fn inside(root: &Path, args: &[String]) -> Result<()> {
    let cluster = cluster_flag(args)?;
    let mut program = crate::bench::example_command(root, "chaos");
    program.args(args);
    // Dropped (stopped) after the program ends.
    let engines = if cluster {
        let nats = crate::nats::Nats::start()?;
        let postgres = crate::postgres::Cluster::start()?;
        program
            .env("MUSTER_CHAOS_NATS", &nats.url)
            .env("MUSTER_CHAOS_POSTGRES", &postgres.url);
        Some((nats, postgres))
    } else {
        None
    };
    let ran = crate::status(&mut program);
    drop(engines);
    ran
}
