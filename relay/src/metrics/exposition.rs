//! The text format both ways: the route that encodes a scrape, and the reader `muster status`
//! uses to show one to a person.

use std::sync::Arc;

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::registry::Registry;

/// Prometheus's text exposition format, version 0.0.4 (what `promtool check metrics` reads).
pub const CONTENT_TYPE_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

pub fn routes(registry: Registry) -> axum::Router {
    let registry = Arc::new(registry);
    axum::Router::new().route(
        "/metrics",
        get(move || {
            let registry = registry.clone();
            async move {
                let mut body = String::with_capacity(16 * 1024);
                match prometheus_client::encoding::prometheus_text::encode(&mut body, &registry) {
                    Ok(()) => ([(CONTENT_TYPE, CONTENT_TYPE_TEXT)], body).into_response(),
                    Err(_) => (
                        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                        "the metrics could not be encoded",
                    )
                        .into_response(),
                }
            }
        }),
    )
}

/// One sample line: its name, its labels as written, and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the samples of a text-format scrape; comments and lines that do not parse are
/// skipped (a newer relay may add kinds this reader does not know).
pub fn parse(text: &str) -> Vec<Sample> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Sample> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (name, labels, rest) = match line.find('{') {
        Some(open) => {
            let close = open + line[open..].find('}')?;
            (
                &line[..open],
                parse_labels(&line[open + 1..close])?,
                &line[close + 1..],
            )
        }
        None => {
            let space = line.find(' ')?;
            (&line[..space], Vec::new(), &line[space..])
        }
    };
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// `a="x",b="y\"z"`: values are quoted, with `\\`, `\"` and `\n` escaped.
fn parse_labels(text: &str) -> Option<Vec<(String, String)>> {
    let mut labels = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let key = rest[..eq].trim().to_owned();
        let mut chars = rest[eq + 1..].char_indices();
        if chars.next()?.1 != '"' {
            return None;
        }
        let mut value = String::new();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                '"' => {
                    end = Some(eq + 1 + i + 1);
                    break;
                }
                c => value.push(c),
            }
        }
        labels.push((key, value));
        rest = rest[end?..].trim_start_matches(',').trim();
    }
    Some(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_read_with_their_labels_and_comments_are_skipped() {
        let text = "# HELP muster_pages Pages.\n# TYPE muster_pages gauge\nmuster_pages 3\n\
                    muster_http_limited_total{reason=\"api rate\",x=\"a\\\"b\"} 7\n\
                    muster_poll_duration_seconds_bucket{le=\"+Inf\"} 2\nbroken{\n";
        let samples = parse(text);
        assert_eq!(samples.len(), 3, "{samples:?}");
        assert_eq!(samples[0].name, "muster_pages");
        assert_eq!(samples[0].value, 3.0);
        assert_eq!(samples[1].label("reason"), Some("api rate"));
        assert_eq!(samples[1].label("x"), Some("a\"b"));
        assert_eq!(samples[1].value, 7.0);
        assert_eq!(samples[2].label("le"), Some("+Inf"));
    }
}
