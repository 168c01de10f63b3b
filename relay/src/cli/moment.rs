//! `muster moment ADDR --from -30s --to +10s`: asks a running relay to cut a moment of a match
//! it watches (`POST /api/moments`) and prints its link; `--json` prints the moment as
//! `GET /api/moments/ID` describes it, with its `url`.

use anyhow::{bail, Context};
use protocol::relay_api::moments::{MomentAsk, MomentCreated, MomentDetail};

use super::relay_http::call;
use super::{out, out_json};

/// Cut a moment of a watched match on a running relay and print its link.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game server, IP:PORT, as the relay lists it.
    server: String,
    /// Where the clip starts: seconds from the live edge (`-30s`, `-1m30s`) or Unix
    /// milliseconds.
    #[arg(long, default_value = "-20s", allow_hyphen_values = true)]
    from: String,
    /// Where it ends, likewise (`+10s` past the edge is clamped to the edge: the delay holds).
    #[arg(long, default_value = "0s", allow_hyphen_values = true)]
    to: String,
    /// The relay, as http://HOST:PORT.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    relay: String,
    /// Print one JSON object (stable keys) instead of text.
    #[arg(long)]
    json: bool,
}

/// `-30s`, `+10s`, `-1m30s`, `5` (seconds) or Unix milliseconds, as the API takes them.
pub fn parse_time(text: &str) -> anyhow::Result<f64> {
    let bad =
        || format!("{text:?}: expected seconds like -30s, -1m30s or +10s, or Unix milliseconds");
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Ok(plain) = rest.parse::<f64>() {
        return Ok(sign * plain);
    }
    let (minutes, seconds) = match rest.split_once('m') {
        Some((m, s)) => (m.parse::<f64>().with_context(bad)?, s),
        None => (0.0, rest),
    };
    let seconds = match seconds.strip_suffix('s') {
        Some(s) => s.parse::<f64>().with_context(bad)?,
        None if seconds.is_empty() => 0.0,
        None => bail!(bad()),
    };
    Ok(sign * (minutes * 60.0 + seconds))
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let ask = MomentAsk {
        server: args.server.clone(),
        from: parse_time(&args.from)?,
        to: parse_time(&args.to)?,
    };
    let (status, body) = call(
        &args.relay,
        hyper::Method::POST,
        "/api/moments",
        Some(serde_json::to_string(&ask)?),
    )
    .await?;
    if status != hyper::StatusCode::CREATED {
        bail!(
            "{} refused the moment ({status}): {}",
            args.relay,
            String::from_utf8_lossy(&body)
        );
    }
    let created: MomentCreated = serde_json::from_slice(&body).context("the relay's answer")?;
    let path = format!("/api/moments/{}", created.id);
    let (status, body) = call(&args.relay, hyper::Method::GET, &path, None).await?;
    if !status.is_success() {
        bail!(
            "{} made moment {} but cannot show it ({status})",
            args.relay,
            created.id
        );
    }
    let detail: MomentDetail = serde_json::from_slice(&body).context("the moment")?;
    let url = format!("{}{}", args.relay.trim_end_matches('/'), created.url);
    if args.json {
        #[derive(serde::Serialize)]
        struct Shown<'a> {
            url: &'a str,
            #[serde(flatten)]
            moment: &'a MomentDetail,
        }
        return out_json(&Shown {
            url: &url,
            moment: &detail,
        });
    }
    out(format_args!(
        "{url}\n{} · {:.0} s on {}, {} snapshots, {} bytes\n{}{}",
        // The operator's terminal speaks English, as every CLI line does.
        i18n::catalogue(i18n::Lang::En).say(&detail.headline()),
        detail.seconds(),
        detail.map,
        detail.snapshots,
        detail.bytes,
        args.relay.trim_end_matches('/'),
        detail.demo()
    ))
}

#[cfg(test)]
mod tests {
    use super::parse_time;

    #[test]
    fn times_read_as_the_api_takes_them() {
        assert_eq!(parse_time("-30s").unwrap(), -30.0);
        assert_eq!(parse_time("+10s").unwrap(), 10.0);
        assert_eq!(parse_time("-1m30s").unwrap(), -90.0);
        assert_eq!(parse_time("-2m").unwrap(), -120.0);
        assert_eq!(parse_time("5").unwrap(), 5.0);
        assert_eq!(parse_time("1764950000000").unwrap(), 1_764_950_000_000.0);
        assert!(parse_time("soon").is_err());
        assert!(parse_time("-30x").is_err());
    }
}
