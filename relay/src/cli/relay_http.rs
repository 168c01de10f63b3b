//! Plain HTTP/1.1 to a running relay for the subcommands that read or ask one (`status`,
//! `moment`): its own address, `http://` only (a relay behind TLS is reached at its own plain
//! address), bounded in time.

use std::time::Duration;

use anyhow::{bail, Context};
use http_body_util::BodyExt;

/// `METHOD URL/PATH` with a JSON body, if any; the status and the body.
pub async fn call(
    url: &str,
    method: hyper::Method,
    path: &str,
    json: Option<String>,
) -> anyhow::Result<(hyper::StatusCode, bytes::Bytes)> {
    let uri: hyper::Uri = format!("{}{path}", url.trim_end_matches('/'))
        .parse()
        .with_context(|| format!("not a URL: {url}"))?;
    if uri.scheme_str() != Some("http") {
        bail!("{url}: only http:// is read (point it at the relay's own address, not a TLS proxy)");
    }
    let host = uri.host().context("the URL has no host")?.to_owned();
    let port = uri.port_u16().unwrap_or(80);
    let io = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port)),
    )
    .await
    .with_context(|| format!("{url}: no answer within 5 s"))?
    .with_context(|| format!("connecting to {url}"))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io)).await?;
    tokio::spawn(connection);
    let mut request = hyper::Request::builder().method(method).uri(&uri).header(
        hyper::header::HOST,
        uri.authority().map_or("", |a| a.as_str()),
    );
    if json.is_some() {
        request = request.header(hyper::header::CONTENT_TYPE, "application/json");
    }
    let body = http_body_util::Full::new(bytes::Bytes::from(json.unwrap_or_default()));
    let response = tokio::time::timeout(
        Duration::from_secs(10),
        sender.send_request(request.body(body)?),
    )
    .await
    .context("the relay did not answer within 10 s")??;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}
