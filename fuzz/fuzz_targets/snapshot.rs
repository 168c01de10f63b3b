//! Any server body read as a snapshot, full or against a small base: a snapshot or an error.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use protocol::cod::entity::EntityState;
use protocol::cod::msg::MsgReader;
use protocol::cod::snapshot::Snapshot;

fuzz_target!(|data: &[u8]| {
    let mut base = Snapshot::default();
    base.entities.insert(3, EntityState::zero(3));
    let mut baselines = BTreeMap::new();
    baselines.insert(9, EntityState::zero(9));
    let _ = Snapshot::read(&mut MsgReader::new(data), None, &baselines);
    let _ = Snapshot::read(&mut MsgReader::new(data), Some(&base), &baselines);
});
