//! `cargo xtask bench page`: a 5,000-server lab fleet behind the relay, the page in headless
//! Chromium, and three figures: the render of the full list, the time from a keystroke in the
//! search box to the updated list, and the page's wasm + JS size gzipped. The last line printed
//! is one JSON object.

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
return times[Math.floor(times.length / 2)];
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
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let summary = match client.find(Locator::Css("[data-testid=summary]")).await {
            Ok(e) => e.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if summary.ends_with(&format!("{SERVERS} shown")) {
            break;
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "the page never listed the fleet: {summary}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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
        .execute_async_wrap(MEASURE, vec!["mp_".into(), "mp_u".into(), RUNS.into()])
        .await?;
    client.close().await?;
    // A fresh browser on a throttled link: 1 Mbit/s each way, 40 ms of latency, nothing
    // cached. Navigation start to the whole list on screen.
    let slow = driver.browser(1400, 900).await?;
    slow.issue_cmd(NetworkConditions {
        latency_ms: 40,
        bytes_per_second: 125_000,
    })
    .await?;
    slow.goto(&format!("http://{}/", relay.addr)).await?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let shown = slow.find(Locator::Css("[data-testid=summary]")).await.ok();
        let text = match shown {
            Some(e) => e.text().await.unwrap_or_default(),
            None => String::new(),
        };
        if text.ends_with(&format!("{SERVERS} shown")) {
            break;
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "the throttled page never listed the fleet: {text}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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
    drop(driver);

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
            "full_list_render_ms": round(&full_list_ms),
            "keystroke_to_list_ms": round(&keystroke_ms),
            "wasm_gzip_bytes": wasm,
            "session_worker_gzip_bytes": worker,
            "js_gzip_bytes": js,
            "total_gzip_kb": ((wasm + js) as f64 / 1024.0 * 10.0).round() / 10.0,
            "goals": {
                "list_after_feed_open_ms": 200, "throttled_1mbit_list_ms": 3000,
                "full_list_render_ms": 100, "keystroke_to_list_ms": 16, "total_gzip_kb": 300,
            },
        })
    );
    Ok(())
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

/// chromedriver's network emulation (`POST /session/{id}/chromium/network_conditions`).
#[derive(Debug)]
struct NetworkConditions {
    latency_ms: u32,
    bytes_per_second: u32,
}

impl fantoccini::wd::WebDriverCompatibleCommand for NetworkConditions {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/chromium/network_conditions",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = json!({"network_conditions": {
            "offline": false,
            "latency": self.latency_ms,
            "download_throughput": self.bytes_per_second,
            "upload_throughput": self.bytes_per_second,
        }});
        (http::Method::POST, Some(body.to_string()))
    }
}
