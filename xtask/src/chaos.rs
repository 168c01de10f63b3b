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

fn cluster_flag(args: &[String]) -> Result<bool> {
    match args {
        [] => Ok(false),
        [flag] if flag == "--cluster" => Ok(true),
        _ => bail!("usage: cargo xtask chaos [--cluster]"),
    }
}

pub fn run(root: &Path, args: &[String]) -> Result<()> {
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
