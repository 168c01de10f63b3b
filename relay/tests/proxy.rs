//! The operator's guide's nginx block, as written, with a real nginx from Debian in front of
//! the relay on a port that is not 80 or 443: the page loads and its sockets open.

use crate::common;

use std::time::Duration;

use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const NGINX: &str = "/usr/sbin/nginx";

/// The guide's `nginx` block with only what a test must change: the listen address (plain
/// HTTP on a free loopback port) and where the relay listens.
fn documented_block(listen: u16, relay: std::net::SocketAddr) -> String {
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/operator.md"))
            .unwrap();
    let block = guide
        .split("```nginx\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/operator.md has an nginx block");
    assert!(
        block.contains("listen 443 ssl;") && block.contains("proxy_pass http://127.0.0.1:8080;")
    );
    block
        .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{listen};"))
        .replace("listen [::]:443 ssl;", "")
        .replace("http://127.0.0.1:8080", &format!("http://{relay}"))
}

/// nginx in the foreground with everything it writes under `dir`; killed when dropped.
struct Nginx(std::process::Child);

impl Nginx {
    fn start(dir: &std::path::Path, block: &str) -> Self {
        let d = dir.display();
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{}}\nhttp {{\naccess_log off;\nclient_body_temp_path {d}/body;\n\
             proxy_temp_path {d}/proxy;\nfastcgi_temp_path {d}/fastcgi;\n\
             uwsgi_temp_path {d}/uwsgi;\nscgi_temp_path {d}/scgi;\n{block}\n}}\n"
        );
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child = std::process::Command::new(NGINX)
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .spawn()
            .expect("nginx runs");
        Self(child)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
#[ignore = "needs nginx: `cargo xtask test` installs it"]
async fn the_documented_nginx_block_serves_the_page_and_its_sockets_on_any_port() {
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: common::dist(),
        poller: relay::PollerConfig {
            lan: vec![],
            ..relay::PollerConfig::default()
        },
        ..relay::ServeConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let _nginx = Nginx::start(dir.path(), &documented_block(port, relay.addr));
    let front = format!("127.0.0.1:{port}");

    // The page through the proxy, once nginx listens.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let page = loop {
        match reqwest::get(format!("http://{front}/")).await {
            Ok(response) => break response,
            Err(e) => {
                let log = std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default();
                assert!(tokio::time::Instant::now() < deadline, "{e}: {log}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(page.status(), 200);

    // A browser on that page opens its feed with the page's own origin, port and all.
    let mut request = format!("ws://{front}/ws").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", format!("http://{front}").parse().unwrap());
    let (mut socket, response) = tokio_tungstenite::connect_async(request)
        .await
        .unwrap_or_else(|e| panic!("the feed through nginx: {e}"));
    assert_eq!(response.status().as_u16(), 101);
    use futures_util::StreamExt;
    let first = tokio::time::timeout(Duration::from_secs(10), socket.next())
        .await
        .expect("the feed's first message")
        .unwrap()
        .unwrap();
    assert!(first.is_text() || first.is_binary(), "{first:?}");

    // Another site's page is still refused through the proxy.
    let mut request = format!("ws://{front}/ws").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", "https://evil.example".parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), 403)
        }
        other => panic!("another origin through nginx: {other:?}"),
    }
}
