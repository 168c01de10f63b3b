//! The admin console: rcon from the page (`/rcon/ADDR`) and from `muster rcon`, to servers in
//! the directory only, without making the relay a password-guessing machine.
//!
//! - The password comes with each command and goes only into that command's datagram: it is
//!   never stored, logged, counted or published, and [`Password`] hides it from `Debug`.
//! - Commands to one game server leave at least [`SPACING`] apart, queued in arrival order,
//!   across every relay of a cluster ([`spacing`]): the stock server drops any attempt within
//!   500 ms of the one before, whoever sent it, so admins on two relays would otherwise starve
//!   each other.
//! - Wrong passwords lock out the client at that server, and the client everywhere after many
//!   ([`lockout`]); the relay refuses a locked client before sending anything.
//! - Every command and its outcome (never the password) is written to the audit log.

pub(crate) mod exchange;
mod lockout;
mod scrape;
mod socket;
mod spacing;

use std::net::{IpAddr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path as UrlPath, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use protocol::cod::rcon::Outcome;

use crate::edge::limits::ClientKey;
use crate::seams::Known;
use crate::sync::Locked;
pub use exchange::{Answer, ExchangeError};
use lockout::Guard;
pub use spacing::SPACING;
use spacing::{Busy, Spacing};

/// An rcon password: shown to nothing but the datagram it goes into.
pub use protocol::secret::Secret as Password;

/// `muster serve`'s rcon flags.
#[derive(clap::Args, Debug, Clone)]
pub struct RconArgs {
    /// The admin console (`/rcon/ADDR`): `on`, or `off` to refuse every command.
    #[arg(long = "rcon", env = "MUSTER_RCON", default_value = "on", value_parser = ["on", "off"])]
    rcon: String,
    /// Also append the audit log (one JSON line per command, never a password) to FILE.
    #[arg(
        long = "rcon-audit-log",
        env = "MUSTER_RCON_AUDIT_LOG",
        value_name = "FILE"
    )]
    audit_log: Option<std::path::PathBuf>,
}

impl RconArgs {
    pub fn config(&self, trusted_proxies: Vec<IpAddr>) -> RconConfig {
        RconConfig {
            enabled: self.rcon == "on",
            audit_log: self.audit_log.clone(),
            trusted_proxies,
        }
    }
}

/// How the console runs.
#[derive(Clone, Debug)]
pub struct RconConfig {
    pub enabled: bool,
    pub audit_log: Option<std::path::PathBuf>,
    pub trusted_proxies: Vec<IpAddr>,
}

impl Default for RconConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            audit_log: None,
            trusted_proxies: Vec::new(),
        }
    }
}

/// Why a command was not sent or got no answer.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("the admin console is turned off on this relay")]
    Disabled,
    #[error("the relay does not list {0}; it sends rcon only to servers in its directory")]
    UnknownTarget(SocketAddrV4),
    #[error(
        "too many wrong passwords from your address; try again in {} minutes",
        .0.as_secs().div_ceil(60)
    )]
    Locked(Duration),
    #[error("{0}")]
    Busy(#[from] Busy),
    #[error("{0}")]
    Command(#[from] protocol::cod::rcon::RequestError),
    #[error("{0}")]
    Exchange(#[from] ExchangeError),
}

impl Refusal {
    /// The rule's name, for the page, metrics and the audit log.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::UnknownTarget(_) => "unknown_target",
            Self::Locked(_) => "locked",
            Self::Busy(_) => "busy",
            Self::Command(_) => "command",
            Self::Exchange(ExchangeError::NoReply(_)) => "no_reply",
            Self::Exchange(ExchangeError::Socket(_)) => "socket",
        }
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Locked(left) => Some(*left),
            Self::Busy(_) => Some(SPACING),
            _ => None,
        }
    }
}

/// What happened to commands, by outcome or refusal (`muster_rcon_commands_total`).
#[derive(Debug, Default)]
pub struct Counters {
    pub output: AtomicU64,
    pub bad_password: AtomicU64,
    pub no_password: AtomicU64,
    pub refused: Mutex<std::collections::BTreeMap<&'static str, u64>>,
    pub lockouts: AtomicU64,
}

/// The console's state: who is locked out, and each server's queue.
pub struct Rcon {
    config: RconConfig,
    known: Known,
    spacing: Spacing,
    lockouts: Guard,
    audit: Option<Mutex<std::fs::File>>,
    /// The history store's writer, when the relay keeps history: the audit goes there too.
    history: Option<Arc<dyn crate::seams::AuditLog>>,
    pub counters: Counters,
}

impl Rcon {
    /// A console to the servers `known` lists; in a cluster, the spacing is the cluster's;
    /// with `history`, the audit is kept in the history store too.
    pub fn new(
        config: RconConfig,
        known: Known,
        cluster: Option<Arc<crate::cluster::Cluster>>,
        history: Option<Arc<dyn crate::seams::AuditLog>>,
    ) -> anyhow::Result<Arc<Self>> {
        let audit = match &config.audit_log {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| anyhow::anyhow!("rcon-audit-log {}: {e}", path.display()))?,
            )),
            None => None,
        };
        Ok(Arc::new(Self {
            spacing: Spacing::new(cluster.clone()),
            lockouts: Guard::new(cluster),
            audit,
            history,
            counters: Counters::default(),
            config,
            known,
        }))
    }

    fn client_key(&self, peer: IpAddr, headers: &HeaderMap) -> ClientKey {
        ClientKey::of(crate::edge::limits::client_ip(
            peer,
            headers,
            &self.config.trusted_proxies,
        ))
    }

    /// Whether `client` may send to `target` now: `Err` with the refusal otherwise.
    async fn admit(&self, client: ClientKey, target: SocketAddrV4) -> Result<(), Refusal> {
        if !self.config.enabled {
            return Err(Refusal::Disabled);
        }
        if !self.known.knows(target.into()) {
            return Err(Refusal::UnknownTarget(target));
        }
        self.lockouts
            .check(client, target, crate::net::unix_ms())
            .await
            .map_err(Refusal::Locked)
    }

    /// Sends one command for `client`, after its checks and in `target`'s queue; counts and
    /// audits the outcome. Returns the answer and the time spent queued.
    pub async fn command(
        &self,
        client: ClientKey,
        target: SocketAddrV4,
        password: &Password,
        command: &str,
    ) -> Result<(Answer, Duration), Refusal> {
        let result = async {
            self.admit(client, target).await?;
            // A command that cannot be built never takes a turn.
            let datagram = protocol::cod::rcon::request(password.expose(), command)?;
            let queued = Instant::now();
            let turn = self.spacing.turn(target).await?;
            let queued = queued.elapsed();
            let answer = exchange::exchange(
                SocketAddr::V4(target),
                &datagram,
                exchange::FIRST_REPLY,
                turn,
            )
            .await?;
            Ok((answer, queued))
        }
        .await;
        self.settle(client, target, command, &result).await;
        result
    }

    /// Lockouts, counters and the audit line for one command's result.
    async fn settle(
        &self,
        client: ClientKey,
        target: SocketAddrV4,
        command: &str,
        result: &Result<(Answer, Duration), Refusal>,
    ) {
        let outcome = match result {
            Ok((answer, _)) => {
                match &answer.outcome {
                    Outcome::BadPassword => {
                        self.counters.bad_password.fetch_add(1, Ordering::Relaxed);
                        let now = crate::net::unix_ms();
                        if self.lockouts.failed(client, target, now).await {
                            self.counters.lockouts.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Outcome::NoPassword => {
                        self.counters.no_password.fetch_add(1, Ordering::Relaxed);
                    }
                    Outcome::Output(_) => {
                        self.counters.output.fetch_add(1, Ordering::Relaxed);
                        self.lockouts.succeeded(client, target).await;
                    }
                }
                answer.outcome.as_str()
            }
            Err(refusal) => {
                *self
                    .counters
                    .refused
                    .locked()
                    .entry(refusal.kind())
                    .or_default() += 1;
                refusal.kind()
            }
        };
        self.audit(client, target, command, outcome, result);
    }

    /// One audit line: who, where, what, and how it ended; never the password.
    fn audit(
        &self,
        client: ClientKey,
        target: SocketAddrV4,
        command: &str,
        outcome: &str,
        result: &Result<(Answer, Duration), Refusal>,
    ) {
        let round_trip_ms = result
            .as_ref()
            .map_or(0, |(a, _)| a.round_trip.as_millis() as u64);
        tracing::info!(
            target: "muster::rcon::audit",
            client = %client,
            server = %target,
            command,
            outcome,
            round_trip_ms,
            "rcon"
        );
        let entry = crate::store::AuditEntry {
            at_ms: crate::net::unix_ms(),
            client: client.to_string(),
            server: target.to_string(),
            command: command.to_owned(),
            outcome: outcome.to_owned(),
            round_trip_ms,
        };
        if let Some(file) = &self.audit {
            use std::io::Write;
            if let Ok(line) = serde_json::to_string(&entry) {
                let _ = writeln!(file.locked(), "{line}");
            }
        }
        if let Some(history) = &self.history {
            history.audit(entry);
        }
    }
}

pub fn routes(rcon: Arc<Rcon>) -> Router {
    Router::new()
        .route("/rcon/{addr}", get(upgrade))
        .with_state(rcon)
}

/// Opens an admin socket to one server; every command on it is checked on its own.
async fn upgrade(
    UrlPath(addr): UrlPath<String>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    State(rcon): State<Arc<Rcon>>,
    closing: crate::edge::Closing,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let (target, ws) = match crate::http::socket_target(&addr, ws, socket::MAX_MESSAGE) {
        Ok(upgrade) => upgrade,
        Err(refused) => return *refused,
    };
    let client = rcon.client_key(peer.ip(), &headers);
    ws.on_upgrade(move |ws| {
        let (sink, stream) = closing.split(ws);
        socket::serve(rcon, client, target, sink, stream)
    })
}

/// Starts the admin console for the servers `known` lists (queues and lockouts shared by the
/// cluster, if any; the audit kept in `history` too, if given); returns it and its routes.
pub fn start(
    config: RconConfig,
    known: Known,
    cluster: Option<Arc<crate::cluster::Cluster>>,
    history: Option<Arc<dyn crate::seams::AuditLog>>,
) -> anyhow::Result<(Arc<Rcon>, Router)> {
    let rcon = Rcon::new(config, known, cluster, history)?;
    let router = routes(rcon.clone());
    Ok((rcon, router))
}

/// An owner's proof is one `status` through the console: spaced, locked out and audited like
/// any command, so claiming is no better a password guesser than the console.
impl crate::seams::ProveOwner for Rcon {
    fn prove(
        &self,
        client: ClientKey,
        target: SocketAddrV4,
        password: String,
    ) -> futures_util::future::BoxFuture<'_, crate::seams::Proof> {
        use crate::seams::Proof;
        Box::pin(async move {
            let password = Password::new(password);
            match self.command(client, target, &password, "status").await {
                Ok((answer, _)) => match answer.outcome {
                    Outcome::Output(_) => Proof::Proven,
                    Outcome::BadPassword => {
                        Proof::Refused("the server refused the rcon password".into())
                    }
                    Outcome::NoPassword => Proof::Refused(
                        "the server has no rcon password set, so nobody can prove it is theirs"
                            .into(),
                    ),
                },
                Err(refusal) => {
                    let status = match &refusal {
                        Refusal::Disabled => 403,
                        Refusal::UnknownTarget(_) => 404,
                        Refusal::Locked(_) | Refusal::Busy(_) => 429,
                        Refusal::Command(_) => 400,
                        Refusal::Exchange(_) => 504,
                    };
                    Proof::NotAsked(status, refusal.to_string())
                }
            }
        })
    }
}
