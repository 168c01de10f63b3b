//! Highlights in Chromium: a server's detail names its latest; the Highlights page lists the followed match's plays, each with its
//! still; a click plays its clip; a finished match's page opens with its play of the match and
//! a player's page lists theirs, as the relay's first screen and as their own code draw them.
//! Screenshots to look at.

use super::*;
use protocol::relay_api::highlights::Highlight;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_highlights_page_lists_the_plays_and_a_click_plays_the_clip() {
    let dir = tempfile::tempdir().unwrap();
    // No broadcast delay: a play is cut 2 s after its last kill.
    let (lab, relay) = super::matches::followed_live(dir.path(), 8).await;
    let server = lab.servers[0].addr;
    let finished = super::matches::finished_match(&relay).await;
    let best: Highlight = eventually(
        "the finished match's play of the match, clipped",
        async || {
            let best: Vec<Highlight> = api(
                &relay,
                &format!("/api/highlights?match={}&best=true", finished.id),
            )
            .await?;
            best.into_iter()
                .find(|h| h.moment.is_some())
                .ok_or("not yet".to_owned())
        },
    )
    .await;
    let moment = best.moment.clone().unwrap();

    // A server's detail on the list names its latest highlights.
    let (_driver, client) = open_page(&relay, 390, 844).await;
    click(&client, &format!("tr[data-addr=\"{server}\"]")).await;
    eventually("the detail's latest highlights", async || {
        (count(&client, "[data-testid=server-highlights] li a").await > 0)
            .then_some(())
            .ok_or("none".to_owned())
    })
    .await;
    screenshot(&client, "detail-highlights-390.png").await;

    // The Highlights page, marked in the header, with the play's still linked to its clip.
    client
        .goto(&format!("http://{}/highlights", relay.addr))
        .await
        .unwrap();
    let still = format!("figure[data-testid=highlight] a[href=\"/m/{moment}\"] img");
    eventually("the play's still", async || {
        (count(&client, &still).await > 0)
            .then_some(())
            .ok_or("no still".to_owned())
    })
    .await;
    assert_eq!(
        count(
            &client,
            "header nav a[href=\"/highlights\"][aria-current=page]"
        )
        .await,
        1
    );
    screenshot(&client, "highlights-390.png").await;
    click(&client, &still).await;
    // The clip plays: the demo player draws the match's players.
    eventually("the clip plays", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        let players = count(&client, "[data-testid=watch-player]").await;
        (url.path() == format!("/m/{moment}") && players > 0)
            .then_some(())
            .ok_or(format!("{url} with {players} players"))
    })
    .await;
    screenshot(&client, "highlights-clip-390.png").await;

    // The match's page opens with its play of the match, once its code has taken over.
    client
        .goto(&format!("http://{}/matches/{}", relay.addr, finished.id))
        .await
        .unwrap();
    let shown = format!("#app [data-testid=play-of-the-match] a[href=\"/m/{moment}\"]");
    eventually("the play of the match on the match's page", async || {
        (count(&client, &shown).await > 0)
            .then_some(())
            .ok_or("not shown".to_owned())
    })
    .await;
    // It plays there, in a loop: the moment's own player in a frame, drawing the match.
    let clip = format!(
        "#app [data-testid=play-of-the-match] iframe[data-testid=highlight-clip][src=\"/m/{moment}/embed\"]"
    );
    let frame = client
        .find(fantoccini::Locator::Css(&clip))
        .await
        .expect("the play of the match's clip, playing");
    frame.enter_frame().await.unwrap();
    eventually("the clip plays in the match's page", async || {
        let players = count(&client, "[data-testid=watch-player]").await;
        (players > 0)
            .then_some(())
            .ok_or(format!("{players} players drawn"))
    })
    .await;
    client.enter_parent_frame().await.unwrap();
    screenshot(&client, "match-play-of-the-match-390.png").await;

    // And the player's page lists their highlights.
    let key = relay::store::name_key(&best.player);
    let page = format!("/players/{}", protocol::relay_api::matches::segment(&key));
    client
        .goto(&format!("http://{}{page}", relay.addr))
        .await
        .unwrap();
    eventually("the player's highlights", async || {
        (count(
            &client,
            "#app [data-testid=player-highlights] [data-testid=highlight]",
        )
        .await
            > 0)
        .then_some(())
        .ok_or("none".to_owned())
    })
    .await;
    client.close().await.unwrap();
}
