//! A loopback fleet of protocol-22 game servers and a master that speak the real wire format,
//! for the demo, the tests and the benchmarks. All encoding goes through `protocol`.

pub mod console;
pub mod game;
pub mod master;
pub mod profile;
pub mod server;
pub mod sessions;
mod sync;
pub mod wulfram;

use crate::sync::Locked;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context};
pub use protocol::cod::master::ListEnd;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::net::UdpSocket;
use tokio::task::JoinSet;

pub use game::Pace;
pub use profile::{LabPlayer, ServerProfile};
pub use server::Fault;
use server::ServerTiming;
pub use sessions::{SessionConfig, Truth};

/// How to lay out a fleet.
#[derive(Clone, Debug)]
pub struct LabConfig {
    /// The address every socket binds: 127.0.0.1, or an address of a namespace the lab runs
    /// in (the chaos run puts the lab behind an impaired link).
    pub host: Ipv4Addr,
    /// Number of game servers.
    pub servers: usize,
    /// The first server's port; the others follow it. 0 lets each server take any free port.
    pub base_port: u16,
    /// The master's port; 0 takes any free port.
    pub master_port: u16,
    /// Seed for every generated profile, so a fleet can be reproduced.
    pub seed: u64,
    /// How often players join, leave and score; `None` freezes the fleet.
    pub churn: Option<Duration>,
    /// Heartbeat interval (stock: 180 s).
    pub heartbeat: Duration,
    /// Addresses per `getserversResponse` packet.
    pub list_packet_size: usize,
    /// How the master ends its last list packet: `\EOT` as the stock master does, or `\EOF`.
    pub list_end: ListEnd,
    /// Which servers misbehave, and how.
    pub faults: FaultPlan,
    /// How long a map runs while sessions watch; `None` keeps one map.
    pub map_time: Option<Duration>,
    /// How long the intermission at a map's end lasts before the next map (10 s by default:
    /// about what stock's gametype scripts wait, not measured): play stops, every client's
    /// state says intermission, and each spectator gets the final scoreboard.
    pub intermission: Duration,
    /// Also run a Wulfram II endpoint (TCP and UDP) on this port; 0 takes any free port.
    pub wulfram_port: Option<u16>,
    /// Fog: how far a spectator sees (configstring 13); 0 for a clear map.
    pub visibility: f32,
    /// `g_inactivityspectator`: idle spectators are dropped after this; `None` never.
    pub inactivity_spectator: Option<Duration>,
    /// Where to write the true match, one JSON line per server frame of every watched server.
    pub truth: Option<Truth>,
    /// Give every server exactly this many players (bots and humans) and keep the roster.
    pub players: Option<usize>,
    /// How fast every server's match plays.
    pub pace: Pace,
    /// Masters besides the lab's own that every server heartbeats, as a stock server heartbeats
    /// its `sv_master` list (every `heartbeat`, a full status every `status_every`, `flatline`
    /// on shutdown).
    pub heartbeat_to: Vec<SocketAddr>,
    /// How often a server sends its masters a full `statusResponse` (stock: at most every 600 s).
    pub status_every: Duration,
    /// Every server's `rconpassword`; `None` leaves rcon off, as a stock server without one.
    pub rcon_password: Option<String>,
}

/// Shares of the fleet given each fault; the rest behave. Assignment is by seed, so a fleet and
/// its faults can be reproduced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FaultPlan {
    /// Share of servers that drop `loss_rate` of their queries.
    pub lossy: f64,
    pub loss_rate: f64,
    /// Share of servers that answer `late_by` late.
    pub late: f64,
    pub late_by: Duration,
    /// Share of servers that never answer (their master still lists them).
    pub silent: f64,
    /// Share of servers that answer with malformed responses.
    pub garbage: f64,
}

impl FaultPlan {
    /// The mix `muster-lab --faults` uses: 10% lossy at 30%, 5% late by 800 ms, 5% silent,
    /// 5% garbage.
    pub fn mixed() -> Self {
        Self {
            lossy: 0.10,
            loss_rate: 0.30,
            late: 0.05,
            late_by: Duration::from_millis(800),
            silent: 0.05,
            garbage: 0.05,
        }
    }

    fn pick(&self, roll: f64) -> Fault {
        let mut edge = self.lossy;
        if roll < edge {
            return Fault::Lossy(self.loss_rate);
        }
        edge += self.late;
        if roll < edge {
            return Fault::Late(self.late_by);
        }
        edge += self.silent;
        if roll < edge {
            return Fault::Silent;
        }
        edge += self.garbage;
        if roll < edge {
            return Fault::Garbage;
        }
        Fault::None
    }
}

impl Default for LabConfig {
    fn default() -> Self {
        Self {
            host: Ipv4Addr::LOCALHOST,
            servers: 24,
            base_port: 28960,
            master_port: 20611,
            seed: 22,
            churn: Some(Duration::from_secs(5)),
            heartbeat: Duration::from_secs(180),
            list_packet_size: 100,
            list_end: ListEnd::Eot,
            faults: FaultPlan::default(),
            map_time: Some(Duration::from_secs(600)),
            intermission: Duration::from_secs(10),
            wulfram_port: None,
            visibility: sessions::DEFAULT_VISIBILITY,
            inactivity_spectator: None,
            truth: None,
            players: None,
            pace: Pace::default(),
            heartbeat_to: Vec::new(),
            status_every: Duration::from_secs(600),
            rcon_password: None,
        }
    }
}

/// One running lab server: its address and its live state.
#[derive(Clone, Debug)]
pub struct LabServer {
    pub addr: SocketAddrV4,
    pub profile: Arc<Mutex<ServerProfile>>,
    pub fault: Fault,
    /// Every `connect` the server accepted.
    pub connects: Arc<AtomicU64>,
    /// Every datagram a session's slot took from another port of its address (stock's
    /// "fixing up a translated port").
    pub translated_ports: Arc<AtomicU64>,
    /// When each rcon datagram arrived, accepted or dropped by the throttle.
    pub rcon_arrivals: server::Arrivals,
}

impl LabServer {
    pub fn connects(&self) -> u64 {
        self.connects.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn translated_ports(&self) -> u64 {
        self.translated_ports
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl LabServer {
    /// The server's state at this moment.
    pub fn snapshot(&self) -> ServerProfile {
        self.profile.locked().clone()
    }
}

/// A running fleet; dropping it stops every server and the master.
pub struct Lab {
    pub master: SocketAddrV4,
    pub servers: Vec<LabServer>,
    /// The Wulfram II endpoint, when one was asked for.
    pub wulfram: Option<SocketAddr>,
    registry: master::Registry,
    shutdown: tokio::sync::watch::Sender<bool>,
    tasks: JoinSet<()>,
}

/// Receive buffer of every lab socket: the master takes a whole fleet's heartbeats at once.
const RECEIVE_BUFFER: usize = 4 << 20;

async fn bind(host: Ipv4Addr, port: u16) -> anyhow::Result<(UdpSocket, SocketAddrV4)> {
    use socket2::{Domain, Protocol, Socket, Type};
    let addr = SocketAddrV4::new(host, port);
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    // The kernel may cap the buffer; a smaller one only delays verification.
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER);
    socket.set_nonblocking(true)?;
    socket
        .bind(&SocketAddr::V4(addr).into())
        .with_context(|| format!("binding {addr}"))?;
    let socket = UdpSocket::from_std(socket.into())?;
    match socket.local_addr()? {
        SocketAddr::V4(addr) => Ok((socket, addr)),
        SocketAddr::V6(addr) => bail!("bound an IPv6 address {addr}"),
    }
}

impl Lab {
    /// Binds every socket on `config.host` and starts the fleet.
    pub async fn start(config: LabConfig) -> anyhow::Result<Self> {
        let mut tasks = JoinSet::new();
        let (shutdown, stopping) = tokio::sync::watch::channel(false);
        let registry = master::Registry::default();
        let (master_socket, master_addr) = bind(config.host, config.master_port).await?;
        tasks.spawn(master::run(
            master_socket,
            registry.clone(),
            config.list_packet_size,
            config.list_end,
            config.seed,
        ));
        let mut rng = SmallRng::seed_from_u64(config.seed);
        let mut fault_rng = SmallRng::seed_from_u64(config.seed ^ 0xfa17);
        let timing = ServerTiming {
            churn: config.churn,
            heartbeat: config.heartbeat,
            status_every: config.status_every,
            map_time: config.map_time,
            sessions: SessionConfig {
                visibility: config.visibility,
                inactivity_spectator_ms: config
                    .inactivity_spectator
                    .map_or(0, |d| d.as_millis() as u64),
                truth: config.truth.clone(),
                intermission_ms: config.intermission.as_millis() as u64,
                pace: config.pace,
                ..SessionConfig::default()
            },
            rcon_password: config.rcon_password.clone(),
            rcon_arrivals: server::Arrivals::default(),
        };
        let mut servers = Vec::with_capacity(config.servers);
        for i in 0..config.servers {
            let port = match config.base_port {
                0 => 0,
                base => u16::try_from(usize::from(base) + i).context("port range past 65535")?,
            };
            let (socket, addr) = bind(config.host, port).await?;
            let mut generated = ServerProfile::generate(i, &mut rng);
            if let Some(players) = config.players {
                generated.fill(players, &mut rng);
            }
            let profile = Arc::new(Mutex::new(generated));
            let fault = config.faults.pick(fault_rng.random());
            let connects = Arc::new(AtomicU64::new(0));
            let translated_ports = Arc::new(AtomicU64::new(0));
            let rcon_arrivals = server::Arrivals::default();
            let mut timing = timing.clone();
            timing.sessions.label = addr.to_string();
            timing.sessions.connects = connects.clone();
            timing.sessions.translated_ports = translated_ports.clone();
            timing.rcon_arrivals = rcon_arrivals.clone();
            let mut masters = vec![SocketAddr::V4(master_addr)];
            masters.extend(&config.heartbeat_to);
            tasks.spawn(server::run(
                socket,
                profile.clone(),
                masters,
                timing,
                fault,
                config.seed ^ (i as u64 + 1),
                stopping.clone(),
            ));
            servers.push(LabServer {
                addr,
                profile,
                fault,
                connects,
                translated_ports,
                rcon_arrivals,
            });
        }
        let wulfram = match config.wulfram_port {
            Some(port) => {
                let (listener, udp) = wulfram::bind(config.host, port).await?;
                let addr = listener.local_addr()?;
                tasks.spawn(wulfram::run(listener, udp));
                Some(addr)
            }
            None => None,
        };
        Ok(Self {
            master: master_addr,
            servers,
            wulfram,
            registry,
            shutdown,
            tasks,
        })
    }

    /// Stops every server as stock does on shutdown (`heartbeat flatline` to each master),
    /// and waits for them.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        let servers = self.servers.len();
        let mut stopped = 0;
        while stopped < servers {
            match self.tasks.join_next().await {
                Some(_) => stopped += 1,
                None => break,
            }
        }
    }

    /// How many servers the master has verified.
    pub fn registered(&self) -> usize {
        self.registry.locked().len()
    }

    /// Waits until the master has verified every server, or fails after `limit`.
    pub async fn wait_registered(&self, limit: Duration) -> anyhow::Result<()> {
        let deadline = tokio::time::Instant::now() + limit;
        while self.registered() < self.servers.len() {
            if tokio::time::Instant::now() > deadline {
                bail!(
                    "master verified {} of {} servers",
                    self.registered(),
                    self.servers.len()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(())
    }
}
