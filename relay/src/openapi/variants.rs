//! A Rust enum's variants as schemas of their own. serde's shapes are valid JSON Schema as
//! utoipa says them, but client generators read two of them badly: an externally tagged
//! variant's inline object (`{"kill": {...}}`: openapi-python-client makes the inner model twice
//! and drops it) and an internally tagged enum flattened into a struct (`allOf` of a `oneOf`:
//! "cannot take allOf a non-object"). Both are said again here in the form every generator
//! reads, with the same meaning: each variant a named component, referenced.

use std::collections::BTreeMap;

use utoipa::openapi::schema::{AllOf, OneOf};
use utoipa::openapi::{OpenApi, Ref, RefOr, Schema};

/// Every rewrite, over the components.
pub fn name_every_variant(api: &mut OpenApi) {
    let Some(components) = api.components.as_mut() else {
        return;
    };
    let schemas = &mut components.schemas;
    let mut named = BTreeMap::new();
    for (name, schema) in schemas.iter_mut() {
        if let RefOr::T(Schema::OneOf(one)) = schema {
            name_tagged_variants(name, one, &mut named);
        }
    }
    let names: Vec<String> = schemas.keys().cloned().collect();
    for name in names {
        if let Some(spread) = spread(&name, schemas, &mut named) {
            schemas.insert(name, RefOr::T(Schema::OneOf(spread)));
        }
    }
    schemas.extend(named);
}

/// `{"kill": {...}}`'s inner object becomes the component `FeedItemKill`.
fn name_tagged_variants(name: &str, one: &mut OneOf, named: &mut BTreeMap<String, RefOr<Schema>>) {
    for variant in &mut one.items {
        let RefOr::T(Schema::Object(object)) = variant else {
            continue;
        };
        if object.properties.len() != 1 {
            continue;
        }
        let Some((tag, inner)) = object.properties.iter_mut().next() else {
            continue;
        };
        if !matches!(inner, RefOr::T(Schema::Object(o)) if !o.properties.is_empty()) {
            continue;
        }
        let component = format!("{name}{}", pascal(tag));
        let inner = std::mem::replace(inner, Ref::from_schema_name(&component).into());
        named.insert(component, inner);
    }
}

/// The `oneOf` component a struct flattens (`allOf: [{$ref: Enum}, {fields}]`), if it does.
fn flattened_enum<'a>(
    schema: &'a RefOr<Schema>,
    schemas: &'a BTreeMap<String, RefOr<Schema>>,
) -> Option<(&'a OneOf, &'a AllOf)> {
    let RefOr::T(Schema::AllOf(all)) = schema else {
        return None;
    };
    all.items.iter().find_map(|item| match item {
        RefOr::Ref(r) => match schemas.get(r.ref_location.rsplit('/').next()?) {
            Some(RefOr::T(Schema::OneOf(one))) => Some((one, all)),
            _ => None,
        },
        _ => None,
    })
}

/// `MasterStatus = allOf [MasterState, {addr, ...}]` becomes `oneOf [MasterStatusPending,
/// MasterStatusOk, MasterStatusFailed]`, each `allOf [that variant, MasterStatusCommon]`.
fn spread(
    name: &str,
    schemas: &BTreeMap<String, RefOr<Schema>>,
    named: &mut BTreeMap<String, RefOr<Schema>>,
) -> Option<OneOf> {
    let (one, all) = flattened_enum(schemas.get(name)?, schemas)?;
    let mut common = all.clone();
    common.items.retain(|item| matches!(item, RefOr::T(_)));
    common.description = None;
    let common_name = format!("{name}Common");
    named.insert(
        common_name.clone(),
        match common.items.len() {
            1 => common.items.remove(0),
            _ => RefOr::T(Schema::AllOf(common)),
        },
    );
    let mut spread = OneOf::new();
    spread.description = all.description.clone();
    for (n, variant) in one.items.iter().enumerate() {
        let component = format!("{name}{}", pascal(&variant_name(variant, n)));
        let mut both = AllOf::new();
        both.items = vec![variant.clone(), Ref::from_schema_name(&common_name).into()];
        named.insert(component.clone(), RefOr::T(Schema::AllOf(both)));
        spread.items.push(Ref::from_schema_name(&component).into());
    }
    Some(spread)
}

/// An internally tagged variant's tag value (`{"state": {"enum": ["ok"]}}` is `ok`), else its
/// place.
fn variant_name(variant: &RefOr<Schema>, n: usize) -> String {
    let RefOr::T(Schema::Object(object)) = variant else {
        return format!("type{n}");
    };
    (object.properties.values())
        .find_map(|p| match p {
            RefOr::T(Schema::Object(tag)) => match tag.enum_values.as_deref() {
                Some([serde_json::Value::String(value)]) => Some(value.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| format!("type{n}"))
}

/// `name_seen` → `NameSeen`.
fn pascal(words: &str) -> String {
    (words.split(['_', '-']))
        .map(|word| {
            let mut letters = word.chars();
            letters
                .next()
                .map(|first| first.to_uppercase().chain(letters).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_named_in_pascal_case() {
        assert_eq!(pascal("name_seen"), "NameSeen");
        assert_eq!(pascal("kill"), "Kill");
        assert_eq!(pascal(""), "");
    }
}
