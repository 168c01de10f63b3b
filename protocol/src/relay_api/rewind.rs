//! The rewind window: the last minutes of a watched match a viewer can go back into
//! (`GET /api/spectate/ADDR/rewind`), and how a viewer moves in it ([`super::watch::ViewerMessage`]).
//! Everything in a window has already left the broadcast delay.

use alloc::string::String;
use alloc::vec::Vec;

/// `GET /api/spectate/ADDR/rewind`: what a viewer can go back to, in the relay's clock (µs
/// since the Unix epoch, as a keyframe's `relay_us`) and the server's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewindWindow {
    /// The oldest moment a viewer can be shown, and its server time.
    pub start_us: u64,
    pub start_server_time: i32,
    /// The newest moment released to viewers (the live edge, delay included).
    pub end_us: u64,
    pub end_server_time: i32,
    /// Keyframes held: the moments a seek starts from.
    pub keyframes: u32,
    /// What the window holds now, in bytes.
    pub bytes: u64,
    /// What the hub's reel (the game's messages moments are cut from) holds beside it; the
    /// two share the hub's budget. Only the relay running the session has one.
    #[cfg_attr(feature = "serde", serde(default))]
    pub reel_bytes: u64,
    /// Every kill in the window, oldest first, for marking the scrub bar.
    pub kills: Vec<RewindKill>,
}

/// A kill in the window, with the names as they were when it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewindKill {
    /// When the update carrying it was released.
    pub relay_us: u64,
    pub server_time: i32,
    /// `None` for the world.
    pub attacker: Option<String>,
    pub victim: String,
    pub weapon: String,
}
