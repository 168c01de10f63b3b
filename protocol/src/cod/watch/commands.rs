//! The reliable server-command vocabulary a stock UO 1.51 server sends (SPECTATOR-NOTES §3).
//! Only the first byte selects the command, as cgame's `CG_ServerCommand` switches on it; the
//! arguments are tokenized as the engine does.

use alloc::string::String;
use alloc::vec::Vec;

use crate::cod::oob::tokenize;
use crate::cod::stream::disconnect_reason;

/// `\x14`: localize the next token.
pub const LOCALIZE: char = '\x14';
/// `\x15`: plain text follows.
pub const PLAIN: char = '\x15';
/// Rows a `b` scoreboard carries at most.
pub const MAX_SCORE_ROWS: usize = 64;

/// One row of the `b` scoreboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRow {
    pub client: u8,
    pub score: i32,
    /// -1 while the client is connecting.
    pub ping: i32,
    pub deaths: i32,
    /// Indexes configstring 21 + icon.
    pub status_icon: i32,
}

/// The `b` scoreboard: team scores, then one row per client, sorted by rank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scores {
    pub axis: i32,
    pub allies: i32,
    pub rows: Vec<ScoreRow>,
}

/// A server command as the client reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerCommand {
    /// `a <weapon>`: select a weapon.
    SelectWeapon(i32),
    /// `b`: the scoreboard.
    Scores(Scores),
    /// `c "<text>"`: a bold centre announcement.
    Announcement(String),
    /// `d <index> <value>`: a configstring changed.
    Configstring { index: u16, value: String },
    /// `x`/`y`/`z <index> <chunk>`: the first, a middle or the last chunk of a big configstring.
    ConfigstringChunk {
        part: ChunkPart,
        index: u16,
        chunk: String,
    },
    /// `e`: a game message line (drops, votes, console `say`).
    GameMessage(String),
    /// `f`: a script `iprintln` line.
    ScriptMessage(String),
    /// `g`: a bold script `iprintlnbold` line.
    BoldMessage(String),
    /// `h`: chat to everyone (or a `tell`).
    Chat(String),
    /// `i`: team chat.
    TeamChat(String),
    /// `n` (persistent) or `B` (full): the map restarted.
    MapRestart { persistent: bool },
    /// `w "<reason>"`: the server dropped us.
    Disconnect(String),
    /// Any other command (sounds, music, menus, cvars, voice chat ...), kept as sent.
    Other { verb: char, text: String },
}

/// Which chunk of a big configstring an `x`, `y` or `z` carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkPart {
    First,
    Middle,
    Last,
}

impl ServerCommand {
    /// Reads one command text. Unknown letters and malformed arguments become
    /// [`ServerCommand::Other`]; nothing is refused.
    pub fn parse(text: &str) -> Self {
        let Some(verb) = text.chars().next() else {
            return Self::Other {
                verb: ' ',
                text: String::new(),
            };
        };
        let rest = text[verb.len_utf8()..].trim_start_matches(' ');
        let first_arg = || tokenize(rest).into_iter().next().unwrap_or_default();
        let parsed = match verb {
            'a' => first_arg().parse().ok().map(Self::SelectWeapon),
            'b' => parse_scores(rest).map(Self::Scores),
            'c' => Some(Self::Announcement(first_arg())),
            'd' | 'x' | 'y' | 'z' => {
                let (index, value) = rest.split_once(' ').unwrap_or((rest, ""));
                index.parse().ok().map(|index| {
                    let value = value.into();
                    match verb {
                        'd' => Self::Configstring { index, value },
                        'x' => Self::chunk(ChunkPart::First, index, value),
                        'y' => Self::chunk(ChunkPart::Middle, index, value),
                        _ => Self::chunk(ChunkPart::Last, index, value),
                    }
                })
            }
            'e' => Some(Self::GameMessage(first_arg())),
            'f' => Some(Self::ScriptMessage(first_arg())),
            'g' => Some(Self::BoldMessage(first_arg())),
            'h' => Some(Self::Chat(first_arg())),
            'i' => Some(Self::TeamChat(first_arg())),
            'n' => Some(Self::MapRestart { persistent: true }),
            'B' => Some(Self::MapRestart { persistent: false }),
            'w' => Some(Self::Disconnect(disconnect_reason(rest))),
            _ => None,
        };
        parsed.unwrap_or_else(|| Self::Other {
            verb,
            text: text.into(),
        })
    }

    fn chunk(part: ChunkPart, index: u16, chunk: String) -> Self {
        Self::ConfigstringChunk { part, index, chunk }
    }
}

/// `w` with no argument means the stock "EXE_SERVER_DISCONNECTED".
/// `b <n> <axis> <allies>` then n rows of `<client> <score> <ping> <deaths> <statusIcon>`.
/// Rows past the count, or past 64, are ignored; a short row ends the list.
fn parse_scores(rest: &str) -> Option<Scores> {
    let mut words = rest.split_ascii_whitespace().map(str::parse::<i32>);
    let count = words.next()?.ok()?;
    let axis = words.next()?.ok()?;
    let allies = words.next()?.ok()?;
    let mut rows = Vec::new();
    let wanted = usize::try_from(count).unwrap_or(0).min(MAX_SCORE_ROWS);
    while rows.len() < wanted {
        let mut next = || words.next().and_then(Result::ok);
        let (Some(client), Some(score), Some(ping), Some(deaths), Some(status_icon)) =
            (next(), next(), next(), next(), next())
        else {
            break;
        };
        let Ok(client) = u8::try_from(client) else {
            continue;
        };
        rows.push(ScoreRow {
            client,
            score,
            ping,
            deaths,
            status_icon,
        });
    }
    Some(Scores { axis, allies, rows })
}

/// The English the stock localization gives the tokens servers put in chat and messages; an
/// unknown token is shown as it is.
fn localized(token: &str) -> &str {
    match token {
        "GAME_SPECTATOR" => "Spectator",
        "GAME_DEAD" => "Dead",
        "GAME_AXIS" => "Axis",
        "GAME_ALLIES" => "Allies",
        "GAME_SERVER" => "Server",
        "GAME_CONNECTED" => "connected",
        "GAME_DISCONNECTED" => "disconnected",
        "GAME_KICKED" => "was kicked",
        "GAME_VOTEPASSED" => "Vote passed.",
        "GAME_VOTEFAILED" => "Vote failed.",
        "GAME_INACTIVEDROPWARNING" => "You will be dropped for inactivity in 10 seconds",
        "GAME_DROPPEDFORINACTIVITY" => "was dropped for inactivity",
        "GAME_UNKNOWNCLIENTCOMMAND" => "Unknown client command:",
        "EXE_TIMEDOUT" => "timed out",
        "EXE_DISCONNECTED" => "disconnected",
        _ => token,
    }
}

/// A message text as a player reads it: `\x15` markers dropped, each `\x14TOKEN` localized.
/// Colour codes are kept.
pub fn display_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find([LOCALIZE, PLAIN]) {
        out.push_str(&rest[..at]);
        let marker = rest[at..].chars().next().unwrap_or(PLAIN);
        rest = &rest[at + marker.len_utf8()..];
        if marker == LOCALIZE {
            let end = rest.find([' ', LOCALIZE, PLAIN, '^']).unwrap_or(rest.len());
            out.push_str(localized(&rest[..end]));
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn scores_read_team_scores_and_rows() {
        let b = ServerCommand::parse("b 2 7 11 3 5 48 1 0 60 2 999 4 1");
        assert_eq!(
            b,
            ServerCommand::Scores(Scores {
                axis: 7,
                allies: 11,
                rows: vec![
                    ScoreRow {
                        client: 3,
                        score: 5,
                        ping: 48,
                        deaths: 1,
                        status_icon: 0
                    },
                    ScoreRow {
                        client: 60,
                        score: 2,
                        ping: 999,
                        deaths: 4,
                        status_icon: 1
                    },
                ]
            })
        );
        // A truncated list keeps the whole rows.
        let ServerCommand::Scores(short) = ServerCommand::parse("b 3 0 0 1 2 3 4 5 6 7") else {
            panic!()
        };
        assert_eq!(short.rows.len(), 1);
        assert!(matches!(
            ServerCommand::parse("b x"),
            ServerCommand::Other { verb: 'b', .. }
        ));
    }

    #[test]
    fn each_letter_reads_as_the_notes_say() {
        assert_eq!(
            ServerCommand::parse("d 5 12"),
            ServerCommand::Configstring {
                index: 5,
                value: "12".into()
            }
        );
        assert_eq!(
            ServerCommand::parse("d 0 \\sv_hostname\\a b"),
            ServerCommand::Configstring {
                index: 0,
                value: "\\sv_hostname\\a b".into()
            }
        );
        assert_eq!(
            ServerCommand::parse("z 7 tail"),
            ServerCommand::ConfigstringChunk {
                part: ChunkPart::Last,
                index: 7,
                chunk: "tail".into()
            }
        );
        assert_eq!(
            ServerCommand::parse("w \"EXE_SERVERCOMMANDOVERFLOW\""),
            ServerCommand::Disconnect("EXE_SERVERCOMMANDOVERFLOW".into())
        );
        assert_eq!(
            ServerCommand::parse("w"),
            ServerCommand::Disconnect("EXE_SERVER_DISCONNECTED".into())
        );
        assert_eq!(
            ServerCommand::parse("h \"\x15\x15^9Fritz^7: ^7gg\""),
            ServerCommand::Chat("\x15\x15^9Fritz^7: ^7gg".into())
        );
        assert_eq!(
            ServerCommand::parse("n"),
            ServerCommand::MapRestart { persistent: true }
        );
        assert_eq!(ServerCommand::parse("a 3"), ServerCommand::SelectWeapon(3));
        assert!(matches!(
            ServerCommand::parse("o music_alias"),
            ServerCommand::Other { verb: 'o', .. }
        ));
        assert!(matches!(
            ServerCommand::parse(""),
            ServerCommand::Other { .. }
        ));
    }

    #[test]
    fn markers_are_dropped_and_tokens_localized() {
        assert_eq!(
            display_text("\x15\x15(\x14GAME_SPECTATOR\x15)^8Muster^7: ^7hi"),
            "(Spectator)^8Muster^7: ^7hi"
        );
        assert_eq!(
            display_text("\x15Fritz^7 \x14GAME_KICKED"),
            "Fritz^7 was kicked"
        );
        assert_eq!(display_text("\x14"), "");
    }
}
