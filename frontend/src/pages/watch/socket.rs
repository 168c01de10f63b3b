//! The hub's WebSocket: binary watch messages decoded by `protocol`, applied to the page's
//! copy of the delayed match; reconnects while the view is open.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use gloo_net::websocket::{futures::WebSocket, Message};
use leptos::prelude::*;
use protocol::relay_api::watch::{apply, ViewerMessage, WatchMessage};

use super::live::Live;
use crate::net::{now_ms, sleep, ws_url};

/// Follows the hub until `open` turns false.
pub fn follow(addr: String, live: StoredValue<Live, LocalStorage>, open: StoredValue<bool>) {
    leptos::task::spawn_local(async move {
        while open.try_get_value().unwrap_or(false) {
            session(&addr, live, open).await;
            live.update_value(|l| l.connected.set(false));
            sleep(Duration::from_secs(2)).await;
        }
    });
}

async fn session(addr: &str, live: StoredValue<Live, LocalStorage>, open: StoredValue<bool>) {
    let Ok(socket) = WebSocket::open(&ws_url(&format!("/spectate/{addr}"))) else {
        return;
    };
    let (mut sink, stream) = socket.split();
    let (outbox, said) = futures::channel::mpsc::unbounded::<ViewerMessage>();
    live.update_value(|l| l.outbox = Some(outbox));
    let (mut stream, mut said) = (stream.fuse(), said.fuse());
    loop {
        futures::select! {
            message = stream.next() => {
                if !open.try_get_value().unwrap_or(false) {
                    return;
                }
                let Some(Ok(Message::Bytes(bytes))) = message else {
                    return;
                };
                let Ok(message) = WatchMessage::decode(&bytes) else {
                    leptos::logging::warn!("unreadable watch message");
                    continue;
                };
                live.update_value(|l| l.take(message));
            }
            asked = said.next() => {
                if let Some(asked) = asked {
                    if sink.send(Message::Bytes(asked.encode())).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

impl Live {
    /// The tables show the latest view now, not at their next refresh.
    pub(super) fn show_now(&mut self) {
        if let Some(view) = &self.view {
            self.shown_at = now_ms();
            self.shown.set(Some(view.clone()));
        }
    }

    pub(super) fn take(&mut self, message: WatchMessage) {
        self.connected.set(true);
        let now = now_ms();
        match message {
            WatchMessage::Status(status) => {
                self.filling_until = now + f64::from(status.filling_ms);
                self.status.set(Some(status));
            }
            WatchMessage::Keyframe {
                seq,
                view,
                relay_us,
            } => {
                self.seq = seq;
                self.relay_us = relay_us;
                self.view = Some(view);
            }
            WatchMessage::Update {
                seq,
                update,
                relay_us,
            } => {
                let Some(view) = self.view.as_mut() else {
                    return;
                };
                if seq != self.seq + 1 {
                    return;
                }
                self.seq = seq;
                self.relay_us = relay_us;
                apply(view, &update);
            }
            WatchMessage::Playing { live, speed_pct } => {
                // What follows is from elsewhere in the match: the map's trails and clock
                // start again from it.
                self.playing.set((live, speed_pct));
                self.tracks = protocol::watching::Tracks::default();
                self.clock = protocol::watching::RenderClock::default();
                if speed_pct > 0 {
                    self.clock.set_rate(f64::from(speed_pct) / 100.0);
                }
                return;
            }
        }
        if let Some(view) = &self.view {
            self.tracks.record(view);
            self.clock.update(view.server_time, now);
            if view.header.map != self.framed_map {
                self.framed_map = view.header.map.clone();
                self.bounds = None;
            }
            if let Some(b) = protocol::watching::Bounds::of(view) {
                self.bounds = Some(self.bounds.map_or(b, |old| old.union(b)));
            }
            // The tables redraw a few times a second; the map every frame.
            // Paused after a seek, the tables show where it stopped at once.
            let paused = self
                .playing
                .with_untracked(|&(live, speed)| !live && speed == 0);
            if now - self.shown_at >= 250.0 || paused || self.shown.with_untracked(Option::is_none)
            {
                self.shown_at = now;
                self.shown.set(Some(view.clone()));
                self.shown_us.set(self.relay_us);
            }
        }
    }
}
