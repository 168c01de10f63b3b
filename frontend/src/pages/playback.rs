//! The demo player (`/playback/`, `/playback/#/demo/NAME`, its own page and wasm): a `.dm_3`
//! opened from a file, dropped on the page or picked from the relay's recordings, played in the
//! watch view.

use leptos::prelude::*;
use session::demo::{DemoSource, RelayDemo};
use session::{Reply, Request};
use wasm_bindgen::JsCast;

use crate::pages::watch::Watch;
use crate::parts::header::{Page, PageHeader};
use crate::worker::SessionWorker;

async fn file_bytes(file: web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| tr!("demo-file-unreadable", why = format!("{e:?}")))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The recording a location names, `#/demo/NAME`, and the kill to start at, `?t=SERVER_TIME`
/// (a match page's link to a kill's moment).
fn demo_in_location() -> Option<(String, Option<i32>)> {
    let hash = window().location().hash().unwrap_or_default();
    let named = hash.strip_prefix("#/demo/").filter(|n| !n.is_empty())?;
    let (name, query) = named.split_once('?').unwrap_or((named, ""));
    let kill = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("t="))
        .and_then(|t| t.parse().ok());
    Some((name.to_owned(), kill))
}

/// The moment a relay-made moment page names (`/m/ID`, `/m/ID/embed`): its id, whether it is
/// the embed, and the whole match's demo player link when there is one.
fn moment_in_page() -> Option<(String, bool, Option<String>)> {
    let path = window().location().pathname().ok()?;
    let rest = path.strip_prefix("/m/")?;
    let (id, embed) = match rest.split_once('/') {
        Some((id, "embed")) => (id, true),
        _ => (rest, false),
    };
    let meta = |name: &str| {
        document()
            .query_selector(&format!("meta[name={name}]"))
            .ok()
            .flatten()
            .and_then(|m| m.get_attribute("content"))
    };
    Some((id.to_owned(), embed, meta("muster-match-demo")))
}

/// A shared moment, played in a loop in place of the relay's first screen of it.
#[component]
fn MomentPage(id: String, embed: bool, whole: Option<String>) -> impl IntoView {
    if let Some(first) = document().get_element_by_id("first-screen") {
        first.remove();
    }
    let source = DemoSource::Url(format!("/api/moments/{id}.dm_3"));
    let links = (!embed).then(|| {
        view! {
            <p class="moment-links" data-testid="moment-links">
                <a href=format!("/api/moments/{id}.dm_3") download="">{tr!("moment-download")}</a>
                {whole.map(|w| view! { " · " <a href=w data-testid="moment-whole">{tr!("moment-whole-match")}</a> })}
            </p>
        }
    });
    view! {
        {(!embed).then(|| view! { <PageHeader subtitle="subtitle-moment" current=Page::Moment /> })}
        <div class="moment" class:embed=embed data-testid="moment">
            <Watch addr=String::new() direct=false demo=source looped=true />
            {links}
        </div>
    }
}

/// The demo player's page (`/playback/`): the header, and the picker or the demo the location
/// names; on a moment's page (`/m/ID`), that moment.
#[component]
pub fn Playback() -> impl IntoView {
    if let Some((id, embed, whole)) = moment_in_page() {
        return view! { <MomentPage id=id embed=embed whole=whole /> }.into_any();
    }
    let named = RwSignal::new(demo_in_location());
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        named.set(demo_in_location())
    });
    on_cleanup(move || on_hash.remove());
    view! {
        <PageHeader subtitle="subtitle-demos" current=Page::Demos />
        {move || {
            let name = named.get();
            view! { <DemoPage name=name /> }
        }}
    }
    .into_any()
}

/// `#/demos`: open a file, drop one, or pick a relay recording; `#/demo/NAME` plays one.
#[component]
fn DemoPage(name: Option<(String, Option<i32>)>) -> impl IntoView {
    let from_kill = name.as_ref().and_then(|(_, kill)| *kill);
    let source = RwSignal::new(name.map(|(n, _)| DemoSource::Url(format!("/demos/{n}"))));
    move || match source.get() {
        Some(source) => match from_kill {
            Some(kill) => {
                view! { <Watch addr=String::new() direct=false demo=source from_kill=kill /> }
                    .into_any()
            }
            None => view! { <Watch addr=String::new() direct=false demo=source /> }.into_any(),
        },
        None => view! { <Picker source=source /> }.into_any(),
    }
}

/// A file to open or drop, and the relay's recordings.
#[component]
fn Picker(source: RwSignal<Option<DemoSource>>) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let open_file = move |file: web_sys::File| {
        leptos::task::spawn_local(async move {
            let name = file.name();
            match file_bytes(file).await {
                Ok(bytes) => source.set(Some(DemoSource::File { name, bytes })),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let on_pick = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(file) = input.and_then(|i| i.files()).and_then(|f| f.get(0)) {
            open_file(file);
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0))
        {
            open_file(file);
        }
    };
    let demos = RwSignal::new(None::<Result<Vec<RelayDemo>, String>>);
    let lister = SessionWorker::start(&Request::Demos, move |reply: Reply| match reply {
        Reply::Demos(list) => demos.set(Some(list)),
        Reply::Failed(e) => demos.set(Some(Err(e))),
        _ => {}
    });
    let lister = StoredValue::new_local(lister.ok());
    on_cleanup(move || drop(lister.try_update_value(Option::take)));
    view! {
            <main
                class="single demos"
                data-testid="demo-page"
                on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default()
                on:drop=on_drop
            >
                <h2>{tr!("nav-demos")}</h2>
                <p>
                    {tr!("demos-intro-open")} <code>".dm_3"</code>
                    {tr!("demos-intro-from")} <code>"demos/"</code>
                    {tr!("demos-intro-rest")}
                </p>
                <label class="demo-pick">
                    {tr!("demos-open-file")}
                    <input type="file" accept=".dm_3" data-testid="demo-file" on:change=on_pick />
                </label>
                <p class="error">{move || error.get()}</p>
                <h3>{tr!("demos-recorded")}</h3>
                {move || match demos.get() {
                    None => view! { <p>"…"</p> }.into_any(),
                    Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                    Some(Ok(list)) if list.is_empty() => view! { <p>{tr!("demos-none")}</p> }.into_any(),
                    Some(Ok(list)) => view! {
                        <table class="relay-demos">
                            <tbody>
                                {list.into_iter().map(|d| view! {
                                    <tr data-testid="relay-demo" data-name=d.name.clone()>
                                        <td><a href=format!("#/demo/{}", d.name)>{d.name.clone()}</a></td>
                                        <td>{d.map}</td>
                                        <td class="num">{tr!("kilobytes", kb = d.bytes.div_ceil(1000))}</td>
                                        <td><a href=d.url download="">{tr!("download")}</a></td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any(),
                }}
            </main>
    }
}
