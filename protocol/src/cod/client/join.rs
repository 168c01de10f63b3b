//! What a player would meet joining a server, read from how far `cod::client` got: a slot
//! (the server sent `connectResponse`), or the server's refusal in its own words, or silence.
//! The Join check in the page reports this; the refusal texts are stock's localisation keys.

use alloc::string::String;

use crate::said::Said;

/// The answer to "could I join now?".
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JoinAnswer {
    /// The server gave a slot (`connectResponse`).
    FreeSlot,
    /// `EXE_SERVERISFULL`.
    Full(String),
    /// The game refused the password (`GAME_INVALIDPASSWORD` in the lab; the stock text is
    /// not in our notes, so any refusal naming a password counts).
    PasswordRequired(String),
    /// `EXE_SERVERUSESPROTOCOL <n>`.
    WrongProtocol(String),
    /// A refusal naming a ban.
    Banned(String),
    /// Any other refusal, as the server put it.
    Refused(String),
    /// Nothing came back in time.
    NoAnswer,
}

impl JoinAnswer {
    /// The answer a refusal's text gives.
    pub fn of_refusal(text: &str) -> Self {
        let upper = text.to_ascii_uppercase();
        let text = String::from(text);
        if upper.contains("SERVERISFULL") || upper.contains("SERVER IS FULL") {
            Self::Full(text)
        } else if upper.contains("PASSWORD") {
            Self::PasswordRequired(text)
        } else if upper.contains("PROTOCOL") {
            Self::WrongProtocol(text)
        } else if upper.contains("BANNED") {
            Self::Banned(text)
        } else {
            Self::Refused(text)
        }
    }

    /// A stable name, for the page's tests and scripts.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::FreeSlot => "free_slot",
            Self::Full(_) => "full",
            Self::PasswordRequired(_) => "password",
            Self::WrongProtocol(_) => "wrong_protocol",
            Self::Banned(_) => "banned",
            Self::Refused(_) => "refused",
            Self::NoAnswer => "no_answer",
        }
    }

    /// What a player reads, in their language: what it means, and the server's own words
    /// (stock's localisation key or its text) as it sent them.
    pub fn said(&self) -> Said {
        let with = |what: &'static str, text: &str| {
            Said::new("join-server-said")
                .with("what", Said::new(what))
                .with("text", text)
        };
        match self {
            Self::FreeSlot => Said::new("join-free-slot"),
            Self::Full(t) => with("join-full", t),
            Self::PasswordRequired(t) => with("join-password", t),
            Self::WrongProtocol(t) => with("join-wrong-protocol", t),
            Self::Banned(t) => with("join-banned", t),
            Self::Refused(t) => with("join-refused", t),
            Self::NoAnswer => Said::new("join-no-answer"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_read_as_stock_words_them() {
        let kind = |t: &str| JoinAnswer::of_refusal(t).kind();
        assert_eq!(kind("EXE_SERVERISFULL"), "full");
        assert_eq!(kind("Server is full."), "full");
        assert_eq!(kind("GAME_INVALIDPASSWORD"), "password");
        assert_eq!(kind("Invalid password"), "password");
        assert_eq!(kind("EXE_SERVERUSESPROTOCOL 22"), "wrong_protocol");
        assert_eq!(kind("You are banned from this server"), "banned");
        assert_eq!(kind("EXE_BAD_CHALLENGE"), "refused");
        assert_eq!(
            JoinAnswer::of_refusal("EXE_SERVERISFULL").said(),
            Said::new("join-server-said")
                .with("what", Said::new("join-full"))
                .with("text", "EXE_SERVERISFULL")
        );
    }
}
