//! Any bytes as what a watcher or a page reads: a server command (parsed, shown, and fed to the
//! match model), a watch message (decoded and applied to a view) and a feed message (decoded and
//! applied to a list), and the bytes cut into feed parts and joined again. Nothing may panic,
//! an update applied to a view keeps it within its bounds, and parts join back to the message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::client::Event;
use protocol::cod::watch::commands::{display_text, ServerCommand};
use protocol::cod::watch::spectator::MatchModel;
use protocol::relay_api::feed::{parts, FeedList, FeedMessage, Parts, PART_BYTES};
use protocol::relay_api::watch::{apply, ViewerMessage, WatchMessage, FEED_KEPT};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = ServerCommand::parse(&text);
    let _ = display_text(&text);
    let mut model = MatchModel::new();
    model.handle(&Event::ServerCommand {
        sequence: 1,
        text: text.into_owned(),
    });
    let _ = ViewerMessage::decode(data);
    if let Ok(WatchMessage::Update { update, .. }) = WatchMessage::decode(data) {
        let mut view = model.view();
        apply(&mut view, &update);
        apply(&mut view, &update);
        assert!(view.feed.len() <= FEED_KEPT);
    }
    // The bytes as parts off the wire (any order the input makes), then as a message sent in
    // parts, which must join back whole.
    let mut joiner = Parts::default();
    for piece in data.split(|&b| b == b'|') {
        let _ = joiner.push(piece);
    }
    let mut joiner = Parts::default();
    let mut joined = None;
    for part in parts(data.to_vec()) {
        joined = joiner.push(&part);
    }
    // (An encoded message starts with its deflated-or-not byte, never with a part's.)
    if data.first().is_some_and(|&b| b < 2) || data.len() > PART_BYTES {
        assert_eq!(joined, Some(Ok(data.to_vec())));
    }
    if let Ok(message) = FeedMessage::decode(data) {
        let mut list = FeedList::default();
        let _ = list.apply(&message);
        let _ = list.apply(&message);
        assert!(list.servers().count() <= list.summaries.len());
    }
});
