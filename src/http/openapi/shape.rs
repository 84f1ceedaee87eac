//! The document as generators want it: every tagged union's variants named, one
//! discriminator each, and every error answer with its problem body.

use actix_web::http::StatusCode;
use racko_rules::{Refusal, RulesCode};

use super::*;
use crate::http::problem::status;

/// Gives every variant of the [`TAGGED_UNIONS`] its own component and each union its
/// discriminator.
pub(super) fn name_variants(components: &mut Components) {
    // union name -> its variants as (tag, component name), for unions nested in later ones
    let mut done: Vec<(&str, Vec<(String, String)>)> = Vec::new();
    for (union, property, suffix) in TAGGED_UNIONS {
        let Some(RefOr::T(Schema::OneOf(mut one_of))) = components.schemas.remove(*union) else {
            continue;
        };
        let mut variants = Vec::new();
        let mut items = Vec::new();
        for item in std::mem::take(&mut one_of.items) {
            match item {
                RefOr::T(Schema::Object(object)) => match single_tag(&object, property) {
                    Some(tag) => {
                        let name = format!("{}{suffix}", pascal_case(&tag));
                        components
                            .schemas
                            .insert(name.clone(), RefOr::T(Schema::Object(object)));
                        items.push(RefOr::Ref(Ref::from_schema_name(&name)));
                        variants.push((tag, name));
                    }
                    None => items.push(RefOr::T(Schema::Object(object))),
                },
                RefOr::Ref(reference) => {
                    let nested = done.iter().find(|(name, _)| {
                        reference.ref_location == format!("#/components/schemas/{name}")
                    });
                    match nested {
                        Some((_, nested)) => {
                            for (tag, name) in nested {
                                items.push(RefOr::Ref(Ref::from_schema_name(name)));
                                variants.push((tag.clone(), name.clone()));
                            }
                        }
                        None => items.push(RefOr::Ref(reference)),
                    }
                }
                other => items.push(other),
            }
        }
        if variants.len() == items.len() {
            one_of.discriminator = Some(Discriminator::with_mapping(
                *property,
                variants
                    .iter()
                    .map(|(tag, name)| (tag.clone(), format!("#/components/schemas/{name}"))),
            ));
        }
        one_of.items = items;
        components
            .schemas
            .insert(union.to_string(), RefOr::T(Schema::OneOf(one_of)));
        done.push((union, variants));
    }
    // A union now only spread into another one (the rules' `Event`) is dropped: nothing refers
    // to it, and validators warn about unused components.
    let text = serde_json::to_string(&*components).unwrap_or_default();
    for (union, _, _) in TAGGED_UNIONS {
        if !text.contains(&format!("\"#/components/schemas/{union}\"")) {
            components.schemas.remove(*union);
        }
    }
}

/// The one value of `object.property` when it is a string enum of one value (a serde tag).
pub(super) fn single_tag(
    object: &utoipa::openapi::schema::Object,
    property: &str,
) -> Option<String> {
    match object.properties.get(property)? {
        RefOr::T(Schema::Object(tag)) => match tag.enum_values.as_deref()? {
            [serde_json::Value::String(value)] => Some(value.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `cards_swapped` -> `CardsSwapped`.
pub(super) fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// What validators and generators otherwise warn about, said their way:
/// - a server entry (the document's own origin);
/// - every operation states its security: the user bearer when utoipa has it, the optional
///   metrics token on `/metrics`, and none (`[]`) on the public ones;
/// - an optional request body whose schema is `null` or an object is just the object (the body
///   stays optional: `required` is unset);
/// - a property that is a `oneOf` of one reference (utoipa's way of giving a default to a
///   referenced schema) is the reference itself;
/// - a property's `default` is said in its description (see [`with_default`]).
pub(super) fn for_generators(api: &mut utoipa::openapi::OpenApi) {
    if api.servers.is_none() {
        let mut server = Server::new("/");
        server.description = Some("The server that serves this document".to_string());
        api.servers = Some(vec![server]);
    }
    for (path, item) in api.paths.paths.iter_mut() {
        for op in operations(item) {
            if op.security.is_none() {
                op.security = Some(if path == METRICS_PATH {
                    vec![
                        SecurityRequirement::default(),
                        SecurityRequirement::new("metrics", Vec::<String>::new()),
                    ]
                } else {
                    Vec::new()
                });
            }
            if let Some(body) = op.request_body.as_mut() {
                unwrap_nullable_body(body);
            }
        }
    }
    let Some(components) = api.components.as_mut() else {
        return;
    };
    for schema in components.schemas.values_mut() {
        if let RefOr::T(Schema::Object(object)) = schema {
            for property in object.properties.values_mut() {
                match property {
                    RefOr::T(Schema::OneOf(one_of)) => {
                        if let [RefOr::Ref(only)] = one_of.items.as_slice() {
                            let mut only = only.clone();
                            if only.description.is_empty() {
                                only.description = one_of.description.clone().unwrap_or_default();
                            }
                            if let Some(default) = one_of.default.take() {
                                only.description = with_default(&only.description, &default);
                            }
                            *property = RefOr::Ref(only);
                        } else if let Some(default) = one_of.default.take() {
                            let text = one_of.description.clone().unwrap_or_default();
                            one_of.description = Some(with_default(&text, &default));
                        }
                    }
                    RefOr::T(Schema::Object(field)) => {
                        if let Some(default) = field.default.take() {
                            let text = field.description.clone().unwrap_or_default();
                            field.description = Some(with_default(&text, &default));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// `text` with the server's default said in words. A `default` keyword would make
/// openapi-typescript (by default) type the field as always present, also in request bodies
/// (`{options: {players: 2}}` would not type-check); the field stays optional.
pub(super) fn with_default(text: &str, default: &serde_json::Value) -> String {
    let sentence = format!("Default: `{default}`.");
    match text.trim_end() {
        "" => sentence,
        text if text.to_lowercase().contains("default") => text.to_string(),
        text if text.ends_with('.') => format!("{text} {sentence}"),
        text => format!("{text}. {sentence}"),
    }
}

pub(super) fn unwrap_nullable_body(body: &mut RequestBody) {
    if matches!(body.required, Some(Required::True)) {
        return;
    }
    for content in body.content.values_mut() {
        if let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema {
            let is_null = |item: &RefOr<Schema>| {
                matches!(item, RefOr::T(Schema::Object(o))
                    if o.schema_type == utoipa::openapi::schema::SchemaType::Type(
                        utoipa::openapi::schema::Type::Null))
            };
            if let [a, b] = one_of.items.as_slice() {
                let other = match (is_null(a), is_null(b)) {
                    (true, false) => Some(b.clone()),
                    (false, true) => Some(a.clone()),
                    _ => None,
                };
                if let Some(other) = other {
                    content.schema = Some(other);
                }
            }
        }
    }
}

pub(super) fn operations(
    item: &mut PathItem,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.options,
        &mut item.head,
        &mut item.patch,
        &mut item.trace,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

/// Where a description lists the rules' refusals of an action (in `#[utoipa::path]`): filled
/// in from the rules crate's list, so that a new refusal is documented with no edit here.
pub(super) const ACTION_REFUSALS: &str = "{action refusals}";

/// Every refusal of the rules that an action may get as 422: the rules' codes sent with 422,
/// but those of a game's setup (options, stacked deck), as `code`s in backticks.
pub(super) fn action_refusals() -> String {
    RulesCode::ALL
        .iter()
        .filter(|code| code.refusal() != Refusal::Setup)
        .filter(|code| status(Code::Rules(**code)) == StatusCode::UNPROCESSABLE_ENTITY)
        .map(|code| format!("`{}`", code.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn is_error(status: &str) -> bool {
    status.starts_with('4') || status.starts_with('5')
}

pub(super) fn problem_content() -> Content {
    Content::new(Some(Ref::from_schema_name("Problem")))
}

pub(super) fn problem_response(description: &str) -> Response {
    let mut r = Response::new(description);
    r.content
        .insert(PROBLEM_JSON.to_string(), problem_content());
    r
}
