//! Demos the relay recorded: `GET /api/demos` lists them, and `POST`/`DELETE
//! /api/spectate/ADDR/record` (the operator's) answer with a [`RecordAnswer`].

use alloc::string::String;
use alloc::vec::Vec;

/// A finished demo the relay serves at `url`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DemoEntry {
    pub name: String,
    pub map: String,
    pub bytes: u64,
    /// Unix seconds the file was last written, that is when the recording of it finished.
    pub finished: u64,
    pub url: String,
}

/// A demo still being written: listed, never served (it would show the match undelayed).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Recording {
    pub addr: String,
    pub file: String,
    pub bytes: u64,
}

/// `GET /api/demos`: finished demos newest first, and the recordings under way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DemoListing {
    pub demos: Vec<DemoEntry>,
    pub recording: Vec<Recording>,
}

/// The relay's answer to the operator's start or stop.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RecordAnswer {
    pub addr: String,
    pub recording: bool,
}

#[cfg(feature = "serde")]
impl DemoListing {
    /// The relay answers with axum's `Json`, which serializes the same way.
    pub fn decode(text: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
    }
}
