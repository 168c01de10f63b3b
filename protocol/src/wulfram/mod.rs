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
/// Opcode slots of the game protocol: 0x00 through 0x56.
pub const OPCODES: usize = 87;
/// Opcodes 0x00-0x04 are the protocol's own transport controls.
pub const FIRST_GAME_OPCODE: u8 = 0x05;
