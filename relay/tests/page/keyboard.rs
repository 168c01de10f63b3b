//! Every control a visitor sees can be reached from the keyboard: Tab from the top of the page
//! walks to each link, button, field, select and summary on the list, the watch view, a match
//! page, tuning and the demos (none is a mouse-only `div`, none sits out of the tab order), and
//! what Tab reaches shows where the focus is.

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;

use super::*;

/// A control's name for the walk: its tag, test id, label or text, and address.
const SIGNATURE: &str = "
    const sign = el => [el.tagName.toLowerCase(), el.dataset.testid || '', el.id || '',
      el.getAttribute('aria-label') || '', el.getAttribute('name') || '',
      (el.innerText || el.value || '').trim().slice(0, 30), el.getAttribute('href') || ''].join('|');";

/// The controls a visitor sees on the page now.
async fn controls(client: &Client) -> Vec<String> {
    let found = client
        .execute(
            &format!(
                "{SIGNATURE}
                const shown = el => {{
                  const r = el.getBoundingClientRect(), s = getComputedStyle(el);
                  // checkVisibility: not in a closed <details> (its content is skipped).
                  return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' &&
                    el.checkVisibility({{ contentVisibilityAuto: true }}) &&
                    !el.closest('[hidden], [inert], [aria-hidden=true], .visually-hidden');
                }};
                return [...document.querySelectorAll(
                  'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), ' +
                  'select:not([disabled]), textarea, summary, [tabindex]:not([tabindex=\"-1\"])')]
                  .filter(shown).map(sign);"
            ),
            vec![],
        )
        .await
        .expect("the controls are read");
    serde_json::from_value(found).expect("a list")
}

/// Tab from the top until the focus comes back round: what it reached, and any control it
/// reached with no visible focus (no outline, ring or change of colour).
async fn tab_walk(client: &Client, most: usize) -> (Vec<String>, Vec<String>) {
    client
        .execute(
            // From the top: the walk starts at the document itself, not where focus last was.
            "document.activeElement && document.activeElement.blur();
             document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute('tabindex');
             window.scrollTo(0, 0);",
            vec![],
        )
        .await
        .unwrap();
    let (mut reached, mut unmarked) = (Vec::new(), Vec::new());
    for _ in 0..most {
        // Tab as a keyboard presses it, wherever the focus is (a chart's point, the page).
        let tab: char = Key::Tab.into();
        let press = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: tab })
            .then(KeyAction::Up { value: tab });
        client.perform_actions(press).await.expect("Tab is pressed");
        let now = client
            .execute(
                &format!(
                    "{SIGNATURE}
                    const el = document.activeElement;
                    if (!el || el === document.body) return null;
                    // Shown: it looks different focused (a ring, an outline, a colour), or what
                    // it holds does (a chart's point shows its value).
                    const look = () => [el, ...el.querySelectorAll('*')].slice(0, 6).map(n => {{
                      const s = getComputedStyle(n);
                      return [s.outlineStyle, s.outlineWidth, s.boxShadow, s.backgroundColor,
                        s.color, s.borderColor, s.textDecorationLine, s.visibility, s.fill].join(';');
                    }}).join('|');
                    const focused = look();
                    el.blur();
                    const plain = look();
                    el.focus({{ focusVisible: true, preventScroll: true }});
                    return [sign(el), focused !== plain];"
                ),
                vec![],
            )
            .await
            .unwrap();
        let Some([name, marked]) =
            serde_json::from_value::<Option<[serde_json::Value; 2]>>(now).expect("a focus reading")
        else {
            continue;
        };
        let name = name.as_str().unwrap_or_default().to_owned();
        if reached.contains(&name) && reached.first() == Some(&name) {
            break;
        }
        if marked != serde_json::Value::Bool(true) {
            unmarked.push(name.clone());
        }
        reached.push(name);
    }
    (reached, unmarked)
}

async fn every_control_reached(client: &Client, page: &str) {
    settled(client).await;
    let seen = controls(client).await;
    assert!(!seen.is_empty(), "{page}: no control found");
    let (reached, unmarked) = tab_walk(client, seen.len() + 20).await;
    // A live page changes while it is walked (a play gets its clip and its link a new address,
    // a finished match joins the list): a control counts when it was there before the walk and
    // still is after it, unchanged; most must be.
    let after = controls(client).await;
    let steady: Vec<&String> = seen.iter().filter(|c| after.contains(c)).collect();
    assert!(
        steady.len() * 10 >= seen.len() * 8,
        "{page}: the page kept changing while it was walked: {} of {} controls held still",
        steady.len(),
        seen.len()
    );
    let missed: Vec<&String> = steady
        .into_iter()
        .filter(|c| !reached.contains(c))
        .collect();
    assert!(
        missed.is_empty(),
        "{page}: Tab never reaches {} of {} controls:\n{}",
        missed.len(),
        seen.len(),
        missed
            .iter()
            .map(|m| m.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        unmarked.is_empty(),
        "{page}: the focus is not shown on:\n{}",
        unmarked.join("\n")
    );
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn tab_reaches_every_control_on_the_list_watch_a_match_tuning_and_the_demos() {
    let dir = tempfile::tempdir().unwrap();
    let (lab, relay) = super::matches::followed_live(dir.path(), 5).await;
    let addr = lab.servers[0].addr.to_string();
    let finished = super::matches::finished_match(&relay).await;
    let driver = browser::Driver::start().await.unwrap();
    let client = driver.device(1366, 850, true).await.unwrap();
    let base = format!("http://{}", relay.addr);
    client.goto(&format!("{base}/")).await.unwrap();
    taken_over(&client).await;
    every_control_reached(&client, "the list").await;
    // A server chosen from the keyboard: its row takes Enter, and the detail's controls are
    // reached in turn.
    let row = client
        .find(Locator::Css(&format!(
            "[data-testid=server-row][data-addr=\"{addr}\"]"
        )))
        .await
        .unwrap();
    row.send_keys(&Key::Enter.to_string()).await.unwrap();
    eventually("the detail opens", async || {
        (count(&client, "[data-testid=watch]").await > 0)
            .then_some(())
            .ok_or("no detail".to_owned())
    })
    .await;
    every_control_reached(&client, "the list with a server's detail").await;
    for (page, path, ready) in [
        (
            "the watch view",
            format!("/watch/#/watch/{addr}"),
            "[data-testid=watch-player]",
        ),
        (
            "a match",
            format!("/matches/{}", finished.id),
            "#app [data-testid=scoreboard]",
        ),
        ("tuning", "/tuning/".to_owned(), "[data-testid=tuning-page]"),
        (
            "the demos",
            "/playback/#/demos".to_owned(),
            "[data-testid=demo-file]",
        ),
    ] {
        client.goto(&format!("{base}{path}")).await.unwrap();
        eventually(&format!("{page} is drawn"), async || {
            (count(&client, ready).await > 0)
                .then_some(())
                .ok_or(format!("no {ready}"))
        })
        .await;
        every_control_reached(&client, page).await;
    }
    client.close().await.unwrap();
}
