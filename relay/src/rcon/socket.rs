//! One admin socket: commands in, reports out, one command at a time.

use std::net::SocketAddrV4;
use std::sync::Arc;

use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::rcon::{RconCommand, RconReport};

use super::{Password, Rcon, SPACING};
use crate::edge::limits::ClientKey;

/// The largest message a page sends: a console line and a password, with room to spare.
pub const MAX_MESSAGE: usize = 8 * 1024;

fn text(report: RconReport) -> Message {
    Message::Text(report.encode().into())
}

/// Serves commands until the page leaves.
pub async fn serve<S, R>(
    rcon: Arc<Rcon>,
    client: ClientKey,
    target: SocketAddrV4,
    mut sink: S,
    mut stream: R,
) where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let ready = RconReport::Ready {
        target: target.to_string(),
        spacing_ms: SPACING.as_millis() as u64,
    };
    if sink.send(text(ready)).await.is_err() {
        return;
    }
    while let Some(Ok(message)) = stream.next().await {
        let report = match message {
            Message::Text(body) => match RconCommand::decode(&body) {
                Some(command) => run(&rcon, client, target, command).await,
                None => RconReport::Refused {
                    id: None,
                    kind: "message".into(),
                    reason: "not a command: send {\"id\", \"password\", \"command\"}".into(),
                    retry_after_s: None,
                },
            },
            Message::Close(_) => break,
            _ => continue,
        };
        if sink.send(text(report)).await.is_err() {
            return;
        }
    }
    let _ = sink.send(Message::Close(None)).await;
}

async fn run(
    rcon: &Rcon,
    client: ClientKey,
    target: SocketAddrV4,
    command: RconCommand,
) -> RconReport {
    let password = Password::new(command.password);
    match rcon
        .command(client, target, &password, &command.command)
        .await
    {
        Ok((answer, queued)) => {
            let (outcome, output) = match answer.outcome {
                protocol::cod::rcon::Outcome::Output(text) => ("output", text),
                other => (other.as_str(), String::new()),
            };
            RconReport::Answer {
                id: command.id,
                outcome: outcome.into(),
                output,
                chunks: answer.chunks as u32,
                truncated: answer.truncated,
                queued_ms: queued.as_millis() as u64,
                round_trip_ms: answer.round_trip.as_millis() as u64,
            }
        }
        Err(refusal) => RconReport::Refused {
            id: Some(command.id),
            kind: refusal.kind().into(),
            reason: refusal.to_string(),
            retry_after_s: refusal.retry_after().map(|d| d.as_secs().max(1)),
        },
    }
}
