//! Which servers the list shows, in which order: the directory through the tab, the filters,
//! the sort and the search text.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use leptos::prelude::*;
use protocol::browse::{plain_lower, search_text, text_matches, View};
use protocol::relay_api::{Reachability, ServerInfo};

use super::Tab;
use crate::feed::Feed;
use crate::personal::Personal;

/// What a server's search text was built from: its last answer and how many names it had.
type Stamp = (Option<u64>, usize);
/// A server in the pool: its address and its search text, shared rather than copied, so a
/// keystroke's scan allocates nothing per server.
type Entry = (Arc<str>, Arc<str>);
/// The shown servers' addresses, shared: a list can hold a 5,000-server directory.
pub type Order = Arc<Vec<Arc<str>>>;

/// The shown servers' addresses, in two steps so that a keystroke costs one substring test per
/// server and no sort: the pool (the directory through the tab, the filters and the sort),
/// recomputed when one of those changes; then the search text over the pool, whose order it
/// keeps. Each server's search text is rebuilt only when that server changes: a new answer,
/// or its player names arriving (the players index follows the list).
pub fn ordered(
    feed: Feed,
    view: RwSignal<View>,
    tab: RwSignal<Tab>,
    personal: Personal,
) -> Memo<Order> {
    let index = StoredValue::new(HashMap::<String, (Stamp, Entry)>::new());
    let criteria = Memo::new(move |_| {
        view.with(|v| View {
            text: String::new(),
            ..v.clone()
        })
    });
    let pool = Memo::new(move |_| -> Arc<Vec<Entry>> {
        let keep: Option<Vec<String>> = match tab.get() {
            Tab::All => None,
            Tab::Favorites => Some(personal.favorites.get()),
            Tab::Recent => Some(personal.recent.get()),
        };
        feed.servers.with(|all| {
            index.update_value(|index| refresh_index(index, all));
            index.with_value(|index| {
                criteria.with(|v| {
                    let entry = |s: &ServerInfo| index.get(&s.addr).map(|(_, e)| e);
                    let pool = all
                        .values()
                        .filter(|s| keep.as_ref().is_none_or(|k| k.contains(&s.addr)))
                        .map(|s| (s, entry(s).map_or("", |(_, text)| &**text)));
                    Arc::new(
                        v.apply_indexed(pool)
                            .into_iter()
                            .filter_map(|s| entry(s).cloned())
                            .collect(),
                    )
                })
            })
        })
    });
    // Addresses only: rows fetch their server when they are drawn.
    Memo::new(move |_| {
        let needle = view.with(|v| plain_lower(&v.text));
        pool.with(|pool| {
            Arc::new(
                pool.iter()
                    .filter(|(_, text)| needle.is_empty() || text_matches(&needle, text))
                    .map(|(addr, _)| addr.clone())
                    .collect(),
            )
        })
    })
}

/// Rebuilds the search text of the servers that changed and forgets those that left.
fn refresh_index(index: &mut HashMap<String, (Stamp, Entry)>, all: &BTreeMap<String, ServerInfo>) {
    index.retain(|addr, _| all.contains_key(addr));
    for server in all.values() {
        let stamp = (server.updated_ms, server.players.len());
        let stale = index
            .get(&server.addr)
            .is_none_or(|(known, _)| *known != stamp);
        if stale {
            let entry = (server.addr.as_str().into(), search_text(server).into());
            index.insert(server.addr.clone(), (stamp, entry));
        }
    }
}

/// How many servers answer, counted when the directory changes, not on every keystroke that
/// redraws the summary.
pub fn online(feed: Feed) -> Memo<usize> {
    Memo::new(move |_| {
        feed.servers.with(|all| {
            all.values()
                .filter(|s| s.reachability == Reachability::Online)
                .count()
        })
    })
}
