//! The kill feed as stock sends it: not a server command but a temporary entity of type
//! `ET_EVENTS + EV_OBITUARY` (SPECTATOR-NOTES §3), and the means-of-death table.

use crate::cod::entity::EntityState;
use crate::cod::fields::EntityField;
use crate::cod::fields::Named;

/// `eType` of entity events: `ET_EVENTS + n` carries event `n`.
pub const ET_EVENTS: u32 = 16;
pub const EV_DEATH: u32 = 193;
pub const EV_OBITUARY: u32 = 209;
/// `eType` of an obituary temp entity.
pub const ET_OBITUARY: u32 = ET_EVENTS + EV_OBITUARY;
/// `attackerEntityNum` of a death by the world.
pub const ENTITYNUM_WORLD: u16 = 1022;
/// `eventParm` carries a means of death (not a weapon index) when this bit is set.
pub const MOD_FLAG: u32 = 0x80;
/// svFlags of an obituary: SVF_LOOPED_FX-class entities bypass PVS and fog culling.
pub const SVF_BROADCAST: u32 = 0x8;

/// Means of death, numbered as `g/recovered_game.h` numbers them.
pub const MEANS_OF_DEATH: [&str; 27] = [
    "MOD_UNKNOWN",
    "MOD_PISTOL_BULLET",
    "MOD_RIFLE_BULLET",
    "MOD_GRENADE",
    "MOD_GRENADE_SPLASH",
    "MOD_PROJECTILE",
    "MOD_PROJECTILE_SPLASH",
    "MOD_MELEE",
    "MOD_HEAD_SHOT",
    "MOD_MORTAR",
    "MOD_MORTAR_SPLASH",
    "MOD_DYNAMITE",
    "MOD_DYNAMITE_SPLASH",
    "MOD_ARTILLERY",
    "MOD_ARTILLERY_SPLASH",
    "MOD_WATER",
    "MOD_CRUSH",
    "MOD_CRUSH_TANK",
    "MOD_CRUSH_JEEP",
    "MOD_TELEFRAG",
    "MOD_FALLING",
    "MOD_SUICIDE",
    "MOD_TRIGGER_HURT",
    "MOD_EXPLOSIVE",
    "MOD_COLLISION",
    "MOD_FLAME",
    "MOD_MELEE_BINOCULARS",
];
pub const MOD_MELEE: u32 = 7;
pub const MOD_HEAD_SHOT: u32 = 8;
pub const MOD_RIFLE_BULLET: u32 = 2;

/// The means of death stock sends as `MOD | 0x80` instead of the weapon.
const SENT_AS_MOD: [u32; 10] = [7, 8, 13, 15, 16, 17, 18, 20, 21, 26];

/// What killed the victim, as the event parameter says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A weapon index (the i-th name of configstring 7).
    Weapon(u8),
    /// A means of death from [`MEANS_OF_DEATH`].
    Means(u8),
}

/// One obituary event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Obituary {
    pub victim: u16,
    /// `None` for the world.
    pub attacker: Option<u16>,
    pub cause: Cause,
}

impl Obituary {
    /// Reads an obituary temp entity; any other entity is `None`. Victims of 64 and above are
    /// ignored, as the cgame ignores them.
    pub fn from_entity(e: &EntityState) -> Option<Self> {
        if e.get(EntityField::E_TYPE) != ET_OBITUARY {
            return None;
        }
        let victim = e.get(EntityField::OTHER_ENTITY_NUM) as u16;
        if victim >= 64 {
            return None;
        }
        let attacker = e.get(EntityField::ATTACKER_ENTITY_NUM) as u16;
        let parm = e.get(EntityField::EVENT_PARM) & 0xff;
        let cause = if parm & MOD_FLAG != 0 {
            Cause::Means((parm & 0x7f) as u8)
        } else {
            Cause::Weapon(parm as u8)
        };
        Some(Self {
            victim,
            attacker: (attacker < ENTITYNUM_WORLD).then_some(attacker),
            cause,
        })
    }

    /// The temp entity a server spawns for this death (`script obituary()`).
    pub fn to_entity(&self, number: u16) -> EntityState {
        let mut e = EntityState::zero(number);
        e.set(EntityField::E_TYPE, ET_OBITUARY);
        e.set(EntityField::OTHER_ENTITY_NUM, u32::from(self.victim));
        e.set(
            EntityField::ATTACKER_ENTITY_NUM,
            u32::from(self.attacker.unwrap_or(ENTITYNUM_WORLD)),
        );
        e.set(EntityField::EVENT_PARM, event_parm(self.cause));
        e
    }
}

/// `eventParm`: the weapon index, or `MOD | 0x80` for the means stock reports by name.
pub fn event_parm(cause: Cause) -> u32 {
    match cause {
        Cause::Weapon(w) => u32::from(w) & 0x7f,
        Cause::Means(m) => u32::from(m) | MOD_FLAG,
    }
}

/// The cause stock would put in the event for a death by `weapon` with means `means`.
pub fn cause_of(weapon: u8, means: u32) -> Cause {
    if SENT_AS_MOD.contains(&means) {
        Cause::Means(means as u8)
    } else {
        Cause::Weapon(weapon)
    }
}

/// The weapon's file name from configstring 7 (space-separated, 1-based; the order is
/// inferred from the load order, not verified).
pub fn weapon_name(weapon_list: &str, weapon: u8) -> Option<&str> {
    weapon_list
        .split_ascii_whitespace()
        .nth(usize::from(weapon).checked_sub(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_obituary_round_trips_through_its_entity() {
        for cause in [Cause::Weapon(11), Cause::Means(MOD_HEAD_SHOT as u8)] {
            let o = Obituary {
                victim: 12,
                attacker: Some(40),
                cause,
            };
            let e = o.to_entity(300);
            assert_eq!(e.get(EntityField::E_TYPE), 225);
            assert_eq!(Obituary::from_entity(&e), Some(o));
        }
        let world = Obituary {
            victim: 3,
            attacker: None,
            cause: Cause::Means(20),
        };
        let e = world.to_entity(301);
        assert_eq!(e.get(EntityField::ATTACKER_ENTITY_NUM), 1022);
        assert_eq!(e.get(EntityField::EVENT_PARM), 20 | 0x80);
        assert_eq!(Obituary::from_entity(&e), Some(world));
        let mut beyond = e.clone();
        beyond.set(EntityField::OTHER_ENTITY_NUM, 64);
        assert_eq!(Obituary::from_entity(&beyond), None);
    }

    #[test]
    fn head_shots_and_melee_go_by_name_others_by_weapon() {
        assert_eq!(cause_of(5, MOD_HEAD_SHOT), Cause::Means(8));
        assert_eq!(cause_of(5, MOD_MELEE), Cause::Means(7));
        assert_eq!(cause_of(5, MOD_RIFLE_BULLET), Cause::Weapon(5));
        assert_eq!(weapon_name("bar_mp kar98k_mp", 2), Some("kar98k_mp"));
        assert_eq!(weapon_name("bar_mp", 0), None);
    }
}
