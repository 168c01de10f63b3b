//! The relay's layering, checked from its sources: no import cycle between capability folders
//! (each reaches another through `seams.rs` or the other's public face, one way only),
//! `metrics` imports no capability (each registers its own scrape), and no route under `/api/`
//! is registered past the API's description.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The folders under `src/` but `cli/` (which may use them all), each with the folders its
/// sources name through `crate::`, tests left out.
fn folder_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let folders: BTreeSet<String> = std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
        .filter(|name| name != "cli")
        .collect();
    folders
        .iter()
        .map(|folder| {
            let mut text = String::new();
            sources(&src.join(folder), &mut text);
            let named = crate_paths(&text)
                .into_iter()
                .filter(|n| n != folder && folders.contains(n))
                .collect();
            (folder.clone(), named)
        })
        .collect()
}

/// Every `.rs` file under `dir`, without its `mod tests`.
fn sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
            out.push_str(code);
            out.push('\n');
        }
    }
}

/// The first segment of each `crate::` path, and each member of a grouped `use crate::{..}`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for rest in text.split("crate::").skip(1) {
        if let Some(group) = rest.strip_prefix('{') {
            let inside = group.split(';').next().unwrap_or_default();
            for item in inside.split(',') {
                let word: String = item
                    .trim_start_matches(|c: char| c.is_whitespace() || c == '{')
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                named.insert(word);
            }
        } else {
            let word = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            named.insert(word);
        }
    }
    named
}

/// A cycle, if the graph has one: the folders along it, the first one again at the end.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_check_reads_every_form_of_import() {
    let named = crate_paths("use crate::seams::Known;\nuse crate::{\n    browse::Directory,\n    net};\nlet x = crate::edge::Closing::new();");
    let expected: BTreeSet<String> = ["seams", "browse", "net", "edge"].map(String::from).into();
    assert_eq!(named, expected);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
}

#[test]
fn no_import_cycle_between_capability_folders() {
    let graph = folder_imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.len() >= 12, "found only {:?}", graph.keys());
    assert_eq!(
        cycle(&graph),
        None,
        "the folders import each other: {graph:#?}"
    );
}

#[test]
fn metrics_imports_no_capability() {
    let graph = folder_imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert_eq!(graph["metrics"], BTreeSet::new());
}

#[test]
fn no_route_under_api_is_registered_past_the_description() {
    let mut text = String::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut text,
    );
    let squeezed: String = text.split_whitespace().collect();
    let plain: Vec<&str> = (squeezed.match_indices(".route(\"/api"))
        .map(|(at, _)| &squeezed[at..(at + 60).min(squeezed.len())])
        .collect();
    assert!(
        plain.is_empty(),
        "routes under /api/ registered with a plain axum .route (register them with \
         utoipa-axum's routes! and a #[utoipa::path], so they are described): {plain:#?}"
    );
    // And the check sees what it looks for: the routes are described where they are made.
    assert!(squeezed.matches("#[utoipa::path(").count() >= 40);
    assert!(squeezed.contains(".routes(routes!(servers))"));
}
