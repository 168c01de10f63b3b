//! What each kind of destination is sent for one alert: a generic webhook the event's JSON
//! (documented in docs/using.md), Discord one embed within its limits with mentions off, ntfy
//! a JSON publish (title, message, click-through), every one with the deduplication key in
//! `Muster-Delivery`.

use protocol::relay_api::alerts::{
    AlertEvent, Destination, DiscordEmbed, DiscordField, DiscordFooter, DiscordImage,
    DiscordMentions, DiscordMessage, NtfyMessage,
};
use url::Url;

use super::rules::plain;

/// One request to make.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub url: Url,
    pub body: Vec<u8>,
}

/// Discord's limits on an embed's parts (characters).
const TITLE: usize = 256;
const DESCRIPTION: usize = 4096;
const FIELD_VALUE: usize = 1024;

fn cut(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((at, _)) => {
            let mut cut: String = text[..at].chars().take(most - 1).collect();
            cut.push('…');
            cut
        }
        None => text.to_owned(),
    }
}

/// The request for `event` to `to` (whose URL the guard has parsed as `url`).
pub fn request(to: &Destination, url: Url, event: &AlertEvent) -> Request {
    let body = match to {
        Destination::Discord { .. } => serde_json::to_vec(&discord(event)),
        Destination::Ntfy { .. } => return ntfy(url, event),
        Destination::Webhook { .. } => serde_json::to_vec(event),
        // What a push carries before it is encrypted to the browser (`push.rs` sends it).
        Destination::Push { .. } => {
            return Request {
                url,
                body: super::push::message(event),
            }
        }
    };
    Request {
        url,
        body: body.unwrap_or_default(),
    }
}

/// Discord's field names and footer in the alert's language (its text already is).
fn discord(event: &AlertEvent) -> DiscordMessage {
    let words = i18n::catalogue(i18n::Lang::from_tag(&event.lang).unwrap_or(i18n::Lang::En));
    let title = event
        .server
        .as_ref()
        .map_or_else(|| "Muster".to_owned(), |s| plain(&s.hostname));
    let mut fields = Vec::new();
    if let Some(s) = &event.server {
        let mut players = format!("{}/{}", s.humans, s.max_clients);
        if s.bots > 0 {
            players.push_str(&words.with("alert-bots", &[("count", s.bots.into())]));
        }
        let field = |id: &str, value: String| DiscordField {
            name: words.text(id),
            value: cut(&value, FIELD_VALUE),
            inline: Some(true),
        };
        fields.push(field("col-map", s.map.clone()));
        fields.push(field("col-mode", s.gametype.clone()));
        fields.push(field("col-players", players));
        let password = if s.password { "password PASS; " } else { "" };
        fields.push(DiscordField {
            name: words.text("join"),
            value: format!("coduo://{}\n`/{password}connect {}`", s.addr, s.addr),
            inline: None,
        });
    }
    let timestamp =
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(event.at_ms) * 1_000_000)
            .ok()
            .and_then(|t| {
                t.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            });
    let up = event.server.as_ref().is_some_and(|s| s.up);
    let mut embed = DiscordEmbed {
        title: cut(&title, TITLE),
        description: cut(&event.text, DESCRIPTION),
        color: if up { 0x4c_af50 } else { 0xe5_3935 },
        fields,
        footer: DiscordFooter {
            text: words.with("alert-footer", &[("key", event.key.as_str().into())]),
        },
        timestamp,
        url: None,
        image: None,
    };
    // A highlight's card: its still as the image and its clip as the link, when the relay
    // knows its public address (Discord fetches images itself and takes absolute URLs only).
    if let Some(h) = &event.highlight {
        let absolute = |u: &Option<String>| {
            u.clone()
                .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        };
        embed.url = absolute(&h.clip);
        embed.image = absolute(&h.still).map(|url| DiscordImage { url });
        embed.color = 0xd9_a441;
    }
    DiscordMessage {
        username: "Muster".to_owned(),
        allowed_mentions: DiscordMentions::default(),
        embeds: vec![embed],
    }
}

/// ntfy publishes JSON to its root with the topic inside, so titles and text in any script
/// arrive intact (headers would have to be ASCII).
fn ntfy(url: Url, event: &AlertEvent) -> Request {
    let topic = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or_default()
        .to_owned();
    let mut root = url;
    root.set_path("/");
    root.set_query(None);
    let title = event
        .server
        .as_ref()
        .map_or_else(|| "Muster".to_owned(), |s| plain(&s.hostname));
    // A highlight's clip when it has an address to open, else the game's join link.
    let clip = (event.highlight.as_ref())
        .and_then(|h| h.clip.clone())
        .filter(|c| c.starts_with("https://") || c.starts_with("http://"));
    let body = NtfyMessage {
        topic,
        title,
        message: event.text.clone(),
        tags: vec!["video_game".to_owned()],
        click: clip.or_else(|| event.join.clone()),
    };
    Request {
        url: root,
        body: serde_json::to_vec(&body).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::relay_api::alerts::{AlertServer, Rule};
    use serde_json::json;

    fn event() -> AlertEvent {
        AlertEvent {
            key: "r1-3".into(),
            rule_id: "r1".into(),
            rule: Rule::SlotFree {
                server: "1.2.3.4:28960".into(),
            },
            at_ms: 1_700_000_000_000,
            text: "Red Base has a free slot (19/20)".into(),
            lang: "en".into(),
            server: Some(AlertServer {
                addr: "1.2.3.4:28960".into(),
                hostname: "^1Red ^7Base".into(),
                map: "mp_foy".into(),
                gametype: "tdm".into(),
                humans: 19,
                bots: 0,
                max_clients: 20,
                password: true,
                up: true,
            }),
            join: Some("coduo://1.2.3.4:28960".into()),
            last_seen_ms: None,
            highlight: None,
        }
    }

    #[test]
    fn a_discord_embed_mentions_nobody_and_says_how_to_join() {
        let url = Url::parse("https://discord.com/api/webhooks/1/x").unwrap();
        let to = Destination::Discord {
            url: url.to_string(),
        };
        let sent: serde_json::Value =
            serde_json::from_slice(&request(&to, url, &event()).body).unwrap();
        assert_eq!(sent["allowed_mentions"], json!({"parse": []}));
        let embed = &sent["embeds"][0];
        assert_eq!(embed["title"], "Red Base");
        assert_eq!(embed["timestamp"], "2023-11-14T22:13:20Z");
        assert_eq!(
            embed["fields"][3]["value"],
            "coduo://1.2.3.4:28960\n`/password PASS; connect 1.2.3.4:28960`"
        );
        let names: Vec<&str> = (embed["fields"].as_array().unwrap().iter())
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Map", "Mode", "Players", "Join"]);
        assert_eq!(embed["footer"]["text"], "Muster alert r1-3");
    }

    #[test]
    fn a_discord_embed_speaks_the_subscription_s_language() {
        let url = Url::parse("https://discord.com/api/webhooks/1/x").unwrap();
        let to = Destination::Discord {
            url: url.to_string(),
        };
        let mut event = event();
        event.lang = "de".into();
        event.server.as_mut().unwrap().bots = 2;
        let sent: serde_json::Value =
            serde_json::from_slice(&request(&to, url, &event).body).unwrap();
        let embed = &sent["embeds"][0];
        let names: Vec<&str> = (embed["fields"].as_array().unwrap().iter())
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Karte", "Modus", "Spieler", "Beitreten"]);
        assert_eq!(embed["fields"][2]["value"], "19/20 (+2 Bots)");
        assert_eq!(embed["footer"]["text"], "Muster-Alarm r1-3");
    }

    #[test]
    fn long_text_is_cut_to_discord_s_limits() {
        let mut long = event();
        long.text = "x".repeat(5000);
        let url = Url::parse("https://discord.com/api/webhooks/1/x").unwrap();
        let to = Destination::Discord {
            url: url.to_string(),
        };
        let sent: serde_json::Value =
            serde_json::from_slice(&request(&to, url, &long).body).unwrap();
        let description = sent["embeds"][0]["description"].as_str().unwrap();
        assert_eq!(description.chars().count(), DESCRIPTION);
        assert!(description.ends_with('…'));
    }

    #[test]
    fn ntfy_gets_a_json_publish_to_its_root() {
        let url = Url::parse("https://ntfy.sh/clan-alerts").unwrap();
        let to = Destination::Ntfy {
            url: url.to_string(),
        };
        let request = request(&to, url, &event());
        assert_eq!(request.url.as_str(), "https://ntfy.sh/");
        let sent: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(sent["topic"], "clan-alerts");
        assert_eq!(sent["title"], "Red Base");
        assert_eq!(sent["click"], "coduo://1.2.3.4:28960");
    }
}
