//! The one UDP driver of the sans-IO [`protocol::cod::client::Client`]: a spectator's socket,
//! its clock and its input. The spectator hubs, `muster spectate` and `muster record` all run
//! their session through it, so the drain rule (input, then every transmit, then wait for a
//! datagram or the next timer, then every event) is written once.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use protocol::cod::client::{Client, ClientConfig};
use protocol::cod::watch::spectator::SpectatorInput;
use tokio::net::UdpSocket;

/// How long the farewell packets get to leave before the socket closes.
const FAREWELL: Duration = Duration::from_millis(50);

/// When a datagram (or the wake-up) came, on the monotonic and the Unix clocks.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub at: Instant,
    pub unix_us: u64,
}

/// A spectator's session with one game server.
pub struct GameLink {
    socket: UdpSocket,
    /// The session; the caller reads its events and may start recordings or downloads.
    pub client: Client,
    epoch: Instant,
    input: SpectatorInput,
    buf: Vec<u8>,
}

impl GameLink {
    /// Opens a socket to `server` and a session that will `connect` as `config` says; `follow`
    /// presses fire to step through the players, as a spectator cycles (a stock server sends a
    /// spectator only what is visible from its view point).
    pub async fn open(
        server: SocketAddr,
        config: ClientConfig,
        follow: bool,
    ) -> std::io::Result<Self> {
        Ok(Self {
            socket: crate::net::udp_to(server).await?,
            client: Client::new(config, 0),
            epoch: Instant::now(),
            input: SpectatorInput::new(follow),
            buf: vec![0u8; 65536],
        })
    }

    /// The session's clock: milliseconds since it opened.
    pub fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// Applies the spectator's input, then sends every datagram the session has queued.
    pub async fn flush(&mut self) {
        let now = self.now();
        self.input.drive(now, &mut self.client);
        while let Some(datagram) = self.client.poll_transmit() {
            // A send error is a lost datagram; the session's own timers resend.
            let _ = self.socket.send(&datagram).await;
        }
    }

    /// When the session next wants [`Self::step`] to run without a datagram.
    pub fn deadline(&self) -> Option<Instant> {
        self.client
            .poll_timeout()
            .map(|t| self.epoch + Duration::from_millis(t))
    }

    /// Waits for a datagram or `wake`, whichever comes first, and hands it to the session.
    /// Returns when the wait ended, taken before the session decodes anything, so a caller
    /// that measures delay counts the decoding too.
    pub async fn step(&mut self, wake: Instant) -> Arrival {
        let received = tokio::select! {
            received = self.socket.recv(&mut self.buf) => received.ok(),
            _ = tokio::time::sleep_until(wake.into()) => None,
        };
        let arrival = Arrival {
            at: Instant::now(),
            unix_us: crate::net::unix_us(),
        };
        let now = self.now();
        match received {
            // ICMP errors (nobody listening yet) surface as Err and count as silence.
            Some(len) => self.client.handle_datagram(now, &self.buf[..len]),
            None => self.client.handle_timeout(now),
        }
        arrival
    }

    /// Says goodbye as stock does (`disconnect`, sent at once) and gives it time to leave.
    pub async fn farewell(&mut self) {
        self.client.disconnect();
        self.flush().await;
        tokio::time::sleep(FAREWELL).await;
    }
}
