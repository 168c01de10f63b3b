//! The session worker: runs the page's own sessions with servers (Refresh now, Join check,
//! Watch directly) and posts what they found, postcard-encoded. It closes itself when its work is done.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use session::demo::{self, Controls};
use session::{join_check, refresh, watch, BrowserReply, Reply, Request};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post<T: serde::Serialize>(reply: &T) {
    let bytes = session::encode(reply);
    let _ = scope().post_message(&js_sys::Uint8Array::from(&bytes[..]));
}

fn main() {
    console_error_panic_hook::set_once();
    let open = Rc::new(Cell::new(true));
    let controls = Rc::new(RefCell::new(Controls {
        speed: 1.0,
        ..Controls::default()
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let bytes = js_sys::Uint8Array::new(&event.data()).to_vec();
        match session::decode(&bytes) {
            Some(Request::Refresh { url, addr }) => wasm_bindgen_futures::spawn_local(async move {
                post(&BrowserReply::Refreshed(
                    refresh(&url, &addr).await.map(Box::new),
                ));
                scope().close();
            }),
            Some(Request::JoinCheck { url }) => wasm_bindgen_futures::spawn_local(async move {
                post(&match join_check(&url).await {
                    Ok(answer) => BrowserReply::Joined(answer),
                    Err(e) => BrowserReply::Failed(e),
                });
                scope().close();
            }),
            Some(Request::Watch { url, addr }) => {
                let open = open.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    watch(&url, &addr, |m| post(&Reply::Watch(m)), || open.get()).await;
                    post(&Reply::Left);
                    scope().close();
                })
            }
            Some(Request::Stop) => open.set(false),
            Some(Request::Demo(source)) => {
                let (open, controls) = (open.clone(), controls.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    demo::play(source, &controls, |r| post(&r), || open.get()).await;
                    scope().close();
                })
            }
            Some(Request::DemoControl { playing, speed }) => {
                let mut c = controls.borrow_mut();
                c.playing = playing;
                c.speed = speed.clamp(demo::SPEEDS[0], demo::SPEEDS[demo::SPEEDS.len() - 1]);
            }
            Some(Request::DemoSeek { at_ms }) => controls.borrow_mut().seek = Some(at_ms),
            Some(Request::Demos) => wasm_bindgen_futures::spawn_local(async {
                post(&Reply::Demos(demo::relay_demos().await));
                scope().close();
            }),
            Some(Request::Record { addr, on, token }) => {
                wasm_bindgen_futures::spawn_local(async move {
                    post(&Reply::Recorded(
                        demo::set_recording(&addr, on, &token).await,
                    ));
                    scope().close();
                })
            }
            None => {}
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    // Ready: an empty message.
    post(&());
}
