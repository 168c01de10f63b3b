//! The stock UO 1.51 cadence formulas (seed 003): how client FPS, `cl_maxpackets`,
//! `cl_packetdup`, `rate`, `snaps`, `sv_fps` and `sv_maxRate` become packets, user commands and
//! snapshots per second. Integer millisecond arithmetic throughout, as stock computes it.

use alloc::vec::Vec;

use crate::said::Said;

/// Most user commands one client packet carries.
pub const MAX_PACKET_USERCMDS: u32 = 32;
/// Bytes the snapshot scheduler adds to every packet it charges.
pub const RATE_OVERHEAD: u32 = 48;
/// The largest message size the scheduler charges.
pub const MAX_CHARGED_MESSAGE: u32 = 1500;

/// A player's settings, as the cvars hold them (before any clamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClientSettings {
    pub com_maxfps: i32,
    pub cl_maxpackets: i32,
    pub cl_packetdup: i32,
    pub rate: i32,
    pub snaps: i32,
    pub cl_time_nudge: i32,
    /// Loopback or LAN server: the client and server pacing gates are bypassed.
    pub lan: bool,
}

impl Default for ClientSettings {
    /// The stock defaults.
    fn default() -> Self {
        Self {
            com_maxfps: 85,
            cl_maxpackets: 30,
            cl_packetdup: 1,
            rate: 25000,
            snaps: 20,
            cl_time_nudge: 0,
            lan: false,
        }
    }
}

/// A server's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ServerSettings {
    pub sv_fps: i32,
    /// 0: no server cap.
    pub sv_max_rate: i32,
}

impl Default for ServerSettings {
    /// The stock defaults.
    fn default() -> Self {
        Self {
            sv_fps: 20,
            sv_max_rate: 0,
        }
    }
}

/// What a server's status cvars reveal: `sv_fps` and `sv_maxRate` when published (stock does
/// not publish `sv_fps`; some admins do).
pub fn published_settings<'a>(
    cvars: impl IntoIterator<Item = (&'a str, &'a str)> + Clone,
) -> (Option<i32>, Option<i32>) {
    let cvar = |name: &str| {
        cvars
            .clone()
            .into_iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| v.trim().parse::<i32>().ok())
    };
    (cvar("sv_fps"), cvar("sv_maxRate"))
}

/// `floor(1000 / com_maxfps)` ms; a non-positive cap leaves the frame loop at its 1 ms floor.
pub fn client_frame_ms(com_maxfps: i32) -> u32 {
    if com_maxfps > 0 {
        (1000 / com_maxfps as u32).max(1)
    } else {
        1
    }
}

/// `cl_maxpackets` clamped to 15..100.
pub fn clamp_maxpackets(cl_maxpackets: i32) -> u32 {
    cl_maxpackets.clamp(15, 100) as u32
}

/// `floor(1000 / cl_maxpackets)` ms after the clamp.
pub fn packet_threshold_ms(cl_maxpackets: i32) -> u32 {
    1000 / clamp_maxpackets(cl_maxpackets)
}

/// Frames until the packet threshold is met: `ceil(P / F)`; every frame on a LAN.
pub fn frames_per_packet(packet_threshold_ms: u32, frame_ms: u32, lan: bool) -> u32 {
    if lan {
        1
    } else {
        packet_threshold_ms.div_ceil(frame_ms.max(1)).max(1)
    }
}

/// `cl_packetdup` clamped to 0..5.
pub fn clamp_packetdup(cl_packetdup: i32) -> u32 {
    cl_packetdup.clamp(0, 5) as u32
}

/// User commands per packet: `(1 + cl_packetdup) * frames per packet`, at most 32.
pub fn usercmds_per_packet(cl_packetdup: i32, frames_per_packet: u32) -> u32 {
    ((1 + clamp_packetdup(cl_packetdup)) * frames_per_packet).min(MAX_PACKET_USERCMDS)
}

/// The outgoing-history entry a new packet starts its commands from.
pub fn history_sequence(outgoing_sequence: i32, cl_packetdup: i32) -> i32 {
    outgoing_sequence - clamp_packetdup(cl_packetdup) as i32 - 1
}

/// The client `rate` clamped to 1,000..90,000, then capped by a nonzero `sv_maxRate`
/// (itself raised to at least 1,000).
pub fn effective_rate(rate: i32, sv_max_rate: i32) -> u32 {
    let client = rate.clamp(1000, 90_000) as u32;
    if sv_max_rate != 0 {
        client.min(sv_max_rate.max(1000) as u32)
    } else {
        client
    }
}

/// `min(packet size, 1500) + 48`.
pub fn charged_size(packet_size: u32) -> u32 {
    packet_size.min(MAX_CHARGED_MESSAGE) + RATE_OVERHEAD
}

/// `floor(charged size * 1000 / effective rate)` ms.
pub fn rate_delay_ms(packet_size: u32, effective_rate: u32) -> u32 {
    charged_size(packet_size) * 1000 / effective_rate.max(1)
}

/// The largest message that `effective_rate` carries within `interval_ms` without rate delay.
pub fn largest_undelayed_message(effective_rate: u32, interval_ms: u32) -> u32 {
    (effective_rate * interval_ms / 1000).saturating_sub(RATE_OVERHEAD)
}

/// `snaps` clamped to 1..30.
pub fn clamp_snaps(snaps: i32) -> u32 {
    snaps.clamp(1, 30) as u32
}

/// `floor(1000 / snaps)` ms after the clamp.
pub fn snapshot_interval_ms(snaps: i32) -> u32 {
    1000 / clamp_snaps(snaps)
}

/// `sv_fps`, values below 1 replaced with 10.
pub fn effective_sv_fps(sv_fps: i32) -> u32 {
    if sv_fps < 1 {
        10
    } else {
        sv_fps as u32
    }
}

/// `floor(1000 / sv_fps)` ms.
pub fn server_frame_ms(sv_fps: i32) -> u32 {
    (1000 / effective_sv_fps(sv_fps)).max(1)
}

/// The due interval rounded up to whole server frames.
pub fn quantize_to_frames(interval_ms: u32, server_frame_ms: u32) -> u32 {
    interval_ms.div_ceil(server_frame_ms.max(1)).max(1) * server_frame_ms
}

/// `cl_timeNudge` clamped to -30..30 ms.
pub fn clamp_time_nudge(cl_time_nudge: i32) -> i32 {
    cl_time_nudge.clamp(-30, 30)
}

/// What the multiplayer menu's `ui_setRate` picks for a `rate`: (`cl_maxpackets`, `cl_packetdup`).
pub fn ui_set_rate(rate: i32) -> (i32, i32) {
    match rate {
        5000.. => (30, 1),
        4000..=4999 => (15, 2),
        _ => (15, 1),
    }
}

/// Every figure the guide derives for one player on one server.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cadence {
    pub client_frame_ms: u32,
    pub client_fps: f64,
    pub packet_threshold_ms: u32,
    pub frames_per_packet: u32,
    pub packet_interval_ms: u32,
    pub packets_per_second: f64,
    pub usercmds_per_packet: u32,
    pub effective_rate: u32,
    pub charged_size: u32,
    pub rate_delay_ms: u32,
    pub requested_snapshot_interval_ms: u32,
    pub server_frame_ms: u32,
    pub server_fps: f64,
    /// After rate delay and server-frame quantization.
    pub actual_snapshot_interval_ms: u32,
    pub snapshots_per_second: f64,
    /// The snapshot is held back by the byte scheduler, not by `snaps` or the server frame.
    pub rate_delayed: bool,
    pub time_nudge_ms: i32,
}

fn per_second(interval_ms: u32) -> f64 {
    1000.0 / f64::from(interval_ms.max(1))
}

/// The cadence a player with `client` settings gets from a server with `server` settings, for
/// snapshots of `packet_size` compressed bytes (1,500 is the scheduler's worst case).
pub fn cadence(client: &ClientSettings, server: &ServerSettings, packet_size: u32) -> Cadence {
    let frame = client_frame_ms(client.com_maxfps);
    let threshold = packet_threshold_ms(client.cl_maxpackets);
    let frames = frames_per_packet(threshold, frame, client.lan);
    let packet_interval = frames * frame;
    let rate = effective_rate(client.rate, server.sv_max_rate);
    let delay = rate_delay_ms(packet_size, rate);
    let requested = snapshot_interval_ms(client.snaps);
    let server_frame = server_frame_ms(server.sv_fps);
    // On a LAN the server's rate timer is bypassed: every server frame may carry a snapshot.
    let due = if client.lan { 1 } else { requested.max(delay) };
    let actual = quantize_to_frames(due, server_frame);
    Cadence {
        client_frame_ms: frame,
        client_fps: per_second(frame),
        packet_threshold_ms: threshold,
        frames_per_packet: frames,
        packet_interval_ms: packet_interval,
        packets_per_second: per_second(packet_interval),
        usercmds_per_packet: usercmds_per_packet(client.cl_packetdup, frames),
        effective_rate: rate,
        charged_size: charged_size(packet_size),
        rate_delay_ms: delay,
        requested_snapshot_interval_ms: requested,
        server_frame_ms: server_frame,
        server_fps: per_second(server_frame),
        actual_snapshot_interval_ms: actual,
        snapshots_per_second: per_second(actual),
        rate_delayed: !client.lan
            && delay > requested
            && quantize_to_frames(delay, server_frame)
                > quantize_to_frames(requested, server_frame),
        time_nudge_ms: clamp_time_nudge(client.cl_time_nudge),
    }
}

/// How much a piece of advice matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Severity {
    Info,
    Warning,
}

/// One finding, with the guide's reason and the numbers behind it: said in the reader's
/// language (the catalogues' `advice-CODE`, its arguments the numbers).
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// Stable identifier for scripts.
    pub code: &'static str,
    pub severity: Severity,
    pub said: Said,
}

fn advice(code: &'static str, severity: Severity, said: Said) -> Advice {
    Advice {
        code,
        severity,
        said,
    }
}

/// A rate to one decimal, as the advice writes it.
fn tenths(rate: f64) -> alloc::string::String {
    alloc::format!("{rate:.1}")
}

/// The largest `cl_maxpackets` that still sends on every `frames`-th frame of `frame_ms`.
fn aligned_maxpackets(frame_ms: u32, frames: u32) -> u32 {
    (1000 / (frame_ms * frames)).clamp(15, 100)
}

/// The warnings and notes the guide explains, for these settings on this server.
pub fn advise(client: &ClientSettings, server: &ServerSettings, packet_size: u32) -> Vec<Advice> {
    use Severity::{Info, Warning};
    let c = cadence(client, server, packet_size);
    let mut out = Vec::new();
    let requested_snaps = per_second(c.requested_snapshot_interval_ms);
    let frame_limited = quantize_to_frames(c.requested_snapshot_interval_ms, c.server_frame_ms);
    if !client.lan && frame_limited > c.requested_snapshot_interval_ms {
        out.push(advice(
            "snaps_above_server_rate",
            Warning,
            Said::new("advice-snaps_above_server_rate")
                .with("snaps", clamp_snaps(client.snaps))
                .with("asked", c.requested_snapshot_interval_ms)
                .with("hz", effective_sv_fps(server.sv_fps))
                .with("frame", c.server_frame_ms)
                .with("every", frame_limited)
                .with("rate", tenths(per_second(frame_limited)))
                .with(
                    "then",
                    Said::new(if c.server_frame_ms >= c.requested_snapshot_interval_ms {
                        "advice-no-extra-snapshots"
                    } else {
                        "advice-align-snaps"
                    }),
                ),
        ));
    }
    if c.rate_delayed {
        let fits = largest_undelayed_message(c.effective_rate, c.requested_snapshot_interval_ms);
        out.push(advice(
            "rate_delays_large_snapshots",
            Warning,
            Said::new("advice-rate_delays_large_snapshots")
                .with("rate", c.effective_rate)
                .with("bytes", c.charged_size)
                .with("takes", c.rate_delay_ms)
                .with("asked", c.requested_snapshot_interval_ms)
                .with("every", c.actual_snapshot_interval_ms)
                .with("per_second", tenths(c.snapshots_per_second))
                .with("fits", fits),
        ));
    }
    let nominal_pps = f64::from(clamp_maxpackets(client.cl_maxpackets));
    if !client.lan && c.packets_per_second + 0.5 < nominal_pps.min(c.client_fps) {
        out.push(advice(
            "cl_maxpackets_unaligned",
            Warning,
            Said::new("advice-cl_maxpackets_unaligned")
                .with("maxpackets", clamp_maxpackets(client.cl_maxpackets))
                .with("threshold", c.packet_threshold_ms)
                .with("frame", c.frames_per_packet)
                .with("frame_ms", c.client_frame_ms)
                .with("maxfps", client.com_maxfps)
                .with("per_second", tenths(c.packets_per_second))
                .with(
                    "aligned",
                    aligned_maxpackets(c.client_frame_ms, c.frames_per_packet),
                ),
        ));
    }
    let raw_usercmds = (1 + clamp_packetdup(client.cl_packetdup)) * c.frames_per_packet;
    if raw_usercmds >= MAX_PACKET_USERCMDS {
        out.push(advice(
            "usercmd_budget_exceeded",
            Warning,
            Said::new("advice-usercmd_budget_exceeded")
                .with("packetdup", clamp_packetdup(client.cl_packetdup))
                .with("frames", c.frames_per_packet)
                .with("commands", raw_usercmds),
        ));
    } else if raw_usercmds >= 24 {
        out.push(advice(
            "usercmd_budget_near_limit",
            Warning,
            Said::new("advice-usercmd_budget_near_limit").with("commands", raw_usercmds),
        ));
    }
    if clamp_packetdup(client.cl_packetdup) >= 3 {
        out.push(advice(
            "packetdup_high",
            Info,
            Said::new("advice-packetdup_high")
                .with("packetdup", clamp_packetdup(client.cl_packetdup)),
        ));
    } else if clamp_packetdup(client.cl_packetdup) == 0 {
        out.push(advice(
            "packetdup_zero",
            Info,
            Said::new("advice-packetdup_zero"),
        ));
    }
    if effective_sv_fps(server.sv_fps) > 30 {
        out.push(advice(
            "sv_fps_above_snapshot_ceiling",
            Info,
            Said::new("advice-sv_fps_above_snapshot_ceiling")
                .with("fps", effective_sv_fps(server.sv_fps))
                .with("frame", c.server_frame_ms),
        ));
    }
    if clamp_time_nudge(client.cl_time_nudge) != 0 {
        out.push(advice(
            "time_nudge_set",
            Info,
            Said::new(if client.cl_time_nudge > 0 {
                "advice-time_nudge_behind"
            } else {
                "advice-time_nudge_ahead"
            })
            .with("nudge", clamp_time_nudge(client.cl_time_nudge)),
        ));
    }
    if requested_snaps < 20.0 && c.server_frame_ms <= 50 && !client.lan {
        out.push(advice(
            "snaps_below_server_rate",
            Info,
            Said::new("advice-snaps_below_server_rate")
                .with("snaps", clamp_snaps(client.snaps))
                .with("fps", effective_sv_fps(server.sv_fps)),
        ));
    }
    out
}

/// A named set of settings from the guide's tables. Its `name` and `tradeoff` are the
/// catalogues' ids (`profile-…`), said in the reader's language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClientProfile {
    pub name: &'static str,
    pub com_maxfps: i32,
    pub cl_maxpackets: i32,
    pub rate: i32,
    pub snaps: i32,
    pub tradeoff: &'static str,
}

/// The guide's suggested client profiles (all with `cl_packetdup 1`).
pub const CLIENT_PROFILES: [ClientProfile; 4] = [
    ClientProfile {
        name: "profile-stock-baseline",
        com_maxfps: 85,
        cl_maxpackets: 30,
        rate: 25000,
        snaps: 20,
        tradeoff: "profile-stock-baseline-tradeoff",
    },
    ClientProfile {
        name: "profile-balanced-broadband",
        com_maxfps: 125,
        cl_maxpackets: 62,
        rate: 50000,
        snaps: 30,
        tradeoff: "profile-balanced-broadband-tradeoff",
    },
    ClientProfile {
        name: "profile-minimum-batching",
        com_maxfps: 100,
        cl_maxpackets: 100,
        rate: 50000,
        snaps: 30,
        tradeoff: "profile-minimum-batching-tradeoff",
    },
    ClientProfile {
        name: "profile-constrained",
        com_maxfps: 85,
        cl_maxpackets: 30,
        rate: 25000,
        snaps: 20,
        tradeoff: "profile-constrained-tradeoff",
    },
];

/// A server profile from the guide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ServerProfile {
    pub name: &'static str,
    pub sv_fps: i32,
    /// The client `snaps` values that suit it.
    pub snaps: &'static [i32],
    /// The least `sv_maxRate` it wants (0: no cap, or a planned one).
    pub min_sv_max_rate: i32,
    pub tradeoff: &'static str,
}

/// The guide's two deliberate server tick/snapshot models.
pub const SERVER_PROFILES: [ServerProfile; 2] = [
    ServerProfile {
        name: "Stock-aligned",
        sv_fps: 20,
        snaps: &[20, 30],
        min_sv_max_rate: 0,
        tradeoff: "50 ms game frames and at most about 20 snapshots/s. snaps 30 gives no extra \
                   snapshots here.",
    },
    ServerProfile {
        name: "Higher update rate",
        sv_fps: 30,
        snaps: &[30],
        min_sv_max_rate: 50000,
        tradeoff: "33 ms integer game frames and about 30.3 snapshot opportunities/s; greater CPU \
                   and uplink demand.",
    },
];

/// The profiles worth recommending on this server: those that reach the most snapshots per
/// second the server can send without any worst-case snapshot being rate-delayed; on a server
/// whose `sv_maxRate` allows none of them, the constrained profile.
pub fn recommended_profiles(server: &ServerSettings) -> Vec<ClientProfile> {
    let frame = server_frame_ms(server.sv_fps);
    let best = quantize_to_frames(snapshot_interval_ms(30), frame);
    let fits: Vec<ClientProfile> = CLIENT_PROFILES
        .iter()
        .filter(|p| {
            let client = ClientSettings {
                com_maxfps: p.com_maxfps,
                cl_maxpackets: p.cl_maxpackets,
                rate: p.rate,
                snaps: p.snaps,
                ..ClientSettings::default()
            };
            let c = cadence(&client, server, MAX_CHARGED_MESSAGE);
            !c.rate_delayed && c.actual_snapshot_interval_ms == best
        })
        .copied()
        .collect();
    if fits.is_empty() {
        CLIENT_PROFILES[3..].to_vec()
    } else {
        fits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn round1(x: f64) -> f64 {
        (x * 10.0).round() / 10.0
    }

    #[test]
    fn every_packet_rate_example() {
        // com_maxfps, frame, cl_maxpackets, threshold, frames/packet, packets/s
        let table = [
            (85, 11, 30, 33, 3, 30.3),
            (85, 11, 100, 10, 1, 90.9),
            (100, 10, 100, 10, 1, 100.0),
            (125, 8, 30, 33, 5, 25.0),
            (125, 8, 62, 16, 2, 62.5),
            (125, 8, 100, 10, 2, 62.5),
            (200, 5, 100, 10, 2, 100.0),
            (250, 4, 83, 12, 3, 83.3),
            (250, 4, 100, 10, 3, 83.3),
        ];
        for (fps, frame, maxpackets, threshold, frames, pps) in table {
            let client = ClientSettings {
                com_maxfps: fps,
                cl_maxpackets: maxpackets,
                ..ClientSettings::default()
            };
            let c = cadence(&client, &ServerSettings::default(), 1500);
            assert_eq!(
                (
                    c.client_frame_ms,
                    c.packet_threshold_ms,
                    c.frames_per_packet
                ),
                (frame, threshold, frames),
                "{fps}/{maxpackets}"
            );
            assert_eq!(round1(c.packets_per_second), pps, "{fps}/{maxpackets}");
        }
    }

    #[test]
    fn every_maximum_accounted_rate_delay() {
        // rate, delay, (interval, snapshots/s) on 20 Hz, then on 30 Hz; snaps 30 as requested.
        let table = [
            (25000, 61, (100, 10.0), (66, 15.2)),
            (30000, 51, (100, 10.0), (66, 15.2)),
            (31000, 49, (50, 20.0), (66, 15.2)),
            (50000, 30, (50, 20.0), (33, 30.3)),
            (90000, 17, (50, 20.0), (33, 30.3)),
        ];
        for (rate, delay, on20, on30) in table {
            assert_eq!(rate_delay_ms(1500, effective_rate(rate, 0)), delay);
            for (sv_fps, (interval, per_second)) in [(20, on20), (30, on30)] {
                let client = ClientSettings {
                    rate,
                    snaps: 30,
                    ..ClientSettings::default()
                };
                let server = ServerSettings {
                    sv_fps,
                    sv_max_rate: 0,
                };
                let c = cadence(&client, &server, 1500);
                assert_eq!(
                    c.actual_snapshot_interval_ms, interval,
                    "rate {rate} on {sv_fps} Hz"
                );
                assert_eq!(round1(c.snapshots_per_second), per_second);
            }
        }
    }

    #[test]
    fn every_snapshot_alignment_example() {
        // sv_fps, frame, snaps, requested, actual, snapshots/s (rate high enough not to matter)
        let table = [
            (20, 50, 20, 50, 50, 20.0),
            (20, 50, 30, 33, 50, 20.0),
            (25, 40, 20, 50, 80, 12.5),
            (25, 40, 25, 40, 40, 25.0),
            (30, 33, 20, 50, 66, 15.2),
            (30, 33, 30, 33, 33, 30.3),
            (40, 25, 30, 33, 50, 20.0),
            (60, 16, 30, 33, 48, 20.8),
        ];
        for (sv_fps, frame, snaps, requested, actual, per_second) in table {
            let client = ClientSettings {
                snaps,
                rate: 90000,
                ..ClientSettings::default()
            };
            let server = ServerSettings {
                sv_fps,
                sv_max_rate: 0,
            };
            let c = cadence(&client, &server, 1500);
            assert_eq!(
                (
                    c.server_frame_ms,
                    c.requested_snapshot_interval_ms,
                    c.actual_snapshot_interval_ms
                ),
                (frame, requested, actual),
                "sv_fps {sv_fps} snaps {snaps}"
            );
            assert_eq!(round1(c.snapshots_per_second), per_second);
        }
    }

    #[test]
    fn clamps_and_stock_rules() {
        assert_eq!(effective_rate(500, 0), 1000);
        assert_eq!(effective_rate(200_000, 0), 90_000);
        assert_eq!(effective_rate(50_000, 20_000), 20_000);
        assert_eq!(
            effective_rate(50_000, 300),
            1000,
            "a nonzero cap is raised to 1,000"
        );
        assert_eq!(charged_size(4000), 1548);
        assert_eq!(charged_size(600), 648);
        assert_eq!(snapshot_interval_ms(0), 1000);
        assert_eq!(snapshot_interval_ms(99), 33);
        assert_eq!(server_frame_ms(0), 100, "below 1 is replaced with 10");
        assert_eq!(server_frame_ms(-5), 100);
        assert_eq!(clamp_maxpackets(5), 15);
        assert_eq!(clamp_maxpackets(250), 100);
        assert_eq!(clamp_packetdup(9), 5);
        assert_eq!(clamp_time_nudge(-100), -30);
        assert_eq!(history_sequence(100, 1), 98);
        assert_eq!(history_sequence(100, 0), 99);
        assert_eq!(ui_set_rate(25000), (30, 1));
        assert_eq!(ui_set_rate(5000), (30, 1));
        assert_eq!(ui_set_rate(4500), (15, 2));
        assert_eq!(ui_set_rate(4000), (15, 2));
        assert_eq!(ui_set_rate(3999), (15, 1));
        assert_eq!(ClientSettings::default().rate, 25000);
        assert_eq!(ServerSettings::default().sv_fps, 20);
    }

    #[test]
    fn lan_bypasses_both_gates() {
        let client = ClientSettings {
            com_maxfps: 125,
            cl_maxpackets: 30,
            rate: 1000,
            lan: true,
            ..ClientSettings::default()
        };
        let c = cadence(&client, &ServerSettings::default(), 1500);
        assert_eq!(c.frames_per_packet, 1);
        assert_eq!(c.packet_interval_ms, 8);
        assert_eq!(
            c.actual_snapshot_interval_ms, 50,
            "the server frame stays the ceiling"
        );
        assert!(!c.rate_delayed);
    }

    #[test]
    fn usercmds_follow_packetdup_and_the_cap() {
        assert_eq!(usercmds_per_packet(1, 2), 4);
        assert_eq!(usercmds_per_packet(0, 2), 2);
        assert_eq!(usercmds_per_packet(5, 10), 32);
    }

    fn codes(client: ClientSettings, server: ServerSettings) -> Vec<&'static str> {
        advise(&client, &server, 1500)
            .iter()
            .map(|a| a.code)
            .collect()
    }

    #[test]
    fn the_guide_s_warnings() {
        let on20 = ServerSettings::default();
        let balanced = ClientSettings {
            com_maxfps: 125,
            cl_maxpackets: 62,
            rate: 50000,
            snaps: 30,
            ..ClientSettings::default()
        };
        assert_eq!(codes(balanced, on20), vec!["snaps_above_server_rate"]);
        let on30 = ServerSettings {
            sv_fps: 30,
            sv_max_rate: 0,
        };
        assert!(
            codes(balanced, on30).is_empty(),
            "balanced on 30 Hz is clean"
        );
        let stock = ClientSettings::default();
        // Stock is aligned with stock, but 25000 cannot carry a worst-case snapshot in 50 ms.
        assert_eq!(codes(stock, on20), vec!["rate_delays_large_snapshots"]);
        assert!(advise(&stock, &on20, 800).is_empty());
        let unaligned = ClientSettings {
            cl_maxpackets: 100,
            ..balanced
        };
        assert!(codes(unaligned, on30).contains(&"cl_maxpackets_unaligned"));
        let slow = ClientSettings {
            rate: 25000,
            ..balanced
        };
        assert!(codes(slow, on30).contains(&"rate_delays_large_snapshots"));
        let capped = ServerSettings {
            sv_fps: 30,
            sv_max_rate: 25000,
        };
        assert!(codes(balanced, capped).contains(&"rate_delays_large_snapshots"));
        let batching = ClientSettings {
            com_maxfps: 250,
            cl_maxpackets: 15,
            cl_packetdup: 3,
            ..ClientSettings::default()
        };
        let found = codes(batching, on20);
        assert!(found.contains(&"usercmd_budget_exceeded"), "{found:?}");
        assert!(found.contains(&"packetdup_high"));
        let near = ClientSettings {
            com_maxfps: 125,
            cl_maxpackets: 15,
            cl_packetdup: 2,
            ..ClientSettings::default()
        };
        assert!(codes(near, on20).contains(&"usercmd_budget_near_limit"));
        let fast_server = ServerSettings {
            sv_fps: 60,
            sv_max_rate: 0,
        };
        assert!(codes(balanced, fast_server).contains(&"sv_fps_above_snapshot_ceiling"));
    }

    #[test]
    fn every_profile_row_holds() {
        let run = |p: &ClientProfile, server: ServerSettings| {
            let client = ClientSettings {
                com_maxfps: p.com_maxfps,
                cl_maxpackets: p.cl_maxpackets,
                rate: p.rate,
                snaps: p.snaps,
                ..ClientSettings::default()
            };
            cadence(&client, &server, MAX_CHARGED_MESSAGE)
        };
        let on20 = ServerSettings::default();
        let on30 = ServerSettings {
            sv_fps: 30,
            sv_max_rate: 0,
        };
        let [stock, balanced, batching, constrained] = &CLIENT_PROFILES;
        // Stock baseline: already aligned with the stock 20 Hz server.
        let c = run(stock, on20);
        assert_eq!(c.requested_snapshot_interval_ms, c.server_frame_ms);
        // Balanced broadband: about 62.5 packets/s, not rate-delayed at 30 snapshots/s.
        let c = run(balanced, on30);
        assert_eq!(round1(c.packets_per_second), 62.5);
        assert!(!c.rate_delayed);
        assert_eq!(round1(c.snapshots_per_second), 30.3);
        // Minimum command batching: one packet per 10 ms client frame.
        let c = run(batching, on30);
        assert_eq!((c.client_frame_ms, c.packet_interval_ms), (10, 10));
        // Constrained connection: large snapshots can be rate-delayed.
        assert!(run(constrained, on20).rate_delayed);
        // Server profiles: 20 Hz gives about 20 snapshots/s for snaps 20 or 30; 30 Hz with
        // snaps 30 and sv_maxRate 50000 gives about 30.3.
        for profile in &SERVER_PROFILES {
            for &snaps in profile.snaps {
                let client = ClientSettings {
                    snaps,
                    rate: 90000,
                    ..ClientSettings::default()
                };
                let server = ServerSettings {
                    sv_fps: profile.sv_fps,
                    sv_max_rate: profile.min_sv_max_rate,
                };
                let per_second = round1(cadence(&client, &server, 1500).snapshots_per_second);
                let expected = if profile.sv_fps == 20 { 20.0 } else { 30.3 };
                assert_eq!(per_second, expected, "{} snaps {snaps}", profile.name);
            }
        }
        // At rate 25000, roughly 1201 message bytes fit a 50 ms request and 776 a 33 ms one.
        assert_eq!(largest_undelayed_message(25000, 50), 1202);
        assert_eq!(largest_undelayed_message(25000, 33), 777);
        assert_eq!(rate_delay_ms(1202, 25000), 50);
    }

    #[test]
    fn recommended_profiles_depend_on_the_server() {
        let names = |s: ServerSettings| -> Vec<&str> {
            recommended_profiles(&s).iter().map(|p| p.name).collect()
        };
        assert_eq!(
            names(ServerSettings {
                sv_fps: 30,
                sv_max_rate: 0
            }),
            vec!["profile-balanced-broadband", "profile-minimum-batching"]
        );
        assert_eq!(
            names(ServerSettings::default()),
            vec!["profile-balanced-broadband", "profile-minimum-batching"]
        );
        assert_eq!(
            names(ServerSettings {
                sv_fps: 20,
                sv_max_rate: 25000
            }),
            vec!["profile-constrained"]
        );
    }
}
