//! `cargo xtask audit`: Lighthouse 12 (npm, pinned) in Debian's Chromium with Lighthouse's own
//! mobile run (a mid-range phone: its CPU slowed four times, a slow 4G link), on the five pages
//! the design is held to (the list, the watch view, a match, a player and a moment), served by a
//! relay (release build) following a lab match. Prints each page's scores and, as its last line,
//! one JSON object with them all and whether each meets the goals: performance at least 95,
//! layout shift at most 0.05, accessibility and SEO 100.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use serde_json::{json, Value};

use crate::loopback::{get, post_json};
use crate::ports::{self, Port};
use crate::run::{lab_command, lab_ports, operator_token, relay_command, LAB_PORT};
use crate::supervise::{Fleet, Stop};
use crate::tools::{self, Needs};

/// The audited relay's address: beside a running `cargo xtask run` (8080), not on it.
const LISTEN: &str = "127.0.0.1:8090";
/// How long the lab may take to finish a match the relay follows (maps of 20 s here).
const MATCH_WITHIN: Duration = Duration::from_secs(180);

/// A page's figures, as Lighthouse reports them.
struct Scores {
    name: &'static str,
    url: String,
    report: Value,
}

impl Scores {
    fn category(&self, id: &str) -> Option<u64> {
        let score = self.report["categories"][id]["score"].as_f64()?;
        Some((score * 100.0).round() as u64)
    }

    fn audit(&self, id: &str) -> Option<f64> {
        self.report["audits"][id]["numericValue"].as_f64()
    }

    /// The accessibility and SEO audits that did not pass, and the elements that shifted
    /// most: what to fix first.
    fn failing(&self) -> Vec<String> {
        let mut failing = Vec::new();
        for category in ["accessibility", "seo"] {
            let refs = self.report["categories"][category]["auditRefs"].as_array();
            for r in refs.into_iter().flatten() {
                let id = r["id"].as_str().unwrap_or_default();
                let audit = &self.report["audits"][id];
                if r["weight"].as_f64() > Some(0.0) && audit["score"].as_f64() < Some(1.0) {
                    let first = audit["details"]["items"][0]["node"]["snippet"].as_str();
                    let first: String = first.unwrap_or_default().chars().take(80).collect();
                    failing.push(format!("{id}: {first}"));
                }
            }
        }
        let shifts = self.report["audits"]["layout-shifts"]["details"]["items"].as_array();
        for item in shifts.into_iter().flatten().take(3) {
            let node = item["node"]["snippet"].as_str().unwrap_or("?");
            let score = item["score"].as_f64().unwrap_or(0.0);
            failing.push(format!(
                "shift {score:.3}: {}",
                node.chars().take(80).collect::<String>()
            ));
        }
        failing
    }

    fn json(&self) -> Value {
        let performance = self.category("performance");
        let accessibility = self.category("accessibility");
        let seo = self.category("seo");
        let cls = self.audit("cumulative-layout-shift");
        let met = performance.is_some_and(|p| p >= 95)
            && cls.is_some_and(|c| c <= 0.05)
            && accessibility == Some(100)
            && seo == Some(100);
        json!({
            "page": self.name,
            "url": self.url,
            "performance": performance,
            "accessibility": accessibility,
            "best_practices": self.category("best-practices"),
            "seo": seo,
            "cls": cls.map(|c| (c * 1000.0).round() / 1000.0),
            "fcp_ms": self.audit("first-contentful-paint").map(f64::round),
            "lcp_ms": self.audit("largest-contentful-paint").map(f64::round),
            "tbt_ms": self.audit("total-blocking-time").map(f64::round),
            "total_bytes": self.audit("total-byte-weight"),
            "failing": self.failing(),
            "met": met,
        })
    }
}

pub(crate) fn run(root: &Path, args: &[String]) -> Result<()> {
    ensure!(args.is_empty(), "usage: cargo xtask audit");
    let stop = Stop::on_signals()?;
    let mut needed = lab_ports(4);
    needed.push(Port::tcp(8090, "the audited relay"));
    ports::ensure_free(&needed).context("cargo xtask audit needs these ports on 127.0.0.1")?;
    tools::ensure(root, Needs::Audit)?;
    crate::page::build_page(root)?;
    crate::run::build_release_binaries()?;
    let data = std::env::temp_dir().join(format!("muster-audit-{}", std::process::id()));
    let mut fleet = Fleet::new()?;
    let audited = audit(root, &data, &mut fleet, &stop);
    let left = fleet.stop();
    let _ = std::fs::remove_dir_all(&data);
    let pages = audited?;
    ensure!(left.is_empty(), "left running after the audit: {left:?}");
    let all: Vec<Value> = pages.iter().map(Scores::json).collect();
    let met = all.iter().all(|p| p["met"] == true);
    println!(
        "{}",
        json!({
            "lighthouse": pages.first().map(|p| p.report["lighthouseVersion"].clone()),
            "preset": "mobile",
            "goals": {"performance": 95, "cls": 0.05, "accessibility": 100, "seo": 100},
            "pages": all,
            "met": met,
        })
    );
    Ok(())
}

/// Starts the lab and the relay, waits for a finished match and makes a moment, then audits
/// the five pages.
fn audit(root: &Path, data: &Path, fleet: &mut Fleet, stop: &Stop) -> Result<Vec<Scores>> {
    let bin = root.join("target/release");
    let lab = fleet.spawn(
        "the lab fleet (muster-lab)",
        &mut lab_command(&bin, "4", &["--map-time", "20", "--intermission", "2"]),
    )?;
    fleet.wait_for_line(lab, "muster-lab:", stop)?;
    let server = format!("127.0.0.1:{LAB_PORT}");
    // The lab's first server may ask for the lab's password, as `run` gives it.
    std::fs::create_dir_all(data)?;
    let password = data.join("lab-password");
    std::fs::write(&password, "lab")?;
    let relay = fleet.spawn(
        "the audited relay (muster serve)",
        relay_command(root, &bin, LISTEN, &operator_token()?)
            .args(["--follow", &server, "--server-password"])
            .arg(format!("{server}={}", password.display()))
            .arg("--data-dir")
            .arg(data),
    )?;
    fleet.wait_for_line(relay, "muster: serving", stop)?;
    let began = Instant::now();
    let finished = loop {
        let list: Value = serde_json::from_slice(&get(LISTEN, "/api/matches")?.body)
            .context("/api/matches is not JSON")?;
        let done = (list.as_array().into_iter().flatten()).find(|m| !m["ended"].is_null());
        if let Some(id) = done.and_then(|m| m["id"].as_u64()) {
            break id;
        }
        ensure!(
            began.elapsed() < MATCH_WITHIN,
            "no followed match finished within {MATCH_WITHIN:?}"
        );
        ensure!(!stop.requested(), "interrupted");
        std::thread::sleep(Duration::from_millis(500));
    };
    let moment = loop {
        let made = post_json(
            LISTEN,
            "/api/moments",
            &json!({"server": server, "from": -6, "to": -1}),
        )?;
        let body: Value = serde_json::from_slice(&made.body).unwrap_or_default();
        if made.status == 201 {
            break body["url"].as_str().context("a moment's url")?.to_owned();
        }
        ensure!(
            began.elapsed() < MATCH_WITHIN,
            "no moment could be made: {} {body}",
            made.status
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    // A player of a followed match, as the sitemap names their page.
    let sitemap = String::from_utf8_lossy(&get(LISTEN, "/sitemap.xml")?.body).into_owned();
    let player = sitemap
        .split("<loc>")
        .filter_map(|l| l.split("</loc>").next())
        .find_map(|loc| loc.find("/players/").map(|at| loc[at..].to_owned()))
        .context("no player's page in the sitemap")?;
    let pages = [
        ("list", "/".to_owned()),
        ("watch", format!("/watch/#/watch/{server}")),
        ("match", format!("/matches/{finished}")),
        ("player", player),
        ("moment", moment),
    ];
    let mut scores = Vec::new();
    for (name, path) in pages {
        ensure!(!stop.requested(), "interrupted");
        let url = format!("http://{LISTEN}{path}");
        let report = lighthouse(root, name, &url)?;
        let page = Scores { name, url, report };
        println!("xtask audit: {}", page.json());
        scores.push(page);
    }
    Ok(scores)
}

/// Lighthouse's mobile run of `url`: its JSON report, kept as `target/audit/NAME.json` for a
/// closer look (its audits say where each page's time and shifts go).
fn lighthouse(root: &Path, name: &str, url: &str) -> Result<Value> {
    let kept = root.join("target/audit");
    std::fs::create_dir_all(&kept)?;
    let out = kept.join(format!("{name}.json"));
    let cli = root.join("target/tools/node/node_modules/lighthouse/cli/index.js");
    let status = Command::new("node")
        .arg(&cli)
        .arg(url)
        .args([
            "--only-categories=performance,accessibility,best-practices,seo",
            "--output=json",
            "--quiet",
            "--no-enable-error-reporting",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run \
             --disable-background-networking --disable-component-update --disable-sync",
        ])
        .arg(format!("--output-path={}", out.display()))
        .env("CHROME_PATH", "/usr/bin/chromium")
        .status()
        .with_context(|| format!("running {}", cli.display()))?;
    if !status.success() {
        bail!("Lighthouse failed on {url} ({status})");
    }
    let report: Value = serde_json::from_slice(&std::fs::read(&out)?)?;
    if let Some(error) = report.get("runtimeError") {
        bail!("Lighthouse on {url}: {error}");
    }
    Ok(report)
}
