//! One HTTP/1.0 exchange with a process of ours on loopback (the connection closes with the
//! answer): what `run --check` and `audit` ask the relay they started.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{Context, Result};

pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// `GET path` of the relay at `listen`.
pub fn get(listen: &str, path: &str) -> Result<Answer> {
    exchange(listen, "GET", path, None)
}

/// `POST path` of the relay at `listen`, with a JSON body.
pub fn post_json(listen: &str, path: &str, body: &serde_json::Value) -> Result<Answer> {
    exchange(listen, "POST", path, Some(body.to_string()))
}

fn exchange(listen: &str, method: &str, path: &str, body: Option<String>) -> Result<Answer> {
    let fail = || format!("{method} http://{listen}{path}");
    let mut stream = TcpStream::connect(listen).with_context(fail)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = body.unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.0\r\nHost: {listen}\r\nAccept-Encoding: identity\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .with_context(fail)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).with_context(fail)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .with_context(|| format!("{}: no end of the answer's head", fail()))?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("{}: no status in {head:?}", fail()))?;
    Ok(Answer {
        status,
        body: raw[split + 4..].to_vec(),
    })
}
