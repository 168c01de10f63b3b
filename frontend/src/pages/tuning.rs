//! The tuning page (`/tuning/`, its own page and wasm): a player's settings (kept in
//! localStorage), the four clocks they produce on a server, and the guide's advice; opened
//! from a server's detail ([`link`]), the same for that server. The figures come from
//! `protocol`.

use leptos::prelude::*;
use protocol::cod::tuning::{
    advise, cadence, published_settings, recommended_profiles, Advice, ClientSettings,
    ServerSettings, Severity, MAX_CHARGED_MESSAGE,
};
use protocol::relay_api::ServerInfo;

const STORAGE_KEY: &str = "muster.tuning";

/// What the tuning page edits: the player's settings and a server to try them on.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bench {
    pub client: ClientSettings,
    pub server: ServerSettings,
    pub packet_size: u32,
}

impl Default for Bench {
    fn default() -> Self {
        Self {
            client: ClientSettings::default(),
            server: ServerSettings::default(),
            packet_size: MAX_CHARGED_MESSAGE,
        }
    }
}

/// The player's saved settings, stock defaults when there are none; saved on every change.
fn saved_bench() -> RwSignal<Bench> {
    crate::personal::saved(STORAGE_KEY)
}

/// The four independent clocks side by side.
#[component]
fn Clocks(client: ClientSettings, server: ServerSettings, packet_size: u32) -> impl IntoView {
    let c = cadence(&client, &server, packet_size);
    let clock = |name: String, per_second: f64, every: u32, detail: String| {
        view! {
            <div class="clock" data-testid="clock">
                <span class="clock-name">{name}</span>
                <strong class="clock-rate">{tr!("tuning-per-second", rate = format!("{per_second:.1}"))}</strong>
                <span class="clock-every">{tr!("tuning-every-ms", ms = every)}</span>
                <span class="clock-detail">{detail}</span>
            </div>
        }
    };
    view! {
        <div class="clocks">
            {clock(tr!("tuning-client-frames"), c.client_fps, c.client_frame_ms, tr!("tuning-client-frames-detail"))}
            {clock(
                tr!("tuning-client-packets"),
                c.packets_per_second,
                c.packet_interval_ms,
                tr!("tuning-client-packets-detail", frames = c.frames_per_packet, commands = c.usercmds_per_packet),
            )}
            {clock(tr!("tuning-server-frames"), c.server_fps, c.server_frame_ms, tr!("tuning-server-frames-detail"))}
            {clock(
                tr!("tuning-snapshots"),
                c.snapshots_per_second,
                c.actual_snapshot_interval_ms,
                if c.rate_delayed {
                    tr!("tuning-rate-delayed", bytes = c.charged_size, ms = c.rate_delay_ms, rate = c.effective_rate)
                } else {
                    tr!("tuning-snaps-asks", ms = c.requested_snapshot_interval_ms)
                },
            )}
        </div>
    }
}

#[component]
fn AdviceList(advice: Vec<Advice>) -> impl IntoView {
    if advice.is_empty() {
        return view! { <p class="advice-none" data-testid="advice-none">{tr!("tuning-no-warnings")}</p> }.into_any();
    }
    view! {
        <ul class="advice" data-testid="advice">
            {advice
                .into_iter()
                .map(|a| {
                    let class = match a.severity {
                        Severity::Warning => "warning",
                        Severity::Info => "info",
                    };
                    view! { <li class=class data-code=a.code>{crate::words::say(&a.said)}</li> }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

/// The tuning page's address for a server: its settings in the hash, `sv_fps` only when it
/// publishes it (the page assumes stock 20 otherwise), so the page opens on this server.
pub fn link(server: &ServerInfo) -> String {
    let (fps, rate) =
        published_settings(server.cvars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let mut link = format!("/tuning/#server={}", server.addr);
    if let Some(fps) = fps {
        link += &format!("&sv_fps={fps}");
    }
    if let Some(rate) = rate {
        link += &format!("&sv_maxRate={rate}");
    }
    link
}

/// The server the tuning page was opened for ([`link`]): its address, settings, and whether it
/// published `sv_fps`.
fn linked_server() -> Option<(String, ServerSettings, bool)> {
    let hash = window().location().hash().ok()?;
    let mut fields = hash.strip_prefix('#')?.split('&');
    let addr = fields.next()?.strip_prefix("server=")?.to_owned();
    let stock = ServerSettings::default();
    let (mut fps, mut rate) = (None, None);
    for field in fields {
        match field.split_once('=') {
            Some(("sv_fps", v)) => fps = v.parse().ok(),
            Some(("sv_maxRate", v)) => rate = v.parse().ok(),
            _ => {}
        }
    }
    let settings = ServerSettings {
        sv_fps: fps.unwrap_or(stock.sv_fps),
        sv_max_rate: rate.unwrap_or(stock.sv_max_rate),
    };
    Some((addr, settings, fps.is_some()))
}

/// The player's settings on the server the page was opened for (from a server's detail).
#[component]
fn TuningPanel(
    addr: String,
    settings: ServerSettings,
    published: bool,
    bench: RwSignal<Bench>,
) -> impl IntoView {
    let note = if published {
        tr!(
            "tuning-published",
            fps = settings.sv_fps,
            rate = settings.sv_max_rate
        )
    } else {
        tr!("tuning-not-published", rate = settings.sv_max_rate)
    };
    view! {
        <section class="tuning-panel" data-testid="tuning-panel">
            <h2>{tr!("tuning-your-connection", addr = addr)}</h2>
            <p class="hint">{note}</p>
            {move || {
                let b = bench.get();
                view! {
                    <Clocks client=b.client server=settings packet_size=b.packet_size />
                    <AdviceList advice=advise(&b.client, &settings, b.packet_size) />
                }
            }}
        </section>
    }
}

/// One labelled number input bound to a field of the bench.
fn number_input(
    bench: RwSignal<Bench>,
    id: &'static str,
    label: String,
    get: fn(&Bench) -> i64,
    set: fn(&mut Bench, i64),
) -> impl IntoView {
    view! {
        <label for=id>
            <span>{label}</span>
            <input
                id=id
                type="number"
                prop:value=move || get(&bench.get()).to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).trim().parse::<i64>() {
                        bench.update(|b| set(b, v));
                    }
                }
            />
        </label>
    }
}

fn clamp_i32(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// The tuning page (`/tuning/`): the header, the server it was opened for if any, and the
/// bench.
#[component]
pub fn TuningApp() -> impl IntoView {
    let bench = saved_bench();
    let linked = linked_server().map(|(addr, settings, published)| {
        view! { <TuningPanel addr=addr settings=settings published=published bench=bench /> }
    });
    view! {
        <crate::parts::header::PageHeader subtitle="subtitle-tuning" current=crate::parts::header::Page::Tuning />
        <main class="single">
            {linked}
            <TuningPage bench=bench />
        </main>
    }
}

/// The standalone tuning page: enter settings, see the cadence, apply a recommended profile.
#[component]
fn TuningPage(bench: RwSignal<Bench>) -> impl IntoView {
    view! {
        <section class="tuning-page" data-testid="tuning-page">
            <h2>{tr!("tuning-title")}</h2>
            <p class="hint">
                {tr!("tuning-intro")}
            </p>
            <form class="tuning-form" on:submit=|ev| ev.prevent_default()>
                <fieldset>
                    <legend>{tr!("tuning-your-settings")}</legend>
                    {number_input(bench, "com_maxfps", "com_maxfps".to_owned(), |b| b.client.com_maxfps.into(), |b, v| b.client.com_maxfps = clamp_i32(v))}
                    {number_input(bench, "cl_maxpackets", "cl_maxpackets".to_owned(), |b| b.client.cl_maxpackets.into(), |b, v| b.client.cl_maxpackets = clamp_i32(v))}
                    {number_input(bench, "cl_packetdup", "cl_packetdup".to_owned(), |b| b.client.cl_packetdup.into(), |b, v| b.client.cl_packetdup = clamp_i32(v))}
                    {number_input(bench, "rate", "rate".to_owned(), |b| b.client.rate.into(), |b, v| b.client.rate = clamp_i32(v))}
                    {number_input(bench, "snaps", "snaps".to_owned(), |b| b.client.snaps.into(), |b, v| b.client.snaps = clamp_i32(v))}
                    {number_input(bench, "cl_timeNudge", "cl_timeNudge".to_owned(), |b| b.client.cl_time_nudge.into(), |b, v| b.client.cl_time_nudge = clamp_i32(v))}
                    <label for="lan">
                        <span>{tr!("tuning-lan")}</span>
                        <input
                            id="lan"
                            type="checkbox"
                            prop:checked=move || bench.get().client.lan
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                bench.update(|b| b.client.lan = on);
                            }
                        />
                    </label>
                </fieldset>
                <fieldset>
                    <legend>{tr!("tuning-the-server")}</legend>
                    {number_input(bench, "sv_fps", "sv_fps".to_owned(), |b| b.server.sv_fps.into(), |b, v| b.server.sv_fps = clamp_i32(v))}
                    {number_input(bench, "sv_maxRate", "sv_maxRate".to_owned(), |b| b.server.sv_max_rate.into(), |b, v| b.server.sv_max_rate = clamp_i32(v))}
                    {number_input(bench, "packet_size", tr!("tuning-snapshot-bytes"), |b| b.packet_size.into(), |b, v| b.packet_size = v.clamp(0, 65_535) as u32)}
                </fieldset>
                <button type="button" on:click=move |_| bench.set(Bench::default())>
                    {tr!("tuning-stock-defaults")}
                </button>
            </form>
            {move || {
                let b = bench.get();
                view! {
                    <Clocks client=b.client server=b.server packet_size=b.packet_size />
                    <AdviceList advice=advise(&b.client, &b.server, b.packet_size) />
                    <h3>{tr!("tuning-recommended")}</h3>
                    <ul class="profiles" data-testid="profiles">
                        {recommended_profiles(&b.server)
                            .into_iter()
                            .map(|p| {
                                let apply = move |_| {
                                    bench.update(|b| {
                                        b.client.com_maxfps = p.com_maxfps;
                                        b.client.cl_maxpackets = p.cl_maxpackets;
                                        b.client.rate = p.rate;
                                        b.client.snaps = p.snaps;
                                        b.client.cl_packetdup = 1;
                                    })
                                };
                                view! {
                                    <li>
                                        <button type="button" on:click=apply>{tr!(p.name)}</button>
                                        {format!(
                                            " com_maxfps {} / cl_maxpackets {} / rate {} / snaps {}: {}",
                                            p.com_maxfps, p.cl_maxpackets, p.rate, p.snaps, tr!(p.tradeoff)
                                        )}
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
            }}
        </section>
    }
}
