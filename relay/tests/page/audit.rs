//! Accessibility in the suite: axe-core (npm, pinned by `cargo xtask test`), WCAG 2.0 and 2.1
//! A and AA, on the pages a visitor reaches, at a laptop's 1366 px and a phone's 390 px. A
//! violation fails the test, naming the page, the width, the rule, its impact and the first
//! elements it found.

use super::*;

/// The rule sets axe runs: WCAG 2.0 and 2.1, levels A and AA.
const TAGS: [&str; 4] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/// A laptop's and a phone's viewport.
const WIDTHS: [(u32, u32); 2] = [(1366, 850), (390, 844)];

/// axe-core's browser build, from the npm tools `cargo xtask test` installs.
fn axe_source() -> String {
    let bin =
        std::env::var_os("MUSTER_NODE_BIN").expect("MUSTER_NODE_BIN: run by cargo xtask test");
    let path = PathBuf::from(bin).join("../axe-core/axe.min.js");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("axe-core is not installed at {}: {e}", path.display()))
}

/// A page to audit: its name, its address on the relay, and what shows once it is drawn.
pub struct Audited {
    pub name: &'static str,
    pub path: String,
    pub ready: &'static str,
}

/// axe's violations on the page now, one line each.
async fn violations(client: &Client, axe: &str) -> Vec<String> {
    client
        .execute(&format!("{axe}\n;return true;"), vec![])
        .await
        .expect("axe-core loads in the page");
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, { runOnly: { type: 'tag', values: arguments[0] } })
               .then(r => done(r.violations.map(v => v.id + ' (' + v.impact + '): ' +
                 v.nodes.length + ' nodes, ' +
                 v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' +
                   (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 160)).join(' | '))))
               .catch(e => done(['axe failed: ' + e]));",
            vec![serde_json::json!(TAGS)],
        )
        .await
        .expect("axe runs");
    serde_json::from_value(found).expect("a list of lines")
}

/// Every page at both widths: what axe found, as `page at WIDTH: rule ...` lines.
pub async fn audit(relay: &relay::Relay, pages: &[Audited]) -> Vec<String> {
    let axe = axe_source();
    let driver = browser::Driver::start().await.unwrap();
    let mut found = Vec::new();
    for (width, height) in WIDTHS {
        let client = driver
            .device(width, height, true)
            .await
            .expect("Chromium starts under chromedriver");
        for page in pages {
            client
                .goto(&format!("http://{}{}", relay.addr, page.path))
                .await
                .unwrap();
            eventually(&format!("{} is drawn", page.name), async || {
                (count(&client, page.ready).await > 0)
                    .then_some(())
                    .ok_or_else(|| format!("no {}", page.ready))
            })
            .await;
            settled(&client).await;
            screenshot(&client, &format!("audit-{}-{width}.png", page.name)).await;
            found.extend(
                violations(&client, &axe)
                    .await
                    .into_iter()
                    .map(|v| format!("{} at {width}: {v}", page.name)),
            );
        }
        client.close().await.unwrap();
    }
    found
}

#[tokio::test]
#[ignore = "needs the built page, Chromium and axe-core; run by cargo xtask test"]
async fn the_list_a_server_tuning_the_demos_the_widget_and_the_watch_view_pass_axe_at_two_widths() {
    // Without the hub's delay, so the watch view shows the match at once.
    let (lab, relay) = super::watch::live_match().await;
    let addr = lab.servers[0].addr;
    let pages = [
        Audited {
            name: "list",
            path: "/".into(),
            ready: "#app [data-testid=summary]",
        },
        Audited {
            name: "server",
            path: format!("/server/{addr}"),
            ready: "#app [data-testid=summary]",
        },
        Audited {
            name: "tuning",
            path: "/tuning/".into(),
            ready: "header nav",
        },
        Audited {
            name: "demos",
            path: "/playback/#/demos".into(),
            ready: "[data-testid=demo-file]",
        },
        Audited {
            name: "embed",
            path: format!("/embed/{addr}"),
            ready: "a",
        },
        Audited {
            name: "watch",
            path: format!("/watch/#/watch/{addr}"),
            ready: "[data-testid=watch-player]",
        },
    ];
    let found = audit(&relay, &pages).await;
    assert!(found.is_empty(), "axe found:\n{}", found.join("\n"));
}

#[tokio::test]
#[ignore = "needs the built page, Chromium and axe-core; run by cargo xtask test"]
async fn the_matches_highlights_a_match_a_player_a_moment_the_admin_console_and_the_api_pass_axe_and_are_mapped(
) {
    use protocol::relay_api::matches::{segment, MatchDetail};
    let dir = tempfile::tempdir().unwrap();
    let (lab, relay) = super::matches::followed(dir.path(), 5, false).await;
    let addr = lab.servers[0].addr.to_string();
    let finished = super::matches::finished_match(&relay).await;
    let detail: MatchDetail = api(&relay, &format!("/api/matches/{}", finished.id))
        .await
        .unwrap();
    let player = &detail.scoreboard.first().expect("a player").name;
    // A moment of the followed match, from the hub's rewind window.
    let moment = eventually("a moment is made", async || {
        let made = reqwest::Client::new()
            .post(format!("http://{}/api/moments", relay.addr))
            .json(&serde_json::json!({"server": addr, "from": -6, "to": -1}))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = made.status();
        let body: serde_json::Value = made.json().await.map_err(|e| e.to_string())?;
        (status == 201)
            .then(|| body["url"].as_str().unwrap_or_default().to_owned())
            .ok_or(format!("{status}: {body}"))
    })
    .await;
    // Search engines are told of each public page, and kept out of the admin console.
    let base = format!("http://{}", relay.addr);
    let robots = common::body(format!("{base}/robots.txt")).await;
    assert!(
        robots.contains("Disallow: /admin/")
            && robots.contains(&format!("Sitemap: {base}/sitemap.xml")),
        "{robots}"
    );
    let player_page = format!("/players/{}", segment(&relay::store::name_key(player)));
    let sitemap = common::body(format!("{base}/sitemap.xml")).await;
    for page in [
        "/".to_owned(),
        "/matches".to_owned(),
        "/highlights".to_owned(),
        format!("/server/{addr}"),
        format!("/matches/{}", finished.id),
        player_page.clone(),
        moment.clone(),
    ] {
        assert!(
            sitemap.contains(&format!("<loc>{base}{page}</loc>")),
            "{page} is not in the sitemap:\n{sitemap}"
        );
    }
    let pages = [
        Audited {
            name: "matches",
            path: "/matches".into(),
            ready: "header nav",
        },
        Audited {
            name: "highlights",
            path: "/highlights".into(),
            ready: "header nav",
        },
        Audited {
            name: "match",
            path: format!("/matches/{}", finished.id),
            ready: "#app [data-testid=scoreboard]",
        },
        Audited {
            name: "player",
            path: player_page,
            ready: "#app h1",
        },
        Audited {
            name: "moment",
            path: moment,
            ready: "[data-testid=watch-player]",
        },
        Audited {
            name: "admin",
            path: format!("/admin/#{addr}"),
            ready: "[data-testid=admin-password]",
        },
        Audited {
            name: "api",
            path: "/api/".into(),
            ready: "section.operation",
        },
    ];
    let found = audit(&relay, &pages).await;
    assert!(found.is_empty(), "axe found:\n{}", found.join("\n"));
}
