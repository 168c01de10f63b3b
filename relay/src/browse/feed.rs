//! The page feed: once per tick the directory's changes become one message, encoded once, and
//! the same bytes go to every page. A page joins with the latest keyframe and players index
//! (rebuilt in the background once [`KEYFRAME_BEHIND`] ticks old, so no page waits for an
//! encoding) and the ticks since, then takes the ticks as they come; one whose queue falls
//! more than [`TICKS_KEPT`] ticks behind gets a keyframe instead of the backlog, and a page
//! that stops reading for [`SEND_TIMEOUT`] is closed. A server's whole record goes only to the
//! pages that show it in detail, encoded once per change.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::feed::{parts, FeedMessage};
use protocol::relay_api::PageMessage;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use super::directory::Directory;
use crate::sync::Locked;

/// Changes are gathered this long before they go out as one message.
pub const TICK: Duration = Duration::from_millis(25);
/// Ticks a page may fall behind by (a few seconds of a busy directory) before it is sent a
/// keyframe instead.
pub const TICKS_KEPT: usize = 64;
/// A keyframe this many ticks old is rebuilt, so a joining page takes few ticks after it.
pub const KEYFRAME_BEHIND: u64 = 16;
/// Keyframes are rebuilt at most this often: a 5,000-server list takes some milliseconds.
pub const KEYFRAME_EVERY: Duration = Duration::from_secs(1);
/// A page that takes no bytes for this long is closed.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a page that asked for `hold` may take to say its first message before the rest of
/// the feed goes to it anyway: a page's code on a slow phone link.
pub const HOLD_LIMIT: Duration = Duration::from_secs(60);

/// An encoded message as the WebSocket messages that carry it (a long one in parts), each
/// encoded once and shared by every page.
#[derive(Clone)]
pub struct Encoded(Arc<[Bytes]>);

impl Encoded {
    pub fn new(encoded: Vec<u8>) -> Self {
        Self(parts(encoded).into_iter().map(Bytes::from).collect())
    }

    /// The bytes of all its parts.
    pub fn len(&self) -> usize {
        self.0.iter().map(Bytes::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn parts(&self) -> &[Bytes] {
        &self.0
    }
}

/// A page joining: its keyframe, the ticks since it, and the ticks to come.
struct Joining {
    seq: u64,
    list: Encoded,
    players: Encoded,
    since: Vec<Arc<Tick>>,
    ticks: broadcast::Receiver<Arc<Tick>>,
}

/// One tick, encoded once.
pub struct Tick {
    pub seq: u64,
    pub bytes: Encoded,
    /// Servers whose whole record changed.
    pub details: BTreeSet<String>,
}

/// The keyframe and players index of one tick.
#[derive(Clone)]
struct Keyframe {
    seq: u64,
    list: Encoded,
    players: Encoded,
}

#[derive(Default)]
struct Cache {
    keyframe: Option<Keyframe>,
    /// A keyframe is being built in the background.
    building: bool,
    /// The latest ticks, oldest first: what a joining page takes after the keyframe.
    recent: VecDeque<Arc<Tick>>,
    /// Encoded detail messages, dropped when their server changes.
    details: BTreeMap<String, Bytes>,
}

impl Cache {
    /// The keyframe and the ticks after it, if the ticks kept still reach back to it.
    fn start(&self) -> Option<(Keyframe, Vec<Arc<Tick>>)> {
        let keyframe = self.keyframe.clone()?;
        if self
            .recent
            .front()
            .is_some_and(|t| t.seq > keyframe.seq + 1)
        {
            return None;
        }
        let since: Vec<_> = self
            .recent
            .iter()
            .filter(|t| t.seq > keyframe.seq)
            .cloned()
            .collect();
        Some((keyframe, since))
    }

    /// Whether the keyframe should be rebuilt: there is none, or a joining page would take
    /// many ticks after it, or ticks that weigh more than a quarter of it (a fleet that
    /// answered after it was built comes in ticks, whole and not deflated).
    fn stale(&self) -> bool {
        if self.building {
            return false;
        }
        let Some(keyframe) = &self.keyframe else {
            return true;
        };
        let since = self.recent.iter().filter(|t| t.seq > keyframe.seq);
        let (ticks, bytes) = since.fold((0, 0), |(n, b), t| (n + 1, b + t.bytes.len()));
        ticks >= KEYFRAME_BEHIND || bytes * 4 > keyframe.list.len()
    }

    fn store(&mut self, keyframe: Keyframe) {
        if self.keyframe.as_ref().is_none_or(|k| k.seq < keyframe.seq) {
            self.keyframe = Some(keyframe);
        }
    }
}

/// What the feed has done, for `GET /api/feed`: totals since the relay started.
#[derive(Default, Serialize, utoipa::ToSchema)]
#[schema(as = FeedCounters)]
pub struct Counters {
    /// Pages connected now.
    #[schema(value_type = u64)]
    pub pages: AtomicU64,
    #[schema(value_type = u64)]
    pub ticks: AtomicU64,
    #[schema(value_type = u64)]
    pub keyframes_encoded: AtomicU64,
    #[schema(value_type = u64)]
    pub keyframes_sent: AtomicU64,
    #[schema(value_type = u64)]
    pub resyncs: AtomicU64,
    #[schema(value_type = u64)]
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
        self.cache.locked()
    }

    /// The directory's list and players index as they stand, encoded.
    fn encode_keyframe(&self) -> Keyframe {
        let (seq, list, players) = self.directory.keyframe();
        self.counters
            .keyframes_encoded
            .fetch_add(1, Ordering::Relaxed);
        Keyframe {
            seq,
            list: Encoded::new(list.encode()),
            players: Encoded::new(players.encode()),
        }
    }

    /// The tick of the keyframe a joining page starts from (the directory's latest before the
    /// first is built).
    pub fn keyframe_seq(&self) -> u64 {
        let kept = self.cache().keyframe.as_ref().map(|k| k.seq);
        kept.unwrap_or_else(|| self.directory.seq())
    }

    fn detail(&self, addr: &str) -> Option<Bytes> {
        if let Some(bytes) = self.cache().details.get(addr) {
            return Some(bytes.clone());
        }
        let server = self.directory.server(addr.parse().ok()?)?;
        let bytes: Bytes = FeedMessage::Detail { server }.encode().into();
        self.cache().details.insert(addr.into(), bytes.clone());
        Some(bytes)
    }

    /// Every tick from now on (the cluster's poller relay republishes what each changed).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Tick>> {
        self.ticks.subscribe()
    }

    /// Turns the directory's changes into ticks, for the relay's life, and keeps the keyframe
    /// fresh: one that is stale is rebuilt in the background, at most every
    /// [`KEYFRAME_EVERY`], and when that wait ends even if nothing more changed.
    pub async fn run(self: Arc<Self>) {
        let mut built = Instant::now() - KEYFRAME_EVERY;
        loop {
            let due = self.cache().stale().then_some(built + KEYFRAME_EVERY);
            tokio::select! {
                _ = self.directory.changed() => {
                    tokio::time::sleep(TICK).await;
                    if let Some(changes) = self.directory.take_changes() {
                        self.tick(changes);
                    }
                }
                _ = tokio::time::sleep_until(due.unwrap_or(built)), if due.is_some() => {}
            }
            if built.elapsed() < KEYFRAME_EVERY {
                continue;
            }
            let rebuild = {
                let mut cache = self.cache();
                let rebuild = cache.stale();
                cache.building |= rebuild;
                rebuild
            };
            if rebuild {
                built = Instant::now();
                let feed = self.clone();
                tokio::task::spawn_blocking(move || {
                    let keyframe = feed.encode_keyframe();
                    let mut cache = feed.cache();
                    cache.store(keyframe);
                    cache.building = false;
                });
            }
        }
    }

    /// One tick out to every page, and kept for the pages that join.
    fn tick(&self, changes: super::directory::Changes) {
        let tick = Arc::new(Tick {
            seq: changes.seq,
            bytes: Encoded::new(changes.message.encode()),
            details: changes.details,
        });
        let mut cache = self.cache();
        for addr in &tick.details {
            cache.details.remove(addr);
        }
        if cache.recent.len() == TICKS_KEPT {
            cache.recent.pop_front();
        }
        cache.recent.push_back(tick.clone());
        // Sent under the lock that guards `recent`, so a joining page that subscribes under it
        // misses no tick and takes none twice.
        let _ = self.ticks.send(tick);
        self.counters.ticks.fetch_add(1, Ordering::Relaxed);
    }

    /// Serves one page until it leaves, stops reading, or the relay stops. A page that opened
    /// its feed while its own code was still loading (`hold`) takes the list at once and the
    /// rest (the players index, the ticks) after its first message, so on a slow link that
    /// rest does not compete with the page's code for the bandwidth.
    pub async fn serve<S, R>(self: Arc<Self>, mut sink: S, mut stream: R, hold: bool)
    where
        S: Sink<Message> + Unpin,
        R: Stream<Item = Result<Message, axum::Error>> + Unpin,
    {
        self.counters.pages.fetch_add(1, Ordering::Relaxed);
        let page = self.directory.page_opened();
        let mut watched: Option<String> = None;
        let joining = self.join();
        let mut first = None;
        let mut open = self.send_all(&mut sink, &joining.list).await;
        if open && hold {
            match tokio::time::timeout(HOLD_LIMIT, stream.next()).await {
                Ok(Some(Ok(message))) if !matches!(message, Message::Close(_)) => {
                    first = Some(message)
                }
                Ok(_) => open = false,
                Err(_) => {}
            }
        }
        let mut joined = match open {
            true => self.catch_up(&mut sink, joining).await,
            false => None,
        };
        if let (Some(message), Some(_)) = (first, &joined) {
            if !self.heard(page, message, &mut watched, &mut sink).await {
                joined = None;
            }
        }
        let Some((mut seq, mut ticks)) = joined else {
            return self.close(page);
        };
        loop {
            tokio::select! {
                tick = ticks.recv() => {
                    let tick = match tick {
                        Ok(tick) => tick,
                        Err(RecvError::Lagged(_)) => {
                            self.counters.resyncs.fetch_add(1, Ordering::Relaxed);
                            let joining = self.join();
                            if !self.send_all(&mut sink, &joining.list).await {
                                break;
                            }
                            match self.catch_up(&mut sink, joining).await {
                                Some(joined) => {
                                    (seq, ticks) = joined;
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
                    if !self.send_all(&mut sink, &tick.bytes).await {
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
                    Some(Ok(message)) => {
                        if !self.heard(page, message, &mut watched, &mut sink).await {
                            break;
                        }
                    }
                },
            }
        }
        self.close(page)
    }

    /// A message from the page: the server it shows in detail, whose record goes at once.
    /// False once the page cannot be written to.
    async fn heard<S: Sink<Message> + Unpin>(
        &self,
        page: u64,
        message: Message,
        watched: &mut Option<String>,
        sink: &mut S,
    ) -> bool {
        let Message::Text(text) = message else {
            return true;
        };
        let Ok(PageMessage::Watch { addr }) = serde_json::from_str(&text) else {
            return true;
        };
        *watched = self.directory.watch(page, addr);
        match watched.as_ref().and_then(|a| self.detail(a)) {
            Some(detail) => self.send(sink, detail).await,
            None => true,
        }
    }

    fn close(&self, page: u64) {
        self.directory.page_closed(page);
        self.counters.pages.fetch_sub(1, Ordering::Relaxed);
    }

    /// Where a page starts: the latest keyframe (encoded now if none is kept that the recent
    /// ticks still reach back to), the ticks since, and the ticks to come.
    fn join(&self) -> Joining {
        self.counters.keyframes_sent.fetch_add(1, Ordering::Relaxed);
        let (ticks, start) = {
            let cache = self.cache();
            (self.ticks.subscribe(), cache.start())
        };
        let (keyframe, since) = start.unwrap_or_else(|| {
            let keyframe = self.encode_keyframe();
            self.cache().store(keyframe.clone());
            (keyframe, Vec::new())
        });
        Joining {
            seq: keyframe.seq,
            list: keyframe.list,
            players: keyframe.players,
            since,
            ticks,
        }
    }

    /// After the list: the players index and the ticks since the keyframe.
    async fn catch_up<S: Sink<Message> + Unpin>(
        &self,
        sink: &mut S,
        joining: Joining,
    ) -> Option<(u64, broadcast::Receiver<Arc<Tick>>)> {
        let mut seq = joining.seq;
        if !self.send_all(sink, &joining.players).await {
            return None;
        }
        for tick in joining.since {
            if !self.send_all(sink, &tick.bytes).await {
                return None;
            }
            seq = tick.seq;
        }
        Some((seq, joining.ticks))
    }

    /// Every part of a message, each flushed before the next, so a socket's write buffer
    /// holds one part at most.
    async fn send_all<S: Sink<Message> + Unpin>(&self, sink: &mut S, message: &Encoded) -> bool {
        for part in message.parts() {
            if !self.send(sink, part.clone()).await {
                return false;
            }
        }
        true
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
    use protocol::relay_api::feed::{FeedList, PART_BYTES};
    use protocol::relay_api::Reachability;

    fn server(i: u32, clients: u32) -> protocol::relay_api::ServerInfo {
        let addr = std::net::SocketAddrV4::new([10, 0, 0, 1].into(), 28960 + i as u16);
        let mut s = crate::browse::poller::pending_server(addr, vec!["lan".into()]);
        s.reachability = Reachability::Online;
        s.clients = clients;
        s.updated_ms = Some(u64::from(clients));
        s
    }

    /// A page on channels: what the relay sends, and what the page says.
    type Page = (
        mpsc::Receiver<Message>,
        mpsc::UnboundedSender<Result<Message, axum::Error>>,
    );

    fn page(feed: &Arc<PageFeed>, room: usize) -> Page {
        opened(feed, room, false)
    }

    fn opened(feed: &Arc<PageFeed>, room: usize, hold: bool) -> Page {
        let (sink, received) = mpsc::channel::<Message>(room);
        let (says, stream) = mpsc::unbounded();
        let sink = sink.sink_map_err(|_| ());
        tokio::spawn(feed.clone().serve(sink, stream, hold));
        (received, says)
    }

    fn watch(addr: &str) -> Result<Message, axum::Error> {
        let text = serde_json::to_string(&PageMessage::Watch {
            addr: Some(addr.into()),
        });
        Ok(Message::Text(text.unwrap().into()))
    }

    fn drain(r: &mut mpsc::Receiver<Message>) -> Vec<FeedMessage> {
        let mut out = Vec::new();
        while let Ok(m) = r.try_recv() {
            out.push(decode(m));
        }
        out
    }

    #[tokio::test(start_paused = true)]
    async fn a_fleet_that_answers_after_the_keyframe_is_in_the_next_one_once_things_quiet() {
        let directory = Arc::new(Directory::new(&[]));
        directory.upsert(server(0, 0));
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        let (mut early, _says) = page(&feed, 256);
        tokio::time::sleep(TICK * 2).await;
        for n in 1..40 {
            directory.upsert(server(n, 1));
        }
        tokio::time::sleep(KEYFRAME_EVERY * 2).await;
        assert!(
            drain(&mut early).len() >= 3,
            "keyframe, players, the fleet's tick"
        );
        let (mut late, _late_says) = page(&feed, 256);
        tokio::time::sleep(TICK).await;
        let late = drain(&mut late);
        assert!(
            matches!(&late[0], FeedMessage::Keyframe { servers, .. } if servers.len() == 40),
            "{late:?}"
        );
        assert_eq!(
            late.len(),
            2,
            "the keyframe and the players index, no ticks"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_page_that_holds_takes_the_list_and_the_rest_after_its_first_word() {
        let directory = Arc::new(Directory::new(&[]));
        directory.upsert(server(0, 0));
        directory.upsert(server(1, 0));
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        tokio::time::sleep(TICK * 2).await;
        let (mut received, says) = opened(&feed, 256, true);
        for n in 1..=5 {
            directory.upsert(server(1, n));
            tokio::time::sleep(TICK * 2).await;
        }
        let held = drain(&mut received);
        assert_eq!(held.len(), 1, "{held:?}");
        assert!(matches!(held[0], FeedMessage::Keyframe { .. }));
        says.unbounded_send(watch("10.0.0.1:28961")).unwrap();
        tokio::time::sleep(TICK).await;
        let rest = drain(&mut received);
        assert!(matches!(rest[0], FeedMessage::Players { .. }), "{rest:?}");
        assert!(
            matches!(rest.last(), Some(FeedMessage::Detail { server }) if server.clients == 5),
            "{rest:?}"
        );
        let mut list = FeedList::default();
        for m in held.iter().chain(&rest) {
            list.apply(m);
        }
        assert_eq!(
            list.summaries[&1].clients, 5,
            "the ticks held back, in order"
        );
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
        // The page reads again: a few ticks in flight, then a keyframe and the ticks after it,
        // not the whole backlog, and what it holds is the directory's list.
        let mut list = FeedList::default();
        let mut kinds = 0;
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(10), received.next()).await
        {
            list.apply(&decode(message));
            kinds += 1;
        }
        assert!(kinds < TICKS_KEPT, "{kinds} messages");
        assert_eq!(list.summaries[&0].clients, TICKS_KEPT as u32 + 20);
        assert_eq!(feed.counters.resyncs.load(Ordering::Relaxed), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_long_list_goes_in_parts_the_page_joins_back() {
        let directory = Arc::new(Directory::new(&[]));
        // Hostnames that deflate poorly, so the keyframe is several parts long.
        let mut noise = 0x2545_f491_u32;
        for n in 0..3000 {
            let mut s = server(n, 1);
            s.hostname = (0..24)
                .map(|_| {
                    noise ^= noise << 13;
                    noise ^= noise >> 17;
                    noise ^= noise << 5;
                    char::from(b'!' + (noise % 90) as u8)
                })
                .collect();
            directory.upsert(s);
        }
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        let (mut received, _says) = page(&feed, 256);
        tokio::time::sleep(TICK * 2).await;
        let mut joiner = protocol::relay_api::feed::Parts::default();
        let (mut sent, mut list) = (Vec::new(), FeedList::default());
        while let Ok(Message::Binary(part)) = received.try_recv() {
            sent.push(part.len());
            if let Some(bytes) = joiner.push(&part) {
                list.apply(&FeedMessage::decode(&bytes.unwrap()).unwrap());
            }
        }
        assert!(sent.len() > 3, "the list in parts: {sent:?}");
        assert!(sent.iter().all(|&n| n <= PART_BYTES + 1), "{sent:?}");
        let (_, expected, _) = directory.keyframe();
        let mut want = FeedList::default();
        want.apply(&expected);
        assert_eq!(list.summaries.len(), 3000);
        assert_eq!(list.summaries, want.summaries);
    }

    #[tokio::test(start_paused = true)]
    async fn pages_joining_at_every_tick_share_keyframes_and_hold_the_directory_s_list() {
        let directory = Arc::new(Directory::new(&[]));
        directory.upsert(server(0, 0));
        let feed = PageFeed::new(directory.clone());
        tokio::spawn(feed.clone().run());
        let mut pages = Vec::new();
        for n in 1..=60 {
            directory.upsert(server(n % 3, n));
            pages.push(page(&feed, 256));
            tokio::time::sleep(TICK * 2).await;
        }
        tokio::time::sleep(TICK * 4).await;
        // 60 pages over three seconds: a keyframe a second, not one a page.
        let encoded = feed.counters.keyframes_encoded.load(Ordering::Relaxed);
        assert!(encoded <= 5, "{encoded} keyframes encoded");
        let (_, expected, _) = directory.keyframe();
        let mut want = FeedList::default();
        want.apply(&expected);
        for (received, _) in &mut pages {
            let mut list = FeedList::default();
            while let Ok(m) = received.try_recv() {
                list.apply(&decode(m));
            }
            assert_eq!(list.seq, want.seq);
            assert_eq!(list.summaries, want.summaries);
        }
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
        says.unbounded_send(watch("10.0.0.1:28961")).unwrap();
        tokio::time::sleep(TICK).await;
        directory.upsert(server(1, 7));
        directory.upsert(server(0, 3));
        tokio::time::sleep(TICK * 3).await;
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
