//! Headless Chromium under chromedriver, for the page tests and the benches that load the page:
//! one driver per browser on a free loopback port, and one profile per browser, so tests run
//! side by side.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

/// How long chromedriver may take to listen.
const DRIVER_START: Duration = Duration::from_secs(30);

/// chromedriver on a free loopback port; killed, with its browser, when dropped.
pub struct Driver {
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
            .args(["-f", &self.profile().display().to_string()])
            .status();
    }
}

impl Driver {
    /// Starts chromedriver (`cargo xtask test` installs Debian's chromium-driver) and waits
    /// until it listens.
    pub async fn start() -> anyhow::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("chromedriver does not run: {e}"))?;
        let driver = Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let deadline = tokio::time::Instant::now() + DRIVER_START;
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            anyhow::ensure!(
                tokio::time::Instant::now() < deadline,
                "chromedriver never listened"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(driver)
    }

    /// The Chromium profile of this driver's browser.
    fn profile(&self) -> PathBuf {
        std::env::temp_dir().join(format!(
            "muster-chromium-{}-{}",
            std::process::id(),
            self.url.rsplit(':').next().unwrap_or_default()
        ))
    }

    /// Headless Chromium with a fresh profile and a `width` x `height` window.
    pub async fn browser(&self, width: u32, height: u32) -> anyhow::Result<Client> {
        self.launch(width, height, true, false).await
    }

    /// A browser whose page is exactly `width` x `height` CSS pixels (a phone's 390 too, which
    /// a headless window is never made as narrow as; a width under 600 is a touch phone), with
    /// page scripts on, or off as a visitor may have them (WebDriver's own commands still work).
    pub async fn device(&self, width: u32, height: u32, scripts: bool) -> anyhow::Result<Client> {
        self.launch(width, height, scripts, true).await
    }

    async fn launch(
        &self,
        width: u32,
        height: u32,
        scripts: bool,
        exact: bool,
    ) -> anyhow::Result<Client> {
        let profile = self.profile();
        let _ = std::fs::remove_dir_all(&profile);
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                // The watch-list test needs notifications allowed, as a user would allow them.
                "prefs": {
                    "profile.default_content_setting_values.notifications": 1,
                    "profile.managed_default_content_settings.javascript": if scripts { 1 } else { 2 },
                },
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        });
        let mut capabilities = capabilities;
        if exact {
            capabilities["goog:chromeOptions"]["mobileEmulation"] = json!({
                "deviceMetrics": {
                    "width": width, "height": height, "pixelRatio": 1.0,
                    "mobile": width < 600, "touch": width < 600,
                }
            });
        }
        let Value::Object(capabilities) = capabilities else {
            unreachable!("a JSON object")
        };
        // Two TLS backends are linked (the WebDriver client's and NATS's); say which one
        // rustls is to use (a second call finds it set, which is fine).
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        // One start, no retry: a Chromium that exited as it started was one of a score started
        // at once on two cores; .config/nextest.toml now runs at most two page tests at a time.
        Ok(ClientBuilder::rustls()?
            .capabilities(capabilities)
            .connect(&self.url)
            .await?)
    }
}

/// A chromedriver command outside W3C WebDriver: a `POST` of `body` to
/// `/session/{id}/PATH` (network emulation, permissions, DevTools).
#[derive(Debug)]
pub struct SessionPost {
    pub path: &'static str,
    pub body: serde_json::Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for SessionPost {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/{}",
            session_id.unwrap_or_default(),
            self.path
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// chromedriver's network emulation.
pub fn network_conditions(latency_ms: u32, bytes_per_second: u32) -> SessionPost {
    SessionPost {
        path: "chromium/network_conditions",
        body: json!({"network_conditions": {
            "offline": false,
            "latency": latency_ms,
            "download_throughput": bytes_per_second,
            "upload_throughput": bytes_per_second,
        }}),
    }
}
