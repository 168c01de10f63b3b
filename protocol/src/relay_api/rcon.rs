//! The admin console socket (`/rcon/ADDR`): the page sends one [`RconCommand`] at a time as a
//! JSON text message, the relay answers each with an [`RconReport`]. The password travels with
//! every command and nowhere else: the relay never stores it, and no `Debug` output shows it.

use alloc::string::String;
// Named by the schema derive.
#[cfg(feature = "openapi")]
use alloc::vec::Vec;
use core::fmt;

/// A command from the page.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RconCommand {
    /// Chosen by the page; the report about this command carries it back.
    pub id: u32,
    /// The server's `rconpassword`.
    pub password: String,
    /// One console line, as typed after `/rcon`.
    pub command: String,
}

impl fmt::Debug for RconCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RconCommand")
            .field("id", &self.id)
            .field("password", &"<redacted>")
            .field("command", &self.command)
            .finish()
    }
}

/// One report from the relay on an admin socket.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum RconReport {
    /// The socket is open to `target`; commands leave at least `spacing_ms` apart.
    Ready { target: String, spacing_ms: u64 },
    /// The server answered command `id`.
    Answer {
        id: u32,
        /// `output`, `bad_password` or `no_password`.
        outcome: String,
        /// The joined output, colour codes kept.
        output: String,
        /// `print` packets joined.
        chunks: u32,
        /// More output came than the relay keeps.
        truncated: bool,
        /// Waiting for the server's turn (the stock throttle, shared by every admin).
        queued_ms: u64,
        /// From the request datagram to the last chunk.
        round_trip_ms: u64,
    },
    /// Command `id` was not sent, or got no answer: `kind` names the rule (`locked`,
    /// `busy`, `no_reply`, `command`, ...), `reason` says it in a sentence, and
    /// `retry_after_s` when trying again later would help.
    Refused {
        id: Option<u32>,
        kind: String,
        reason: String,
        retry_after_s: Option<u64>,
    },
}

#[cfg(feature = "serde")]
impl RconReport {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for text that is not a report.
    pub fn decode(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

#[cfg(feature = "serde")]
impl RconCommand {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for text that is not a command.
    pub fn decode(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn the_password_never_shows_in_debug_output() {
        let command = RconCommand {
            id: 7,
            password: "hunter2".into(),
            command: "status".into(),
        };
        let shown = alloc::format!("{command:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert_eq!(RconCommand::decode(&command.encode()), Some(command));
    }

    #[test]
    fn reports_are_tagged_json() {
        let report = RconReport::Refused {
            id: Some(3),
            kind: "locked".into(),
            reason: "too many wrong passwords".into(),
            retry_after_s: Some(900),
        };
        let text = report.encode();
        assert!(text.starts_with("{\"type\":\"refused\""), "{text}");
        assert_eq!(RconReport::decode(&text), Some(report));
    }
}
