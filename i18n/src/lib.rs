//! Every word a visitor reads, in their language: English, German, Polish, Russian, French and
//! Dutch, the languages Call of Duty: United Offensive is played in most. One Fluent catalogue a
//! language (`catalogues/LANG.ftl`), compiled into whatever reads it (the page's wasm, the relay),
//! so a page never waits for its words and the relay's pages, banners and messages say the same
//! thing the page does.
//!
//! The catalogue a language lacks a message from falls back to English for that message (and the
//! tests in `tests/catalogues.rs` fail when one does).

mod catalogue;
mod lang;

pub use catalogue::{catalogue, Arg, Catalogue};
pub use lang::{Lang, UnknownLang};
