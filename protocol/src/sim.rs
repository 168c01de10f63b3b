//! A seeded simulated UDP link for tests and benchmarks of the sans-IO sessions, as smoltcp's
//! fault injector is for its devices: each datagram is lost, delivered once or delivered twice,
//! each copy after its own random delay, so copies overtake one another. The same seed gives
//! the same run on every machine.

use alloc::vec::Vec;

/// What the link does to datagrams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkProfile {
    /// Share of datagrams lost, 0 to 1.
    pub loss: f64,
    /// Share of the delivered ones that arrive twice.
    pub duplication: f64,
    /// Each copy's delay is drawn from this range, in ms.
    pub min_delay_ms: u64,
    pub max_delay_ms: u64,
}

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct LossyLink {
    profile: LinkProfile,
    state: u64,
    in_flight: Vec<(u64, Vec<u8>)>,
    /// Datagrams given to the link, lost, and delivered twice.
    pub sent: usize,
    pub lost: usize,
    pub duplicated: usize,
}

impl LossyLink {
    pub fn new(profile: LinkProfile, seed: u64) -> Self {
        Self {
            profile,
            // xorshift needs a nonzero state; the odd constant spreads small seeds.
            state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            in_flight: Vec::new(),
            sent: 0,
            lost: 0,
            duplicated: 0,
        }
    }

    /// xorshift64*: small, fast and plenty for a simulation.
    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A uniform draw in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Puts `datagram` on the link at `now`.
    pub fn send(&mut self, now: u64, datagram: Vec<u8>) {
        self.sent += 1;
        if self.unit() < self.profile.loss {
            self.lost += 1;
            return;
        }
        let copies = if self.unit() < self.profile.duplication {
            self.duplicated += 1;
            2
        } else {
            1
        };
        let span = self
            .profile
            .max_delay_ms
            .saturating_sub(self.profile.min_delay_ms);
        for _ in 0..copies {
            let delay = self.profile.min_delay_ms + self.next() % (span + 1);
            self.in_flight.push((now + delay, datagram.clone()));
        }
    }

    /// The datagrams that have arrived by `now`, in the order they were put on the link.
    pub fn due(&mut self, now: u64) -> Vec<Vec<u8>> {
        let (due, later): (Vec<_>, Vec<_>) =
            self.in_flight.drain(..).partition(|(at, _)| *at <= now);
        self.in_flight = later;
        due.into_iter().map(|(_, d)| d).collect()
    }

    /// When the next datagram arrives, if one is on its way.
    pub fn next_arrival(&self) -> Option<u64> {
        self.in_flight.iter().map(|(at, _)| *at).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: LinkProfile = LinkProfile {
        loss: 0.2,
        duplication: 0.1,
        min_delay_ms: 5,
        max_delay_ms: 80,
    };

    #[test]
    fn the_link_loses_duplicates_and_delays_as_its_profile_says() {
        let mut link = LossyLink::new(PROFILE, 7);
        for n in 0..10_000u32 {
            link.send(0, n.to_be_bytes().to_vec());
        }
        assert!(link.due(4).is_empty(), "nothing before the least delay");
        let arrived = link.due(80);
        assert!(link.due(10_000).is_empty(), "nothing after the most");
        let lost = link.lost as f64 / 10_000.0;
        let twice = link.duplicated as f64 / (10_000 - link.lost) as f64;
        assert!((0.18..0.22).contains(&lost), "{lost}");
        assert!((0.08..0.12).contains(&twice), "{twice}");
        assert_eq!(arrived.len(), 10_000 - link.lost + link.duplicated);
    }

    #[test]
    fn one_seed_one_run() {
        let run = |seed| {
            let mut link = LossyLink::new(PROFILE, seed);
            (0..100u8).for_each(|n| link.send(u64::from(n), alloc::vec![n]));
            link.in_flight.clone()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }
}
