//! The page in headless Chromium, loaded from the relay, fed by a lab fleet, one file per view:
//! the server list, a server's detail and its Admin tab, the tuning page, the watch view and
//! the demo player.
//! Screenshots land in target/screenshots for a person to look at. Run by `cargo xtask test`,
//! which builds the page and installs Chromium and its driver.

#[path = "../common/browser.rs"]
mod browser;
#[path = "../common/mod.rs"]
mod common;

mod admin;
mod alerts;
mod audit;
mod countries;
mod demos;
mod detail;
mod first_screen;
mod highlights;
mod history;
mod keyboard;
mod languages;
mod list;
mod matches;
mod owners;
mod panels;
mod tuning;
mod watch;

pub(crate) use std::path::PathBuf;
pub(crate) use std::time::Duration;

pub(crate) use common::{lab_config, start_relay};
pub(crate) use fantoccini::{Client, Locator};
pub(crate) use lab::Lab;
pub(crate) use protocol::cod::text::strip;

pub(crate) const LIMIT: Duration = Duration::from_secs(30);

/// Chromium at `width` x `height` on the relay's page; keep the driver while the page is used.
pub async fn open_page(relay: &relay::Relay, width: u32, height: u32) -> (browser::Driver, Client) {
    let driver = browser::Driver::start().await.unwrap();
    let client = driver
        .browser(width, height)
        .await
        .expect("Chromium starts under chromedriver");
    client
        .goto(&format!("http://{}/", relay.addr))
        .await
        .unwrap();
    taken_over(&client).await;
    (driver, client)
}

/// A lab of `servers`, registered with its master, and a relay polling it.
pub async fn lab_and_relay(servers: usize, bots: usize) -> (Lab, relay::Relay) {
    assert!(
        common::dist().join("index.html").exists(),
        "MUSTER_DIST must point at the page built by trunk"
    );
    let lab = Lab::start(lab_config(servers, bots)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    (lab, relay)
}

/// One lab server hosting a ten-player match, registered with the lab master.
pub async fn one_match_lab() -> Lab {
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    lab
}

/// Waits until the list shows every one of `n` servers answering.
pub async fn every_server_answers(client: &Client, n: usize) {
    eventually("the summary shows every server answering", async || {
        let summary = text_of(client, "[data-testid=summary]").await?;
        (summary == format!("{n} servers, {n} answering, {n} shown"))
            .then_some(())
            .ok_or(summary)
    })
    .await;
}

/// Polls `check` until it yields a value, or fails after [`LIMIT`] with what it last saw.
pub async fn eventually<T>(what: &str, check: impl AsyncFnMut() -> Result<T, String>) -> T {
    eventually_within(LIMIT, what, check).await
}

/// [`eventually`] with its own limit, for what waits on the relay's next poll.
pub async fn eventually_within<T>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Result<T, String>,
) -> T {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match check().await {
            Ok(value) => return value,
            Err(last) if tokio::time::Instant::now() > deadline => {
                panic!("{what} never held; last: {last}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Waits until the relay's list has moved on `n` ticks from now (each sent to every page).
pub async fn ticks(relay: &relay::Relay, n: u64) {
    let target = relay.directory.seq() + n;
    eventually("the list moves on", async || {
        let seq = relay.directory.seq();
        (seq >= target)
            .then_some(())
            .ok_or(format!("tick {seq} of {target}"))
    })
    .await
}

/// Waits until the relay has refreshed the server at `addr` (its record's `updated_ms` moved)
/// and the page has drawn what came with it.
pub async fn record_refreshed(relay: &relay::Relay, client: &Client, addr: &str) {
    let addr = addr.parse().expect("a server address");
    let updated = || relay.directory.server(addr).and_then(|s| s.updated_ms);
    let before = updated();
    eventually("the server's record is refreshed", async || {
        (updated() != before)
            .then_some(())
            .ok_or("not yet".to_owned())
    })
    .await;
    ticks(relay, 1).await;
    settled(client).await;
}

/// Waits until the page is idle: what it was sent is drawn, and any work it would start on
/// its own has started (two frames, then the browser's idle callback).
pub async fn settled(client: &Client) {
    client
        .execute_async(
            "const done = arguments[arguments.length - 1];              requestAnimationFrame(() => requestAnimationFrame(() =>                requestIdleCallback(() => done(true), { timeout: 5000 })));",
            vec![],
        )
        .await
        .expect("the page answers");
}

/// Waits until the page's code has taken the relay's first screen's place.
pub async fn taken_over(client: &Client) {
    eventually("the page takes over from the first screen", async || {
        let gone = client
            .execute(
                "return !document.getElementById('first-screen') \
                 && !!document.getElementById('app') && !document.getElementById('app').hidden;",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        (gone == serde_json::Value::Bool(true))
            .then_some(())
            .ok_or(gone.to_string())
    })
    .await
}

pub async fn text_of(client: &Client, css: &str) -> Result<String, String> {
    let element = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| e.to_string())?;
    element.text().await.map_err(|e| e.to_string())
}

pub async fn screenshot(client: &Client, name: &str) {
    let dir = std::env::var_os("MUSTER_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("muster-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    let png = client.screenshot().await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(dir.join(name), png).unwrap();
}

/// Types a value into a number input the way a user's edit lands: value, then an input event.
pub async fn set_input(client: &Client, id: &str, value: &str) {
    type_into(client, &format!("#{id}"), value).await;
}

/// Sets the value of the input or text area `css` finds, then fires `input`, as typing does.
pub async fn type_into(client: &Client, css: &str, value: &str) {
    client
        .execute(
            "const el = document.querySelector(arguments[0]); el.value = arguments[1]; \
             el.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![css.into(), value.into()],
        )
        .await
        .unwrap();
}

/// The attribute `name` of the element `css`, if both are there.
pub async fn attr_of(client: &Client, css: &str, name: &str) -> Result<Option<String>, String> {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| e.to_string())?
        .attr(name)
        .await
        .map_err(|e| e.to_string())
}

/// Clicks the element once it is there, as a user would wait for it (the side panels come
/// with their own code, after the list). Found and clicked again if the page drew it anew in
/// between (a refresh re-renders rows and the detail): a stale element is not a failure.
pub async fn click(client: &Client, css: &str) {
    eventually(&format!("{css} is on the page and clicked"), async || {
        let element = client
            .find(Locator::Css(css))
            .await
            .map_err(|e| e.to_string())?;
        element.click().await.map_err(|e| e.to_string())
    })
    .await
}

/// Waits until the watch view's scoreboard lists exactly `roster` on the field; its rows then.
pub async fn scoreboard_lists(
    client: &Client,
    roster: &std::collections::BTreeSet<String>,
) -> Vec<(String, String, i64, i64)> {
    eventually("the scoreboard lists the server's players", async || {
        let rows = watch_rows(client).await?;
        let names: std::collections::BTreeSet<String> = rows
            .iter()
            .filter(|r| r.1 != "spectator")
            .map(|r| r.0.clone())
            .collect();
        if &names == roster {
            return Ok(rows);
        }
        // What the view says of its session tells a stalled join from a refused one.
        let state = text_of(client, "[data-testid=watch-status]").await;
        Err(format!("{names:?}, watch status {state:?}"))
    })
    .await
}

pub async fn count(client: &Client, css: &str) -> usize {
    client
        .find_all(Locator::Css(css))
        .await
        .map(|v| v.len())
        .unwrap_or(0)
}

/// A value the page holds in an attribute, read as a number.
pub async fn attr_number(client: &Client, css: &str, attr: &str) -> Result<i64, String> {
    let element = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| e.to_string())?;
    let value = element.attr(attr).await.map_err(|e| e.to_string())?;
    value
        .ok_or(format!("no {attr}"))?
        .parse::<i64>()
        .map_err(|e| e.to_string())
}

/// The rows of the watch view's scoreboard: (name, team, x, y).
pub async fn watch_rows(client: &Client) -> Result<Vec<(String, String, i64, i64)>, String> {
    let rows = client
        .find_all(Locator::Css("[data-testid=watch-player]"))
        .await
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for row in rows {
        let attr = |name: &'static str| {
            let row = row.clone();
            async move {
                row.attr(name)
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| format!("no {name}"))
            }
        };
        let x = attr("data-x").await?.parse().map_err(|_| "x")?;
        let y = attr("data-y").await?.parse().map_err(|_| "y")?;
        out.push((attr("data-name").await?, attr("data-team").await?, x, y));
    }
    Ok(out)
}

/// The relay's JSON answer at `path`.
pub async fn api<T: serde::de::DeserializeOwned>(
    relay: &relay::Relay,
    path: &str,
) -> Result<T, String> {
    let body = reqwest::get(format!("http://{}{path}", relay.addr))
        .await
        .map_err(|e| e.to_string())?
        .text()
        .await
        .map_err(|e| e.to_string())?;
    serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
}

/// The page's order of the rendered rows, read in one step (rows are replaced as updates land).
pub async fn row_addrs(client: &Client) -> Result<Vec<String>, String> {
    let addrs = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=server-row]')].map(r => r.dataset.addr);",
            vec![],
        )
        .await
        .map_err(|e| e.to_string())?;
    serde_json::from_value(addrs).map_err(|e| e.to_string())
}
