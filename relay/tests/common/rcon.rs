//! An admin console socket (`/rcon/ADDR`) as the page uses it.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use protocol::relay_api::rcon::{RconCommand, RconReport};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// An admin socket to `server` from `client` (its `X-Forwarded-For`, which a relay trusting
/// 127.0.0.1 as a proxy takes for the client's address).
pub struct Console {
    pub socket: super::Socket,
    next_id: u32,
}

impl Console {
    pub async fn open(relay: SocketAddr, server: &str, client: &str) -> Self {
        let mut request = format!("ws://{relay}/rcon/{server}")
            .into_client_request()
            .unwrap();
        request
            .headers_mut()
            .insert("x-forwarded-for", client.parse().unwrap());
        let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        let ready = next_report(&mut socket).await;
        assert!(matches!(ready, RconReport::Ready { .. }), "{ready:?}");
        Self { socket, next_id: 0 }
    }

    pub async fn send(&mut self, password: &str, command: &str) {
        self.next_id += 1;
        let message = RconCommand {
            id: self.next_id,
            password: password.into(),
            command: command.into(),
        };
        self.socket
            .send(Message::Text(message.encode().into()))
            .await
            .unwrap();
    }

    pub async fn run(&mut self, password: &str, command: &str) -> RconReport {
        self.send(password, command).await;
        next_report(&mut self.socket).await
    }
}

pub async fn next_report(socket: &mut super::Socket) -> RconReport {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(20), socket.next())
            .await
            .expect("a report in time")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(text) = message {
            return RconReport::decode(&text).expect("a report");
        }
    }
}

pub fn outcome(report: &RconReport) -> (&str, &str) {
    match report {
        RconReport::Answer {
            outcome, output, ..
        } => (outcome.as_str(), output.as_str()),
        RconReport::Refused { kind, .. } => (kind.as_str(), ""),
        RconReport::Ready { .. } => ("ready", ""),
    }
}

/// The lab server got exactly `count` rcon datagrams, never two within the stock 500 ms (the
/// second would have been dropped).
pub fn arrived_spaced(server: &lab::LabServer, count: usize) {
    let arrivals = server.rcon_arrivals.lock().unwrap().clone();
    assert_eq!(arrivals.len(), count);
    let gaps: Vec<Duration> = arrivals.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.iter().all(|g| *g >= Duration::from_millis(500)),
        "{gaps:?}"
    );
}
