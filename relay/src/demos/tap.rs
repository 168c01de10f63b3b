//! Recording as a hub tap: each turn of a hub's session, the recorder starts the client's
//! recording when the operator asked for one, writes what it recorded, and stops it when asked
//! (or when the file would pass its limit), and the hub shows the file to its viewers.

use std::sync::Arc;

use protocol::cod::client::{Client, State};
use protocol::relay_api::watch::RecordingStatus;

use super::recorder::{RecordConfig, RecordTarget, Recorder};
use crate::seams::{HubFace, HubTap, TapMaker};

/// One hub session's recorder, idle until the operator asks.
pub struct RecordTap {
    config: RecordConfig,
    recorder: Option<Recorder>,
}

/// Makes each hub session's recorder.
pub fn tap(config: RecordConfig) -> TapMaker {
    Arc::new(move |_server| {
        Box::new(RecordTap {
            config: config.clone(),
            recorder: None,
        })
    })
}

impl HubTap for RecordTap {
    fn turn(&mut self, hub: &dyn HubFace, client: Option<&mut Client>) {
        let wanted = hub.record_wanted();
        let Some(client) = client else {
            return;
        };
        if wanted && self.recorder.is_none() {
            self.recorder = Some(Recorder::new(RecordTarget {
                dir: self.config.dir.clone(),
                server: hub.server().to_string().replace(':', "_"),
                out: None,
                max_bytes: self.config.max_bytes,
            }));
            hub.recording_began();
        }
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        if wanted && !client.is_recording() && client.state() == State::Active {
            let _ = client.record();
        }
        if !wanted && client.is_recording() {
            client.stop_recording();
        }
        let mut stopped = recorder
            .drain(client)
            .err()
            .map(|e| format!("writing the demo: {e}"));
        if stopped.is_some() {
            client.stop_recording();
            while client.poll_demo().is_some() {}
        }
        stopped = stopped.or_else(|| recorder.stopped.clone());
        let current = recorder.current().map(|f| {
            let shown = RecordingStatus {
                file: f.name.clone(),
                bytes: f.bytes,
            };
            (f.path.clone(), shown)
        });
        let _ = recorder.flush();
        if stopped.is_some() || (!wanted && current.is_none()) {
            self.recorder = None;
            if let Some(reason) = &stopped {
                tracing::warn!(server = %hub.server(), %reason, "recording stopped");
                hub.set_recording(false);
            }
        }
        hub.show_recording(current, stopped);
    }
}
