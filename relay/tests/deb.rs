//! The Debian package as an operator meets it, on this machine: lintian finds no error, it
//! installs with `dpkg -i`, the unit passes `systemd-analyze verify` and scores well in
//! `systemd-analyze security`, the binary runs as the package's user from the installed
//! config and serves the page and a lab's servers, an edited conffile survives a reinstall,
//! removing keeps the store and purging deletes it. `cargo xtask test` builds the package
//! (`MUSTER_DEB`) from its own build and runs this as root.

use crate::common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::lab_config;
use lab::Lab;

const CONFIG: &str = "/etc/muster/muster.toml";
const DATA: &str = "/var/lib/muster";
const UNIT: &str = "/lib/systemd/system/muster.service";

fn run(program: &str, args: &[&str]) -> Output {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    println!(
        "$ {program} {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn ok(program: &str, args: &[&str]) -> String {
    let output = run(program, args);
    assert!(output.status.success(), "{program} {args:?} failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The package's user's uid and gid.
fn muster_ids() -> (u32, u32) {
    let uid = ok("id", &["-u", "muster"]).trim().parse().unwrap();
    let gid = ok("id", &["-g", "muster"]).trim().parse().unwrap();
    (uid, gid)
}

#[tokio::test]
#[ignore = "needs root and the package (MUSTER_DEB): `cargo xtask test` builds it and runs this"]
async fn the_package_installs_runs_as_its_user_keeps_data_on_remove_and_purges() {
    let deb = std::env::var("MUSTER_DEB").expect("MUSTER_DEB names the package to test");
    assert!(
        rustix::process::geteuid().is_root(),
        "installing a package needs root"
    );
    // A package left by an earlier run that stopped half way.
    run("dpkg", &["--purge", "muster"]);

    let lint = run(
        "lintian",
        &["--fail-on", "error", "--tag-display-limit", "0", &deb],
    );
    assert!(lint.status.success(), "lintian reports errors");

    ok("dpkg", &["-i", &deb]);
    let (uid, gid) = muster_ids();
    assert!(uid < 1000, "a system user, uid {uid}");
    let data = std::fs::metadata(DATA).unwrap();
    assert_eq!((data.uid(), data.gid()), (uid, gid));
    assert_eq!(data.mode() & 0o777, 0o750);
    let conffiles = ok("dpkg-query", &["-W", "-f=${Conffiles}", "muster"]);
    assert!(conffiles.contains(CONFIG), "{conffiles}");
    let config = std::fs::read_to_string(CONFIG).unwrap();
    assert!(
        config.contains("dist = \"/usr/share/muster/dist\"")
            && config.contains("data-dir = \"/var/lib/muster/\"")
            && config.contains("\n# refresh-interval = 20  # default\n")
            && config.contains("geoip-db = \"/usr/share/muster/dbip-country.mmdb\""),
        "{config}"
    );

    // The unit as systemd reads it, and how exposed it leaves the machine.
    ok("systemd-analyze", &["verify", UNIT]);
    let security = ok("systemd-analyze", &["security", "--offline=true", UNIT]);
    let score: f32 = security
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for muster.service: ")
                .nth(1)
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no score in {security}"));
    println!("systemd-analyze security: {score}");
    assert!(score <= 2.0, "exposure {score}");

    // An edited conffile survives a reinstall.
    let edited = config.replace(
        "\n# refresh-interval = 20  # default\n",
        "\nrefresh-interval = 5\n",
    );
    std::fs::write(CONFIG, &edited).unwrap();
    ok("dpkg", &["-i", &deb]);
    assert_eq!(std::fs::read_to_string(CONFIG).unwrap(), edited);

    // The installed binary as the package's user, from the installed config, fed by a lab.
    let lab = Lab::start(lab_config(3, 4)).await.unwrap();
    lab.wait_registered(Duration::from_secs(60)).await.unwrap();
    let port = common::free_port();
    let mut relay = tokio::process::Command::new("setpriv")
        .args([
            "--reuid=muster",
            "--regid=muster",
            "--init-groups",
            "--inh-caps=-all",
            "/usr/bin/muster",
            "serve",
            "--config",
            CONFIG,
        ])
        // What a lab on loopback needs beyond the installed settings.
        .env("MUSTER_LISTEN", format!("127.0.0.1:{port}"))
        .env("MUSTER_MASTER", lab.master.to_string())
        .env("MUSTER_NO_DEFAULT_MASTERS", "true")
        .env("MUSTER_NO_LAN", "true")
        .env("MUSTER_ALLOW_PRIVATE", "true")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let listed = async {
            let v: serde_json::Value = reqwest::get(format!("{base}/api/servers"))
                .await
                .ok()?
                .json()
                .await
                .ok()?;
            let addrs: Vec<String> = v
                .as_array()?
                .iter()
                .filter_map(|s| Some(s["addr"].as_str()?.to_owned()))
                .collect();
            Some(addrs)
        }
        .await;
        let every = listed.as_ref().is_some_and(|addrs| {
            lab.servers
                .iter()
                .all(|s| addrs.contains(&s.addr.to_string()))
        });
        if every {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the packaged relay never listed the lab: {listed:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let page = common::body(format!("{base}/")).await;
    assert!(
        page.contains("<meta name=\"muster-session\""),
        "the packaged page, not a fallback: {page}"
    );
    // Countries out of the box, from the database the package ships, credited.
    let countries = common::body(format!("{base}/api/countries")).await;
    assert!(
        countries.contains("\"attribution\":\"IP Geolocation by DB-IP\""),
        "{countries}"
    );
    let pid = rustix::process::Pid::from_raw(relay.id().unwrap() as i32).unwrap();
    let status = Command::new("ps")
        .args(["-o", "user=", "-p", &pid.as_raw_nonzero().to_string()])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout).trim(), "muster");
    // The store, in the package's data dir, the user's own.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let store = Path::new(DATA).join("muster.db");
    while !store.exists() {
        assert!(tokio::time::Instant::now() < deadline, "no store written");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(std::fs::metadata(&store).unwrap().uid(), uid);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let stopped = tokio::time::timeout(Duration::from_secs(30), relay.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(stopped.success(), "{stopped}");

    // Remove keeps the store and the settings; purge deletes both.
    ok("dpkg", &["-r", "muster"]);
    assert!(!Path::new("/usr/bin/muster").exists());
    assert!(store.exists(), "remove keeps the store");
    assert!(Path::new(CONFIG).exists(), "remove keeps the settings");
    ok("dpkg", &["--purge", "muster"]);
    assert!(!Path::new(DATA).exists(), "purge deletes the store");
    assert!(!Path::new(CONFIG).exists(), "purge deletes the settings");
}
