//! Headless Chromium under chromedriver for the benchmarks that load the page.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

/// chromedriver on a free loopback port; killed when dropped.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    pub async fn start() -> anyhow::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        Ok(Self { child, port })
    }

    /// A fresh browser with its own profile directory `name` under the temp dir.
    pub async fn browser(&self, name: &str) -> anyhow::Result<Client> {
        let profile = std::env::temp_dir().join(format!("{name}-{}", self.port));
        Ok(ClientBuilder::rustls()?
            .capabilities(capabilities(&profile))
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await?)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Headless Chromium with its own profile.
fn capabilities(profile: &Path) -> serde_json::Map<String, Value> {
    let capabilities = json!({
        "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1400,900",
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    match capabilities {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}
