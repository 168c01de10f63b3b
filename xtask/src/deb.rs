//! `cargo xtask deb`: the Debian package, `target/debian/muster_VERSION_ARCH.deb`, laid out
//! by hand and built by Debian's own `dpkg-deb` (nothing to install, nothing to pin): the
//! `muster` binary, the built page in `/usr/share/muster/dist`, `/etc/muster/muster.toml` (a
//! conffile: `muster serve --print-config` with the package's paths), the hardened systemd unit
//! and the maintainer scripts from `packaging/debian/`, which add the `muster` user and
//! `/var/lib/muster`. `Depends` is read off the binary: the libraries it links and the newest
//! glibc symbol version it needs.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::{copy, copy_tree, files_under, status};

/// Where the package's parts live in the repository.
const PACKAGING: &str = "packaging/debian";
/// The maintainer scripts dpkg runs.
const SCRIPTS: [&str; 3] = ["postinst", "prerm", "postrm"];

/// Which build of the relay goes in: the release one for operators, or the debug one, quick to
/// build, to try the package's layout (`cargo xtask test` packages its own test build's).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Build {
    Release,
    Debug,
}

/// `cargo xtask deb [--debug]`: builds the page and the binary (release, or the quicker debug
/// build to try the package's layout), then the package.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<()> {
    let kind = match args {
        [] => Build::Release,
        [flag] if flag == "--debug" => Build::Debug,
        _ => bail!("usage: cargo xtask deb [--debug]"),
    };
    crate::page::page(root, crate::tools::Needs::Run)?;
    let deb = build(root, kind)?;
    println!("{}", deb.display());
    Ok(())
}

/// Builds the relay as `build` says and packages it with the page already in `dist/`.
fn build(root: &Path, build: Build) -> Result<PathBuf> {
    let mut cargo = Command::new("cargo");
    cargo.args(["build", "-p", "muster-relay", "--bin", "muster"]);
    let binary = match build {
        Build::Release => {
            cargo.arg("--release");
            root.join("target/release/muster")
        }
        Build::Debug => {
            // As `cargo xtask test` builds it, so its test run reuses this build.
            cargo.env("CARGO_INCREMENTAL", "0");
            root.join("target/debug/muster")
        }
    };
    status(&mut cargo)?;
    package(root, &binary, build)
}

/// Packages `binary` with the page already in `dist/`.
pub(crate) fn package(root: &Path, binary: &Path, build: Build) -> Result<PathBuf> {
    let dist = root.join("dist");
    ensure!(
        dist.join("index.html").is_file(),
        "the page is not built: run `cargo xtask page`"
    );
    let version = version(root)?;
    let arch = output(Command::new("dpkg").arg("--print-architecture"))?;
    let name = format!("muster_{version}_{arch}");
    let out = root.join("target/debian");
    let stage = out.join(&name);
    if stage.exists() {
        std::fs::remove_dir_all(&stage)?;
    }
    let packaging = root.join(PACKAGING);

    let bin = stage.join("usr/bin/muster");
    copy(binary, &bin)?;
    status(Command::new("strip").arg("--strip-unneeded").arg(&bin))?;
    copy_tree(&dist, &stage.join("usr/share/muster/dist"))?;
    // Countries out of the box (DB-IP's lite database, CC BY 4.0: credited in the page).
    copy(
        &crate::tools::geoip_db(root),
        &stage.join("usr/share/muster/dbip-country.mmdb"),
    )?;
    let settings = output(
        Command::new(&bin)
            .env_clear()
            .args(["serve", "--print-config"])
            .args(["--dist", "/usr/share/muster/dist"])
            .args(["--geoip-db", "/usr/share/muster/dbip-country.mmdb"])
            .args(["--data-dir", "/var/lib/muster/"]),
    )?;
    write(&stage.join("etc/muster/muster.toml"), &(settings + "\n"))?;
    copy(
        &packaging.join("muster.service"),
        &stage.join("lib/systemd/system/muster.service"),
    )?;
    let doc = stage.join("usr/share/doc/muster");
    copy(&packaging.join("copyright"), &doc.join("copyright"))?;
    copy(&root.join("docs/operator.md"), &doc.join("operator.md"))?;
    write_changelog(root, &version, &doc.join("changelog.gz"))?;

    let control = stage.join("DEBIAN");
    for script in SCRIPTS {
        copy(&packaging.join(script), &control.join(script))?;
    }
    write(&control.join("conffiles"), "/etc/muster/muster.toml\n")?;
    // Every file the package installs, relative to the stage (nothing is under DEBIAN yet but
    // the scripts and conffiles, which are not installed).
    let installed: Vec<PathBuf> = files_under(&stage)?
        .into_iter()
        .map(|f| f.strip_prefix(&stage).map(Path::to_path_buf))
        .filter(|f| !f.as_ref().is_ok_and(|f| f.starts_with("DEBIAN")))
        .collect::<Result<_, _>>()?;
    write(&control.join("md5sums"), &md5sums(&stage, &installed)?)?;
    let fields = format!(
        "Package: muster\nVersion: {version}\nArchitecture: {arch}\n\
         Maintainer: Muster maintainers <maintainers@muster.example>\n\
         Installed-Size: {size}\nDepends: adduser, {libs}\nSection: net\nPriority: optional\n\
         Description: server browser and spectator relay for Call of Duty: United Offensive\n \
         Muster polls the game's masters and servers (network protocol 22) and\n \
         serves a web page listing every live server with its map, mode, players\n \
         and ping, watches matches live in the browser, records demos, keeps\n \
         history, and can stand in for the game's master server. This package\n \
         runs it as a hardened systemd service.\n",
        size = installed_kib(&stage, &installed)?,
        libs = depends(&bin)?,
    );
    write(&control.join("control"), &fields)?;
    let deb = out.join(format!("{name}.deb"));
    status(
        Command::new("dpkg-deb")
            .arg("--root-owner-group")
            // A release is packed as Debian packs its own; a debug build's package, which the
            // tests install once and drop, is packed fast (xz took 20 s of the test run).
            .args(match build {
                Build::Release => ["-Zxz", "-z6"],
                Build::Debug => ["-Zgzip", "-z1"],
            })
            .arg("--build")
            .arg(&stage)
            .arg(&deb),
    )?;
    Ok(deb)
}

/// The relay crate's version: the package's.
fn version(root: &Path) -> Result<String> {
    let manifest = std::fs::read_to_string(root.join("relay/Cargo.toml"))?;
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .map(str::to_owned)
        .context("relay/Cargo.toml has no version")
}

/// The packages the binary's libraries come from, and the glibc it needs at least.
fn depends(binary: &Path) -> Result<String> {
    let dynamic = output(Command::new("objdump").arg("-p").arg(binary))?;
    let mut packages = Vec::new();
    for needed in dynamic
        .lines()
        .filter_map(|l| l.trim().strip_prefix("NEEDED"))
        .map(str::trim)
    {
        let package = match needed {
            "libc.so.6"
            | "libm.so.6"
            | "libpthread.so.0"
            | "libdl.so.2"
            | "librt.so.1"
            | "ld-linux-x86-64.so.2" => "libc6",
            "libgcc_s.so.1" => "libgcc-s1",
            other => bail!("the binary links {other}, which the package does not depend on yet"),
        };
        if !packages.contains(&package) {
            packages.push(package);
        }
    }
    let symbols = output(Command::new("objdump").arg("-T").arg(binary))?;
    let glibc = symbols
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            let parts: Option<Vec<u32>> = v.split('.').map(|p| p.parse().ok()).collect();
            parts
        })
        .max()
        .context("the binary needs no versioned glibc symbol")?;
    let glibc: Vec<String> = glibc.iter().map(u32::to_string).collect();
    Ok(packages
        .iter()
        .map(|p| match *p {
            "libc6" => format!("libc6 (>= {})", glibc.join(".")),
            p => p.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(", "))
}

/// A native package's changelog, dated by the commit it was built from (reproducible).
fn write_changelog(root: &Path, version: &str, to: &Path) -> Result<()> {
    let date = output(
        Command::new("git")
            .args(["log", "-1", "--format=%aD"])
            .current_dir(root),
    )
    .unwrap_or_else(|_| "Thu, 01 Jan 1970 00:00:00 +0000".into());
    let text = format!(
        "muster ({version}) unstable; urgency=medium\n\n  * Built by cargo xtask deb.\n\n \
         -- Muster maintainers <maintainers@muster.example>  {date}\n"
    );
    let plain = to.with_extension("");
    write(&plain, &text)?;
    status(Command::new("gzip").args(["-9nf"]).arg(&plain))
}

/// `md5sums`: every installed file but the conffile (`installed`, relative to `stage`), as
/// dpkg checks them; one `md5sum` for them all.
fn md5sums(stage: &Path, installed: &[PathBuf]) -> Result<String> {
    let summed = installed.iter().filter(|f| !f.starts_with("etc"));
    Ok(output(Command::new("md5sum").args(summed).current_dir(stage))? + "\n")
}

/// The installed size in KiB, as `Installed-Size` counts it.
fn installed_kib(stage: &Path, installed: &[PathBuf]) -> Result<u64> {
    let mut bytes = 0;
    for file in installed {
        bytes += std::fs::metadata(stage.join(file))?.len();
    }
    Ok(bytes.div_ceil(1024))
}

fn write(to: &Path, text: &str) -> Result<()> {
    std::fs::create_dir_all(to.parent().context("a file's directory")?)?;
    std::fs::write(to, text).with_context(|| format!("writing {}", to.display()))
}

/// A command's standard output, trimmed; its failure with what it said.
fn output(command: &mut Command) -> Result<String> {
    let shown = format!("{command:?}");
    let out = command
        .output()
        .with_context(|| format!("starting {shown}"))?;
    ensure!(
        out.status.success(),
        "{shown} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?.trim_end().to_owned())
}
