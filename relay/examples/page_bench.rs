//! `cargo xtask bench page`: a 5,000-server lab fleet behind the relay, the page in headless
//! Chromium: the render of the full list, the time from a keystroke in the search box to the
//! updated list (median and 95th percentile), the page's wasm + JS size gzipped, and visits on
//! emulated links (1 Mbit/s with 40 ms, 10 Mbit/s with 20 ms) on a laptop's and a phone's
//! screen: when the first server name is readable, when the page is interactive, and the bytes
//! of a first and a repeat visit. The last line printed is one JSON object.

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::Locator;
use lab::{FaultPlan, Lab, LabConfig, ListEnd};
use relay::{PollerConfig, Relay, ServeConfig};
use serde_json::{json, Value};

#[path = "../tests/common/browser.rs"]
mod browser;

const SERVERS: usize = 5000;
const RUNS: usize = 15;
/// Keystrokes timed, for a 95th percentile that is not the slowest one.
const KEYSTROKES: usize = 60;

/// In the page, once it has taken over: when the first server's name was painted (its
/// `elementtiming` mark, in the relay's first screen), when the page became interactive (the
/// app took the first screen's place), and what came over HTTP (the feed's WebSocket is apart).
const VISIT: &str = r#"
const t = n => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : null; };
const named = await new Promise(done => {
  new PerformanceObserver((list, observer) => {
    const e = list.getEntries().find(e => e.identifier === 'first-server');
    if (e) { observer.disconnect(); done(e.renderTime || e.loadTime); }
  }).observe({ type: 'element', buffered: true });
  setTimeout(() => done(null), 2000);
});
const navigation = performance.getEntriesByType('navigation')[0];
const resources = performance.getEntriesByType('resource');
return {
  names_readable_ms: named,
  interactive_ms: t('muster-hand-over') ?? t('muster-list-shown'),
  html_bytes: navigation.transferSize,
  http_bytes: navigation.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
  files: resources.map(r => { const u = new URL(r.name); return [u.pathname + u.search, r.transferSize]; }),
};
"#;

/// In the page, after a first visit: from a click on the first row to its players in the
/// detail, whose panel is its own download (fetched on that first click; what the list knows
/// of the server shows at once).
const DETAIL: &str = r#"
const row = document.querySelector('[data-testid=server-row]');
const start = performance.now();
row.click();
while (!document.querySelector('[data-testid=players-table]')) {
  if (performance.now() - start > 30000) return null;
  await new Promise(r => setTimeout(r, 5));
}
return performance.now() - start;
"#;

/// An emulated link: its name in the JSON, its latency and its bandwidth each way.
const LINKS: [(&str, u32, u32); 2] = [("1mbit", 40, 125_000), ("10mbit", 20, 1_250_000)];
/// A laptop's screen and a phone's.
const SCREENS: [(&str, u32, u32); 2] = [("laptop", 1366, 850), ("phone", 390, 844)];

/// In the page: time from a change to the list's re-render, as the median of `RUNS` changes.
/// The search box is set to `before` (and the list given time to settle), then to `after`; the
/// clock stops when the summary shows the new count.
const MEASURE: &str = r#"
const [before, after, runs] = arguments;
const input = document.getElementById('search');
const summary = document.querySelector('[data-testid=summary]');
const settle = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
const type = v => { input.value = v; input.dispatchEvent(new Event('input', { bubbles: true })); };
const times = [];
for (let i = 0; i < runs; i++) {
  type(before);
  await settle();
  const was = summary.textContent;
  const t0 = performance.now();
  type(after);
  let spins = 0;
  while (summary.textContent === was && spins < 1000) { await Promise.resolve(); spins++; }
  if (summary.textContent === was) { await settle(); }
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
return { median: times[Math.floor(times.length / 2)],
         p95: times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)] };
"#;

/// The bytes a browser takes for a file: its precompressed `.gz` as the relay serves it.
fn gzipped(path: &std::path::Path) -> u64 {
    let mut packed = path.as_os_str().to_owned();
    packed.push(".gz");
    std::fs::metadata(packed).map_or(0, |m| m.len())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dist = PathBuf::from(std::env::var("MUSTER_DIST").unwrap_or_else(|_| "dist".into()));
    let lab = Lab::start(LabConfig {
        servers: SERVERS,
        base_port: 0,
        master_port: 0,
        seed: 7,
        churn: None,
        heartbeat: Duration::from_secs(180),
        list_packet_size: 200,
        list_end: ListEnd::Eof,
        faults: FaultPlan::default(),
        map_time: None,
        wulfram_port: None,
        ..LabConfig::default()
    })
    .await?;
    lab.wait_registered(Duration::from_secs(60)).await?;
    let relay = Relay::start(ServeConfig {
        dist: dist.clone(),
        poller: PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: vec![],
            refresh_interval: Duration::from_secs(3600),
            ..PollerConfig::default()
        },
        ..ServeConfig::default()
    })
    .await?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while relay.directory.progress().finished < SERVERS as u32 {
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "the fleet never answered"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let driver = browser::Driver::start().await?;
    let client = driver.browser(1400, 900).await?;
    client.goto(&format!("http://{}/", relay.addr)).await?;
    // Load: navigation start to the full list on screen (wasm, WebSocket, JSON, render).
    listed(&client).await?;
    let load_ms = client.execute("return performance.now();", vec![]).await?;
    // From the page's code taking its feed (which index.html opened while the code loaded) to
    // the first rows on screen, and the parts before the list's bytes and its decoding.
    let list_after_feed_ms = client
        .execute(
            "const t = n => performance.getEntriesByName(n)[0].startTime; \
             return t('muster-list-shown') - t('muster-feed-open');",
            vec![],
        )
        .await?;
    let list_bytes_ms = client
        .execute(
            "const t = n => performance.getEntriesByName(n)[0].startTime; \
             return t('muster-list-bytes') - t('muster-feed-open');",
            vec![],
        )
        .await?;
    let list_decoded_ms = client
        .execute(
            "const t = n => performance.getEntriesByName(n)[0].startTime; \
             return t('muster-list') - t('muster-feed-open');",
            vec![],
        )
        .await?;
    // Full list: from an empty list (a search nothing matches) to all 5,000, sorted.
    let full_list_ms = client
        .execute_async_wrap(MEASURE, vec!["zzzz-nothing".into(), "".into(), RUNS.into()])
        .await?;
    // Keystroke: one more character in a search over every name, map and player.
    let keystroke_ms = client
        .execute_async_wrap(
            MEASURE,
            vec!["mp_".into(), "mp_u".into(), KEYSTROKES.into()],
        )
        .await?;
    client.close().await?;
    // A fresh browser on a throttled link: 1 Mbit/s each way, 40 ms of latency, nothing
    // cached. Navigation start to the whole list on screen.
    let slow = driver.browser(1400, 900).await?;
    slow.issue_cmd(browser::network_conditions(40, 125_000))
        .await?;
    slow.goto(&format!("http://{}/", relay.addr)).await?;
    listed(&slow).await?;
    let throttled_ms = slow.execute("return performance.now();", vec![]).await?;
    // Where the throttled time went: the wasm's arrival, then the feed's list.
    let throttled_parts = slow
        .execute(
            "const t = n => (performance.getEntriesByName(n)[0] || {}).startTime; \
             const wasm = performance.getEntriesByType('resource') \
               .find(r => r.name.endsWith('.wasm')); \
             return { wasm_end_ms: wasm && wasm.responseEnd, \
                      feed_early_ms: t('muster-feed-early'), list_early_ms: t('muster-list-early'), \
                      feed_open_ms: t('muster-feed-open'), list_bytes_ms: t('muster-list-bytes'), \
                      list_ms: t('muster-list'), list_shown_ms: t('muster-list-shown') };",
            vec![],
        )
        .await?;
    slow.close().await?;

    // Visits on emulated links, each in a fresh browser: a first visit, then a repeat one.
    let url = format!("http://{}/", relay.addr);
    let mut visits = serde_json::Map::new();
    for (screen, width, height) in SCREENS {
        for (link, latency_ms, bytes_per_second) in LINKS {
            let client = driver.device(width, height, true).await?;
            client
                .issue_cmd(browser::network_conditions(latency_ms, bytes_per_second))
                .await?;
            let mut first = visit(&client, &url).await?;
            first["detail_after_click_ms"] = client.execute_async_wrap(DETAIL, vec![]).await?;
            let repeat = visit(&client, &url).await?;
            client.close().await?;
            visits.insert(
                format!("{screen}_{link}"),
                json!({ "first": first, "repeat": repeat }),
            );
        }
    }
    drop(driver);
    let visits = Value::Object(visits);
    let worst = |link: &str, figure: &str| {
        SCREENS
            .iter()
            .filter_map(|(screen, ..)| visits[format!("{screen}_{link}")]["first"][figure].as_f64())
            .fold(0.0f64, f64::max)
    };
    let first_visit_kb = (worst("1mbit", "http_bytes") / 1024.0 * 10.0).round() / 10.0;
    // A repeat visit takes the page's HTML (its first screen changes with the list) and no
    // other file of the page: each is kept by the browser under its content's name. (The
    // relay's data, like the history chart under `/api/`, is the list's own, as the feed is.)
    let repeat_over_html = visits
        .as_object()
        .into_iter()
        .flat_map(|v| v.values())
        .map(|v| {
            let files = v["repeat"]["files"].as_array().cloned().unwrap_or_default();
            files
                .iter()
                .filter(|f| !f[0].as_str().unwrap_or_default().starts_with("/api/"))
                .map(|f| f[1].as_i64().unwrap_or(0))
                .sum::<i64>()
        })
        .max()
        .unwrap_or(0);

    // What a visitor loads, apart from the session worker a page fetches only for Join check
    // or Watch directly.
    let (mut wasm, mut js, mut worker) = (0, 0, 0);
    for entry in std::fs::read_dir(&dist)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match path.extension().and_then(|e| e.to_str()) {
            Some("wasm" | "js") if name.starts_with("muster-session") => worker += gzipped(&path),
            Some("wasm") => wasm += gzipped(&path),
            Some("js") => js += gzipped(&path),
            _ => {}
        }
    }
    // The side panels: their own download, when first reached for.
    let mut panels = 0;
    for entry in std::fs::read_dir(dist.join("panels"))? {
        let path = entry?.path();
        if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wasm" | "js")
        ) {
            panels += gzipped(&path);
        }
    }
    let round = |v: &Value| v.as_f64().map(|f| (f * 100.0).round() / 100.0);
    println!(
        "{}",
        json!({
            "bench": "page",
            "servers": SERVERS,
            "load_ms": round(&load_ms),
            "list_after_feed_open_ms": round(&list_after_feed_ms),
            "list_bytes_after_feed_open_ms": round(&list_bytes_ms),
            "list_decoded_after_feed_open_ms": round(&list_decoded_ms),
            "throttled_1mbit_list_ms": round(&throttled_ms),
            "throttled_1mbit_parts": throttled_parts,
            "full_list_render_ms": round(&full_list_ms["median"]),
            "keystroke_to_list_ms": round(&keystroke_ms["median"]),
            "keystroke_p95_ms": round(&keystroke_ms["p95"]),
            "visits": visits,
            "first_visit_kb": first_visit_kb,
            "repeat_visit_over_html_bytes": repeat_over_html,
            "wasm_gzip_bytes": wasm,
            "session_worker_gzip_bytes": worker,
            "panels_gzip_bytes": panels,
            "js_gzip_bytes": js,
            "total_gzip_kb": ((wasm + js) as f64 / 1024.0 * 10.0).round() / 10.0,
            "goals": {
                "list_after_feed_open_ms": 200, "throttled_1mbit_list_ms": 3000,
                "full_list_render_ms": 100, "keystroke_p95_ms": 16, "total_gzip_kb": 250,
                "names_readable_1mbit_ms": 1000, "interactive_1mbit_ms": 2500,
                "first_visit_kb": 250, "repeat_visit_over_html_bytes": 0,
            },
            "met": {
                "names_readable_1mbit": worst("1mbit", "names_readable_ms") <= 1000.0,
                "interactive_1mbit": worst("1mbit", "interactive_ms") <= 2500.0,
                "first_visit": first_visit_kb <= 250.0,
                "repeat_visit": repeat_over_html <= 0,
                "keystroke": keystroke_ms["p95"].as_f64().unwrap_or(f64::MAX) < 16.0,
                "total_gzip": ((wasm + js) as f64 / 1024.0) <= 250.0,
            },
        })
    );
    Ok(())
}

/// Waits until the page lists the whole fleet.
async fn listed(client: &fantoccini::Client) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let summary = match client.find(Locator::Css("[data-testid=summary]")).await {
            Ok(e) => e.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if summary.ends_with(&format!("{SERVERS} shown")) {
            return Ok(());
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "the page never listed the fleet: {summary}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Opens the page and waits until it lists the fleet; its [`VISIT`] figures.
async fn visit(client: &fantoccini::Client, url: &str) -> anyhow::Result<Value> {
    client.goto(url).await?;
    listed(client).await?;
    client.execute_async_wrap(VISIT, vec![]).await
}

/// fantoccini's `execute_async` passes a callback as the last argument; this wraps a script
/// that returns a promise.
trait ExecuteAsyncWrap {
    async fn execute_async_wrap(&self, script: &str, args: Vec<Value>) -> anyhow::Result<Value>;
}

impl ExecuteAsyncWrap for fantoccini::Client {
    async fn execute_async_wrap(&self, script: &str, args: Vec<Value>) -> anyhow::Result<Value> {
        let wrapped = format!(
            "const done = arguments[arguments.length - 1]; \
             (async function() {{ {script} }}).apply(null, Array.from(arguments).slice(0, -1)).then(done);"
        );
        Ok(self.execute_async(&wrapped, args).await?)
    }
}
