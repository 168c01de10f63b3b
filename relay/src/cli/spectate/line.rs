//! What `muster spectate` prints: one typed line per session event, as JSON (`--json`, one
//! object per line, each with a `type`) or as text for people ([`std::fmt::Display`]).

use protocol::cod::fields::ClientField;
use protocol::cod::fields::EntityField;
use protocol::cod::fields::PlayerStateField;
use std::fmt;

use protocol::cod::client::{DownloadEvent, Event};
use protocol::cod::entity::{EntityState, ET_VEHICLE};
use protocol::cod::fields::Named;
use protocol::cod::snapshot::Snapshot;
use protocol::cod::text::strip as strip_colours;
use protocol::cod::watch::commands::{display_text, ServerCommand};
use protocol::cod::watch::obituary::{Cause, Obituary, ET_EVENTS, ET_OBITUARY, MEANS_OF_DEATH};
use protocol::cod::watch::spectator::{EF_DEAD, ET_PLAYER, PM_DEAD, PSF_FOLLOWING};
use protocol::relay_api::watch::Team;
use serde::Serialize;

/// One line of `muster spectate`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    State {
        state: &'static str,
    },
    Loadingnewmap {
        mapname: String,
        gametype: String,
    },
    Gamestate {
        server_command_sequence: i32,
        client_num: i32,
        checksum_feed: i32,
        /// How many configstrings and baselines it carried; each configstring follows as a
        /// line of its own.
        configstrings: usize,
        baselines: usize,
    },
    Configstring {
        index: u16,
        value: String,
    },
    ServerCommand {
        sequence: i32,
        text: String,
        #[serde(flatten)]
        read: CommandRead,
    },
    Snapshot(SnapshotLine),
    /// A download's progress; `total` is unknown until the server says it.
    #[serde(rename = "download")]
    DownloadProgress {
        name: String,
        received: usize,
        total: Option<usize>,
    },
    #[serde(rename = "download")]
    DownloadComplete {
        name: String,
        received: usize,
        total: usize,
        complete: bool,
        /// Where the file was written, once it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    #[serde(rename = "download")]
    DownloadFailed {
        name: String,
        error: String,
    },
    Disconnect {
        reason: String,
    },
}

/// What the stock client reads in a server command.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommandRead {
    /// `chat`, `team_chat`, `scores`, `message`, `configstring`, `disconnect`, `map_restart`
    /// or `other`.
    pub command: &'static str,
    /// The text a player is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// A scoreboard's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<ScoresLine>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoresLine {
    pub axis: i32,
    pub allies: i32,
    pub rows: Vec<ScoreRowLine>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreRowLine {
    pub client: u8,
    pub score: i32,
    pub ping: i32,
    pub deaths: i32,
}

/// One snapshot as tools read it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SnapshotLine {
    pub server_time: i32,
    pub delta_num: u8,
    pub flags: u8,
    pub view: ViewLine,
    pub players: Vec<PlayerLine>,
    pub entities: Vec<EntityLine>,
    pub obituaries: Vec<ObituaryLine>,
}

/// Where the spectator's own view is, and whom it follows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewLine {
    pub origin: [f32; 3],
    pub client: u32,
    pub following: bool,
}

/// A player: client state joined with their entity (absent when the server culled it), or
/// for the followed player their player state, since the server never sends it as an entity.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerLine {
    pub client: u8,
    pub name: String,
    pub team: &'static str,
    pub origin: Option<[f32; 3]>,
    pub yaw: Option<f32>,
    pub weapon: Option<u32>,
    pub dead: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub followed: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntityLine {
    pub number: u16,
    /// `player`, `vehicle`, `obituary`, `event` or `general`.
    pub kind: &'static str,
    pub origin: [f32; 3],
    pub yaw: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObituaryLine {
    pub victim: u16,
    /// `None` for the world.
    pub attacker: Option<u16>,
    pub cause: CauseLine,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseLine {
    Weapon(u8),
    /// The means of death's name, `None` past the table.
    Means(Option<&'static str>),
}

fn entity_kind(e: &EntityState) -> &'static str {
    match e.get(EntityField::E_TYPE) {
        ET_PLAYER => "player",
        ET_VEHICLE => "vehicle",
        ET_OBITUARY => "obituary",
        t if t >= ET_EVENTS => "event",
        _ => "general",
    }
}

/// What the stock client reads in a server command.
pub fn describe_command(text: &str) -> CommandRead {
    let mut scores = None;
    let (command, shown) = match ServerCommand::parse(text) {
        ServerCommand::Chat(t) => ("chat", display_text(&t)),
        ServerCommand::TeamChat(t) => ("team_chat", display_text(&t)),
        ServerCommand::Scores(s) => {
            scores = Some(ScoresLine {
                axis: s.axis,
                allies: s.allies,
                rows: s
                    .rows
                    .iter()
                    .map(|r| ScoreRowLine {
                        client: r.client,
                        score: r.score,
                        ping: r.ping,
                        deaths: r.deaths,
                    })
                    .collect(),
            });
            ("scores", String::new())
        }
        ServerCommand::GameMessage(t)
        | ServerCommand::ScriptMessage(t)
        | ServerCommand::BoldMessage(t)
        | ServerCommand::Announcement(t) => ("message", display_text(&t)),
        ServerCommand::Configstring { .. } | ServerCommand::ConfigstringChunk { .. } => {
            ("configstring", String::new())
        }
        ServerCommand::Disconnect(reason) => ("disconnect", reason),
        ServerCommand::MapRestart { .. } => ("map_restart", String::new()),
        _ => ("other", String::new()),
    };
    CommandRead {
        command,
        shown: (!shown.is_empty()).then_some(shown),
        scores,
    }
}

/// The obituary events a snapshot carries.
pub fn obituaries(s: &Snapshot) -> Vec<ObituaryLine> {
    s.entities
        .values()
        .filter_map(Obituary::from_entity)
        .map(|o| ObituaryLine {
            victim: o.victim,
            attacker: o.attacker,
            cause: match o.cause {
                Cause::Weapon(w) => CauseLine::Weapon(w),
                Cause::Means(m) => CauseLine::Means(MEANS_OF_DEATH.get(usize::from(m)).copied()),
            },
        })
        .collect()
}

fn team_name(team: u32) -> &'static str {
    Team::from_wire(team).name()
}

/// One snapshot as tools read it.
pub fn snapshot_line(s: &Snapshot) -> SnapshotLine {
    let following = s.player.get(PlayerStateField::PM_FLAGS) & PSF_FOLLOWING != 0;
    let followed = following.then(|| s.player.get(PlayerStateField::CLIENT_NUM) as u8);
    let players = s
        .clients
        .iter()
        .map(|(&number, c)| {
            if followed == Some(number) {
                let ps = &s.player;
                return PlayerLine {
                    client: number,
                    name: c.name(),
                    team: team_name(c.get(ClientField::TEAM)),
                    origin: Some(ps.origin()),
                    yaw: Some(ps.get_f32(PlayerStateField::VIEWANGLES_1)),
                    weapon: Some(ps.get(PlayerStateField::WEAPON)),
                    dead: Some(ps.get(PlayerStateField::PM_TYPE) >= PM_DEAD),
                    followed: Some(true),
                };
            }
            let entity = s.entities.get(&u16::from(number));
            PlayerLine {
                client: number,
                name: c.name(),
                team: team_name(c.get(ClientField::TEAM)),
                origin: entity.map(|e| e.origin()),
                yaw: entity.map(|e| e.get_f32(EntityField::APOS_TR_BASE_1)),
                weapon: entity.map(|e| e.get(EntityField::WEAPON)),
                dead: entity.map(|e| e.get(EntityField::E_FLAGS) & EF_DEAD != 0),
                followed: None,
            }
        })
        .collect();
    let entities = s
        .entities
        .values()
        .filter(|e| {
            !(e.get(EntityField::E_TYPE) == ET_PLAYER && s.clients.contains_key(&(e.number as u8)))
        })
        .map(|e| EntityLine {
            number: e.number,
            kind: entity_kind(e),
            origin: e.origin(),
            yaw: e.get_f32(EntityField::APOS_TR_BASE_1),
        })
        .collect();
    SnapshotLine {
        server_time: s.server_time,
        delta_num: s.delta_num,
        flags: s.flags,
        view: ViewLine {
            origin: s.player.origin(),
            client: s.player.get(PlayerStateField::CLIENT_NUM),
            following,
        },
        players,
        entities,
        obituaries: obituaries(s),
    }
}

/// The lines one session event becomes (a gamestate also lists its configstrings).
pub fn event_lines(event: &Event) -> Vec<Line> {
    match event {
        Event::State(state) => vec![Line::State {
            state: state.name(),
        }],
        Event::LoadingNewMap { mapname, gametype } => vec![Line::Loadingnewmap {
            mapname: mapname.clone(),
            gametype: gametype.clone(),
        }],
        Event::Gamestate(g) => {
            let mut lines = vec![Line::Gamestate {
                server_command_sequence: g.server_command_sequence,
                client_num: g.client_num,
                checksum_feed: g.checksum_feed,
                configstrings: g.configstrings.len(),
                baselines: g.baselines.len(),
            }];
            lines.extend(
                g.configstrings
                    .iter()
                    .map(|(index, value)| Line::Configstring {
                        index: *index,
                        value: value.clone(),
                    }),
            );
            lines
        }
        Event::Configstring { index, value } => vec![Line::Configstring {
            index: *index,
            value: value.clone(),
        }],
        Event::ServerCommand { sequence, text } => vec![Line::ServerCommand {
            sequence: *sequence,
            text: text.clone(),
            read: describe_command(text),
        }],
        Event::Snapshot(s) => vec![Line::Snapshot(snapshot_line(s))],
        Event::Download(DownloadEvent::Progress {
            name,
            received,
            total,
        }) => vec![Line::DownloadProgress {
            name: name.clone(),
            received: *received,
            total: *total,
        }],
        Event::Download(DownloadEvent::Complete { name, data }) => vec![Line::DownloadComplete {
            name: name.clone(),
            received: data.len(),
            total: data.len(),
            complete: true,
            path: None,
        }],
        Event::Download(DownloadEvent::Failed { name, reason }) => vec![Line::DownloadFailed {
            name: name.clone(),
            error: reason.clone(),
        }],
        Event::Disconnected(reason) => vec![Line::Disconnect {
            reason: reason.clone(),
        }],
    }
}

/// A number, or `null` for none, as the JSON says it.
struct OrNull<T>(Option<T>);

impl<T: fmt::Display> fmt::Display for OrNull<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.write_str("null"),
        }
    }
}

struct Origin<'a>(Option<&'a [f32; 3]>);

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some([x, y, z]) => write!(f, "{x:.0},{y:.0},{z:.0}"),
            None => f.write_str("-"),
        }
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::State { state } => write!(f, "state {state}"),
            Self::Loadingnewmap { mapname, gametype } => {
                write!(f, "loading new map {mapname} ({gametype})")
            }
            Self::Gamestate {
                configstrings,
                baselines,
                client_num,
                ..
            } => write!(
                f,
                "gamestate: {configstrings} configstrings, {baselines} baselines, client {client_num}"
            ),
            Self::Configstring { index, value } => {
                write!(f, "configstring {index} = {}", strip_colours(value))
            }
            Self::ServerCommand {
                sequence,
                text,
                read,
            } => match &read.shown {
                Some(shown) => write!(f, "{} {sequence}: {}", read.command, strip_colours(shown)),
                None => write!(f, "command {sequence}: {}", strip_colours(text).escape_debug()),
            },
            Self::DownloadFailed { name, error } => write!(f, "download {name} failed: {error}"),
            Self::DownloadProgress {
                name,
                received,
                total,
            } => write!(f, "download {name}: {received}/{} bytes", OrNull(*total)),
            Self::DownloadComplete {
                name,
                received,
                total,
                ..
            } => write!(f, "download {name}: {received}/{total} bytes"),
            Self::Disconnect { reason } => write!(f, "disconnected: {reason}"),
            Self::Snapshot(s) => {
                write!(
                    f,
                    "snapshot t={} delta={} flags={}",
                    s.server_time, s.delta_num, s.flags
                )?;
                for p in &s.players {
                    write!(
                        f,
                        "\n  {:>2} {:<20} {:<9} {}{}",
                        p.client,
                        strip_colours(&p.name),
                        p.team,
                        Origin(p.origin.as_ref()),
                        if p.dead == Some(true) { " dead" } else { "" }
                    )?;
                }
                for o in &s.obituaries {
                    let cause = serde_json::to_string(&o.cause).unwrap_or_default();
                    write!(
                        f,
                        "\n  obituary: {} killed {} ({cause})",
                        OrNull(o.attacker),
                        o.victim
                    )?;
                }
                for e in &s.entities {
                    write!(f, "\n  #{} {} {}", e.number, e.kind, Origin(Some(&e.origin)))?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(event: DownloadEvent) -> serde_json::Value {
        serde_json::to_value(&event_lines(&Event::Download(event))[0]).unwrap()
    }

    #[test]
    fn download_lines_keep_their_json() {
        let progress = DownloadEvent::Progress {
            name: "mp_x.pk3".into(),
            received: 2048,
            total: None,
        };
        assert_eq!(
            json(progress),
            serde_json::json!({"type": "download", "name": "mp_x.pk3", "received": 2048, "total": null})
        );
        let complete = DownloadEvent::Complete {
            name: "mp_x.pk3".into(),
            data: vec![0; 3],
        };
        assert_eq!(
            json(complete),
            serde_json::json!({"type": "download", "name": "mp_x.pk3", "received": 3, "total": 3, "complete": true})
        );
        let failed = DownloadEvent::Failed {
            name: "mp_x.pk3".into(),
            reason: "no such file".into(),
        };
        assert_eq!(
            json(failed),
            serde_json::json!({"type": "download", "name": "mp_x.pk3", "error": "no such file"})
        );
    }
}
