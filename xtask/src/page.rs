//! `cargo xtask page`: the page's build (the pages' wasm, Trunk, the session worker renamed by
//! its content, brotli and gzip) into `target/dist-next`, which then replaces `dist/` whole.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::tools::{self, Needs};
use crate::{status, worker_names, Phases};

/// The page's own target directory: its build (whose last step, the wasm's LTO, runs on one
/// core) can then run while the native binaries build in `target/`, which cargo would
/// otherwise lock.
pub(crate) const PAGE_TARGET: &str = "target/page";
/// Where the page is built before it replaces `dist/` whole, so a relay serving `dist/` never
/// sees a page whose side panels or subpages are not there yet.
pub(crate) const DIST_NEXT: &str = "target/dist-next";
/// Where the previous page goes while the new one takes its place.
pub(crate) const DIST_OLD: &str = "target/dist-old";
/// One page besides the browser's, into its folder of `next`.
fn build_subpage(root: &Path, next: &Path, html: &str, url: &str) -> Result<()> {
    let dist = next.join(url.trim_matches('/'));
    status(
        Command::new("trunk")
            .args(["build", "--release", "--skip-version-check", html])
            .arg("--dist")
            .arg(&dist)
            .args(["--public-url", url])
            .env("CARGO_TARGET_DIR", root.join(PAGE_TARGET))
            .current_dir(root),
    )?;
    worker_names::rename(&dist)?;
    compress(&dist)
}

/// Everything the page is built from: its crates and the protocol crate they use, its styles
/// and files, the pins of its tools, and xtask's own steps after Trunk.
const PAGE_INPUTS: [&str; 13] = [
    "frontend",
    "session",
    // The catalogues and the code that says them are compiled into the page.
    "i18n",
    "protocol/src",
    "protocol/Cargo.toml",
    "assets",
    "Cargo.toml",
    "Cargo.lock",
    "Trunk.toml",
    ".cargo/config.toml",
    "xtask/src/page.rs",
    "xtask/src/worker_names.rs",
    "xtask/src/first_paint.rs",
];
/// The digest of [`PAGE_INPUTS`] the page in `dist/` was built from.
const PAGE_STAMP: &str = "target/page-built-from";
/// A digest of the compiler and every file of [`PAGE_INPUTS`], names and contents (the
/// toolchain's own hasher: a stamp only this machine's builds read).
fn page_inputs_digest(root: &Path) -> Result<String> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    // A new compiler builds a different page from the same sources.
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    rustc.stdout.hash(&mut hasher);
    for input in PAGE_INPUTS {
        let path = root.join(input);
        let files = if path.is_dir() {
            crate::files_under(&path)?
        } else {
            vec![path]
        };
        for file in files {
            file.strip_prefix(root)?.hash(&mut hasher);
            std::fs::read(&file)
                .with_context(|| format!("reading {}", file.display()))?
                .hash(&mut hasher);
        }
    }
    Ok(format!("{:016x}", hasher.finish()))
}
/// Whether `dist/` holds the page built from the sources as they are now (then a build would
/// make the same page: `cargo xtask test` after `cargo xtask run --check`, or a second run).
pub(crate) fn page_is_current(root: &Path, digest: &str) -> bool {
    let built = std::fs::read_to_string(root.join(PAGE_STAMP)).unwrap_or_default();
    root.join("dist/index.html").is_file() && built == digest
}
pub(crate) fn build_page(root: &Path) -> Result<()> {
    let digest = page_inputs_digest(root)?;
    if page_is_current(root, &digest) {
        eprintln!("xtask: the page in dist/ is built from the sources as they are: kept");
        return Ok(());
    }
    let next = root.join(DIST_NEXT);
    status(
        Command::new("trunk")
            .args(["build", "--release", "--skip-version-check", "--dist"])
            .arg(&next)
            .env("CARGO_TARGET_DIR", root.join(PAGE_TARGET))
            .current_dir(root),
    )?;
    worker_names::rename(&next)?;
    // The watch view, tuning, the demo player, the admin console and the browser's side panels
    // are pages of their own, built after the browser (whose build replaces its folder whole),
    // so its first download carries none. They are built at once: each is mostly one thread
    // (wasm-bindgen, then the compressors on its wasm), and their cargo runs, which find the
    // wasm built, take turns. The pages carrying the session worker are built one after the
    // other: Trunk runs wasm-bindgen on the worker into one folder of the shared target, and two
    // at once have left a page an empty worker.
    let (with_worker, others): (Vec<_>, Vec<_>) = SUBPAGES.iter().partition(|(html, _)| {
        std::fs::read_to_string(root.join(html)).is_ok_and(|h| h.contains("data-type=\"worker\""))
    });
    let mut chains: Vec<Vec<(&str, &str)>> = others.into_iter().map(|&p| vec![p]).collect();
    chains.push(with_worker.into_iter().copied().collect());
    std::thread::scope(|scope| {
        let building: Vec<_> = chains
            .into_iter()
            .map(|chain| {
                let next = &next;
                scope.spawn(move || {
                    chain
                        .into_iter()
                        .try_for_each(|(html, url)| build_subpage(root, next, html, url))
                })
            })
            .collect();
        building
            .into_iter()
            .try_for_each(|built| built.join().expect("a page's build thread panicked"))
    })?;
    worker_names::same_worker_everywhere(&next, SUBPAGES.iter().map(|(_, url)| *url))?;
    worker_names::name_panels(&next)?;
    crate::first_paint::rewrite(&next)?;
    compress(&next)?;
    // A build stopped between the two leaves no stamp: the next one builds again.
    let _ = std::fs::remove_file(root.join(PAGE_STAMP));
    publish(&next, &root.join("dist"), &root.join(DIST_OLD))?;
    std::fs::write(root.join(PAGE_STAMP), digest).context("writing the page's stamp")
}
/// Puts the built page in `dist`'s place in two renames (a relay serving `dist` misses it for
/// no longer than between them), and drops the previous one.
pub(crate) fn publish(next: &Path, dist: &Path, old: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(old);
    if dist.exists() {
        std::fs::rename(dist, old).context("moving the previous page aside")?;
    }
    std::fs::rename(next, dist).context("putting the built page in dist/")?;
    let _ = std::fs::remove_dir_all(old);
    Ok(())
}
/// `cargo xtask page`: what the page needs, then the page: the wasm target, the tools (Trunk,
/// wasm-bindgen, wasm-opt, and whatever else `needs` names) and the pages' wasm side by side,
/// then Trunk assembles them. Prints each phase's time; `run` starts it as a process of its
/// own, behind the relay's build.
pub(crate) fn page(root: &Path, needs: Needs) -> Result<()> {
    let began = std::time::Instant::now();
    let mut phases = Phases::default();
    if page_is_current(root, &page_inputs_digest(root)?) {
        eprintln!("xtask: the page in dist/ is built from the sources as they are: kept");
        return Ok(());
    }
    phases.time("wasm target", tools::ensure_wasm_target)?;
    let wasm = {
        let root = root.to_owned();
        std::thread::spawn(move || build_page_wasm(&root))
    };
    let tools = phases.time("tools", || tools::ensure(root, needs));
    let wasm = wasm
        .join()
        .unwrap_or_else(|_| bail!("the page's wasm build panicked"));
    phases.0.push(("page wasm (alongside)", began.elapsed()));
    tools?;
    wasm?;
    phases.time("trunk", || build_page(root))?;
    eprintln!(
        "xtask: page built in {:.0} s ({})",
        began.elapsed().as_secs_f64(),
        phases.show()
    );
    Ok(())
}
/// The pages besides the browser: their HTML, and the path each is served under.
pub(crate) const SUBPAGES: [(&str, &str); 6] = [
    ("frontend/panels.html", "/panels/"),
    ("frontend/watch.html", "/watch/"),
    ("frontend/tuning.html", "/tuning/"),
    ("frontend/playback.html", "/playback/"),
    ("frontend/admin.html", "/admin/"),
    ("frontend/results.html", "/results/"),
];
/// Writes each page file's .br and .gz beside it: the relay serves the smaller one the browser
/// takes, so a slow link gets a third of the bytes or less. Brotli at its best (quality 11, a
/// 16 MB window, which every browser decodes) is about a sixth smaller than gzip on the wasm
/// (38 KB, a third of a second at 1 Mbit/s); browsers ask for it over HTTPS and from localhost.
/// For the others, zopfli's gzip, about 4% smaller than `gzip -9`. Both are slow, and run once
/// per build, each file on its own thread.
pub(crate) fn compress(dir: &Path) -> Result<()> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wasm" | "js" | "css" | "html")
        ) {
            files.push(path);
        }
    }
    std::thread::scope(|scope| {
        let packing: Vec<_> = files
            .iter()
            .map(|path| scope.spawn(move || compress_file(path)))
            .collect();
        packing
            .into_iter()
            .try_for_each(|packed| packed.join().expect("a compressor thread panicked"))
    })
}
pub(crate) fn compress_file(path: &Path) -> Result<()> {
    let body = std::fs::read(path)?;
    let beside = |extension: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(extension);
        name
    };
    let mut gzip = Vec::new();
    zopfli::compress(
        zopfli::Options::default(),
        zopfli::Format::Gzip,
        &body[..],
        &mut gzip,
    )?;
    std::fs::write(beside(".gz"), gzip)?;
    let mut brotli = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 24,
        size_hint: body.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &body[..], &mut brotli, &params)?;
    std::fs::write(beside(".br"), brotli)?;
    Ok(())
}
/// The wasm of every page, each crate's binaries in one cargo run so their single-threaded
/// link-time optimizations share the cores; built alongside the tools, so Trunk (whose cargo
/// runs ask for exactly these) finds them built. Trunk builds whatever is missing all the same.
pub(crate) const PAGE_WASM: [(&str, &[&str]); 2] = [
    (
        "frontend/Cargo.toml",
        &[
            "muster-frontend",
            "muster-watch",
            "muster-tuning",
            "muster-playback",
            "muster-admin",
            "muster-panels",
            "muster-results",
        ],
    ),
    ("session/Cargo.toml", &["muster-session"]),
];
pub(crate) fn build_page_wasm(root: &Path) -> Result<()> {
    for (manifest, bins) in PAGE_WASM {
        let mut cargo = Command::new("cargo");
        cargo
            .args([
                "build",
                "--target=wasm32-unknown-unknown",
                "--manifest-path",
            ])
            .arg(root.join(manifest))
            .args(["--profile", "wasm-release"])
            .env("CARGO_TARGET_DIR", root.join(PAGE_TARGET))
            .current_dir(root);
        for bin in bins {
            cargo.args(["--bin", bin]);
        }
        status(&mut cargo)?;
    }
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::publish;
    use crate::scratch;

    #[test]
    fn a_built_page_replaces_the_served_one_whole() {
        let root = scratch("publish");
        let (next, dist, old) = (root.join("next"), root.join("dist"), root.join("old"));
        let put = |path: std::path::PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        put(dist.join("index.html"), "previous");
        put(dist.join("gone-1234.wasm"), "previous");
        put(old.join("left-over"), "an earlier run's");
        put(next.join("index.html"), "built");
        put(next.join("panels/index.html"), "built");
        publish(&next, &dist, &old).unwrap();
        let read = |path: std::path::PathBuf| std::fs::read_to_string(path).unwrap();
        assert_eq!(read(dist.join("index.html")), "built");
        assert_eq!(read(dist.join("panels/index.html")), "built");
        assert!(!dist.join("gone-1234.wasm").exists());
        assert!(!next.exists() && !old.exists());
        // The first build: nothing to move aside.
        put(next.join("index.html"), "again");
        std::fs::remove_dir_all(&dist).unwrap();
        publish(&next, &dist, &old).unwrap();
        assert_eq!(read(dist.join("index.html")), "again");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
