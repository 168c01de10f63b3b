//! The session worker under names of its content. Trunk gives a worker fixed names
//! (`muster-session.js`, `_bg.wasm`, `_loader.js`), which a browser must revalidate on every
//! visit; renamed by their content like the page's other files, they are kept for a year and a
//! new build names them anew. The page finds the loader by the `<meta name="muster-session">`
//! this writes into its HTML (`frontend/src/worker.rs`).

use std::hash::{DefaultHasher, Hasher};
use std::path::Path;

use anyhow::{Context, Result};

const WORKER: &str = "muster-session";

fn content_hash(bytes: &[u8]) -> String {
    let mut hasher = DefaultHasher::new();
    hasher.write(bytes);
    format!("{:016x}", hasher.finish())
}

/// Checks every page carrying the worker carries the browser page's own, whole: its files are
/// named by their content, so a page whose worker was cut short has other names.
pub fn same_worker_everywhere<'a>(dist: &Path, pages: impl Iterator<Item = &'a str>) -> Result<()> {
    let worker_files = |dir: &Path| -> Result<Vec<String>> {
        let mut names: Vec<String> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(WORKER) && (n.ends_with(".js") || n.ends_with(".wasm")))
            .collect();
        names.sort();
        Ok(names)
    };
    let browser = worker_files(dist)?;
    for page in pages {
        let files = worker_files(&dist.join(page.trim_matches('/')))?;
        anyhow::ensure!(
            files.is_empty() || files == browser,
            "the page {page} carries another session worker than the browser's: {files:?} against {browser:?}"
        );
    }
    Ok(())
}

/// Renames the worker's three files in `dist` (if this page has the worker) and names the
/// loader in `dist/index.html`.
pub fn rename(dist: &Path) -> Result<()> {
    let file = |name: &str| dist.join(name);
    let loader_path = file(&format!("{WORKER}_loader.js"));
    if !loader_path.exists() {
        return Ok(());
    }
    let js = std::fs::read(file(&format!("{WORKER}.js")))?;
    let wasm = std::fs::read(file(&format!("{WORKER}_bg.wasm")))?;
    let js_name = format!("{WORKER}-{}.js", content_hash(&js));
    let wasm_name = format!("{WORKER}-{}_bg.wasm", content_hash(&wasm));
    let loader = std::fs::read_to_string(&loader_path)?
        .replace(&format!("./{WORKER}.js"), &format!("./{js_name}"))
        .replace(&format!("./{WORKER}_bg.wasm"), &format!("./{wasm_name}"));
    anyhow::ensure!(
        loader.contains(&js_name) && loader.contains(&wasm_name),
        "the worker's loader names neither of its files: {loader}"
    );
    let loader_name = format!("{WORKER}_loader-{}.js", content_hash(loader.as_bytes()));
    std::fs::rename(file(&format!("{WORKER}.js")), file(&js_name))?;
    std::fs::rename(file(&format!("{WORKER}_bg.wasm")), file(&wasm_name))?;
    std::fs::write(file(&loader_name), loader)?;
    std::fs::remove_file(&loader_path)?;
    name_in_page(
        dist,
        &format!("<meta name=\"{WORKER}\" content=\"./{loader_name}\" />"),
    )
}

/// Writes `meta` into the head of `dist/index.html`.
fn name_in_page(dist: &Path, meta: &str) -> Result<()> {
    let html_path = dist.join("index.html");
    let html = std::fs::read_to_string(&html_path).context("the page's index.html")?;
    let html = html.replacen("</head>", &format!("{meta}</head>"), 1);
    anyhow::ensure!(html.contains(meta), "index.html has no </head>");
    std::fs::write(html_path, html)?;
    Ok(())
}

/// Names the side panels' JS and wasm (built by Trunk as a page of their own in
/// `dist/panels/`, content-named there) in `dist/index.html`, where the server browser finds
/// them when first reached for (`frontend/src/bus.rs`).
pub fn name_panels(dist: &Path) -> Result<()> {
    let built = std::fs::read_to_string(dist.join("panels/index.html"))
        .context("the side panels' build, dist/panels/index.html")?;
    let quoted_after = |before: &str| {
        let start = built.find(before)? + before.len();
        let end = start + built[start..].find('\'')?;
        Some(built[start..end].to_owned())
    };
    let (Some(js), Some(wasm)) = (
        quoted_after("as bindings from '"),
        quoted_after("module_or_path: '"),
    ) else {
        anyhow::bail!("dist/panels/index.html names no JS and wasm: {built}");
    };
    name_in_page(
        dist,
        &format!("<meta name=\"muster-panels\" content=\"{js}\" data-wasm=\"{wasm}\" />"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_is_renamed_by_its_content_and_the_page_names_its_loader() {
        let dist = crate::scratch("worker-names");
        let put = |name: &str, text: &str| std::fs::write(dist.join(name), text).unwrap();
        put(
            "index.html",
            "<html><head><title>t</title></head><body></body></html>",
        );
        put("muster-session.js", "glue");
        put("muster-session_bg.wasm", "wasm");
        put(
            "muster-session_loader.js",
            "importScripts(\"./muster-session.js\");wasm_bindgen(\"./muster-session_bg.wasm\");",
        );
        rename(&dist).unwrap();
        let names: std::collections::BTreeSet<String> = std::fs::read_dir(&dist)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        let js = format!("muster-session-{}.js", content_hash(b"glue"));
        let wasm = format!("muster-session-{}_bg.wasm", content_hash(b"wasm"));
        let loader_name = names
            .iter()
            .find(|n| n.starts_with("muster-session_loader-"))
            .expect("a content-named loader")
            .clone();
        let want: std::collections::BTreeSet<String> = [
            "index.html".to_owned(),
            js.clone(),
            wasm.clone(),
            loader_name.clone(),
        ]
        .into();
        assert_eq!(names, want, "the fixed names are gone");
        let loader = std::fs::read_to_string(dist.join(&loader_name)).unwrap();
        assert_eq!(
            loader,
            format!("importScripts(\"./{js}\");wasm_bindgen(\"./{wasm}\");")
        );
        let html = std::fs::read_to_string(dist.join("index.html")).unwrap();
        assert!(html.contains(&format!(
            "<meta name=\"muster-session\" content=\"./{loader_name}\" /></head>"
        )));
        // A page without the worker is left alone.
        rename(&dist.join("nothing-here")).unwrap();
        std::fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn the_page_names_the_side_panels_as_trunk_built_them() {
        let dist = crate::scratch("panels-names");
        std::fs::create_dir_all(dist.join("panels")).unwrap();
        std::fs::write(
            dist.join("index.html"),
            "<html><head></head><body></body></html>",
        )
        .unwrap();
        // No build of the panels: an error that says what is missing.
        let missing = name_panels(&dist).unwrap_err().to_string();
        assert!(missing.contains("dist/panels/index.html"), "{missing}");
        // Trunk's loader, as it writes it for `--public-url /panels/`.
        std::fs::write(
            dist.join("panels/index.html"),
            "<script type=\"module\">\nimport init, * as bindings from '/panels/muster-panels-0123456789abcdef.js';\n\
             const wasm = await init({ module_or_path: '/panels/muster-panels-0123456789abcdef_bg.wasm' });\n</script>",
        )
        .unwrap();
        name_panels(&dist).unwrap();
        let html = std::fs::read_to_string(dist.join("index.html")).unwrap();
        assert_eq!(
            html,
            "<html><head><meta name=\"muster-panels\" content=\"/panels/muster-panels-0123456789abcdef.js\" \
             data-wasm=\"/panels/muster-panels-0123456789abcdef_bg.wasm\" /></head><body></body></html>"
        );
        // A loader in another form is refused, not half read.
        std::fs::write(
            dist.join("panels/index.html"),
            "<script src=\"x.js\"></script>",
        )
        .unwrap();
        assert!(name_panels(&dist).is_err());
        std::fs::remove_dir_all(&dist).unwrap();
    }
}
