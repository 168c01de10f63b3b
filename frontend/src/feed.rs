//! The relay's WebSocket feed, applied to the page's signals; reconnects when the relay goes away.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::{futures::WebSocket, Message};
use leptos::prelude::*;
use protocol::relay_api::{
    MasterStatus, PageMessage, Progress, RelayMessage, ServerInfo, WulframServer,
};

/// The page's copy of the directory.
#[derive(Clone, Copy)]
pub struct Feed {
    pub servers: RwSignal<BTreeMap<String, ServerInfo>>,
    pub masters: RwSignal<Vec<MasterStatus>>,
    pub progress: RwSignal<Progress>,
    /// The Wulfram II servers the relay's operator configured.
    pub wulfram: RwSignal<Vec<WulframServer>>,
    pub connected: RwSignal<bool>,
    /// The server this page shows in detail; the relay refreshes it more often.
    pub watched: RwSignal<Option<String>>,
    /// Messages for the relay, to the current connection.
    outbox: StoredValue<Option<mpsc::UnboundedSender<String>>>,
}

impl Feed {
    pub fn new() -> Self {
        Self {
            servers: RwSignal::new(BTreeMap::new()),
            masters: RwSignal::new(Vec::new()),
            progress: RwSignal::new(Progress::default()),
            wulfram: RwSignal::new(Vec::new()),
            connected: RwSignal::new(false),
            watched: RwSignal::new(None),
            outbox: StoredValue::new(None),
        }
    }

    fn watch_message(&self) -> String {
        let addr = self.watched.get_untracked();
        serde_json::to_string(&PageMessage::Watch { addr }).unwrap_or_default()
    }

    fn apply(&self, message: RelayMessage) {
        match message {
            RelayMessage::Directory {
                servers,
                masters,
                progress,
                wulfram,
            } => {
                self.servers
                    .set(servers.into_iter().map(|s| (s.addr.clone(), s)).collect());
                self.masters.set(masters);
                self.progress.set(progress);
                self.wulfram.set(wulfram);
            }
            RelayMessage::Server { server } => self.servers.update(|all| {
                all.insert(server.addr.clone(), server);
            }),
            RelayMessage::Masters { masters } => self.masters.set(masters),
            RelayMessage::Progress { progress } => self.progress.set(progress),
            RelayMessage::Wulfram { servers } => self.wulfram.set(servers),
        }
    }

    /// Follows the relay for the life of the page.
    pub fn start(self) {
        Effect::new(move |_| {
            self.watched.track();
            let message = self.watch_message();
            self.outbox.with_value(|outbox| {
                if let Some(outbox) = outbox {
                    let _ = outbox.unbounded_send(message);
                }
            });
        });
        leptos::task::spawn_local(async move {
            loop {
                self.follow().await;
                self.connected.set(false);
                sleep(Duration::from_secs(2)).await;
            }
        });
    }

    async fn follow(&self) {
        let Ok(socket) = WebSocket::open(&feed_url()) else {
            return;
        };
        let (mut sink, stream) = socket.split();
        let mut stream = stream.fuse();
        let (outbox, mut outgoing) = mpsc::unbounded();
        let _ = outbox.unbounded_send(self.watch_message());
        self.outbox.set_value(Some(outbox));
        loop {
            futures::select! {
                message = stream.next() => {
                    let Some(Ok(Message::Text(text))) = message else {
                        break;
                    };
                    self.connected.set(true);
                    match serde_json::from_str::<RelayMessage>(&text) {
                        Ok(message) => self.apply(message),
                        Err(e) => leptos::logging::warn!("unreadable relay message: {e}"),
                    }
                }
                text = outgoing.next() => {
                    let Some(text) = text else { break };
                    if sink.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
            }
        }
        self.outbox.set_value(None);
    }
}

/// `ws(s)://<this page's host>/ws`.
fn feed_url() -> String {
    let location = window().location();
    let scheme = match location.protocol().as_deref() {
        Ok("https:") => "wss",
        _ => "ws",
    };
    let host = location.host().unwrap_or_default();
    format!("{scheme}://{host}/ws")
}

async fn sleep(duration: Duration) {
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    set_timeout(
        move || {
            let _ = done.send(());
        },
        duration,
    );
    let _ = wait.await;
}
