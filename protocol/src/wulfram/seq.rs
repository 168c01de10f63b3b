//! Sequence numbers run modulo 65,535 (65,534 wraps to 0; 65,535 is never produced, and we
//! refuse it). A receive stream starts expecting 1 and accepts five positions ahead of its
//! cursor; a sender keeps at most fifteen records unacknowledged.

/// The sequence space.
pub const MODULUS: u32 = 65_535;
/// Positions ahead of the cursor a receiver accepts.
pub const RECEIVE_WINDOW: u16 = 5;
/// Records a sender keeps in flight.
pub const MAX_IN_FLIGHT: usize = 15;
/// The first sequence of a stream.
pub const FIRST: u16 = 1;

/// Whether a received sequence is one a sender can produce.
pub fn is_valid(seq: u16) -> bool {
    u32::from(seq) < MODULUS
}

/// The sequence after `seq`.
pub fn next(seq: u16) -> u16 {
    ((u32::from(seq) + 1) % MODULUS) as u16
}

/// The sequence before `seq`.
pub fn prev(seq: u16) -> u16 {
    ((u32::from(seq) + MODULUS - 1) % MODULUS) as u16
}

/// How far `to` lies ahead of `from`, modulo 65,535 (0 when equal).
pub fn ahead(from: u16, to: u16) -> u16 {
    ((u32::from(to) + MODULUS - u32::from(from) % MODULUS) % MODULUS) as u16
}

/// Where a received sequence falls relative to the last one delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// The next expected (one ahead of the cursor).
    Next,
    /// Two to five ahead: inside the window.
    Ahead(u16),
    /// At or behind the cursor (the back half of the circle).
    Stale,
    /// Beyond the window in the front half.
    Beyond,
    /// 65,535: never produced by a sender.
    Invalid,
}

/// Classifies `seq` against `last`, the last sequence delivered.
pub fn position(last: u16, seq: u16) -> Position {
    if !is_valid(seq) {
        return Position::Invalid;
    }
    match ahead(last, seq) {
        1 => Position::Next,
        d if d <= RECEIVE_WINDOW && d > 1 => Position::Ahead(d),
        d if d == 0 || u32::from(d) > MODULUS / 2 => Position::Stale,
        _ => Position::Beyond,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_wrap_at_65535() {
        assert_eq!(next(65_533), 65_534);
        assert_eq!(next(65_534), 0);
        assert_eq!(prev(0), 65_534);
        assert_eq!(ahead(65_534, 0), 1);
        assert_eq!(ahead(65_530, 2), 7);
        assert!(!is_valid(65_535));
    }

    #[test]
    fn the_window_is_five_ahead() {
        assert_eq!(position(0, 1), Position::Next);
        assert_eq!(position(0, 5), Position::Ahead(5));
        assert_eq!(position(0, 6), Position::Beyond);
        assert_eq!(position(10, 10), Position::Stale);
        assert_eq!(position(10, 9), Position::Stale);
        assert_eq!(position(65_534, 0), Position::Next);
        assert_eq!(position(65_533, 3), Position::Ahead(5));
        assert_eq!(position(65_533, 65_535), Position::Invalid);
    }
}
