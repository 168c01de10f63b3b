//! What a player keeps in this browser: favourite servers, recently viewed ones, and the names
//! on their watch list, each saved in localStorage; and the alerts when a watched name appears.

use std::collections::{BTreeMap, BTreeSet};

use leptos::prelude::*;
use protocol::cod::text::strip;
use protocol::relay_api::ServerInfo;

/// Servers the recent list keeps.
const RECENT: usize = 20;

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

fn load<T: serde::de::DeserializeOwned + Default>(key: &str) -> T {
    storage()
        .and_then(|s| s.get_item(key).ok().flatten())
        .and_then(|json| crate::net::from_json(&json))
        .unwrap_or_default()
}

/// A value kept in localStorage under `key`: loaded once (the default when absent or
/// unreadable), saved again on every change, and loaded again when the page's other module
/// (the list or the side panels, `bus.rs`) saved it.
pub fn saved<T>(key: &'static str) -> RwSignal<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Default + PartialEq + Send + Sync + 'static,
{
    let value = RwSignal::new(load::<T>(key));
    Effect::new(move |ran: Option<()>| {
        if let (Some(storage), Some(json)) = (storage(), value.with(crate::net::to_json)) {
            let _ = storage.set_item(key, &json);
            if ran.is_some() {
                crate::bus::saved(key);
            }
        }
    });
    crate::bus::on_saved(key, move || {
        let now = load::<T>(key);
        if value.with_untracked(|v| *v != now) {
            value.set(now);
        }
    });
    value
}

/// A toast in the page: a watched name appeared on a server.
#[derive(Clone, Debug, PartialEq)]
pub struct Toast {
    pub id: u64,
    pub name: String,
    pub addr: String,
    pub hostname: String,
}

#[derive(Clone, Copy)]
pub struct Personal {
    pub favorites: RwSignal<Vec<String>>,
    pub recent: RwSignal<Vec<String>>,
    pub watch: RwSignal<Vec<String>>,
    pub toasts: RwSignal<Vec<Toast>>,
    /// Where each watched name was last seen, so only a new appearance alerts.
    seen: StoredValue<BTreeMap<String, BTreeSet<String>>>,
    next_toast: StoredValue<u64>,
}

impl Personal {
    pub fn load() -> Self {
        Self {
            favorites: saved("muster.favorites"),
            recent: saved("muster.recent"),
            watch: saved("muster.watch"),
            toasts: RwSignal::new(Vec::new()),
            seen: StoredValue::new(BTreeMap::new()),
            next_toast: StoredValue::new(0),
        }
    }

    pub fn is_favorite(&self, addr: &str) -> bool {
        self.favorites.with(|f| f.iter().any(|a| a == addr))
    }

    pub fn toggle_favorite(&self, addr: &str) {
        self.favorites.update(|f| {
            if let Some(i) = f.iter().position(|a| a == addr) {
                f.remove(i);
            } else {
                f.push(addr.to_owned());
            }
        });
    }

    /// Puts `addr` first in the recently viewed list.
    pub fn viewed(&self, addr: &str) {
        self.recent.update(|r| {
            r.retain(|a| a != addr);
            r.insert(0, addr.to_owned());
            r.truncate(RECENT);
        });
    }

    pub fn add_watch(&self, name: &str) {
        let name = name.trim();
        if !name.is_empty() {
            self.watch.update(|w| {
                if !w.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                    w.push(name.to_owned());
                }
            });
        }
    }

    pub fn remove_watch(&self, name: &str) {
        self.watch.update(|w| w.retain(|n| n != name));
    }

    /// Compares the directory with what was seen before: every watched name that appears on a
    /// server where it was not before raises a toast and, if allowed, a notification. The first
    /// look at the directory only records, so opening the page does not alert for everyone.
    pub fn check(&self, servers: &BTreeMap<String, ServerInfo>, first_look: bool) {
        let watched: Vec<String> = self.watch.get_untracked();
        for name in watched {
            let needle = strip(&name).to_lowercase();
            let now: BTreeSet<String> = servers
                .values()
                .filter(|s| {
                    s.players
                        .iter()
                        .any(|p| strip(&p.name).to_lowercase().contains(&needle))
                })
                .map(|s| s.addr.clone())
                .collect();
            let before = self
                .seen
                .with_value(|seen| seen.get(&name).cloned().unwrap_or_default());
            if !first_look {
                for addr in now.difference(&before) {
                    if let Some(server) = servers.get(addr) {
                        self.alert(&name, server);
                    }
                }
            }
            self.seen.update_value(|seen| {
                seen.insert(name.clone(), now);
            });
        }
    }

    fn alert(&self, name: &str, server: &ServerInfo) {
        let id = self.next_toast.get_value();
        self.next_toast.set_value(id + 1);
        let hostname = strip(&server.hostname);
        self.toasts.update(|t| {
            t.push(Toast {
                id,
                name: name.to_owned(),
                addr: server.addr.clone(),
                hostname: hostname.clone(),
            })
        });
        if web_sys::Notification::permission() == web_sys::NotificationPermission::Granted {
            let options = web_sys::NotificationOptions::new();
            options.set_body(&format!("{hostname} ({})", server.addr));
            let _ = web_sys::Notification::new_with_options(
                &tr!("notify-is-playing", name = name),
                &options,
            );
        }
    }
}

/// Asks for notification permission only when the player clicks for it.
pub fn ask_for_notifications() {
    let _ = web_sys::Notification::request_permission();
}

pub fn notifications_allowed() -> bool {
    web_sys::Notification::permission() == web_sys::NotificationPermission::Granted
}
