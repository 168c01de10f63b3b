//! Passworded servers (clan matches) on real sockets: `muster record` with the password from a
//! file, and hubs with the operator's `--server-password`; without one, each says why.

use crate::common;

use std::time::Duration;

use lab::{Lab, LabConfig};
use protocol::relay_api::watch::HubState;
use relay::spectate::SpectateConfig;

/// One lab server with a match, made passworded (its password is the lab's, `lab`).
async fn passworded_lab() -> Lab {
    let lab = Lab::start(LabConfig {
        players: Some(6),
        ..common::lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.servers[0].profile.lock().unwrap().password = true;
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    lab
}

#[tokio::test]
async fn muster_record_joins_a_passworded_match_with_its_password_and_says_why_without() {
    let lab = passworded_lab().await;
    let addr = lab.servers[0].addr.to_string();
    let dir = tempfile::tempdir().unwrap();
    let password = dir.path().join("password");
    std::fs::write(&password, "lab\n").unwrap();
    let out = dir.path().join("match.dm_3");
    let record = |extra: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_muster"));
        command
            .args(["record", &addr, "--duration", "2", "--json", "--out"])
            .arg(&out)
            .args(extra)
            .env_remove("MUSTER_SERVER_PASSWORD")
            .current_dir(dir.path());
        command
    };
    let refused = tokio::task::spawn_blocking({
        let mut command = record(&[]);
        move || command.output().unwrap()
    })
    .await
    .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("nothing recorded: GAME_INVALIDPASSWORD"),
        "{said}"
    );
    assert!(said.contains("--password-file"), "{said}");

    let recorded = tokio::task::spawn_blocking({
        let mut command = record(&["--password-file", password.to_str().unwrap()]);
        move || command.output().unwrap()
    })
    .await
    .unwrap();
    assert!(recorded.status.success(), "{recorded:?}");
    assert!(std::fs::metadata(&out).unwrap().len() > 1000);
    assert_eq!(lab.servers[0].connects(), 1);
}

async fn hub_state(lab: &Lab, passwords: &[(&str, &str)]) -> HubState {
    let config = SpectateConfig {
        delay: Duration::ZERO,
        server_passwords: passwords
            .iter()
            .map(|(addr, pw)| (addr.parse().unwrap(), protocol::secret::Secret::new(*pw)))
            .collect(),
        ..SpectateConfig::default()
    };
    let relay = common::start_spectating_relay(lab, config).await;
    common::wait_listed(&relay, lab).await;
    let mut viewer = common::Viewer::open(&relay, &lab.servers[0].addr.to_string()).await;
    viewer
        .until(Duration::from_secs(20), |v| {
            v.status.as_ref().is_some_and(|s| {
                matches!(s.state, HubState::Refused { .. })
                    || (s.state == HubState::Active && v.view.is_some())
            })
        })
        .await;
    viewer.status.unwrap().state
}

#[tokio::test]
async fn a_hub_joins_a_passworded_match_with_the_operators_password_and_says_when_it_has_none() {
    let lab = passworded_lab().await;
    let addr = lab.servers[0].addr.to_string();
    match hub_state(&lab, &[]).await {
        HubState::Refused { reason, .. } => assert_eq!(
            reason,
            "the server needs a password; this relay's operator has not given one for it"
        ),
        other => panic!("{other:?}"),
    }
    match hub_state(&lab, &[(&addr, "wrong")]).await {
        HubState::Refused { reason, .. } => {
            assert!(reason.contains("refused the password"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(hub_state(&lab, &[(&addr, "lab")]).await, HubState::Active);
}
