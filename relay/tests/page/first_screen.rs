//! The relay's first screen (the top of the list in `index.html`) and its plain list, as a
//! visitor meets them: with scripts off, and with the page's code taking over on a slow link,
//! on a phone (390x844) and a laptop (1366x850).

use std::collections::BTreeSet;

use protocol::browse::View;
use protocol::relay_api::Reachability;

use super::*;

const SIZES: [(u32, u32); 2] = [(390, 844), (1366, 850)];
/// The first screen's rows (`FIRST_ROWS` in `relay/src/browse/html.rs`).
const FIRST_ROWS: usize = 40;

/// A lab of `n` servers, every one answering the relay.
async fn answering(n: usize) -> (Lab, relay::Relay) {
    let (lab, relay) = lab_and_relay(n, 2).await;
    let directory = relay.directory.clone();
    eventually("every server answered", async || {
        let online = directory
            .servers()
            .iter()
            .filter(|s| s.reachability == Reachability::Online)
            .count();
        (online == n).then_some(()).ok_or(online.to_string())
    })
    .await;
    (lab, relay)
}

/// The list's default order, as the relay's directory holds it now.
fn default_order(relay: &relay::Relay) -> Vec<String> {
    View::default()
        .apply(&relay.directory.servers())
        .iter()
        .map(|s| s.addr.clone())
        .collect()
}

async fn attr_of(element: &fantoccini::elements::Element, name: &str) -> String {
    element.attr(name).await.unwrap().unwrap_or_default()
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn without_scripts_the_first_screen_and_the_plain_list_show_the_lab_s_servers() {
    let (lab, relay) = answering(150).await;
    let every: BTreeSet<String> = lab.servers.iter().map(|s| s.addr.to_string()).collect();
    let order = default_order(&relay);
    let driver = browser::Driver::start().await.unwrap();
    for (width, height) in SIZES {
        let client = driver.device(width, height, false).await.unwrap();
        client
            .goto(&format!("http://{}/", relay.addr))
            .await
            .unwrap();
        let rows = client
            .find_all(Locator::Css("#first-screen tr[data-addr]"))
            .await
            .unwrap();
        let mut addrs = Vec::new();
        let mut on_screen = 0;
        for row in &rows {
            addrs.push(attr_of(row, "data-addr").await);
            let (x, y, w, h) = row.rectangle().await.unwrap();
            if y + h <= f64::from(height) {
                on_screen += 1;
                // A row fits the screen's width: nothing to scroll sideways to.
                assert!(
                    x >= 0.0 && x + w <= f64::from(width) + 0.5,
                    "{width}: row {x}+{w}"
                );
            }
        }
        assert_eq!(
            addrs,
            order[..FIRST_ROWS],
            "{width}: the top of the list, in order"
        );
        // The first screen shows servers, not errors and filters.
        assert!(
            on_screen >= 8,
            "{width}: {on_screen} rows on the first screen"
        );
        let name = rows[0]
            .find(Locator::Css("td.name"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let server = lab
            .servers
            .iter()
            .find(|s| s.addr.to_string() == addrs[0])
            .unwrap();
        assert_eq!(name, strip(&server.snapshot().hostname));
        screenshot(&client, &format!("first-screen-noscript-{width}.png")).await;

        // The plain list, paged: every server once.
        // Followed by address: chromedriver's click waits on scripts that cannot run here.
        let plain = client
            .find(Locator::LinkText("Every server, as a plain list"))
            .await
            .expect("the <noscript> link shows with scripts off");
        let href = plain.prop("href").await.unwrap().unwrap();
        client.goto(&href).await.unwrap();
        screenshot(&client, &format!("plain-list-{width}.png")).await;
        let mut listed = Vec::new();
        let mut pages = 0;
        loop {
            pages += 1;
            for link in client
                .find_all(Locator::Css("[data-testid=plain-row] a[href^='/watch/']"))
                .await
                .unwrap()
            {
                // By its link: on a phone the address column gives way.
                let href = attr_of(&link, "href").await;
                listed.push(href.trim_start_matches("/watch/").to_owned());
            }
            match client.find(Locator::Css("nav a[rel=next]")).await {
                Ok(next) => {
                    let href = next.prop("href").await.unwrap().unwrap();
                    client.goto(&href).await.unwrap();
                }
                Err(_) => break,
            }
            assert!(pages < 10, "the plain list never ends");
        }
        assert_eq!(pages, 2, "150 servers, 100 a page");
        assert_eq!(
            listed, order,
            "{width}: every server once, in the list's order"
        );
        assert_eq!(listed.iter().cloned().collect::<BTreeSet<_>>(), every);
        client.close().await.unwrap();
    }
}

/// Each row in `css`: its address, its top edge on screen, its name, and whether it fits the
/// screen's width.
const ROWS: &str = "return [...document.querySelectorAll(arguments[0])].map(r => { \
    const b = r.getBoundingClientRect(); \
    return [r.dataset.addr, Math.round(b.top), r.querySelector('td.name').textContent, \
            b.left >= 0 && b.right <= window.innerWidth + 0.5 && r.scrollWidth <= r.clientWidth + 1]; });";

/// From now until the first screen is gone and a frame after, the most server lists visible
/// at once in any frame.
const COUNT_LISTS: &str = "window.musterLists = 0; \
    const visible = () => [...document.querySelectorAll('table.servers')] \
        .filter(t => t.offsetParent !== null).length; \
    let after = 2; \
    (function frame() { \
        window.musterLists = Math.max(window.musterLists, visible()); \
        if (document.getElementById('first-screen') || after-- > 0) requestAnimationFrame(frame); \
    })(); \
    return !!document.getElementById('first-screen');";

type Row = (String, i64, String, bool);

async fn rows(client: &Client, css: &str) -> Result<Vec<Row>, String> {
    let rows = client
        .execute(ROWS, vec![css.into()])
        .await
        .map_err(|e| e.to_string())?;
    serde_json::from_value(rows).map_err(|e| e.to_string())
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_page_takes_over_the_first_screen_without_a_second_list_or_a_row_moving() {
    let (_lab, relay) = answering(60).await;
    let driver = browser::Driver::start().await.unwrap();
    for (width, height) in SIZES {
        let client = driver.device(width, height, true).await.unwrap();
        // A slow link, so the first screen is up for a while before the code has come.
        client
            .issue_cmd(browser::network_conditions(40, 125_000))
            .await
            .unwrap();
        client
            .goto(&format!("http://{}/", relay.addr))
            .await
            .unwrap();
        let watching = client.execute(COUNT_LISTS, vec![]).await.unwrap();
        assert_eq!(
            watching,
            serde_json::json!(true),
            "{width}: the first screen came first"
        );
        let first = rows(&client, "#first-screen tr[data-addr]").await.unwrap();
        assert_eq!(first.len(), FIRST_ROWS);
        screenshot(&client, &format!("first-screen-{width}.png")).await;
        taken_over(&client).await;
        // The app's rows, once drawn (and a frame after the watcher's last).
        let app = eventually("the app's rows", async || {
            let app = rows(&client, "#app tr[data-addr]").await?;
            (app.len() >= 10)
                .then_some(app.clone())
                .ok_or(format!("{app:?}"))
        })
        .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let lists = client
            .execute("return window.musterLists;", vec![])
            .await
            .unwrap();
        assert_eq!(
            lists,
            serde_json::json!(1),
            "{width}: never two lists at once"
        );
        // Every row both drew is where it was, with the same name, in the same order.
        let mut compared = 0;
        for (addr, top, name, fits) in &app {
            assert!(fits, "{width}: {addr} does not fit the screen's width");
            if let Some(was) = first.iter().find(|r| &r.0 == addr) {
                assert_eq!(
                    (top, name),
                    (&was.1, &was.2),
                    "{width}: {addr} moved or changed"
                );
                compared += 1;
            }
        }
        let visible = first.iter().filter(|r| r.1 < i64::from(height)).count();
        assert!(
            compared >= visible.min(app.len()),
            "{width}: {compared} rows compared"
        );
        let order: Vec<&String> = app.iter().map(|r| &r.0).collect();
        let was: Vec<&String> = first.iter().map(|r| &r.0).take(order.len()).collect();
        assert_eq!(order, was, "{width}: the same order");
        // The list's columns fit beside the side panels: nothing to scroll sideways to.
        let fits = client
            .execute(
                "const t = document.querySelector('#app .table-scroll'); \
                 return t.scrollWidth <= t.clientWidth;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            fits,
            serde_json::json!(true),
            "{width}: the list is wider than its column"
        );
        screenshot(&client, &format!("taken-over-{width}.png")).await;
        client.close().await.unwrap();
    }
}
