//! The page in headless Chromium, loaded from the relay, fed by a lab fleet: it must list every
//! server with its player count and open one to show its players and settings. Screenshots land
//! in target/screenshots for a person to look at. Run by `cargo xtask test`, which builds the
//! page and installs Chromium and its driver.

mod common;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{lab_config, start_relay};
use fantoccini::{Client, ClientBuilder, Locator};
use lab::Lab;
use protocol::cod::text::strip;

const LIMIT: Duration = Duration::from_secs(30);

/// chromedriver on a free loopback port; killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A test that failed before closing its session leaves Chromium behind chromedriver:
        // end it by its profile, so it cannot slow the tests after it.
        let _ = Command::new("pkill")
            .args(["-f", &profile_dir(&self.url).display().to_string()])
            .status();
    }
}

/// The Chromium profile of the browser a driver starts.
fn profile_dir(driver_url: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "muster-chromium-{}-{}",
        std::process::id(),
        driver_url.rsplit(':').next().unwrap_or_default()
    ))
}

async fn start_driver() -> Driver {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver runs (cargo xtask test installs chromium-driver)");
    let deadline = tokio::time::Instant::now() + LIMIT;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "chromedriver never listened"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    }
}

async fn browser(driver: &Driver, width: u32, height: u32) -> Client {
    // One profile per browser: tests in this file run side by side.
    let profile = profile_dir(&driver.url);
    let _ = std::fs::remove_dir_all(&profile);
    let capabilities = serde_json::json!({
        "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            // The watch-list test needs notifications allowed, as a user would allow them.
            "prefs": { "profile.default_content_setting_values.notifications": 1 },
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                format!("--window-size={width},{height}"),
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    let serde_json::Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    ClientBuilder::rustls()
        .expect("TLS roots load")
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("Chromium starts under chromedriver")
}

/// Chromium at `width` x `height` on the relay's page; keep the driver while the page is used.
async fn open_page(relay: &relay::Relay, width: u32, height: u32) -> (Driver, Client) {
    let driver = start_driver().await;
    let client = browser(&driver, width, height).await;
    client
        .goto(&format!("http://{}/", relay.addr))
        .await
        .unwrap();
    (driver, client)
}

/// Polls `check` until it yields a value, or fails after [`LIMIT`] with what it last saw.
async fn eventually<T>(what: &str, mut check: impl AsyncFnMut() -> Result<T, String>) -> T {
    let deadline = tokio::time::Instant::now() + LIMIT;
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

async fn text_of(client: &Client, css: &str) -> Result<String, String> {
    let element = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| e.to_string())?;
    element.text().await.map_err(|e| e.to_string())
}

async fn screenshot(client: &Client, name: &str) {
    let dir = std::env::var_os("MUSTER_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("muster-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    let png = client.screenshot().await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(dir.join(name), png).unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_page_lists_every_lab_server_and_opens_one() {
    assert!(
        common::dist().join("index.html").exists(),
        "MUSTER_DIST must point at the page built by trunk"
    );
    let lab = Lab::start(lab_config(10, 4)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;

    eventually("the summary shows every server answering", async || {
        let summary = text_of(&client, "[data-testid=summary]").await?;
        (summary == "10 servers, 10 answering, 10 shown")
            .then_some(())
            .ok_or(summary)
    })
    .await;
    let rows = client
        .find_all(Locator::Css("[data-testid=server-row]"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 10);
    for row in &rows {
        let addr = row
            .attr("data-addr")
            .await
            .unwrap()
            .expect("row has data-addr");
        let server = lab
            .servers
            .iter()
            .find(|s| s.addr.to_string() == addr)
            .expect("every row is a lab server");
        let profile = server.snapshot();
        let players = row
            .find(Locator::Css("[data-testid=players]"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(
            players,
            format!("{}/{}", profile.clients(), profile.public_slots())
        );
        let text = row.text().await.unwrap();
        assert!(text.contains(&strip(&profile.hostname)), "{text}");
        assert!(text.contains(&profile.mapname), "{text}");
    }
    let master = text_of(&client, "[data-testid=master]").await.unwrap();
    assert!(master.contains("10 servers"), "{master}");
    screenshot(&client, "list.png").await;

    // Open the busiest server: its players and settings appear beside the list.
    let busiest = lab
        .servers
        .iter()
        .max_by_key(|s| s.snapshot().clients())
        .unwrap();
    let profile = busiest.snapshot();
    client
        .find(Locator::Css(&format!("tr[data-addr=\"{}\"]", busiest.addr)))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let name = eventually("the detail shows the server", async || {
        text_of(&client, "[data-testid=detail-name]").await
    })
    .await;
    assert_eq!(name, strip(&profile.hostname));
    // The page told the relay what it shows, so that server is refreshed more often.
    eventually("the relay knows the page watches the server", async || {
        let watched = relay.directory.watched();
        (watched == [busiest.addr.to_string()].into())
            .then_some(())
            .ok_or(format!("{watched:?}"))
    })
    .await;
    // Read in one step: the watched server's detail re-renders as its refreshes land.
    let seen: Vec<String> = serde_json::from_value(
        client
            .execute(
                "return [...document.querySelectorAll('[data-testid=player-row]')].map(r => r.innerText);",
                vec![],
            )
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(seen.len(), profile.players.len());
    for player in &profile.players {
        assert!(
            seen.iter().any(|row| row.starts_with(&strip(&player.name))),
            "{} missing from {seen:?}",
            player.name
        );
    }
    // The tuning panel: stock settings against the lab's sv_maxRate 25000 on a stock 20 Hz
    // server give rate-delayed worst-case snapshots, 10 a second.
    let clocks = client
        .find_all(Locator::Css(
            "[data-testid=tuning-panel] [data-testid=clock]",
        ))
        .await
        .unwrap();
    assert_eq!(clocks.len(), 4);
    let snapshots = clocks[3].text().await.unwrap();
    assert!(
        snapshots.contains("10.0/s") && snapshots.contains("rate-delayed"),
        "{snapshots}"
    );
    let cvars = text_of(&client, "[data-testid=cvars-table]").await.unwrap();
    assert!(cvars.contains("sv_hostname"), "{cvars}");
    assert!(
        cvars.contains(&format!("mapname {}", profile.mapname)),
        "{cvars}"
    );
    // Refresh now: the page's own getinfo and getstatus through the bridge, decoded in wasm.
    let api_bridge = format!("http://{}/api/bridge", relay.addr);
    client
        .find(Locator::Css("[data-testid=refresh-now]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let refreshed = eventually("Refresh now answers", async || {
        match text_of(&client, "[data-testid=refresh-failed]").await {
            Ok(failed) => Err(failed),
            Err(_) => text_of(&client, "[data-testid=refreshed]").await,
        }
    })
    .await;
    assert!(
        refreshed.starts_with("answered in ")
            && refreshed.ends_with(&format!(
                "ms through the bridge: {}, {}/{} players",
                profile.mapname,
                profile.clients(),
                profile.public_slots()
            )),
        "{refreshed}"
    );
    let bridge: serde_json::Value = reqwest::get(&api_bridge)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(bridge["datagrams_to_targets"], 2, "{bridge}");
    assert_eq!(bridge["datagrams_from_targets"], 2, "{bridge}");
    screenshot(&client, "detail.png").await;

    // The tuning page: the balanced profile on a 30 Hz server is clean, and it survives a reload.
    client
        .goto(&format!("http://{}/#tuning", relay.addr))
        .await
        .unwrap();
    for (id, value) in [
        ("com_maxfps", "125"),
        ("cl_maxpackets", "62"),
        ("rate", "50000"),
        ("snaps", "30"),
        ("sv_fps", "30"),
    ] {
        set_input(&client, id, value).await;
    }
    let rates = eventually("the clocks follow the settings", async || {
        let mut rates = Vec::new();
        for clock in client
            .find_all(Locator::Css("[data-testid=tuning-page] .clock-rate"))
            .await
            .map_err(|e| e.to_string())?
        {
            rates.push(clock.text().await.map_err(|e| e.to_string())?);
        }
        (rates == ["125.0/s", "62.5/s", "30.3/s", "30.3/s"])
            .then_some(rates.clone())
            .ok_or(format!("{rates:?}"))
    })
    .await;
    assert_eq!(rates.len(), 4);
    text_of(&client, "[data-testid=advice-none]").await.unwrap();
    screenshot(&client, "tuning.png").await;
    client.refresh().await.unwrap();
    eventually("settings survive a reload", async || {
        let value = client
            .find(Locator::Id("cl_maxpackets"))
            .await
            .map_err(|e| e.to_string())?
            .prop("value")
            .await
            .map_err(|e| e.to_string())?;
        (value.as_deref() == Some("62"))
            .then_some(())
            .ok_or(format!("{value:?}"))
    })
    .await;
    client.close().await.unwrap();
}

/// Types a value into a number input the way a user's edit lands: value, then an input event.
async fn set_input(client: &Client, id: &str, value: &str) {
    client
        .execute(
            "const el = document.getElementById(arguments[0]); el.value = arguments[1]; \
             el.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![id.into(), value.into()],
        )
        .await
        .unwrap();
}

/// The page's order of the rendered rows, read in one step (rows are replaced as updates land).
async fn row_addrs(client: &Client) -> Result<Vec<String>, String> {
    let addrs = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=server-row]')].map(r => r.dataset.addr);",
            vec![],
        )
        .await
        .map_err(|e| e.to_string())?;
    serde_json::from_value(addrs).map_err(|e| e.to_string())
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn filters_sorting_and_search_match_the_browse_model_and_live_in_the_url() {
    use protocol::browse::View;
    let lab = Lab::start(lab_config(30, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(600)).await;
    let directory = relay.directory.clone();
    eventually("every server answered", async || {
        let online = directory
            .servers()
            .iter()
            .filter(|s| s.reachability == protocol::relay_api::Reachability::Online)
            .count();
        (online == 30).then_some(()).ok_or(online.to_string())
    })
    .await;
    let servers = directory.servers();
    let a_player = strip(&lab.servers[3].snapshot().players[0].name).to_lowercase();
    let gametype = servers[0].gametype.clone();
    let driver = start_driver().await;
    let client = browser(&driver, 1400, 900).await;
    let queries = [
        String::new(),
        "sort=name&order=asc".into(),
        "sort=ping&order=asc".into(),
        "sort=map&order=desc".into(),
        "sort=mod&order=asc".into(),
        "sort=gametype&order=asc".into(),
        format!("gametype={gametype}"),
        "empty=0&full=0".into(),
        "password=no&pb=yes".into(),
        "pure=yes&killcam=yes&ff=no".into(),
        "jeeps=yes&tanks=no&mod=no&dedicated=yes".into(),
        "ping=0".into(),
        format!("q={}", a_player.replace(' ', "%20")),
    ];
    for query in &queries {
        let view = View::from_query(query);
        let expected: Vec<String> = view
            .apply(&servers)
            .iter()
            .map(|s| s.addr.clone())
            .collect();
        client
            .goto(&format!("http://{}/?{query}", relay.addr))
            .await
            .unwrap();
        let shown = eventually(&format!("the page shows ?{query}"), async || {
            let summary = text_of(&client, "[data-testid=summary]").await?;
            if !summary.ends_with(&format!("{} shown", expected.len()))
                || !summary.starts_with("30 servers")
            {
                return Err(summary);
            }
            row_addrs(&client).await
        })
        .await;
        assert!(!shown.is_empty() || expected.is_empty());
        assert_eq!(shown, expected[..shown.len()], "order for ?{query}");
    }

    // Clicking a header sorts and writes the view into the URL; a reload restores it.
    client
        .goto(&format!("http://{}/", relay.addr))
        .await
        .unwrap();
    eventually("rows", async || {
        row_addrs(&client).await.and_then(|r| {
            if r.is_empty() {
                Err("none".into())
            } else {
                Ok(())
            }
        })
    })
    .await;
    client
        .find(Locator::Css("button[data-sort=name]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    set_input(&client, "search", "mp_").await;
    let url = eventually("the URL holds the view", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        let query = url.query().unwrap_or_default().to_owned();
        (query.contains("sort=name") && query.contains("q=mp_"))
            .then_some(query.clone())
            .ok_or(query)
    })
    .await;
    client.refresh().await.unwrap();
    let restored = eventually("the view survives a reload", async || {
        let value = client
            .find(Locator::Id("search"))
            .await
            .map_err(|e| e.to_string())?
            .prop("value")
            .await
            .map_err(|e| e.to_string())?;
        (value.as_deref() == Some("mp_"))
            .then_some(())
            .ok_or(format!("{value:?}"))
    })
    .await;
    assert_eq!(restored, ());
    let expected: Vec<String> = View::from_query(&url)
        .apply(&servers)
        .iter()
        .map(|s| s.addr.clone())
        .collect();
    let shown = eventually("sorted by name after the reload", async || {
        let rows = row_addrs(&client).await?;
        (rows.len() >= 10 && rows == expected[..rows.len()])
            .then_some(rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert!(!shown.is_empty());
    screenshot(&client, "sorted.png").await;

    // Phone width: the same page, one column.
    client.set_window_size(390, 844).await.unwrap();
    screenshot(&client, "phone.png").await;
    client.close().await.unwrap();
}

async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn favorites_recent_find_player_and_the_watch_list() {
    let lab = Lab::start(lab_config(8, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(600)).await;
    let driver = start_driver().await;
    let client = browser(&driver, 1400, 900).await;
    let url = format!("http://{}/", relay.addr);
    client.goto(&url).await.unwrap();
    let all_rows = async || {
        let rows = row_addrs(&client).await?;
        if rows.len() == 8 {
            Ok(rows)
        } else {
            Err(format!("{rows:?}"))
        }
    };
    eventually("every server listed", all_rows).await;
    let favorite = lab.servers[2].addr.to_string();
    let viewed = lab.servers[4].addr.to_string();

    // A favorite survives a reload.
    click(
        &client,
        &format!("tr[data-addr=\"{favorite}\"] [data-testid=star]"),
    )
    .await;
    client.refresh().await.unwrap();
    eventually("every server listed again", all_rows).await;
    click(&client, "button[data-tab=Favorites]").await;
    let shown = eventually("only the favorite", async || {
        let rows = row_addrs(&client).await?;
        (rows == [favorite.clone()])
            .then_some(rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert_eq!(shown.len(), 1);

    // Recently viewed: the server just opened.
    click(&client, "button[data-tab='All servers']").await;
    click(&client, &format!("tr[data-addr=\"{viewed}\"]")).await;
    click(&client, "button[data-tab='Recently viewed']").await;
    eventually("the viewed server is recent", async || {
        let rows = row_addrs(&client).await?;
        (rows == [viewed.clone()])
            .then_some(())
            .ok_or(format!("{rows:?}"))
    })
    .await;

    // Find player: part of a name, any case, colours ignored.
    let player = lab.servers[5]
        .snapshot()
        .players
        .iter()
        .find(|p| !p.bot)
        .map(|p| strip(&p.name))
        .expect("a human on server 5");
    let part: String = player.to_uppercase().chars().take(4).collect();
    set_input(&client, "find-player", &part).await;
    let target = lab.servers[5].addr.to_string();
    eventually("the player is found on their server", async || {
        let found = client
            .find_all(Locator::Css("[data-testid=found-player]"))
            .await
            .map_err(|e| e.to_string())?;
        let mut addrs = Vec::new();
        for f in found {
            addrs.push(
                f.attr("data-addr")
                    .await
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default(),
            );
        }
        addrs
            .contains(&target)
            .then_some(())
            .ok_or(format!("{addrs:?}"))
    })
    .await;

    // Watch list: with notifications allowed, watching a name that is online raises a browser
    // notification and a toast linking to the server.
    let permission = client
        .execute("return Notification.permission;", vec![])
        .await
        .unwrap();
    assert_eq!(permission, "granted");
    client
        .execute(
            "window.__notified = []; const Original = window.Notification; \
             window.Notification = class extends Original { \
               constructor(title, options) { super(title, options); window.__notified.push(title); } }; \
             Object.defineProperty(window.Notification, 'permission', { get: () => Original.permission });",
            vec![],
        )
        .await
        .unwrap();
    set_input(&client, "watch-name", &player).await;
    click(&client, "#watch-name + button").await;
    let toast = eventually("a toast for the watched name", async || {
        text_of(&client, "[data-testid=toast]").await
    })
    .await;
    assert!(toast.contains(&player), "{toast}");
    let notified = client
        .execute("return window.__notified;", vec![])
        .await
        .unwrap();
    assert_eq!(notified[0], format!("{player} is playing").as_str());
    screenshot(&client, "watch.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn live_updates_keep_scroll_selection_and_typed_text_and_keys_move_the_selection() {
    use fantoccini::key::Key;
    let lab = Lab::start(lab::LabConfig {
        churn: Some(Duration::from_millis(100)),
        ..lab_config(60, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(1)).await;
    let (_driver, client) = open_page(&relay, 1400, 700).await;
    // Sorted by name, rows keep their places while their cells update (by player count, the
    // churn would move the chosen row out of the rendered window).
    client
        .goto(&format!("http://{}/?sort=name", relay.addr))
        .await
        .unwrap();
    eventually("the fleet is listed", async || {
        let summary = text_of(&client, "[data-testid=summary]").await?;
        summary
            .starts_with("60 servers, 60 answering")
            .then_some(())
            .ok_or(summary)
    })
    .await;
    set_input(&client, "max-ping", "999").await;
    let scrolled = client
        .execute(
            "const el = document.querySelector('.table-scroll'); el.scrollTop = 320; \
             el.dispatchEvent(new Event('scroll')); return el.scrollTop;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(scrolled, 320);
    let rows = eventually("rows after the scroll", async || {
        let rows = row_addrs(&client).await?;
        (rows.len() > 12)
            .then_some(rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    let chosen = rows[12].clone();
    client
        .execute(
            "document.querySelector(`tr[data-addr='${arguments[0]}']`).click();",
            vec![chosen.clone().into()],
        )
        .await
        .unwrap();
    // Several refreshes come in (scores and counts change every 100 ms, refreshes every 1 s).
    // Selecting may scroll the row fully into view; from here on only updates arrive.
    let scroll = client
        .execute(
            "return document.querySelector('.table-scroll').scrollTop;",
            vec![],
        )
        .await
        .unwrap();
    assert!(scroll.as_f64().unwrap() >= 300.0, "{scroll}");
    let updated = || relay.directory.server(&chosen).and_then(|s| s.updated_ms);
    let before = updated();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_ne!(updated(), before, "updates kept arriving");
    let state = client
        .execute(
            "return [document.querySelector('.table-scroll').scrollTop, \
                     document.getElementById('max-ping').value, \
                     document.querySelector('tr.selected')?.dataset.addr];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(state[0], scroll, "scroll position kept");
    assert_eq!(state[1], "999", "typed text kept");
    assert_eq!(state[2], chosen.as_str(), "selection kept");

    // Arrow keys move the selection along the list as shown.
    let order = row_addrs(&client).await.unwrap();
    let at = order.iter().position(|a| *a == chosen).unwrap();
    // The selected row may be replaced by an update between finding it and typing: try again.
    eventually("the key reaches the selected row", async || {
        let row = client
            .find(Locator::Css("tr.selected"))
            .await
            .map_err(|e| e.to_string())?;
        row.send_keys(&Key::Down.to_string())
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    let moved = eventually("ArrowDown selects the next server", async || {
        let selected = client
            .execute(
                "return document.querySelector('tr.selected')?.dataset.addr;",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let next = row_addrs(&client).await?;
        (selected.as_str().is_some_and(|s| s != chosen))
            .then(|| (selected.as_str().unwrap_or_default().to_owned(), next))
            .ok_or(format!("{selected}"))
    })
    .await;
    let next_in_order = &order[at + 1];
    // Counts change while we look, so the order may shift by a place; the selection moved on.
    assert!(
        moved.0 == *next_in_order || moved.1.contains(&moved.0),
        "{moved:?}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_page_shows_the_configured_wulfram_servers() {
    // One server that accepts TCP (a Wulfram II port), one that nothing listens on.
    let listening = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up = listening.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listening.accept().await {
            drop(stream);
        }
    });
    let down = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: common::dist(),
        poller: relay::PollerConfig {
            masters: vec![],
            lan: vec![],
            ..relay::PollerConfig::default()
        },
        wulfram: relay::wulfram::WulframConfig {
            targets: vec![
                relay::wulfram::parse_target(&format!("arena={up}"))
                    .await
                    .unwrap(),
                relay::wulfram::parse_target(&format!("old-box={down}"))
                    .await
                    .unwrap(),
            ],
            check_every: Duration::from_millis(500),
        },
        ..relay::ServeConfig::default()
    })
    .await
    .unwrap();
    let (_driver, client) = open_page(&relay, 1400, 700).await;
    let rows = eventually("both Wulfram II servers are checked", async || {
        let rows = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=wulfram-server]')] \
                 .map(r => [...r.cells].map(c => c.textContent));",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).map_err(|e| e.to_string())?;
        (rows.len() == 2 && rows.iter().all(|r| r[2] != "checking…"))
            .then(|| rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert_eq!(
        rows[0][..3],
        ["arena".to_owned(), up.to_string(), "online".to_owned()]
    );
    assert!(rows[0][3].ends_with(" ms"), "{rows:?}");
    assert_eq!(
        rows[1][..4],
        [
            "old-box".to_owned(),
            down.to_string(),
            "unreachable".to_owned(),
            "-".to_owned()
        ]
    );
    screenshot(&client, "wulfram.png").await;
    client.close().await.unwrap();
}

/// The rows of the watch view's scoreboard: (name, team, x, y).
async fn watch_rows(client: &Client) -> Result<Vec<(String, String, i64, i64)>, String> {
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

/// Waits until the watch view's scoreboard lists exactly `roster` on the field; its rows then.
async fn scoreboard_lists(
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
        (&names == roster)
            .then_some(rows)
            .ok_or(format!("{names:?}"))
    })
    .await
}

async fn count(client: &Client, css: &str) -> usize {
    client
        .find_all(Locator::Css(css))
        .await
        .map(|v| v.len())
        .unwrap_or(0)
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_watch_view_shows_a_lab_match_moving_with_scoreboard_kills_and_chat() {
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = common::start_spectating_relay(
        &lab,
        relay::spectate::SpectateConfig {
            delay: Duration::ZERO,
            ..Default::default()
        },
    )
    .await;
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    // From the list: open the server, press Watch.
    let row = format!("[data-testid=server-row][data-addr=\"{addr}\"]");
    eventually("the server is listed", async || {
        (count(&client, &row).await == 1)
            .then_some(())
            .ok_or_else(|| "not yet".to_owned())
    })
    .await;
    click(&client, &row).await;
    click(&client, "[data-testid=watch]").await;
    let url = client.current_url().await.unwrap();
    assert_eq!(url.fragment(), Some(format!("/watch/{addr}").as_str()));
    let roster = lab.servers[0].snapshot().roster();
    let first = scoreboard_lists(&client, &roster).await;
    let status = text_of(&client, "[data-testid=watch-status]")
        .await
        .unwrap();
    assert_eq!(status, "live");
    assert_eq!(
        text_of(&client, "[data-testid=watch-delay]").await.unwrap(),
        "no delay"
    );
    assert_eq!(
        text_of(&client, "[data-testid=watch-viewers]")
            .await
            .unwrap(),
        "1 watching"
    );
    assert_eq!(
        text_of(&client, "[data-testid=watch-map]").await.unwrap(),
        lab.servers[0].snapshot().mapname
    );
    screenshot(&client, "watch-view-1.png").await;
    let before = client.screenshot().await.unwrap();
    let kills = count(&client, "[data-testid=kill]").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let moved = eventually("the dots move", async || {
        let rows = watch_rows(&client).await?;
        let moved = rows.iter().filter(|r| !first.contains(r)).count();
        (moved >= 3)
            .then_some(moved)
            .ok_or(format!("{moved} moved"))
    })
    .await;
    assert!(moved >= 3);
    let after = client.screenshot().await.unwrap();
    assert_ne!(before, after, "the map redraws as the match moves");
    screenshot(&client, "watch-view-2.png").await;
    eventually("the kill feed and chat grow", async || {
        let (k, c) = (
            count(&client, "[data-testid=kill]").await,
            count(&client, "[data-testid=chat]").await,
        );
        (k > kills && k >= 2 && c >= 1)
            .then_some(())
            .ok_or(format!("{k} kills, {c} chat"))
    })
    .await;
    // Clicking a scoreboard row follows and highlights that player.
    click(&client, "[data-testid=watch-player][data-team=axis]").await;
    eventually("the row is selected", async || {
        (count(&client, "[data-testid=watch-player].selected").await == 1)
            .then_some(())
            .ok_or_else(|| "none selected".to_owned())
    })
    .await;
    screenshot(&client, "watch-view-following.png").await;
    // The link reproduces the view in a fresh page; one session serves both.
    client
        .goto(&format!("http://{}/#/watch/{addr}", relay.addr))
        .await
        .unwrap();
    client.refresh().await.unwrap();
    eventually("a shared link opens the watch view", async || {
        let rows = watch_rows(&client).await?;
        (rows.len() > roster.len())
            .then_some(())
            .ok_or(format!("{} rows", rows.len()))
    })
    .await;
    assert_eq!(lab.servers[0].connects(), 1);
    // Close the browser: a watch view left open keeps drawing.
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn join_check_reports_a_free_slot_a_full_server_and_a_password_from_the_page_s_own_client() {
    let lab = Lab::start(lab_config(3, 4)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    // Before any session starts: one passworded, one full, one with room.
    for (i, server) in lab.servers.iter().enumerate() {
        let mut profile = server.profile.lock().unwrap();
        let slots = profile.public_slots() as usize;
        profile.password = i == 0;
        profile.players.truncate(slots.saturating_sub(2));
        let mut n = 0;
        while i == 1 && profile.players.len() < slots {
            n += 1;
            profile.players.push(lab::LabPlayer {
                name: format!("filler{n}"),
                score: 0,
                ping: 50,
                bot: false,
                spectator: false,
            });
        }
    }
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    common::wait_listed(&relay, &lab).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    let expected = [
        (
            "password",
            "a password is required (the server said \"GAME_INVALIDPASSWORD\")",
        ),
        (
            "full",
            "the server is full (the server said \"EXE_SERVERISFULL\")",
        ),
        ("free_slot", "a slot is free: you can join"),
    ];
    for (server, (kind, text)) in lab.servers.iter().zip(expected) {
        let row = format!("tr[data-addr=\"{}\"]", server.addr);
        eventually("the server is listed", async || {
            client
                .find(Locator::Css(&row))
                .await
                .map_err(|e| e.to_string())
        })
        .await
        .click()
        .await
        .unwrap();
        eventually("the detail shows the server", async || {
            let name = text_of(&client, "[data-testid=detail-name]").await?;
            let want = strip(&server.snapshot().hostname);
            (name == want).then_some(()).ok_or(name)
        })
        .await;
        let before = server.connects();
        client
            .find(Locator::Css("[data-testid=join-check]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let answer = eventually("Join check answers", async || {
            let element = client
                .find(Locator::Css("[data-testid=join-answer]"))
                .await
                .map_err(|e| e.to_string())?;
            let kind = element.attr("data-kind").await.map_err(|e| e.to_string())?;
            Ok::<_, String>((kind.unwrap_or_default(), element.text().await.unwrap()))
        })
        .await;
        assert_eq!(
            answer,
            (kind.to_owned(), text.to_owned()),
            "{}",
            server.addr
        );
        if kind == "free_slot" {
            assert_eq!(
                server.connects(),
                before + 1,
                "one connect, through the bridge"
            );
        }
    }
    screenshot(&client, "join-check.png").await;
    let bridge: serde_json::Value = reqwest::get(format!("http://{}/api/bridge", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        bridge["refused"].as_object().unwrap().is_empty(),
        "{bridge}"
    );
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn watch_directly_spectates_a_lab_match_with_the_page_s_own_client() {
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let api_bridge = format!("http://{}/api/bridge", relay.addr);
    let bridge = async || -> serde_json::Value {
        reqwest::get(&api_bridge)
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    };
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    client
        .goto(&format!("http://{}/#/watch-direct/{addr}", relay.addr))
        .await
        .unwrap();
    let roster = lab.servers[0].snapshot().roster();
    let first = scoreboard_lists(&client, &roster).await;
    assert_eq!(
        text_of(&client, "[data-testid=watch-status]")
            .await
            .unwrap(),
        "live"
    );
    assert_eq!(
        text_of(&client, "[data-testid=watch-delay]").await.unwrap(),
        "no delay"
    );
    eventually("the dots move", async || {
        let rows = watch_rows(&client).await?;
        let moved = rows.iter().filter(|r| !first.contains(r)).count();
        (moved >= 3).then_some(()).ok_or(format!("{moved} moved"))
    })
    .await;
    screenshot(&client, "watch-direct.png").await;
    // The page's own session through the bridge, not a hub.
    assert!(relay.hubs.list().is_empty());
    let counters = bridge().await;
    assert_eq!(counters["sessions"], 1, "{counters}");
    assert!(
        counters["refused"].as_object().unwrap().is_empty(),
        "{counters}"
    );
    // Leaving the view ends the session cleanly: the server frees the slot.
    client
        .goto(&format!("http://{}/#", relay.addr))
        .await
        .unwrap();
    eventually("the bridge session ends", async || {
        let c = bridge().await;
        (c["sessions"] == 0).then_some(()).ok_or(c.to_string())
    })
    .await;
}

/// A value the page holds in an attribute, read as a number.
async fn attr_number(client: &Client, css: &str, attr: &str) -> Result<i64, String> {
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

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_recorded_lab_demo_plays_in_the_page_with_seeking_and_the_kill_list() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay::Relay::start(relay::ServeConfig {
        operator_token: Some("operator-secret".into()),
        ..common::spectating_config(
            &lab,
            relay::spectate::SpectateConfig {
                delay: Duration::ZERO,
                recording: Some(relay::demos::RecordConfig {
                    dir: dir.path().into(),
                    max_bytes: 50_000_000,
                }),
                ..Default::default()
            },
        )
    })
    .await
    .unwrap();
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let (_driver, client) = open_page(&relay, 1400, 900).await;

    // The operator records from the watch view: the page asks for the token once.
    client
        .goto(&format!("http://{}/#/watch/{addr}", relay.addr))
        .await
        .unwrap();
    eventually("the Record button shows", async || {
        (count(&client, "[data-testid=record]").await == 1)
            .then_some(())
            .ok_or_else(|| "no button".to_owned())
    })
    .await;
    click(&client, "[data-testid=record]").await;
    client.send_alert_text("operator-secret").await.unwrap();
    client.accept_alert().await.unwrap();
    eventually("the recording shows", async || {
        let state = text_of(&client, "[data-testid=record-state]").await?;
        state.contains(".dm_3").then_some(()).ok_or(state)
    })
    .await;
    screenshot(&client, "watch-recording.png").await;
    tokio::time::sleep(Duration::from_secs(8)).await;
    click(&client, "[data-testid=record]").await;
    eventually("the recording stops", async || {
        let label = text_of(&client, "[data-testid=record]").await?;
        (label == "Record").then_some(()).ok_or(label)
    })
    .await;

    // The truth: the same file, decoded natively by the same protocol crate.
    let listed: serde_json::Value = eventually("the demo is listed", async || {
        let v: serde_json::Value = reqwest::get(format!("http://{}/api/demos", relay.addr))
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        (v["demos"].as_array().map_or(0, Vec::len) == 1)
            .then_some(v)
            .ok_or_else(|| "not yet".to_owned())
    })
    .await;
    let name = listed["demos"][0]["name"].as_str().unwrap().to_owned();
    let bytes = std::fs::read(dir.path().join(&name)).unwrap();
    let mut truth = protocol::cod::timeline::Timeline::open(bytes).unwrap();
    let summary = truth.summary().clone();
    assert!(summary.kills.len() >= 2, "{summary:?}");

    // From the demos page, pick the relay's recording.
    client
        .goto(&format!("http://{}/playback/#/demos", relay.addr))
        .await
        .unwrap();
    let link = format!("[data-testid=relay-demo][data-name=\"{name}\"] a");
    eventually("the recording is listed", async || {
        (count(&client, &link).await >= 1)
            .then_some(())
            .ok_or_else(|| "not listed".to_owned())
    })
    .await;
    click(&client, &link).await;
    eventually("the demo is decoded", async || {
        let status = text_of(&client, "[data-testid=watch-status]").await?;
        status.starts_with("demo ").then_some(()).ok_or(status)
    })
    .await;
    let kills: Vec<String> = eventually("the kill list is the demo's", async || {
        let found = client
            .find_all(Locator::Css("[data-testid=demo-kill]"))
            .await
            .map_err(|e| e.to_string())?;
        let mut texts = Vec::new();
        for k in found {
            texts.push(k.text().await.map_err(|e| e.to_string())?);
        }
        let shown = texts.len();
        (shown == summary.kills.len())
            .then_some(texts)
            .ok_or(format!("{shown} of {}", summary.kills.len()))
    })
    .await;
    for (text, kill) in kills.iter().zip(&summary.kills) {
        assert!(text.contains(&strip(&kill.victim)), "{text} vs {kill:?}");
    }
    let roster = lab.servers[0].snapshot().roster();
    scoreboard_lists(&client, &roster).await;
    // Playing at 4x runs the demo clock four times as fast as the wall's.
    click(&client, "[data-testid=demo-speed][data-speed=\"4\"]").await;
    let before = attr_number(&client, "[data-testid=demo-time]", "data-at")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let after = attr_number(&client, "[data-testid=demo-time]", "data-at")
        .await
        .unwrap();
    assert!(
        after - before >= 2500 || after as u32 >= summary.duration_ms - 100,
        "{before} -> {after}"
    );
    screenshot(&client, "demo-playing.png").await;

    // Paused, a seek lands on the snapshot the native timeline shows at that moment.
    click(&client, "[data-testid=demo-play]").await;
    eventually("paused", async || {
        let label = text_of(&client, "[data-testid=demo-play]").await?;
        (label == "Play").then_some(()).ok_or(label)
    })
    .await;
    for at in [summary.duration_ms / 3, summary.duration_ms * 4 / 5, 500] {
        client
            .execute(
                "const e = document.querySelector('[data-testid=demo-seek]');
                 e.value = arguments[0]; e.dispatchEvent(new Event('input'));",
                vec![serde_json::json!(at)],
            )
            .await
            .unwrap();
        truth.seek(at);
        let expected = i64::from(truth.view().server_time);
        eventually("the seek lands on the right server time", async || {
            let position = attr_number(&client, "[data-testid=demo-time]", "data-at").await?;
            let shown =
                attr_number(&client, "[data-testid=watch-clock]", "data-server-time").await?;
            (position == i64::from(at) && shown == expected)
                .then_some(())
                .ok_or(format!("{shown} vs {expected} at {position} for {at}"))
        })
        .await;
    }
    // A kill in the list jumps to just before it.
    let last = summary.kills.last().unwrap();
    click(&client, "[data-testid=demo-kill]:last-of-type").await;
    let target = i64::from(last.at_ms.saturating_sub(3000));
    eventually("the kill list jumps", async || {
        let at = attr_number(&client, "[data-testid=demo-time]", "data-at").await?;
        (at >= target && at < target + 3000)
            .then_some(())
            .ok_or(format!("{at} vs {target}"))
    })
    .await;

    // The same file opened from the file picker plays too.
    client
        .goto(&format!("http://{}/playback/#/demos", relay.addr))
        .await
        .unwrap();
    let input = eventually("the picker shows", async || {
        client
            .find(Locator::Css("[data-testid=demo-file]"))
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    input
        .send_keys(&dir.path().join(&name).display().to_string())
        .await
        .unwrap();
    eventually("the opened file plays", async || {
        let status = text_of(&client, "[data-testid=watch-status]").await?;
        status.contains(&name).then_some(()).ok_or(status)
    })
    .await;
    screenshot(&client, "demo-file.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_masters_panel_shows_the_relay_s_own_master() {
    let relay = relay::Relay::start(relay::ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        dist: common::dist(),
        poller: relay::PollerConfig {
            masters: vec![],
            lan: vec![],
            master_interval: Duration::from_secs(2),
            ..Default::default()
        },
        master: Some(relay::MasterListen {
            listen: "127.0.0.1:0".parse().unwrap(),
            config: protocol::cod::master_server::MasterConfig {
                allow_private: true,
                ..Default::default()
            },
            federate: vec![],
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    let master = relay.master.as_ref().unwrap().0.addr;
    let lab = Lab::start(lab::LabConfig {
        heartbeat: Duration::from_millis(500),
        heartbeat_to: vec![master],
        ..lab_config(3, 10)
    })
    .await
    .unwrap();
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    let own = format!("127.0.0.1:{}", master.port());
    eventually("the panel shows the relay's own master", async || {
        let text = text_of(&client, "[data-testid=master]").await?;
        (text.contains(&own) && text.contains("this relay's master: 3 registered"))
            .then_some(())
            .ok_or(text)
    })
    .await;
    eventually("the list shows its servers", async || {
        let rows = count(&client, "[data-testid=server-row]").await;
        (rows == 3).then_some(()).ok_or(format!("{rows} rows"))
    })
    .await;
    screenshot(&client, "own-master.png").await;
    client.close().await.unwrap();
    drop(lab);
}
