//! Sharing a server: its link (which unfurls as a card with its banner), the banner in both
//! sizes with the markdown, BBCode and HTML to paste in a forum, and the widget's iframe.

use leptos::prelude::*;

/// The server's link, banners and widget, each with its text to copy.
#[component]
pub fn ServerShare(addr: String) -> impl IntoView {
    let origin = window().location().origin().unwrap_or_default();
    let page = format!("{origin}/server/{addr}");
    let wide = format!("{origin}/banner/{addr}.png");
    let small = format!("{origin}/banner/{addr}.png?size=350x20");
    let embed = format!("{origin}/embed/{addr}");
    let snippets = vec![
        (tr!("share-link"), "share-link", page.clone()),
        ("Markdown".into(), "share-markdown", format!("[![{addr}]({wide})]({page})")),
        ("BBCode".into(), "share-bbcode", format!("[url={page}][img]{wide}[/img][/url]")),
        (
            "HTML".into(),
            "share-html",
            format!("<a href=\"{page}\"><img src=\"{wide}\" width=\"560\" height=\"95\" alt=\"{addr}\"></a>"),
        ),
        (tr!("share-signature"), "share-small", format!("[url={page}][img]{small}[/img][/url]")),
        (
            tr!("share-widget"),
            "share-embed",
            format!("<iframe src=\"{embed}\" width=\"350\" height=\"64\" frameborder=\"0\"></iframe>"),
        ),
    ];
    view! {
        <details class="share" data-testid="share">
            <summary>{tr!("share-summary")}</summary>
            <p>
                <img src=format!("/banner/{addr}.png") width="560" height="95"
                    alt=tr!("share-banner-alt") data-testid="banner-preview" class="banner" />
            </p>
            <dl>
                {snippets
                    .into_iter()
                    .map(|(label, id, text)| view! {
                        <dt>{label}</dt>
                        <dd><input type="text" readonly value=text data-testid=id
                            on:focus=|ev| {
                                use wasm_bindgen::JsCast;
                                if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                    input.select();
                                }
                            } /></dd>
                    })
                    .collect_view()}
            </dl>
        </details>
    }
}
