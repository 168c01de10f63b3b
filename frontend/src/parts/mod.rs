//! Pieces more than one page draws.

pub mod coloured;
pub mod header;
pub mod highlight;
pub mod star;
