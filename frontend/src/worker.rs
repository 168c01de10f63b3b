//! The session worker (`session/`, built by Trunk beside the page): started for one Join check
//! or one Watch directly, so its `cod::client` is downloaded only by a page that uses it.

use std::cell::RefCell;
use std::rc::Rc;

use session::{Request, WorkerFailure};
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};

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
    _on_error: Closure<dyn FnMut(Event)>,
}

impl SessionWorker {
    /// Starts a worker on `request`, sent once the worker says it is ready (an empty message);
    /// each later reply goes to `on_reply`, of the type the request is answered in
    /// (`BrowserReply` for Refresh now and Join check, `Reply` for the rest). A worker whose
    /// script does not load, or that stops on an error, answers its `Failed` reply, so the
    /// page can say so rather than wait for ever.
    pub fn start<R: for<'de> serde::Deserialize<'de> + WorkerFailure + 'static>(
        request: &Request,
        on_reply: impl FnMut(R) + 'static,
    ) -> Result<Self, String> {
        let worker = Worker::new(&loader())
            .map_err(|e| tr!("worker-not-started", why = format!("{e:?}")))?;
        let on_reply = Rc::new(RefCell::new(on_reply));
        let (ready, request, replies) = (worker.clone(), request.clone(), on_reply.clone());
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let bytes = js_sys::Uint8Array::new(&event.data()).to_vec();
            if bytes.is_empty() {
                post(&ready, &request);
            } else if let Some(reply) = session::decode(&bytes) {
                (replies.borrow_mut())(reply);
            }
        });
        let failed = worker.clone();
        // A script that fails to load raises a plain `Event`; an uncaught error, an `ErrorEvent`.
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let why = event
                .dyn_ref::<ErrorEvent>()
                .map(ErrorEvent::message)
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| tr!("worker-script-missing"));
            failed.terminate();
            (on_reply.borrow_mut())(R::worker_failed(tr!("worker-failed", why = why)));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Self {
            worker,
            _on_reply: on_message,
            _on_error: on_error,
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
        self.worker.set_onerror(None);
    }
}
