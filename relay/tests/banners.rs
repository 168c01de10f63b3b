//! Banners and cards against a lab server: the PNG decodes at both sizes and is the same bytes
//! for the same state (revalidated by its ETag), redrawn when the server changes; the SVG
//! carries the name's colours; the widget shows the player count and reads it live from
//! `/api/servers/ADDR`; the server's own link carries Open Graph and Twitter card tags.

use crate::common;

use std::time::Duration;

use common::{lab_config, relay_config, wait_listed};
use lab::Lab;
use reqwest::StatusCode;
use tiny_skia::Pixmap;

const LIMIT: Duration = Duration::from_secs(30);

async fn get(url: &str) -> reqwest::Response {
    reqwest::get(url).await.unwrap()
}

/// One lab server, and a relay polling it every second.
async fn lab_and_relay() -> (Lab, relay::Relay) {
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay::Relay::start(relay_config(&lab, vec![], Duration::from_secs(1)))
        .await
        .unwrap();
    wait_listed(&relay, &lab).await;
    (lab, relay)
}

#[tokio::test(flavor = "multi_thread")]
async fn banners_decode_at_both_sizes_are_cached_and_follow_the_server() {
    let (lab, relay) = lab_and_relay().await;
    let server = &lab.servers[0];
    let addr = server.addr.to_string();
    let base = format!("http://{}", relay.addr);
    // Wait for its first answer (a pending server has no name yet).
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !get(&format!("{base}/banner/{addr}.svg"))
        .await
        .text()
        .await
        .unwrap()
        .contains("online")
    {
        assert!(tokio::time::Instant::now() < deadline, "never answered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // In the language the owner picks for a forum (`lang=`), else the reader's browser's.
    let german = get(&format!("{base}/banner/{addr}.svg?lang=de")).await;
    assert_eq!(
        german.headers()["vary"],
        "Accept-Encoding, Accept-Language, Cookie"
    );
    assert!(german.text().await.unwrap().contains(">Spieler · Muster<"));
    let russian = reqwest::Client::new()
        .get(format!("{base}/banner/{addr}.svg"))
        .header("accept-language", "ru-RU,ru;q=0.9")
        .send()
        .await
        .unwrap();
    assert!(russian.text().await.unwrap().contains(">игроки · Muster<"));
    let unknown = get(&format!("{base}/banner/{addr}.svg?lang=xx")).await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    let wide = get(&format!("{base}/banner/{addr}.png")).await;
    assert_eq!(wide.status(), StatusCode::OK);
    assert_eq!(wide.headers()["content-type"], "image/png");
    let etag = wide.headers()["etag"].clone();
    let png = wide.bytes().await.unwrap();
    let pixmap = Pixmap::decode_png(&png).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (560, 95));
    let small = get(&format!("{base}/banner/{addr}.png?size=350x20")).await;
    let small = Pixmap::decode_png(&small.bytes().await.unwrap()).unwrap();
    assert_eq!((small.width(), small.height()), (350, 20));
    // The same state, the same bytes; a client holding them is told so.
    let again = reqwest::Client::new()
        .get(format!("{base}/banner/{addr}.png"))
        .header("if-none-match", etag.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let svg = get(&format!("{base}/banner/{addr}.svg")).await;
    assert_eq!(svg.headers()["content-type"], "image/svg+xml");
    let svg = svg.text().await.unwrap();
    let profile = server.snapshot();
    assert!(
        svg.contains(&format!(">{}/{}<", profile.clients(), profile.max_clients)),
        "{svg}"
    );
    assert!(svg.contains(&profile.mapname), "{svg}");
    // The server changes its name: the next refresh redraws the banner.
    server.profile.lock().unwrap().hostname = "^1Renamed ^7Server".into();
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let now = get(&format!("{base}/banner/{addr}.png")).await;
        if now.headers()["etag"] != etag {
            let png2 = now.bytes().await.unwrap();
            assert_ne!(png2, png);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the banner never changed"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let svg = get(&format!("{base}/banner/{addr}.svg"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        svg.contains("<tspan fill=\"#ff5c5c\">Renamed </tspan><tspan>Server</tspan>"),
        "{svg}"
    );
    // What is not a banner is refused plainly.
    assert_eq!(
        get(&format!("{base}/banner/{addr}.png?size=1x1"))
            .await
            .status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        get(&format!("{base}/banner/10.9.9.9:28960.png"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&format!("{base}/banner/{addr}.gif")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&format!("{base}/banner/nonsense.svg")).await.status(),
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_widget_and_the_server_link_card() {
    let (lab, relay) = lab_and_relay().await;
    let addr = lab.servers[0].addr.to_string();
    let base = format!("http://{}", relay.addr);
    let profile = lab.servers[0].snapshot();
    let players = format!("{}/{}", profile.clients(), profile.max_clients);
    let deadline = tokio::time::Instant::now() + LIMIT;
    let widget = loop {
        let widget = get(&format!("{base}/embed/{addr}"))
            .await
            .text()
            .await
            .unwrap();
        if widget.contains(&players) {
            break widget;
        }
        assert!(tokio::time::Instant::now() < deadline, "{widget}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        widget.contains(&format!("fetch('/api/servers/{addr}')")),
        "{widget}"
    );
    assert!(!widget.contains(".wasm"), "the widget loads no wasm");
    assert!(widget.len() < 4096, "{} bytes", widget.len());
    let one: serde_json::Value = serde_json::from_str(
        &get(&format!("{base}/api/servers/{addr}"))
            .await
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(one["addr"], addr.as_str());
    assert_eq!(
        get(&format!("{base}/api/servers/10.9.9.9:1"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // The server's own link, as a chat's unfurler fetches it.
    let page = reqwest::Client::new()
        .get(format!("{base}/server/{addr}"))
        .header("host", "muster.example")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let image =
        format!("<meta property=\"og:image\" content=\"http://muster.example/banner/{addr}.png\">");
    assert!(page.contains(&image), "{page}");
    assert!(page.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"));
    assert!(page.contains(&format!("{players} players")), "{page}");
    assert_eq!(
        get(&format!("{base}/server/10.9.9.9:1")).await.status(),
        StatusCode::NOT_FOUND
    );
}
