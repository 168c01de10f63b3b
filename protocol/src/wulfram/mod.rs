//! Wulfram II's transport (seed 001): TCP frames, UDP datagrams of several records wrapped by
//! per-opcode stream modes, sequence windows, transport controls, retries, and the size policy
//! our side enforces before anything reaches a socket.

pub mod control;
pub mod frame;
pub mod policy;
pub mod record;
pub mod retry;
pub mod seq;
pub mod session;
pub mod stream;

/// Wulfram II servers listen on this TCP and UDP port.
pub const PORT: u16 = 2627;
