//! A loopback Wulfram II endpoint for the demo and the proxy tests: TCP and UDP on one port, as
//! a Wulfram II server listens. TCP frames are echoed. Each UDP peer gets a transport session
//! (handshake answered, acknowledgements, ordered chat), and every packet it delivers is sent
//! back in that packet's configured stream mode. All encoding goes through `protocol::wulfram`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use protocol::wulfram::frame::{self, FrameReader};
use protocol::wulfram::session::{Outbound, Session, SessionConfig, SessionEvent};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};

/// UDP peers served at once; the oldest is forgotten first.
const MAX_PEERS: usize = 64;
/// A peer silent this long is forgotten.
const IDLE: Duration = Duration::from_secs(60);
const TICK: Duration = Duration::from_millis(20);

/// Binds TCP and UDP on `port` of `host` (0: any port free for both) and serves them.
pub async fn bind(host: std::net::Ipv4Addr, port: u16) -> anyhow::Result<(TcpListener, UdpSocket)> {
    for _ in 0..32 {
        let listener = TcpListener::bind((host, port)).await?;
        match UdpSocket::bind(listener.local_addr()?).await {
            Ok(udp) => return Ok((listener, udp)),
            Err(e) if port != 0 => return Err(e.into()),
            Err(_) => continue,
        }
    }
    anyhow::bail!("no port free for both TCP and UDP")
}

/// Serves until the task is dropped.
pub async fn run(listener: TcpListener, udp: UdpSocket) {
    tokio::join!(tcp(listener), datagrams(Arc::new(udp)));
}

async fn tcp(listener: TcpListener) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(echo_frames(stream));
    }
}

async fn echo_frames(mut stream: TcpStream) {
    let mut reader = FrameReader::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        reader.push(&buf[..n]);
        while let Some(frame) = reader.next_frame() {
            let f = match frame {
                Ok(f) => f,
                // A refused control is skipped; a bad size cannot be resynchronized.
                Err(frame::FrameError::ControlOnTcp { .. }) => continue,
                Err(_) => return,
            };
            let Ok(bytes) = frame::emit(f.opcode, &f.body) else {
                continue;
            };
            if stream.write_all(&bytes).await.is_err() {
                return;
            }
        }
    }
}

struct Peer {
    session: Session,
    heard: tokio::time::Instant,
}

async fn datagrams(udp: Arc<UdpSocket>) {
    let started = tokio::time::Instant::now();
    let millis = || started.elapsed().as_millis() as u64;
    let mut peers: HashMap<SocketAddr, Peer> = HashMap::new();
    let mut next_id = 1u32;
    let mut buf = vec![0u8; 64 * 1024];
    let mut tick = tokio::time::interval(TICK);
    loop {
        tokio::select! {
            received = udp.recv_from(&mut buf) => {
                let Ok((n, from)) = received else { continue };
                let now = millis();
                if !peers.contains_key(&from) {
                    if peers.len() >= MAX_PEERS {
                        if let Some(oldest) = peers.iter().min_by_key(|(_, p)| p.heard).map(|(a, _)| *a) {
                            peers.remove(&oldest);
                        }
                    }
                    let config = SessionConfig { connection_id: next_id, ..SessionConfig::default() };
                    next_id = next_id.wrapping_add(1);
                    peers.insert(from, Peer { session: Session::new(config, now), heard: tokio::time::Instant::now() });
                }
                if let Some(peer) = peers.get_mut(&from) {
                    peer.heard = tokio::time::Instant::now();
                    peer.session.handle_datagram(now, &buf[..n]);
                    echo(now, &mut peer.session);
                    flush(&udp, from, &mut peer.session).await;
                }
            }
            _ = tick.tick() => {
                let now = millis();
                peers.retain(|_, p| p.heard.elapsed() < IDLE && !p.session.is_closed());
                for (addr, peer) in &mut peers {
                    peer.session.handle_timeout(now);
                    flush(&udp, *addr, &mut peer.session).await;
                }
            }
        }
    }
}

/// Sends every delivered game packet back.
fn echo(now: u64, session: &mut Session) {
    let packets: Vec<(u8, Vec<u8>)> = std::iter::from_fn(|| session.poll_event())
        .filter_map(|e| match e {
            SessionEvent::Packet { opcode, body, .. } => Some((opcode, body)),
            _ => None,
        })
        .collect();
    for (opcode, body) in packets {
        // The size policy already held on the way in; an echo is never larger.
        let _ = session.send(now, opcode, &body);
    }
}

async fn flush(udp: &UdpSocket, to: SocketAddr, session: &mut Session) {
    while let Some(transmit) = session.poll_transmit() {
        if let Outbound::Udp(datagram) = transmit {
            let _ = udp.send_to(&datagram, to).await;
        }
    }
}
