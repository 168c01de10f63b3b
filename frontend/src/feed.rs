//! The relay's WebSocket feed, applied to the page's signals; reconnects when the relay goes away.
//! The list comes as summaries (and a players index for search, Find player and the watch list);
//! the server shown in detail comes whole.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::{futures::WebSocket, Message};
use leptos::prelude::*;
use protocol::relay_api::feed::{
    page_masters, Body, FeedList, FeedMessage, Parts, Touched, MAX_KEYFRAME,
};
use protocol::relay_api::{MasterStatus, PageMessage, Progress, ServerInfo, WulframServer};
use wasm_bindgen::{JsCast, JsValue};

use crate::bus::{self, ToPanels};
use crate::net::{sleep, ws_url};

/// The page's copy of the directory.
#[derive(Clone, Copy)]
pub struct Feed {
    pub servers: RwSignal<BTreeMap<String, ServerInfo>>,
    pub masters: RwSignal<Vec<MasterStatus>>,
    pub progress: RwSignal<Progress>,
    /// The Wulfram II servers the relay's operator configured.
    pub wulfram: RwSignal<Vec<WulframServer>>,
    pub connected: RwSignal<bool>,
    /// The server this page shows in detail; the relay refreshes it more often and sends it
    /// whole.
    pub watched: RwSignal<Option<String>>,
    /// The whole record of the watched server, once the relay sent it (the latest sent: a
    /// reader checks it is the server it shows).
    pub detail: RwSignal<Option<ServerInfo>>,
    /// Summaries and player names by feed id, which later messages name servers by.
    list: StoredValue<FeedList>,
    /// Messages for the relay, to the current connection.
    outbox: StoredValue<Option<mpsc::UnboundedSender<String>>>,
    /// The list's feed forwards every message to the side panels (`bus.rs`).
    pub to_panels: StoredValue<ToPanels>,
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
            detail: RwSignal::new(None),
            list: StoredValue::new(FeedList::default()),
            outbox: StoredValue::new(None),
            to_panels: StoredValue::new(ToPanels::default()),
        }
    }

    fn watch_message(&self) -> String {
        let addr = self.watched.get_untracked();
        crate::net::to_json(&PageMessage::Watch { addr }).unwrap_or_default()
    }

    fn apply(&self, mut message: FeedMessage) {
        let touched = match &mut message {
            // The list is taken as it came, not copied.
            FeedMessage::Keyframe { seq, servers, .. } => {
                let servers = std::mem::take(servers);
                self.list.update_value(|list| list.replace(*seq, servers));
                Some(Touched::All)
            }
            message => self
                .list
                .try_update_value(|list| list.apply(message))
                .flatten(),
        };
        let fresh = touched.is_some();
        match touched {
            Some(Touched::All) => {
                let all = self.list.with_value(|list| {
                    list.servers()
                        .map(|s| (s.addr.clone(), s))
                        .collect::<BTreeMap<_, _>>()
                });
                self.servers.set(all);
            }
            // The players index joins the list after it is on screen: the list first, then
            // search over players, Find player and the watch list.
            Some(Touched::Some(ids)) if matches!(message, FeedMessage::Players { .. }) => {
                let feed = *self;
                request_animation_frame(move || {
                    set_timeout(move || feed.refresh(&ids), Duration::ZERO);
                });
            }
            Some(Touched::Some(ids)) => self.refresh(&ids),
            None => {}
        }
        match message {
            FeedMessage::Keyframe {
                masters,
                progress,
                wulfram,
                ..
            } => {
                self.masters.set(page_masters(&masters));
                self.progress.set(progress);
                self.wulfram.set(wulfram);
            }
            FeedMessage::Changes {
                masters,
                progress,
                wulfram,
                ..
            } if fresh => {
                if let Some(masters) = masters {
                    self.masters.set(page_masters(&masters));
                }
                if let Some(progress) = progress {
                    self.progress.set(progress);
                }
                if let Some(wulfram) = wulfram {
                    self.wulfram.set(wulfram);
                }
            }
            // Whichever server it is: the detail shows it only for the server selected (which,
            // in the side panels, may be learned after the record came).
            FeedMessage::Detail { server } => self.detail.set(Some(server)),
            _ => {}
        }
    }

    /// Whether a list already arrived on this page.
    fn connected_once(&self) -> bool {
        self.list.with_value(|list| !list.summaries.is_empty())
    }

    /// Re-derives the named servers in one update of the list.
    fn refresh(&self, ids: &[u32]) {
        if ids.is_empty() {
            return;
        }
        let updated: Vec<ServerInfo> = self
            .list
            .with_value(|list| ids.iter().filter_map(|&id| list.server(id)).collect());
        self.servers.update(|all| {
            for server in updated {
                all.insert(server.addr.clone(), server);
            }
        });
    }

    /// The side panels' copy: every message the list's feed forwards (`bus.rs`), in order.
    pub fn follow_list(self) {
        let (forwarded, mut messages) = mpsc::unbounded::<Vec<u8>>();
        leptos::task::spawn_local(async move {
            while let Some(bytes) = messages.next().await {
                self.message(&bytes).await;
            }
        });
        bus::from_list(move |bytes| {
            let _ = forwarded.unbounded_send(bytes);
        });
    }

    /// Follows the relay for the life of the page, forwarding what it says to the side panels.
    pub fn start(self) {
        self.to_panels.set_value(ToPanels::new());
        Effect::new(move |_| {
            self.watched.track();
            self.detail.set(None);
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
        mark("muster-feed-open");
        let (socket, early) = match early_feed() {
            Some(adopted) => adopted,
            None => match WebSocket::open(&ws_url("/ws")) {
                Ok(socket) => (socket, Vec::new()),
                Err(_) => return,
            },
        };
        let (mut sink, stream) = socket.split();
        let mut stream = stream.fuse();
        let (outbox, mut outgoing) = mpsc::unbounded();
        // The first word: for a socket opened early, it also asks for the rest of the feed.
        let _ = outbox.unbounded_send(self.watch_message());
        self.outbox.set_value(Some(outbox));
        // A long message (the list, the players index) comes in parts.
        let mut parts = Parts::default();
        for bytes in early {
            self.received(&mut parts, &bytes).await;
        }
        loop {
            futures::select! {
                message = stream.next() => {
                    let Some(Ok(Message::Bytes(bytes))) = message else {
                        break;
                    };
                    self.received(&mut parts, &bytes).await;
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

    async fn received(&self, parts: &mut Parts, part: &[u8]) {
        let bytes = match parts.push(part) {
            None => return,
            Some(Ok(bytes)) => bytes,
            Some(Err(e)) => {
                leptos::logging::warn!("relay message parts out of order: {e}");
                return;
            }
        };
        let first = !self.connected_once();
        if first {
            mark("muster-list-bytes");
        }
        self.message(&bytes).await;
        if first && self.connected_once() {
            mark("muster-list");
        }
    }

    /// One whole message from the relay; the next waits for it (a list may be inflating).
    async fn message(&self, bytes: &[u8]) {
        self.connected.set(true);
        let inflated;
        let body = match Body::of(bytes) {
            Ok(Body::Plain(body)) => body,
            Ok(Body::Deflated(packed)) => match inflate(packed).await {
                Some(body) => {
                    inflated = body;
                    &inflated[..]
                }
                None => {
                    leptos::logging::warn!("relay message did not inflate");
                    return;
                }
            },
            Err(e) => {
                leptos::logging::warn!("unreadable relay message: {e}");
                return;
            }
        };
        match FeedMessage::from_postcard(body) {
            Ok(message) => {
                let list = matches!(message, FeedMessage::Keyframe { .. });
                self.to_panels.update_value(|to| to.send(bytes, list));
                self.apply(message);
            }
            Err(e) => leptos::logging::warn!("unreadable relay message: {e}"),
        }
    }
}

/// The feed socket `index.html` opened (`/ws?hold`) while this code was downloading, and what
/// it received meanwhile; taken once, by the first connection.
fn early_feed() -> Option<(WebSocket, Vec<Vec<u8>>)> {
    let window = window();
    let key = JsValue::from_str("musterFeed");
    let feed = js_sys::Reflect::get(&window, &key).ok()?;
    let _ = js_sys::Reflect::delete_property(&window, &key);
    let field = |name: &str| js_sys::Reflect::get(&feed, &JsValue::from_str(name)).ok();
    let socket: web_sys::WebSocket = field("socket")?.dyn_into().ok()?;
    let queue: js_sys::Array = field("queue")?.dyn_into().ok()?;
    if socket.ready_state() > web_sys::WebSocket::OPEN {
        return None;
    }
    // Within this one task no message can slip between the script's handler and ours.
    socket.set_onmessage(None);
    let early = queue
        .iter()
        .filter_map(|data| data.dyn_into::<js_sys::ArrayBuffer>().ok())
        .map(|buffer| js_sys::Uint8Array::new(&buffer).to_vec())
        .collect();
    Some((WebSocket::try_from(socket).ok()?, early))
}

/// A deflated message's postcard, inflated by the browser (`DecompressionStream`); `None` if it
/// is not raw DEFLATE or inflates past [`MAX_KEYFRAME`] (checked once inflated: the relay is
/// the page's own origin).
async fn inflate(packed: &[u8]) -> Option<Vec<u8>> {
    let run = js_sys::Function::new_with_args(
        "packed",
        "return new Response(new Blob([packed]).stream() \
           .pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer()",
    );
    let promise = run.call1(&JsValue::NULL, &js_sys::Uint8Array::from(packed));
    let promise: js_sys::Promise = promise.ok()?.dyn_into().ok()?;
    let body = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let body = js_sys::Uint8Array::new(&body);
    (body.length() as usize <= MAX_KEYFRAME).then(|| body.to_vec())
}

/// A `performance` mark, for the page benchmark: the feed opening, the list arriving, the list
/// on screen.
pub fn mark(name: &str) {
    if let Some(performance) = window().performance() {
        let _ = performance.mark(name);
    }
}
