//! Highlights as alerts: a `highlight` rule fires when a play by its player and/or on its
//! server has its clip, or (with `best`) when a match is over and its play of the match is
//! known; the highlights' keeper tells of both through `seams::HighlightsTold`. Whichever relay
//! cut the clip writes the firing to the store; the alerts lease holder sends it.

use protocol::relay_api::alerts::{AlertEvent, AlertHighlight, Rule};
use protocol::relay_api::highlights::Highlight;
use protocol::said::Said;

use super::rules::{self, name_key};
use super::Alerts;
use crate::store::alerts::{self as stored, Firing};

impl crate::seams::HighlightsTold for Alerts {
    fn clipped(&self, highlight: Highlight) {
        self.spawn_highlight(highlight, false);
    }

    fn play_of_the_match(&self, highlight: Highlight) {
        self.spawn_highlight(highlight, true);
    }
}

/// Whether `rule` wants this highlight.
fn wants(rule: &Rule, h: &Highlight, best: bool) -> bool {
    let Rule::Highlight {
        player,
        server,
        best: only_best,
    } = rule
    else {
        return false;
    };
    *only_best == best
        && player
            .as_deref()
            .is_none_or(|p| name_key(p) == name_key(&h.player))
        && server.as_deref().is_none_or(|s| s == h.server)
}

impl Alerts {
    fn spawn_highlight(&self, highlight: Highlight, best: bool) {
        let alerts = self.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { alerts.highlight(highlight, best).await });
        }
    }

    /// The relay's public address for links, without its last slash; empty for paths.
    fn link(&self, path: &str) -> String {
        let base = self.config.public_url.as_deref().unwrap_or_default();
        format!("{}{path}", base.trim_end_matches('/'))
    }

    async fn highlight(&self, h: Highlight, best: bool) {
        let kind = h.kind.said();
        let said = Said::new(if best {
            "alert-play-of-the-match"
        } else {
            "alert-highlight"
        })
        .with("kind", kind)
        .with("player", rules::plain(&h.player))
        .with("map", h.map.as_str())
        .with("server", h.server.as_str())
        .with("score", h.score);
        let told = AlertHighlight {
            id: h.id.clone(),
            kind: h.kind.name().to_owned(),
            player: h.player.clone(),
            score: h.score,
            play_of_the_match: best,
            clip: h.moment.as_ref().map(|m| self.link(&format!("/m/{m}"))),
            still: h
                .moment
                .as_ref()
                .map(|m| self.link(&format!("/api/moments/{m}.png"))),
        };
        let (at_ms, join) = (h.start_ms, rules::join_link(&h.server));
        let fire = move |rule: Rule, id: String| rules::Fire {
            event: AlertEvent {
                key: String::new(),
                rule_id: id,
                rule,
                at_ms,
                text: String::new(),
                lang: String::new(),
                server: None,
                join: Some(join.clone()),
                last_seen_ms: None,
                highlight: Some(told.clone()),
            },
            said: said.clone(),
        };
        let (wanted, h2) = (best, h.clone());
        let written = self
            .store
            .run(move |s| {
                s.transact(&mut |db| {
                    for r in stored::active_rules_of_kind(db, "highlight")? {
                        let Ok(rule) = serde_json::from_str::<Rule>(&r.rule) else {
                            continue;
                        };
                        if !wants(&rule, &h2, wanted) {
                            continue;
                        }
                        let fired = fire(rule, r.id.clone());
                        let payload = |key: &str, lang: &str| fired.payload(key, lang);
                        let firing = Firing {
                            at_ms: fired.event.at_ms,
                            payload: &payload,
                        };
                        stored::fire_rule(db, &r.id, None, &firing)?;
                    }
                    Ok(())
                })
            })
            .await;
        match written {
            Ok(()) => self.fired.notify_one(),
            Err(e) => tracing::warn!("alerts: a highlight: {e}"),
        }
    }
}
