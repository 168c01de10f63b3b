//! A server's proven owner: `POST /api/servers/{addr}/claim` with the rcon password (used
//! once, never kept) opens a short owner session; with it the owner sets what the detail
//! shows, the banner's colours, a Discord webhook for the server's own events, and whether
//! the relay follows its matches. `GET /api/servers/{addr}/owner` is the public part.

use alloc::string::String;
use alloc::vec::Vec;

/// `POST /api/servers/{addr}/claim`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Claim {
    /// The server's `rconpassword`: what the game's tokenizer can read (no quote, no control
    /// character, Latin-1), within its 1,024-byte rcon buffer.
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = r"^[ !#-~\u00a0-\u00ff]+$", max_length = 900)
    )]
    pub password: String,
}

/// A link the owner shows in the detail (the clan's site, its Discord invite).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnerLink {
    pub title: String,
    /// `https` only.
    pub url: String,
}

/// A banner's colours, each `#rrggbb`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BannerColours {
    pub background: String,
    pub text: String,
    pub accent: String,
}

/// What a proven owner set, as anyone sees it (never the webhook's URL).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnerProfile {
    pub addr: String,
    pub description: String,
    pub links: Vec<OwnerLink>,
    pub banner: Option<BannerColours>,
    /// The owner opted the server in to being followed for statistics.
    pub follow: bool,
    /// The server's own events go to a Discord webhook.
    pub discord: bool,
    /// Each followed match's play of the match goes to that webhook too (a card with its
    /// still and its clip).
    #[cfg_attr(feature = "serde", serde(default))]
    pub discord_play_of_the_match: bool,
    /// Unix ms of the latest claim with a working password.
    pub proven_ms: u64,
}

/// `200` to a claim: the session's secret (`Authorization: Bearer` on edits) and when it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnerSession {
    pub token: String,
    pub expires_ms: u64,
    pub profile: OwnerProfile,
}

/// `PUT /api/servers/{addr}/owner`: what to change; an absent field stays as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnerEdit {
    #[cfg_attr(feature = "serde", serde(default))]
    pub description: Option<String>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub links: Option<Vec<OwnerLink>>,
    /// `Some(None)` (JSON `null`) goes back to the relay's colours.
    #[cfg_attr(
        feature = "serde",
        serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )
    )]
    pub banner: Option<Option<BannerColours>>,
    /// A Discord webhook URL for up/down, full and match results; empty removes it.
    #[cfg_attr(feature = "serde", serde(default))]
    pub discord_webhook: Option<String>,
    /// Also each followed match's play of the match to that webhook.
    #[cfg_attr(feature = "serde", serde(default))]
    pub discord_play_of_the_match: Option<bool>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub follow: Option<bool>,
}

/// The longest description kept, in characters.
pub const MAX_DESCRIPTION: usize = 500;
/// The most links kept.
pub const MAX_LINKS: usize = 5;

/// A field that is present (even as `null`) is `Some`: `null` means "remove".
#[cfg(feature = "serde")]
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    use serde::Deserialize;
    Option::<T>::deserialize(d).map(Some)
}
