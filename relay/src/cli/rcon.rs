//! `muster rcon`: one console command to a server, sent as the stock client sends it, and its
//! output joined from every `print` packet. The password comes from a file or the
//! environment, never from a flag (a flag shows in `ps` and in shell history).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use protocol::cod::rcon::{Outcome, StatusPing, StatusTable};
use serde::Serialize;

use super::out;
use crate::net::resolve;
use crate::rcon::exchange::{exchange, Answer};
use crate::rcon::Password;

/// Send one rcon command to a server and print its output. The password is read from
/// --password-file or MUSTER_RCON_PASSWORD.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server, HOST[:PORT] (default port 28960).
    addr: String,
    /// The command and its arguments (an argument holding a space is sent quoted).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
    /// Read the rcon password from the first line of FILE.
    #[arg(long = "password-file", value_name = "FILE")]
    password_file: Option<PathBuf>,
    /// Seconds to wait for the first reply.
    #[arg(long, default_value_t = 2.0)]
    wait: f64,
    /// Print one JSON object: outcome, output, chunks, round trip, and the players when the
    /// output is a `status` table.
    #[arg(long)]
    json: bool,
}

/// The environment variable the password may come from.
pub const PASSWORD_ENV: &str = "MUSTER_RCON_PASSWORD";

/// The rcon password, from `--password-file` or [`PASSWORD_ENV`]; it must be given.
fn password(file: Option<&std::path::Path>) -> anyhow::Result<Password> {
    crate::secrets::read(file, PASSWORD_ENV)?
        .with_context(|| format!("no password: give --password-file FILE or set {PASSWORD_ENV}"))
}

/// The console line for `args`: joined by spaces, an argument holding a space quoted.
fn command_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let password = password(args.password_file.as_deref())?;
    let target = *resolve(&args.addr, protocol::cod::DEFAULT_SERVER_PORT)
        .await?
        .first()
        .context("no address")?;
    let command = command_line(&args.command);
    let wait = Duration::from_secs_f64(args.wait.clamp(0.1, 60.0));
    let datagram = protocol::cod::rcon::request(password.expose(), &command)?;
    let answer = exchange(SocketAddr::V4(target), &datagram, wait, ()).await?;
    if args.json {
        out(serde_json::to_string_pretty(&json(
            &target.to_string(),
            &command,
            &answer,
        ))?)?;
    } else if let Outcome::Output(text) = &answer.outcome {
        out(text.trim_end_matches('\n'))?;
    }
    match answer.outcome {
        Outcome::Output(_) => Ok(()),
        Outcome::BadPassword => bail!("{target}: Bad rconpassword."),
        Outcome::NoPassword => bail!("{target}: the server has no rconpassword set"),
    }
}

/// The stable JSON form: `outcome` is `output`, `bad_password` or `no_password`; `status` is
/// present when the output is a `status` table.
#[derive(Serialize)]
struct Report<'a> {
    server: &'a str,
    command: &'a str,
    outcome: &'static str,
    output: &'a str,
    chunks: usize,
    truncated: bool,
    round_trip_ms: u64,
    status: Option<StatusJson>,
}

/// A `status` table: the map and one row per client.
#[derive(Serialize)]
struct StatusJson {
    map: String,
    players: Vec<StatusRowJson>,
}

/// A row of `status`, its columns named as the stock table heads them.
#[derive(Serialize)]
struct StatusRowJson {
    slot: u8,
    name: String,
    score: i32,
    /// Milliseconds; absent while the client connects or is a zombie (`state`).
    ping: Option<u32>,
    /// `active`, `connecting` or `zombie`.
    state: &'static str,
    guid: i64,
    address: String,
    last_msg_ms: i64,
    qport: i32,
    rate: i32,
}

fn json<'a>(server: &'a str, command: &'a str, answer: &'a Answer) -> Report<'a> {
    let output = match &answer.outcome {
        Outcome::Output(text) => text.as_str(),
        _ => "",
    };
    Report {
        server,
        command,
        outcome: answer.outcome.as_str(),
        output,
        chunks: answer.chunks,
        truncated: answer.truncated,
        round_trip_ms: answer.round_trip.as_millis() as u64,
        status: StatusTable::parse(output).map(status_json),
    }
}

fn status_json(table: StatusTable) -> StatusJson {
    let players = table
        .rows
        .into_iter()
        .map(|r| {
            let (ping, state) = match r.ping {
                StatusPing::Ms(ms) => (Some(ms), "active"),
                StatusPing::Connecting => (None, "connecting"),
                StatusPing::Zombie => (None, "zombie"),
            };
            StatusRowJson {
                slot: r.slot,
                name: r.name,
                score: r.score,
                ping,
                state,
                guid: r.guid,
                address: r.address,
                last_msg_ms: r.last_msg,
                qport: r.qport,
                rate: r.rate,
            }
        })
        .collect();
    StatusJson {
        map: table.map,
        players,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_with_spaces_are_quoted() {
        let args: Vec<String> = ["say", "hello all", "now"].map(String::from).to_vec();
        assert_eq!(command_line(&args), "say \"hello all\" now");
    }

    #[test]
    fn the_password_comes_from_the_files_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret\nignored\n").unwrap();
        assert_eq!(password(Some(&file)).unwrap(), Password::new("s3cret"));
        std::fs::write(&file, "\nlater\n").unwrap();
        assert!(password(Some(&file)).is_err());
        let missing = crate::secrets::read(None, "MUSTER_TEST_UNSET_PASSWORD").unwrap();
        assert_eq!(missing, None);
    }
}
