//! What the relay says on a Wulfram II proxy session (`/wulfram/NAME`) besides the packets it
//! carries, which travel as binary messages behind a channel byte ([`CHANNEL_TCP`],
//! [`CHANNEL_UDP`]): these reports travel as JSON text messages.

use alloc::string::String;
// Named by the schema derive.
#[cfg(feature = "openapi")]
use alloc::vec::Vec;

/// The channel byte before a TCP payload (opcode and body; the relay adds and strips the
/// frame's size prefix).
pub const CHANNEL_TCP: u8 = 0;
/// The channel byte before one whole UDP datagram.
pub const CHANNEL_UDP: u8 = 1;

/// One report from the relay on a proxy session.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum ProxyReport {
    /// Both of the server's transports are open.
    Connected { name: String, addr: String },
    /// A packet over the size policy, never forwarded. `direction` is `to_server` or
    /// `to_page`, `transport` `tcp` or `udp`.
    Dropped {
        direction: String,
        transport: String,
        error: String,
    },
    /// The session ended, or never began.
    Closed { reason: String },
}

#[cfg(feature = "serde")]
impl ProxyReport {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
