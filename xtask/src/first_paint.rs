//! The pages whose first screen the relay writes (the list, a match or a player, a moment) are
//! read before their code runs: their code waits for that first screen to be painted. Trunk's
//! page preloads its wasm and starts it as soon as the document is parsed; on a slow phone the
//! download then races the first screen's paint, and the app's first render (a long task)
//! lands before the screen is shown, so the page's largest paint waited for the code (Lighthouse:
//! 2.3 s, against 1.0 s without). Here the wasm is fetched once the first screen is painted.
//! Pages the app draws alone (watch, tuning, the admin console) keep the preload: nothing of
//! them shows before their code runs.

use std::path::Path;

use anyhow::{ensure, Context, Result};

/// The built pages whose first screen the relay fills in.
pub const FIRST_SCREENS: [&str; 3] = ["index.html", "results/index.html", "playback/index.html"];

/// What Trunk writes to start the app, and what it starts it with.
const START: &str = "const wasm = await init(";
/// The frame after the first paint; a tab in the background paints no frames (and shows no
/// first screen to wait for), so there it starts at once.
const WAIT: &str = "if (document.visibilityState === \"visible\") await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));\n";

/// `html` with its app started after the first paint and its wasm no longer preloaded.
pub fn after_first_paint(html: &str) -> Result<String> {
    ensure!(
        html.matches(START).count() == 1,
        "Trunk's page no longer starts its app with `{START}`: first_paint.rs needs a look"
    );
    let preload = html
        .match_indices("<link rel=\"preload\"")
        .map(|(at, _)| at)
        .find_map(|at| {
            let end = at + html[at..].find('>')? + 1;
            html[at..end]
                .contains("type=\"application/wasm\"")
                .then_some(at..end)
        })
        .context("Trunk's page no longer preloads its wasm: first_paint.rs needs a look")?;
    let mut out = String::with_capacity(html.len() + WAIT.len());
    out.push_str(&html[..preload.start]);
    out.push_str(&html[preload.end..]);
    Ok(out.replacen(START, &format!("{WAIT}{START}"), 1))
}

/// Each first-screen page of the built page in `dist`, rewritten.
pub fn rewrite(dist: &Path) -> Result<()> {
    for page in FIRST_SCREENS {
        let path = dist.join(page);
        let html = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let rewritten =
            after_first_paint(&html).with_context(|| format!("rewriting {}", path.display()))?;
        std::fs::write(&path, rewritten).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As Trunk 0.21.14 writes a page's start.
    const BUILT: &str = r#"<script type="module">
import init, * as bindings from '/muster-frontend-1_bg.js';
const wasm = await init({ module_or_path: '/muster-frontend-1_bg.wasm' });
</script>
<link rel="modulepreload" href="/muster-frontend-1.js" crossorigin="anonymous" integrity="sha384-a"><link rel="preload" href="/muster-frontend-1_bg.wasm" crossorigin="anonymous" integrity="sha384-b" as="fetch" type="application/wasm"><meta name="x">"#;

    #[test]
    fn the_app_starts_after_the_first_paint_and_its_wasm_is_not_preloaded() {
        let out = after_first_paint(BUILT).unwrap();
        assert!(!out.contains("application/wasm"));
        assert!(
            out.contains(r#"integrity="sha384-a"><meta name="x">"#),
            "{out}"
        );
        let wait = out.find("requestAnimationFrame").unwrap();
        assert!(wait < out.find(START).unwrap());
        assert!(
            after_first_paint(&out).is_err(),
            "a page rewritten already is refused"
        );
        assert!(after_first_paint("<html></html>").is_err());
    }
}
