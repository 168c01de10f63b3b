//! The session worker (`session/`, built by Trunk beside the page): started for one Join check
//! or one Watch directly, so its `cod::client` is downloaded only by a page that uses it.

use session::Request;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

/// Trunk's loader for the worker, under the binary's own name: where a build left it so.
const LOADER: &str = "./muster-session_loader.js";

/// The worker's loader: the content-named one the page's HTML names
/// (`<meta name="muster-session">`, written by the build), else Trunk's.
fn loader() -> String {
    leptos::prelude::document()
        .query_selector("meta[name=muster-session]")
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
        .unwrap_or_else(|| LOADER.to_owned())
}

/// A running session worker and the handler of its replies.
pub struct SessionWorker {
    worker: Worker,
    _on_reply: Closure<dyn FnMut(MessageEvent)>,
}

impl SessionWorker {
    /// Starts a worker on `request`, sent once the worker says it is ready (an empty message);
    /// each later reply goes to `on_reply`, of the type the request is answered in
    /// (`BrowserReply` for Refresh now and Join check, `Reply` for the rest).
    pub fn start<R: for<'de> serde::Deserialize<'de>>(
        request: &Request,
        mut on_reply: impl FnMut(R) + 'static,
    ) -> Result<Self, String> {
        let worker = Worker::new(&loader())
            .map_err(|e| format!("the session worker did not start: {e:?}"))?;
        let (ready, request) = (worker.clone(), request.clone());
        let on_reply = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let bytes = js_sys::Uint8Array::new(&event.data()).to_vec();
            if bytes.is_empty() {
                post(&ready, &request);
            } else if let Some(reply) = session::decode(&bytes) {
                on_reply(reply);
            }
        });
        worker.set_onmessage(Some(on_reply.as_ref().unchecked_ref()));
        Ok(Self {
            worker,
            _on_reply: on_reply,
        })
    }

    pub fn send(&self, request: &Request) {
        post(&self.worker, request);
    }
}

fn post(worker: &Worker, request: &Request) {
    let bytes = session::encode(request);
    let _ = worker.post_message(&js_sys::Uint8Array::from(&bytes[..]));
}

impl Drop for SessionWorker {
    /// Replies after this are nobody's; the worker finishes (and closes) on its own.
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
    }
}
