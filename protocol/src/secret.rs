//! A password the game carries in clear (rcon, the `password` userinfo key: the wire has no
//! other form) that no `Debug` output, log line or error message may show.

use alloc::string::String;
use core::fmt;

/// A password; only [`Secret::expose`] gives it, for the datagram it goes into.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// The secret itself: for the bytes on the wire, nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_it() {
        let secret = Secret::new("hunter2");
        assert_eq!(alloc::format!("{secret:?}"), "Secret(<redacted>)");
        assert_eq!(secret.expose(), "hunter2");
    }
}
