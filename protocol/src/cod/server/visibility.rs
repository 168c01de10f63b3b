//! Which entities a client's snapshot carries (SV_AddEntitiesVisibleFromPoint, reduced to what a
//! world without BSP data can model): looped-FX and objective entities (and the obituary temp
//! entities flagged like them) always; the client's own entity never; the rest only inside the
//! map's opaque fog distance from the view point. Stock also culls by PVS and area portals,
//! which a world without BSP data cannot model; fog distance is the part that can.

use crate::cod::fields::PlayerStateField;
use alloc::collections::BTreeMap;

use crate::cod::entity::EntityState;
use crate::cod::fields::Named;
use crate::cod::playerstate::PlayerState;
use crate::cod::watch::obituary::SVF_BROADCAST;
use crate::cod::watch::spectator::{fog_distance, CS_FOG};

/// svFlags: never sent to anyone.
pub const SVF_NOCLIENT: u32 = 0x1;
/// svFlags: an objective, always sent.
pub const SVF_OBJECTIVE: u32 = 0x10;

/// The view point: the player state's origin raised by its current view height.
pub fn view_point(ps: &PlayerState) -> [f32; 3] {
    let mut eye = ps.origin();
    eye[2] += ps.get_f32(PlayerStateField::VIEW_HEIGHT_CURRENT);
    eye
}

/// The entities one client sees this frame.
pub fn visible_entities(
    entities: &BTreeMap<u16, EntityState>,
    sv_flags: &BTreeMap<u16, u32>,
    configstrings: &BTreeMap<u16, alloc::string::String>,
    ps: &PlayerState,
) -> BTreeMap<u16, EntityState> {
    let own = ps.get(PlayerStateField::CLIENT_NUM) as u16;
    let fog = configstrings.get(&CS_FOG).and_then(|cs| fog_distance(cs));
    let eye = view_point(ps);
    entities
        .iter()
        .filter(|(&number, e)| {
            let flags = sv_flags.get(&number).copied().unwrap_or(0);
            if number == own || flags & SVF_NOCLIENT != 0 {
                return false;
            }
            if flags & (SVF_BROADCAST | SVF_OBJECTIVE) != 0 {
                return true;
            }
            fog.is_none_or(|limit| {
                let at = e.origin();
                let d2: f32 = (0..3).map(|i| (at[i] - eye[i]) * (at[i] - eye[i])).sum();
                d2 <= limit * limit
            })
        })
        .map(|(&n, e)| (n, e.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fog_culls_far_entities_but_not_broadcast_ones_and_never_sends_the_viewer() {
        let mut entities = BTreeMap::new();
        for (n, x) in [(1u16, 100.0f32), (2, 2000.0), (3, 5000.0), (7, 0.0)] {
            let mut e = EntityState::zero(n);
            e.set_origin([x, 0.0, 0.0]);
            entities.insert(n, e);
        }
        let mut flags = BTreeMap::new();
        flags.insert(3, SVF_BROADCAST);
        let mut cs = BTreeMap::new();
        cs.insert(CS_FOG, "0 1500 1 0.5 0.5 0.5 0".into());
        let mut ps = PlayerState::default();
        ps.set(PlayerStateField::CLIENT_NUM, 7);
        let seen = visible_entities(&entities, &flags, &cs, &ps);
        assert_eq!(seen.keys().copied().collect::<alloc::vec::Vec<_>>(), [1, 3]);
        cs.clear();
        let seen = visible_entities(&entities, &flags, &cs, &ps);
        assert_eq!(seen.len(), 3);
    }
}
