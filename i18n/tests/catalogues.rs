//! Every catalogue says everything English says, and nothing else: each parses whole, defines
//! each message once, defines exactly English's messages, uses only the arguments English's
//! message is given, and formats every message without an error in every plural form.

use std::collections::{BTreeMap, BTreeSet};

use fluent_bundle::{FluentArgs, FluentBundle, FluentResource, FluentValue};
use i18n::Lang;

fn source(lang: Lang) -> String {
    let path = format!(
        "{}/catalogues/{}.ftl",
        env!("CARGO_MANIFEST_DIR"),
        lang.tag()
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Each message's id and the arguments (`$name`) it uses, from the catalogue's text: a message
/// starts at `id =` at the start of a line and runs over its indented lines.
fn messages(text: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut out: Vec<(String, BTreeSet<String>)> = Vec::new();
    for line in text.lines() {
        let starts = line
            .split_once(" =")
            .filter(|(id, _)| {
                !id.is_empty()
                    && id.starts_with(|c: char| c.is_ascii_lowercase())
                    && id
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            })
            .map(|(id, _)| id.to_owned());
        if let Some(id) = starts {
            out.push((id, BTreeSet::new()));
        } else if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some((_, args)) = out.last_mut() {
            for part in line.split('$').skip(1) {
                let name: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                    .collect();
                if !name.is_empty() {
                    args.insert(name);
                }
            }
        }
    }
    out
}

#[test]
fn every_catalogue_parses_whole_with_each_message_once() {
    for lang in Lang::ALL {
        let text = source(lang);
        if let Err((_, errors)) = FluentResource::try_new(text.clone()) {
            panic!("{}.ftl does not parse: {errors:?}", lang.tag());
        }
        let mut seen = BTreeSet::new();
        for (id, _) in messages(&text) {
            assert!(
                seen.insert(id.clone()),
                "{}.ftl defines {id} twice",
                lang.tag()
            );
        }
    }
}

#[test]
fn every_language_says_exactly_what_english_says_with_its_arguments() {
    let english: BTreeMap<String, BTreeSet<String>> =
        messages(&source(Lang::En)).into_iter().collect();
    assert!(
        english.len() > 300,
        "English has {} messages",
        english.len()
    );
    for lang in Lang::ALL {
        let theirs: BTreeMap<String, BTreeSet<String>> =
            messages(&source(lang)).into_iter().collect();
        let missing: Vec<&String> = english
            .keys()
            .filter(|id| !theirs.contains_key(*id))
            .collect();
        let extra: Vec<&String> = theirs
            .keys()
            .filter(|id| !english.contains_key(*id))
            .collect();
        assert!(missing.is_empty(), "{}.ftl lacks {missing:?}", lang.tag());
        assert!(
            extra.is_empty(),
            "{}.ftl has messages English does not: {extra:?}",
            lang.tag()
        );
        for (id, args) in &theirs {
            let unknown: Vec<&String> = args.difference(&english[id]).collect();
            assert!(
                unknown.is_empty(),
                "{}.ftl's {id} uses {unknown:?}, which it is never given",
                lang.tag()
            );
        }
    }
}

#[test]
fn every_message_formats_in_every_plural_form_without_an_error() {
    let english: BTreeMap<String, BTreeSet<String>> =
        messages(&source(Lang::En)).into_iter().collect();
    for lang in Lang::ALL {
        let resource = FluentResource::try_new(source(lang)).expect("parses");
        let mut bundle = FluentBundle::new(vec![lang.tag().parse().expect("a tag")]);
        bundle.set_use_isolating(false);
        bundle.add_resource(resource).expect("no message twice");
        // 1, 2, 5, 22 and 0: every CLDR plural category of our six languages.
        for n in [0, 1, 2, 5, 22, 101] {
            for (id, args) in &english {
                let message = bundle.get_message(id).expect("checked above");
                let pattern = message.value().expect("every message has a value");
                let mut given = FluentArgs::new();
                for arg in args {
                    given.set(arg.as_str(), FluentValue::from(n));
                }
                let mut errors = Vec::new();
                let said = bundle.format_pattern(pattern, Some(&given), &mut errors);
                assert!(
                    errors.is_empty(),
                    "{}.ftl {id} with {n}: {errors:?}",
                    lang.tag()
                );
                assert!(
                    !said.contains('{') && !said.contains('}'),
                    "{}.ftl {id} says {said:?}",
                    lang.tag()
                );
            }
        }
    }
}

#[test]
fn shared_words_are_said_in_each_language() {
    use i18n::catalogue;
    use protocol::said::Said;
    let sources = Said::new("sources")
        .with(
            "masters",
            Said::new("masters-answering")
                .with("answering", 1)
                .with("count", 3),
        )
        .with("servers", 24);
    assert_eq!(
        catalogue(Lang::En).say(&sources),
        "1 of 3 masters answering · 24 servers"
    );
    assert_eq!(
        catalogue(Lang::En).say(
            &Said::new("sources")
                .with("masters", Said::new("masters-none"))
                .with("servers", 1)
        ),
        "no master · 1 server"
    );
    for lang in Lang::ALL {
        let said = catalogue(lang).say(&sources);
        assert!(
            said.contains("24") && said.contains('3'),
            "{}: {said}",
            lang.tag()
        );
    }
    // A message nobody wrote shows its id, not a blank.
    assert_eq!(
        catalogue(Lang::De).text("no-such-message"),
        "no-such-message"
    );
}
