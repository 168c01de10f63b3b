//! `GET /api/`: the description read in a browser, in the app's design and needing no code:
//! each operation with its parameters, whether it needs a token, an example request and an
//! example answer made from its schema. The operations' own words (summaries, parameter and
//! field descriptions) are the description's, in English like the API's refusals; the page's
//! own words come from the catalogues.

use std::collections::BTreeSet;

use i18n::Catalogue;
use maud::{html, Markup};
use serde_json::{json, Value};

use crate::http::tag;

/// The methods in the order a reader meets them.
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// How deep an example follows nested schemas before it stops (a schema may name itself).
const DEPTH: usize = 8;

/// The body of the page for `description`: its operations by tag, in the tags' order (the
/// description's, which `crate::http::tag` sets), each tag's by path.
pub fn body(words: &Catalogue, description: &Value) -> Markup {
    let paths = description["paths"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut by_tag: Vec<(String, Vec<Operation>)> = Vec::new();
    for (path, item) in &paths {
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let tag = operation["tags"][0].as_str().unwrap_or_default().to_owned();
            match by_tag.iter_mut().find(|(t, _)| *t == tag) {
                Some((_, operations)) => operations.push((path, method, operation)),
                None => by_tag.push((tag, vec![(path, method, operation)])),
            }
        }
    }
    by_tag.sort_by_key(|(tag, _)| TAGS.iter().position(|t| t == tag).unwrap_or(TAGS.len()));
    html! {
        h1 { (words.text("api-title")) }
        p class="sub" {
            (words.text("api-lead")) " "
            a href="/api/openapi.json" { "/api/openapi.json" }
        }
        @for (tag, operations) in &by_tag {
            h2 id=(tag) { (tag) }
            @for (path, method, operation) in operations {
                (operation_section(words, description, path, method, operation))
            }
        }
    }
}

/// One operation as the page draws it: its path, method and what the description says of it.
type Operation<'a> = (&'a String, &'a str, &'a Value);

/// The tags in the order a reader meets them.
const TAGS: [&str; 10] = [
    tag::SERVERS,
    tag::HISTORY,
    tag::MATCHES,
    tag::HIGHLIGHTS,
    tag::MOMENTS,
    tag::SPECTATE,
    tag::DEMOS,
    tag::ALERTS,
    tag::OWNERS,
    tag::RELAY,
];

/// The description's prose with its `code` spans drawn as code.
fn prose(text: &str) -> Markup {
    html! {
        @for (i, part) in text.split('`').enumerate() {
            @if i % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

fn operation_section(
    words: &Catalogue,
    description: &Value,
    path: &str,
    method: &str,
    operation: &Value,
) -> Markup {
    let id = format!("{method}-{}", anchor(path));
    let parameters = operation["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let token = needs_token(operation);
    let answer = operation["responses"]
        .as_object()
        .and_then(|r| r.iter().find(|(status, _)| status.starts_with('2')))
        .map(|(status, r)| (status.clone(), r.clone()));
    html! {
        section class="operation" id=(id) {
            h3 { code { (method.to_uppercase()) " " (path) } }
            @if let Some(summary) = operation["summary"].as_str() { p { (prose(summary)) } }
            @if let Some(more) = operation["description"].as_str() { p class="hint" { (prose(more)) } }
            @if token { p { strong { (words.text("api-needs-token")) } } }
            @if !parameters.is_empty() {
                table {
                    caption { (words.text("api-parameters")) }
                    thead { tr {
                        th scope="col" { (words.text("api-parameter-name")) }
                        th scope="col" { (words.text("api-parameter-in")) }
                        th scope="col" { (words.text("api-parameter-about")) }
                    } }
                    tbody { @for p in &parameters { tr {
                        td { code { (p["name"].as_str().unwrap_or_default()) } }
                        td { (p["in"].as_str().unwrap_or_default()) }
                        td { (prose(p["description"].as_str().unwrap_or_default())) }
                    } } }
                }
            }
            h4 { (words.text("api-example-request")) }
            pre tabindex="0" { code { (example_request(description, path, method, operation)) } }
            @if let Some((status, response)) = answer {
                h4 { (words.text("api-example-answer")) " (" (status) ")" }
                @match example_answer(description, &response) {
                    Some(example) => pre tabindex="0" { code { (example) } },
                    None => p class="hint" { (response["description"].as_str().unwrap_or_default()) },
                }
            }
        }
    }
}

/// Whether an operation names a security scheme (a token) it needs.
fn needs_token(operation: &Value) -> bool {
    operation["security"].as_array().is_some_and(|s| {
        s.iter()
            .any(|s| s.as_object().is_some_and(|o| !o.is_empty()))
    })
}

/// An id for a path: its letters and digits, the rest as dashes.
fn anchor(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `curl` as a reader would type it: the path's parameters as their examples, the query's
/// required ones filled, a JSON body from its schema.
fn example_request(description: &Value, path: &str, method: &str, operation: &Value) -> String {
    let mut url = path.to_owned();
    let mut query = Vec::new();
    for p in operation["parameters"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default();
        let value = example(description, &p["schema"], &mut BTreeSet::new(), 0);
        let text = match value {
            Value::String(s) => s,
            other => other.to_string(),
        };
        match p["in"].as_str() {
            Some("path") => url = url.replace(&format!("{{{name}}}"), &text),
            Some("query") if p["required"].as_bool() == Some(true) => {
                query.push(format!("{name}={text}"))
            }
            _ => {}
        }
    }
    if !query.is_empty() {
        url = format!("{url}?{}", query.join("&"));
    }
    let mut line = format!("curl -X {} 'http://RELAY{url}'", method.to_uppercase());
    let token = needs_token(operation);
    if token {
        line.push_str(" -H 'Authorization: Bearer TOKEN'");
    }
    let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
    if !schema.is_null() {
        let body = example(description, schema, &mut BTreeSet::new(), 0);
        line.push_str(&format!(" -H 'content-type: application/json' -d '{body}'"));
    }
    line
}

/// A success's example body, pretty, when it is JSON.
fn example_answer(description: &Value, response: &Value) -> Option<String> {
    let schema = &response["content"]["application/json"]["schema"];
    if schema.is_null() || schema.as_object().is_some_and(|o| o.is_empty()) {
        return None;
    }
    let value = example(description, schema, &mut BTreeSet::new(), 0);
    serde_json::to_string_pretty(&value).ok()
}

/// A value of `schema`: its own example where it has one, else one made from its type.
fn example(
    description: &Value,
    schema: &Value,
    seen: &mut BTreeSet<String>,
    depth: usize,
) -> Value {
    if depth > DEPTH {
        return Value::Null;
    }
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap_or_default().to_owned();
        if !seen.insert(name.clone()) {
            return Value::Null;
        }
        let value = example(
            description,
            &description["components"]["schemas"][&name],
            seen,
            depth + 1,
        );
        seen.remove(&name);
        return value;
    }
    if let Some(given) = schema
        .get("example")
        .or_else(|| schema["examples"].as_array().and_then(|e| e.first()))
    {
        return given.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    for choice in ["oneOf", "anyOf"] {
        if let Some(options) = schema[choice].as_array() {
            let real = options.iter().find(|o| o["type"] != "null");
            return real.map_or(Value::Null, |o| example(description, o, seen, depth + 1));
        }
    }
    if let Some(all) = schema["allOf"].as_array() {
        let mut merged = serde_json::Map::new();
        for part in all {
            if let Value::Object(fields) = example(description, part, seen, depth + 1) {
                merged.extend(fields);
            }
        }
        return Value::Object(merged);
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds
            .iter()
            .find(|k| *k != "null")
            .cloned()
            .unwrap_or_default(),
        other => other.clone(),
    };
    match kind.as_str().unwrap_or_default() {
        "object" => {
            let mut fields = serde_json::Map::new();
            for (name, field) in schema["properties"].as_object().into_iter().flatten() {
                fields.insert(name.clone(), example(description, field, seen, depth + 1));
            }
            Value::Object(fields)
        }
        "array" => {
            let item = example(description, &schema["items"], seen, depth + 1);
            if item.is_null() {
                json!([])
            } else {
                json!([item])
            }
        }
        "string" => json!(match schema["format"].as_str() {
            Some("binary") => "…",
            _ => "text",
        }),
        "integer" => json!(schema["minimum"].as_i64().unwrap_or(0).max(0)),
        "number" => json!(0.0),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_example_follows_references_arrays_and_nullable_fields() {
        let description = json!({
            "components": {"schemas": {
                "Kill": {"type": "object", "properties": {
                    "victim": {"type": "string"},
                    "server_time": {"type": "integer", "format": "int32"},
                    "origin": {"type": ["array", "null"], "items": {"type": "number"}},
                    "next": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Kill"}]},
                }},
                "Kind": {"type": "string", "enum": ["triple", "quad"]},
            }},
        });
        let schema = json!({"type": "array", "items": {"$ref": "#/components/schemas/Kill"}});
        let made = example(&description, &schema, &mut BTreeSet::new(), 0);
        assert_eq!(
            made,
            json!([{"victim": "text", "server_time": 0, "origin": [0.0], "next": null}])
        );
        let kind = json!({"$ref": "#/components/schemas/Kind"});
        assert_eq!(
            example(&description, &kind, &mut BTreeSet::new(), 0),
            json!("triple")
        );
    }

    #[test]
    fn a_request_fills_its_path_and_required_query_and_says_when_it_needs_a_token() {
        let description = json!({});
        let operation = json!({
            "parameters": [
                {"name": "addr", "in": "path", "required": true, "schema": {"type": "string", "example": "192.0.2.1:28960"}},
                {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer"}},
                {"name": "to", "in": "query", "required": true, "schema": {"type": "integer", "minimum": 5}},
            ],
            "security": [{"bearer": []}],
        });
        assert_eq!(
            example_request(&description, "/api/servers/{addr}/owner", "delete", &operation),
            "curl -X DELETE 'http://RELAY/api/servers/192.0.2.1:28960/owner?to=5' -H 'Authorization: Bearer TOKEN'"
        );
    }
}
