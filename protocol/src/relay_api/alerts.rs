//! Alerts: a rule on a server ("humans reach 8", "comes up", "a slot frees", "a name appears")
//! and where to say so (a webhook, Discord, ntfy, a browser's push subscription). `POST
//! /api/alerts` makes one and answers with its management token; `GET /api/alerts?token=`
//! lists a subscription's rules, `DELETE /api/alerts/ID?token=` removes one. A rule fires
//! when its condition becomes true, not on every refresh while it stays true.

use alloc::string::String;
use alloc::vec::Vec;

/// What a rule watches for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Rule {
    /// The server's human players (bots not counted) reach `n`.
    HumansAtLeast { server: String, n: u32 },
    /// The server answers again after it stopped answering.
    ServerUp { server: String },
    /// The server stops answering (two refreshes, every retry, as the list marks it down).
    ServerDown { server: String },
    /// A full server has a free slot.
    SlotFree { server: String },
    /// A player of this name (colours and case ignored) is on the server, or on any server
    /// when `server` is absent; with `leaves`, also when they have gone.
    NameSeen {
        name: String,
        #[cfg_attr(feature = "serde", serde(default))]
        server: Option<String>,
        #[cfg_attr(feature = "serde", serde(default))]
        leaves: bool,
    },
    /// A match the relay followed on the server ended (with its result).
    MatchEnd { server: String },
    /// A highlight (`/api/highlights`) by this player (colours and case ignored) and/or on
    /// this server, once its clip is cut; with `best`, only each match's play of the match,
    /// once the match is over and its plays are all cut. Names a player or a server.
    Highlight {
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        player: Option<String>,
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        server: Option<String>,
        #[cfg_attr(feature = "serde", serde(default))]
        best: bool,
    },
}

impl Rule {
    /// The server the rule is about, if it names one.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::HumansAtLeast { server, .. }
            | Self::ServerUp { server }
            | Self::ServerDown { server }
            | Self::SlotFree { server }
            | Self::MatchEnd { server } => Some(server),
            Self::NameSeen { server, .. } | Self::Highlight { server, .. } => server.as_deref(),
        }
    }
}

/// Where a rule's alerts go.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Destination {
    /// A JSON `POST` of an [`AlertEvent`] to `url`.
    Webhook { url: String },
    /// A Discord webhook (`https://discord.com/api/webhooks/ID/TOKEN`): one embed.
    Discord { url: String },
    /// An ntfy topic URL (`https://ntfy.sh/TOPIC`): title, text and a click-through.
    Ntfy { url: String },
    /// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
    Push { subscription: PushSubscription },
}

impl Destination {
    /// The URL requests go to.
    pub fn url(&self) -> &str {
        match self {
            Self::Webhook { url } | Self::Discord { url } | Self::Ntfy { url } => url,
            Self::Push { subscription } => &subscription.endpoint,
        }
    }
}

/// A browser's push subscription (RFC 8030 endpoint, RFC 8291 keys).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushSubscription {
    pub endpoint: String,
    pub keys: PushKeys,
}

/// The subscription's keys, base64url without padding as browsers give them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushKeys {
    pub p256dh: String,
    pub auth: String,
}

/// `POST /api/alerts`: a rule and where it goes; `token` adds it to a subscription made
/// before (else a new one is made, with a new token).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertAsk {
    pub rule: Rule,
    pub to: Destination,
    #[cfg_attr(feature = "serde", serde(default))]
    pub token: Option<String>,
    /// The language the subscription's alerts are written in (`en`, `de`, `pl`, `ru`, `fr`,
    /// `nl`); absent, the request's `Accept-Language`. A later rule with the token and a
    /// language changes it for every rule of the subscription.
    #[cfg_attr(feature = "serde", serde(default))]
    pub lang: Option<String>,
}

/// One stored rule, as `POST` answers (`201`) and `GET /api/alerts?token=` lists.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertRule {
    pub id: String,
    pub rule: Rule,
    pub to: Destination,
    /// The subscription's management token (only in the answer to `POST`).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub token: Option<String>,
    pub paused: bool,
    pub created_ms: u64,
    /// How many times it fired.
    pub fired: u64,
    /// Whether its condition held at the relay's last look; absent until the first look,
    /// which only learns the state (a rule fires when this becomes true, not while it stays).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub holds: Option<bool>,
}

/// `GET /api/alerts?token=`: everything kept about one subscription: its rules and the
/// deliveries still kept (sent, pending or dropped, with why).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertList {
    pub rules: Vec<AlertRule>,
    pub deliveries: Vec<Delivery>,
}

/// One alert on its way, as the outbox keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Delivery {
    /// The deduplication key: the rule's id and the firing's number.
    pub key: String,
    pub rule: String,
    /// `pending`, `sent` or `dropped`.
    pub state: String,
    pub attempts: u32,
    pub created_ms: u64,
    /// Why it was dropped, or the last failure while pending.
    pub reason: Option<String>,
}

/// What a generic webhook receives (a JSON `POST`, with the key in `Muster-Delivery` too).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertEvent {
    /// The deduplication key: the same event is never sent under two keys, and a receiver
    /// that saw a key may drop a repeat of it.
    pub key: String,
    pub rule_id: String,
    pub rule: Rule,
    /// When the condition became true (Unix ms).
    pub at_ms: u64,
    /// One line saying what happened, for people, in the subscription's language.
    pub text: String,
    /// The language `text` (and Discord's field names) are written in: `en`, `de`, `pl`,
    /// `ru`, `fr` or `nl`.
    #[cfg_attr(feature = "serde", serde(default = "english"))]
    pub lang: String,
    /// The server as it stood then, when the rule names one or the name was seen on one.
    pub server: Option<AlertServer>,
    /// `coduo://IP:PORT`, the link joinme.click's launcher opens the game with.
    pub join: Option<String>,
    /// For a name that appeared: when the history last saw it before (Unix ms), if ever.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub last_seen_ms: Option<u64>,
    /// For a highlight: the highlight, its clip's page and still (absolute when the operator
    /// gave the relay's `--public-url`, else paths on the relay).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub highlight: Option<AlertHighlight>,
}

/// What an alert says of a highlight.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertHighlight {
    pub id: String,
    /// `triple`, `long_shot` …, as `/api/highlights` names them.
    pub kind: String,
    pub player: String,
    pub score: u32,
    pub play_of_the_match: bool,
    /// The clip's page (`/m/ID`).
    pub clip: Option<String>,
    /// The clip's still (PNG).
    pub still: Option<String>,
}

#[cfg(feature = "serde")]
fn english() -> String {
    String::from("en")
}

/// A server as an alert describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertServer {
    pub addr: String,
    /// With its colour codes.
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    pub humans: u32,
    pub bots: u32,
    pub max_clients: u32,
    pub password: bool,
    pub up: bool,
}

/// `GET /api/push/key`: the relay's VAPID public key (base64url, uncompressed P-256), which a
/// browser's push subscription names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushKey {
    pub key: String,
}

/// What a Discord webhook is sent for one alert: one embed, mentions off.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscordMessage {
    pub username: String,
    pub allowed_mentions: DiscordMentions,
    pub embeds: Vec<DiscordEmbed>,
}

/// Which mentions Discord may ping: none (`parse` empty), whatever the alert's text holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscordMentions {
    pub parse: Vec<String>,
}

/// One Discord embed, within Discord's limits on each part.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscordEmbed {
    pub title: String,
    pub description: String,
    /// `0xRRGGBB`.
    pub color: u32,
    pub fields: Vec<DiscordField>,
    pub footer: DiscordFooter,
    /// RFC 3339.
    pub timestamp: Option<String>,
    /// A highlight's clip, when the relay knows its public address.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub url: Option<String>,
    /// A highlight's still.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub image: Option<DiscordImage>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscordField {
    pub name: String,
    pub value: String,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub inline: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscordFooter {
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscordImage {
    pub url: String,
}

/// What ntfy is sent: a JSON publish to its root with the topic inside, so titles and text in
/// any script arrive intact.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NtfyMessage {
    pub topic: String,
    pub title: String,
    pub message: String,
    pub tags: Vec<String>,
    /// What a tap opens: a highlight's clip, else the game's join link.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub click: Option<String>,
}

/// What a browser's push carries once decrypted, for the page's service worker (`sw.js`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushMessage {
    pub title: String,
    pub body: String,
    /// The delivery key: a repeat replaces the notification, never doubles it.
    pub tag: String,
    /// What a click opens.
    pub url: Option<String>,
    pub join: Option<String>,
    pub lang: String,
}
