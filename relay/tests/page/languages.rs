//! The page in the visitor's language: chosen from the header (the form to `/lang`, kept in a
//! cookie the relay reads too), and the list, the watch view and a match page in German and
//! Russian on a 390 px phone with nothing cut off, off the screen or overlapping (German runs
//! about a third longer than English, Russian's words longer still).

use super::audit::Audited;
use super::*;

/// What is wrong with the page's layout now: wider than the screen, a control or heading whose
/// text is cut off or off the screen, two controls on top of each other.
async fn layout_faults(client: &Client) -> Vec<String> {
    let found = client
        .execute(
            r#"
            const faults = [];
            const width = document.documentElement.clientWidth;
            const name = el => el.tagName.toLowerCase() +
              (el.dataset.testid ? '[' + el.dataset.testid + ']' : '') +
              ' "' + (el.innerText || el.value || '').trim().slice(0, 40) + '"';
            const shown = el => {
              const r = el.getBoundingClientRect(), s = getComputedStyle(el);
              return r.width > 0 && r.height > 0 && s.visibility !== 'hidden';
            };
            // Inside a box that scrolls sideways (a wide table), being off the screen is fine.
            const scrolls = el => {
              for (let p = el.parentElement; p; p = p.parentElement) {
                const x = getComputedStyle(p).overflowX;
                if ((x === 'auto' || x === 'scroll') && p.scrollWidth > p.clientWidth) return true;
              }
              return false;
            };
            if (document.documentElement.scrollWidth > width + 1)
              faults.push('the page is ' + document.documentElement.scrollWidth + ' px wide on a ' + width + ' px screen');
            const words = [...document.querySelectorAll(
              'header *, button, a, label, summary, th, h1, h2, h3, legend, .summary, [data-testid=watch-status]')]
              .filter(shown).filter(el => !scrolls(el));
            for (const el of words) {
              const s = getComputedStyle(el);
              if (s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1)
                faults.push('cut off: ' + name(el) + ' (' + el.scrollWidth + ' px of text in ' + el.clientWidth + ')');
              const r = el.getBoundingClientRect();
              if (r.right > width + 1 || r.left < -1) faults.push('off the screen: ' + name(el));
            }
            const controls = [...document.querySelectorAll('header a, header select, header button, button, select, input:not([type=hidden]), summary')]
              .filter(shown).filter(el => !scrolls(el));
            for (let i = 0; i < controls.length; i++) {
              for (let j = i + 1; j < controls.length; j++) {
                const [a, b] = [controls[i], controls[j]];
                if (a.contains(b) || b.contains(a)) continue;
                const [p, q] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
                const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
                const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
                if (x > 2 && y > 2) faults.push('overlapping: ' + name(a) + ' and ' + name(b));
              }
            }
            return faults;
            "#,
            vec![],
        )
        .await
        .expect("the layout is read");
    serde_json::from_value(found).expect("a list of faults")
}

/// A page in `lang` on a phone: drawn (`ready` shows), in that language (the document says so
/// and `words` are on it), laid out whole.
async fn in_language(
    client: &Client,
    relay: &relay::Relay,
    lang: &str,
    page: &Audited,
    words: &str,
) {
    client
        .goto(&format!("http://{}{}", relay.addr, page.path))
        .await
        .unwrap();
    eventually(&format!("{} in {lang}", page.name), async || {
        let lang_now = attr_of(client, "html", "lang").await?;
        let text = text_of(client, "body").await?;
        (count(client, page.ready).await > 0
            && lang_now.as_deref() == Some(lang)
            && text.contains(words))
        .then_some(())
        .ok_or_else(|| {
            format!(
                "lang {lang_now:?}, {:?}",
                text.chars().take(300).collect::<String>()
            )
        })
    })
    .await;
    settled(client).await;
    screenshot(client, &format!("{lang}-{}-390.png", page.name)).await;
    let faults = layout_faults(client).await;
    assert!(
        faults.is_empty(),
        "{} in {lang} at 390 px:\n{}",
        page.name,
        faults.join("\n")
    );
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_list_the_watch_view_and_a_match_read_whole_in_german_and_russian_on_a_phone() {
    let dir = tempfile::tempdir().unwrap();
    let (lab, relay) = super::matches::followed_live(dir.path(), 5).await;
    let addr = lab.servers[0].addr.to_string();
    let finished = super::matches::finished_match(&relay).await;
    let driver = browser::Driver::start().await.unwrap();
    let client = driver.device(390, 844, true).await.unwrap();
    // The chooser, as a visitor uses it: from English, pick Deutsch and send it.
    client
        .goto(&format!("http://{}/", relay.addr))
        .await
        .unwrap();
    taken_over(&client).await;
    assert_eq!(
        attr_of(&client, "html", "lang").await.unwrap().as_deref(),
        Some("en")
    );
    client
        .execute(
            "const s = document.querySelector('#app form.language select'); s.value = 'de';
             s.dispatchEvent(new Event('change', { bubbles: true }));",
            vec![],
        )
        .await
        .unwrap();
    click(&client, "#app form.language button").await;
    eventually("the page is German", async || {
        let lang = attr_of(&client, "html", "lang").await?;
        let summary = text_of(&client, "#app [data-testid=summary]").await?;
        (lang.as_deref() == Some("de") && summary.contains("antworten"))
            .then_some(())
            .ok_or_else(|| format!("{lang:?}: {summary}"))
    })
    .await;
    let pages = |lang: &str| {
        let (list, watch, one) = match lang {
            "de" => ("Alle Server", "schauen zu", "Wer wen getötet hat"),
            _ => ("Все серверы", "зрителей:", "Кто кого убил"),
        };
        [
            (
                Audited {
                    name: "list",
                    path: "/".into(),
                    ready: "#app [data-testid=summary]",
                },
                list,
            ),
            (
                Audited {
                    name: "watch",
                    path: format!("/watch/#/watch/{addr}"),
                    ready: "[data-testid=watch-player]",
                },
                watch,
            ),
            (
                Audited {
                    name: "match",
                    path: format!("/matches/{}", finished.id),
                    ready: "#app [data-testid=scoreboard]",
                },
                one,
            ),
        ]
    };
    for (page, words) in pages("de") {
        in_language(&client, &relay, "de", &page, words).await;
    }
    // Russian through the same form without script: the relay keeps it and comes back.
    client
        .goto(&format!("http://{}/lang?to=ru&back=/matches", relay.addr))
        .await
        .unwrap();
    eventually("the matches page in Russian", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        let title = text_of(&client, "#first-screen h1").await?;
        (url.path() == "/matches" && title == "Матчи")
            .then_some(())
            .ok_or_else(|| format!("{url}: {title}"))
    })
    .await;
    for (page, words) in pages("ru") {
        in_language(&client, &relay, "ru", &page, words).await;
    }
    client.close().await.unwrap();
}
