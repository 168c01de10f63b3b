//! One lab game server: answers the connectionless queries as stock does and heartbeats its master.

use crate::sync::Locked;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocol::cod::oob::Packet;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::net::UdpSocket;

use crate::console::{Console, Effect};
use crate::profile::ServerProfile;
use crate::sessions::{SessionConfig, Sessions, SV_FPS};

/// The tag UO servers put after `heartbeat`.
pub const HEARTBEAT_TAG: &str = "COD-1";

/// How a server misbehaves toward everyone but its master, so tests can see a query engine
/// classify it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fault {
    /// Answers every query.
    None,
    /// Drops this share of incoming queries.
    Lossy(f64),
    /// Answers after this delay.
    Late(Duration),
    /// Never answers.
    Silent,
    /// Answers with malformed responses.
    Garbage,
}

/// How a server behaves over time.
#[derive(Clone, Debug)]
pub struct ServerTiming {
    /// How often players join, leave and score; `None` freezes the server.
    pub churn: Option<Duration>,
    /// How often it heartbeats its masters (stock: at most every 180 s).
    pub heartbeat: Duration,
    /// How often it sends its masters a full `statusResponse` (stock: at most every 600 s).
    pub status_every: Duration,
    /// How long a map runs while sessions watch; `None` keeps one map.
    pub map_time: Option<Duration>,
    /// The match's fog, idle kick, truth file and connect counter.
    pub sessions: SessionConfig,
    /// `rconpassword`; `None` answers every rcon with stock's "No rconpassword set".
    pub rcon_password: Option<String>,
    /// Where the server notes each rcon datagram's arrival.
    pub rcon_arrivals: Arrivals,
}

/// Arrival times of a server's rcon datagrams, for tests that check their spacing.
pub type Arrivals = Arc<Mutex<Vec<std::time::Instant>>>;

/// Serves one profile on `socket` until the task is dropped, or until `stopping` turns true
/// (then it sends each master `heartbeat flatline`, as stock does on shutdown).
pub async fn run(
    socket: UdpSocket,
    profile: Arc<Mutex<ServerProfile>>,
    masters: Vec<SocketAddr>,
    timing: ServerTiming,
    fault: Fault,
    seed: u64,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    let socket = Arc::new(socket);
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = tokio::time::Instant::now();
    let millis = move || started.elapsed().as_millis() as u64;
    let session_config = SessionConfig {
        seed,
        map_time_ms: timing.map_time.map(|t| t.as_millis() as u64),
        ..timing.sessions.clone()
    };
    // Built on the first session datagram: a fleet nobody joins runs no match.
    let mut sessions: Option<Sessions> = None;
    let mut frames = tokio::time::interval(Duration::from_millis(u64::from(
        protocol::cod::tuning::server_frame_ms(SV_FPS),
    )));
    frames.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut console = Console::new(timing.rcon_password.clone());
    let mut buf = vec![0u8; 16 * 1024];
    // A fleet does not start in one instant: the first heartbeats spread over a second.
    let first_beat = Duration::from_millis(rng.random_range(0..1000));
    let mut heartbeat =
        tokio::time::interval_at(tokio::time::Instant::now() + first_beat, timing.heartbeat);
    let mut status = tokio::time::interval_at(
        tokio::time::Instant::now() + first_beat + timing.status_every,
        timing.status_every,
    );
    let churn_every = timing.churn.unwrap_or(Duration::from_secs(3600));
    let mut churn =
        tokio::time::interval_at(tokio::time::Instant::now() + churn_every, churn_every);
    loop {
        tokio::select! {
            received = socket.recv_from(&mut buf) => {
                let Ok((len, from)) = received else { continue };
                let fault = if masters.first() == Some(&from) { Fault::None } else { fault };
                let datagram = &buf[..len];
                let reply = match fault {
                    Fault::Silent => None,
                    Fault::Lossy(share) if rng.random_bool(share) => None,
                    Fault::Garbage => garbage(datagram),
                    _ if is_session(datagram) => {
                        let now = millis();
                        {
                            let mut profile = profile.locked();
                            sessions
                                .get_or_insert_with(|| {
                                    Sessions::new(&profile, session_config.clone(), now)
                                })
                                .handle_datagram(now, from, datagram, &mut profile);
                        }
                        if let Some(host) = sessions.as_mut() {
                            flush(&socket, host).await;
                        }
                        None
                    }
                    _ if is_rcon(datagram) => {
                        let now = millis();
                        timing
                            .rcon_arrivals
                            .locked()
                            .push(std::time::Instant::now());
                        let handled = {
                            let mut profile = profile.locked();
                            let handled = console.handle(now, datagram, &mut profile);
                            match (&handled, sessions.as_mut()) {
                                (Some((_, Effect::Map(map))), Some(host)) => {
                                    host.load_map(now, &mut profile, map);
                                }
                                (Some((_, Effect::Map(map))), None) => profile.mapname.clone_from(map),
                                (Some((_, Effect::Say(text))), Some(host)) => host.say(text),
                                _ => {}
                            }
                            handled
                        };
                        for packet in handled.map(|(packets, _)| packets).unwrap_or_default() {
                            let _ = socket.send_to(&packet, from).await;
                        }
                        if let Some(host) = sessions.as_mut() {
                            flush(&socket, host).await;
                        }
                        None
                    }
                    _ => answer(datagram, &profile),
                };
                match (reply, fault) {
                    (Some(reply), Fault::Late(delay)) => {
                        let socket = socket.clone();
                        tokio::spawn(async move {
                            tokio::time::sleep(delay).await;
                            let _ = socket.send_to(&reply, from).await;
                        });
                    }
                    (Some(reply), _) => {
                        let _ = socket.send_to(&reply, from).await;
                    }
                    (None, _) => {}
                }
            }
            _ = heartbeat.tick() => {
                let beat = Packet::Heartbeat { tag: HEARTBEAT_TAG.into() }.emit();
                for master in &masters {
                    let _ = socket.send_to(&beat, master).await;
                }
            }
            _ = status.tick() => {
                let full = Packet::StatusResponse(profile.locked().status(None)).emit();
                for master in &masters {
                    let _ = socket.send_to(&full, master).await;
                }
            }
            _ = stopping.changed() => {
                let flatline = Packet::Heartbeat { tag: "flatline".into() }.emit();
                for master in &masters {
                    let _ = socket.send_to(&flatline, master).await;
                }
                return;
            }
            _ = churn.tick(), if timing.churn.is_some() => {
                profile.locked().churn(&mut rng);
            }
            _ = frames.tick(), if sessions.as_ref().is_some_and(Sessions::is_active) => {
                if let Some(host) = sessions.as_mut() {
                    host.tick(millis(), &mut profile.locked());
                    flush(&socket, host).await;
                }
            }
        }
    }
}

/// A reply no parser may accept: an info string whose last key has no value, a player line
/// without its name.
fn garbage(datagram: &[u8]) -> Option<Vec<u8>> {
    let mut reply = protocol::cod::oob::MARKER.to_vec();
    match Packet::parse(datagram).ok()? {
        Packet::GetInfo { .. } => {
            reply.extend_from_slice(b"infoResponse\n\\hostname\\broken\\mapname")
        }
        Packet::GetStatus { .. } => {
            reply.extend_from_slice(b"statusResponse\n\\sv_hostname\\x\n12 fifty\n")
        }
        _ => return None,
    }
    Some(reply)
}

/// Sends whatever the session host has queued.
async fn flush(socket: &UdpSocket, host: &mut Sessions) {
    while let Some(transmit) = host.poll_transmit() {
        let _ = socket.send_to(&transmit.payload, transmit.to).await;
    }
}

/// Whether a datagram belongs to a game session: a sequenced packet, or the challenge and
/// connect that open one.
fn is_session(datagram: &[u8]) -> bool {
    match datagram.strip_prefix(&protocol::cod::oob::MARKER) {
        None => true,
        Some(rest) => rest.starts_with(b"getchallenge") || rest.starts_with(b"connect"),
    }
}

/// Whether a datagram is a remote-console command.
fn is_rcon(datagram: &[u8]) -> bool {
    datagram
        .strip_prefix(&protocol::cod::oob::MARKER)
        .and_then(|rest| rest.get(..4))
        .is_some_and(|name| name.eq_ignore_ascii_case(b"rcon"))
}

/// The stock server's reply to one query; garbage and unknown commands are ignored.
fn answer(datagram: &[u8], profile: &Mutex<ServerProfile>) -> Option<Vec<u8>> {
    let reply = match Packet::parse(datagram).ok()? {
        Packet::GetInfo { challenge } => {
            Packet::InfoResponse(profile.locked().info_response(challenge.as_deref()))
        }
        Packet::GetStatus { challenge } => {
            Packet::StatusResponse(profile.locked().status(challenge.as_deref()))
        }
        _ => return None,
    };
    Some(reply.emit())
}
