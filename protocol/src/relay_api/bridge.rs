//! What the relay says on a bridge session (`/bridge/ADDR`) besides the datagrams it carries,
//! which travel as binary messages: these reports travel as JSON text messages.

use alloc::string::String;
// Named by the schema derive.
#[cfg(feature = "openapi")]
use alloc::vec::Vec;

use crate::bridge::TargetKind;

/// One report from the relay on a bridge session.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum BridgeReport {
    /// The session began: the page must use this qport in its `connect` and sequenced
    /// traffic, and send datagrams of at most `max_datagram` bytes.
    Session {
        target: String,
        kind: TargetKind,
        qport: u16,
        max_datagram: usize,
    },
    /// The relay dropped one datagram from the page; `kind` names the rule (`command`,
    /// `budget_target`, ...), `reason` says it in a sentence.
    Refused { kind: String, reason: String },
    /// The relay ended the session, or never opened it.
    Closed { kind: String, reason: String },
}

#[cfg(feature = "serde")]
impl BridgeReport {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for text that is not a report.
    pub fn decode(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}
