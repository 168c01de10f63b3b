//! The page feed: once per tick the directory's changes become one message, encoded once, and
//! the same bytes go to every page. A page joins with the keyframe (encoded once per tick,
//! however many join) and the players index, then takes the ticks; one whose queue falls more
//! than [`TICKS_KEPT`] ticks behind gets a fresh keyframe instead of the backlog, and a page
//! that stops reading for [`SEND_TIMEOUT`] is closed. A server's whole record goes only to the
//! pages that show it in detail, encoded once per change.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::feed::FeedMessage;
use protocol::relay_api::PageMessage;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::directory::Directory;

/// Changes are gathered this long before they go out as one message.
pub const TICK: Duration = Duration::from_millis(25);
/// Ticks a page may fall behind by (a few seconds of a busy directory) before it is sent a
/// keyframe instead.
pub const TICKS_KEPT: usize = 64;
/// A page that takes no bytes for this long is closed.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// One tick, encoded once.
pub struct Tick {
    pub seq: u64,
    pub bytes: Bytes,
    /// Servers whose whole record changed.
    pub details: BTreeSet<String>,
}

/// The keyframe and players index of one tick.
#[derive(Clone)]
struct Keyframe {
    seq: u64,
    list: Bytes,
    players: Bytes,
}

#[derive(Default)]
struct Cache {
    keyframe: Option<Keyframe>,
    /// Encoded detail messages, dropped when their server changes.
    details: BTreeMap<String, Bytes>,
}

/// What the feed has done, for `GET /api/feed`.
#[derive(Default, Serialize)]
pub struct Counters {
    pub pages: AtomicU64,
    pub ticks: AtomicU64,
    pub keyframes_encoded: AtomicU64,
    pub keyframes_sent: AtomicU64,
    pub resyncs: AtomicU64,
    pub closed_slow: AtomicU64,
}

pub struct PageFeed {
    directory: Arc<Directory>,
    ticks: broadcast::Sender<Arc<Tick>>,
    cache: Mutex<Cache>,
    pub counters: Counters,
}

impl PageFeed {
    pub fn new(directory: Arc<Directory>) -> Arc<Self> {
        Arc::new(Self {
            directory,
            ticks: broadcast::channel(TICKS_KEPT).0,
            cache: Mutex::default(),
            counters: Counters::default(),
        })
    }

    fn cache(&self) -> MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current keyframe, if one was encoded since the latest tick.
    fn cached_keyframe(&self) -> Option<Keyframe> {
        self.cache().keyframe.clone()
    }

    fn store_keyframe(&self, keyframe: &Keyframe) {
        let mut cache = self.cache();
        // A tick that went out meanwhile made this one stale; keep it only if still current.
        if cache.keyframe.is_none() && self.directory.seq() == keyframe.seq {
            cache.keyframe = Some(keyframe.clone());
        }
    }

    fn detail(&self, addr: &str) -> Option<Bytes> {
        if let Some(bytes) = self.cache().details.get(addr) {
            return Some(bytes.clone());
        }
        let server = self.directory.server(addr)?;
        let bytes: Bytes = FeedMessage::Detail { server }.encode().into();
        self.cache().details.insert(addr.into(), bytes.clone());
        Some(bytes)
    }

    /// Turns the directory's changes into ticks, for the relay's life.
    pub async fn run(self: Arc<Self>) {
        loop {
            self.directory.changed().await;
            tokio::time::sleep(TICK).await;
            let Some(changes) = self.directory.take_changes() else {
                continue;
            };
            let bytes: Bytes = changes.message.encode().into();
            {
                let mut cache = self.cache();
                cache.keyframe = None;
                for addr in &changes.details {
                    cache.details.remove(addr);
                }
            }
            self.counters.ticks.fetch_add(1, Ordering::Relaxed);
            let _ = self.ticks.send(Arc::new(Tick {
                seq: changes.seq,
                bytes,
                details: changes.details,
            }));
        }
    }

    /// Serves one page until it leaves, stops reading, or the relay stops.
    pub async fn serve<S, R>(self: Arc<Self>, mut sink: S, mut stream: R)
    where
        S: Sink<Message> + Unpin,
        R: Stream<Item = Result<Message, axum::Error>> + Unpin,
    {
        self.counters.pages.fetch_add(1, Ordering::Relaxed);
        let page = self.directory.page_opened();
        let mut ticks = self.ticks.subscribe();
        let mut seq = match self.send_keyframe(&mut sink).await {
            Some(seq) => seq,
            None => return self.close(page),
        };
        let mut watched: Option<String> = None;
        loop {
            tokio::select! {
                tick = ticks.recv() => {
                    let tick = match tick {
                        Ok(tick) => tick,
                        Err(RecvError::Lagged(_)) => {
                            self.counters.resyncs.fetch_add(1, Ordering::Relaxed);
                            ticks = ticks.resubscribe();
                            match self.send_keyframe(&mut sink).await {
                                Some(s) => {
                                    seq = s;
                                    continue;
                                }
                                None => break,
                            }
                        }
                        Err(RecvError::Closed) => break,
                    };
                    if tick.seq <= seq {
                        continue;
                    }
                    seq = tick.seq;
                    if !self.send(&mut sink, tick.bytes.clone()).await {
                        break;
                    }
                    let detail = watched
                        .as_ref()
                        .filter(|a| tick.details.contains(*a))
                        .and_then(|a| self.detail(a));
                    if let Some(detail) = detail {
                        if !self.send(&mut sink, detail).await {
                            break;
                        }
                    }
                }
                incoming = stream.next() => match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(Message::Text(text))) => {
                        if let Ok(PageMessage::Watch { addr }) = serde_json::from_str(&text) {
                            watched = self.directory.watch(page, addr);
                            let detail = watched.as_ref().and_then(|a| self.detail(a));
                            if let Some(detail) = detail {
                                if !self.send(&mut sink, detail).await {
                                    break;
                                }
                            }
                        }
                    }
                    Some(Ok(_)) => {}
                },
            }
        }
        self.close(page)
    }

    fn close(&self, page: u64) {
        self.directory.page_closed(page);
        self.counters.pages.fetch_sub(1, Ordering::Relaxed);
    }

    /// The keyframe, then the players index: encoded once per tick however many pages join,
    /// and the list goes out before the index is encoded, so a page shows it sooner.
    async fn send_keyframe<S: Sink<Message> + Unpin>(&self, sink: &mut S) -> Option<u64> {
        self.counters.keyframes_sent.fetch_add(1, Ordering::Relaxed);
        if let Some(k) = self.cached_keyframe() {
            return (self.send(sink, k.list).await && self.send(sink, k.players).await)
                .then_some(k.seq);
        }
        let (seq, list, players) = self.directory.keyframe();
        self.counters
            .keyframes_encoded
            .fetch_add(1, Ordering::Relaxed);
        let list: Bytes = list.encode().into();
        if !self.send(sink, list.clone()).await {
            return None;
        }
        let players: Bytes = players.encode().into();
        self.store_keyframe(&Keyframe {
            seq,
            list,
            players: players.clone(),
        });
        self.send(sink, players).await.then_some(seq)
    }

    async fn send<S: Sink<Message> + Unpin>(&self, sink: &mut S, bytes: Bytes) -> bool {
        match tokio::time::timeout(SEND_TIMEOUT, sink.send(Message::Binary(bytes))).await {
            Ok(Ok(())) => true,
            Ok(Err(_)) => false,
            Err(_) => {
                self.counters.closed_slow.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::mpsc;
    use protocol::relay_api::Reachability;

    fn server(i: u32, clients: u32) -> protocol::relay_api::ServerInfo {
        let addr = std::net::SocketAddrV4::new([10, 0, 0, 1].into(), 28960 + i as u16);
        let mut s = crate::poller::pending_server(addr, vec!["lan".into()]);
        s.reachability = Reachability::Online;
        s.clients = clients;
        s.updated_ms = Some(u64::from(clients));
        s
    }

    /// A page on channels: what the relay sends, and what the page says.
    fn page(
        feed: &Arc<PageFeed>,
        room: usize,
    ) -> (
        mpsc::Receiver<Message>,
        mpsc::UnboundedSender<Result<Message, axum::Error>>,
    ) {
        let (sink, received) = mpsc::channel::<Message>(room);
        let (says, stream) = mpsc::unbounded();
        let sink = sink.sink_map_err(|_| ());
        tokio::spawn(feed.clone().serve(sink, stream));
        (received, says)
    }

    fn decode(message: Message) -> FeedMessage {
        let Message::Binary(bytes) = message else {
            panic!("{message:?}")
        };
        FeedMessage::decode(&bytes).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn a_page_that_falls_behind_gets_a_keyframe_not_the_backlog() {
        let directory = Arc::new(Directory::new(&[]));
        directory.upsert(server(0, 0));
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        // A page whose socket takes one message and then nothing until we read.
        let (mut received, _says) = page(&feed, 0);
        let first = decode(received.next().await.unwrap());
        assert!(matches!(first, FeedMessage::Keyframe { .. }));
        assert!(matches!(
            decode(received.next().await.unwrap()),
            FeedMessage::Players { .. }
        ));
        for n in 1..=(TICKS_KEPT as u32 + 20) {
            directory.upsert(server(0, n));
            tokio::time::sleep(TICK * 2).await;
        }
        // The page reads again: one tick was in flight, then a fresh keyframe, not 80 ticks.
        let mut kinds = Vec::new();
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(10), received.next()).await
        {
            kinds.push(decode(message));
        }
        assert!(kinds.len() <= 4, "{} messages", kinds.len());
        let keyframe = kinds.iter().find_map(|m| match m {
            FeedMessage::Keyframe { servers, .. } => Some(servers.clone()),
            _ => None,
        });
        assert_eq!(keyframe.unwrap()[0].clients, TICKS_KEPT as u32 + 20);
        assert_eq!(feed.counters.resyncs.load(Ordering::Relaxed), 1);
        assert_eq!(
            feed.counters.keyframes_encoded.load(Ordering::Relaxed),
            2,
            "each keyframe encoded once"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_page_that_stops_reading_is_closed_and_others_carry_on() {
        let directory = Arc::new(Directory::new(&[]));
        directory.upsert(server(0, 0));
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        let (_stuck, _says) = page(&feed, 0);
        let (mut good, _good_says) = page(&feed, 64);
        for n in 1..=5 {
            directory.upsert(server(0, n));
            tokio::time::sleep(TICK * 2).await;
        }
        tokio::time::sleep(SEND_TIMEOUT + Duration::from_secs(1)).await;
        assert_eq!(feed.counters.closed_slow.load(Ordering::Relaxed), 1);
        assert_eq!(feed.counters.pages.load(Ordering::Relaxed), 1);
        let mut seqs = Vec::new();
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(10), good.next()).await
        {
            if let FeedMessage::Changes { seq, .. } = decode(message) {
                seqs.push(seq);
            }
        }
        assert_eq!(seqs, [1, 2, 3, 4, 5], "every tick, in order");
    }

    #[tokio::test(start_paused = true)]
    async fn only_the_watching_page_gets_a_server_s_detail() {
        let directory = Arc::new(Directory::new(&[]));
        directory.upsert(server(0, 0));
        directory.upsert(server(1, 0));
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        let (mut watching, says) = page(&feed, 64);
        let (mut other, _other_says) = page(&feed, 64);
        let watch = serde_json::to_string(&PageMessage::Watch {
            addr: Some("10.0.0.1:28961".into()),
        })
        .unwrap();
        says.unbounded_send(Ok(Message::Text(watch.into())))
            .unwrap();
        tokio::time::sleep(TICK).await;
        directory.upsert(server(1, 7));
        directory.upsert(server(0, 3));
        tokio::time::sleep(TICK * 3).await;
        let drain = |r: &mut mpsc::Receiver<Message>| {
            let mut out = Vec::new();
            while let Ok(m) = r.try_recv() {
                out.push(decode(m));
            }
            out
        };
        let details: Vec<u32> = drain(&mut watching)
            .into_iter()
            .filter_map(|m| match m {
                FeedMessage::Detail { server } => Some(server.clients),
                _ => None,
            })
            .collect();
        assert_eq!(details, [0, 7], "at once, then on its change");
        assert!(!drain(&mut other)
            .iter()
            .any(|m| matches!(m, FeedMessage::Detail { .. })));
    }
}
