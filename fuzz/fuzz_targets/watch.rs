//! Any bytes as what a watcher or a page reads: a server command (parsed, shown, and fed to the
//! match model), a watch message (decoded and applied to a view) and a feed message (decoded and
//! applied to a list). Nothing may panic, and an update applied to a view keeps it within its
//! bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::client::Event;
use protocol::cod::watch::commands::{display_text, ServerCommand};
use protocol::cod::watch::spectator::MatchModel;
use protocol::relay_api::feed::{FeedList, FeedMessage};
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
    if let Ok(message) = FeedMessage::decode(data) {
        let mut list = FeedList::default();
        let _ = list.apply(&message);
        let _ = list.apply(&message);
        assert!(list.servers().count() <= list.summaries.len());
    }
});
