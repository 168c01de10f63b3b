//! Two Wulfram II sessions over a seeded simulated UDP link that loses, duplicates and
//! reorders datagrams: ordered streams arrive complete and in order, latest streams only move
//! forward and end on the newest value, grouped opcodes share one order, no more than fifteen
//! records are ever in flight, and resends wait out the retry timer.

use std::collections::BTreeMap;

use protocol::sim::{LinkProfile, LossyLink};
use protocol::wulfram::record::{ModeTable, StreamMode, Walker};
use protocol::wulfram::session::{Outbound, Session, SessionConfig, SessionEvent};

const CHAT: u8 = 0x1f;
const VIEWPOINT: u8 = 0x35;
const SQUAD_A: u8 = 0x42;
const SQUAD_B: u8 = 0x46;

fn server_config() -> SessionConfig {
    let mut outgoing = ModeTable::default();
    outgoing.set(CHAT, StreamMode::Ordered);
    outgoing.set(VIEWPOINT, StreamMode::Latest);
    SessionConfig {
        connection_id: 7,
        outgoing,
    }
}

fn client_config() -> SessionConfig {
    let mut outgoing = ModeTable::default();
    outgoing.set(SQUAD_A, StreamMode::Ordered);
    outgoing.set(SQUAD_B, StreamMode::Ordered);
    SessionConfig {
        connection_id: 8,
        outgoing,
    }
}

/// 20% lost, 10% twice, 5 to 80 ms late.
const LINK: LinkProfile = LinkProfile {
    loss: 0.2,
    duplication: 0.1,
    min_delay_ms: 5,
    max_delay_ms: 80,
};

/// Every (opcode, seq) of a sequenced record in a datagram.
fn sequenced(datagram: &[u8], table: &ModeTable) -> Vec<(u8, u16)> {
    Walker::new(datagram, table)
        .filter_map(Result::ok)
        .filter_map(|r| r.seq.map(|s| (r.opcode, s)))
        .collect()
}

fn body_number(body: &[u8]) -> u32 {
    u32::from_be_bytes(body[..4].try_into().unwrap())
}

#[test]
fn sessions_stay_correct_over_a_lossy_link() {
    for seed in [1u64, 2, 3, 4] {
        let mut server = Session::new(server_config(), 0);
        let mut client = Session::new(client_config(), 0);
        let mut up = LossyLink::new(LINK, seed);
        let mut down = LossyLink::new(LINK, seed ^ 0xff);
        let (mut chat, mut views, mut squad) = (Vec::new(), Vec::new(), Vec::new());
        // When each sequenced record was sent, to check the retry spacing.
        let mut sent_at: BTreeMap<(u8, u16), Vec<u64>> = BTreeMap::new();
        let server_table = server_config().outgoing;
        let mut max_in_flight = 0;
        let mut now: u64 = 0;
        while now < 120_000 {
            now += 5;
            if now.is_multiple_of(20) && now / 20 <= 300 {
                let i = (now / 20) as u32;
                server.send(now, CHAT, &i.to_be_bytes()).unwrap();
                server.send(now, VIEWPOINT, &i.to_be_bytes()).unwrap();
                if i <= 100 {
                    let op = if i.is_multiple_of(3) {
                        SQUAD_B
                    } else {
                        SQUAD_A
                    };
                    client.send(now, op, &i.to_be_bytes()).unwrap();
                }
            }
            for d in down.due(now) {
                client.handle_datagram(now, &d);
            }
            for d in up.due(now) {
                server.handle_datagram(now, &d);
            }
            server.handle_timeout(now);
            client.handle_timeout(now);
            max_in_flight = max_in_flight
                .max(server.in_flight(CHAT))
                .max(server.in_flight(VIEWPOINT));
            // Everything queued during this step leaves at this step's time.
            while let Some(t) = server.poll_transmit() {
                let Outbound::Udp(d) = t else {
                    panic!("UDP only")
                };
                assert!(d.len() <= 3072);
                for key in sequenced(&d, &server_table) {
                    sent_at.entry(key).or_default().push(now);
                }
                down.send(now, d);
            }
            while let Some(Outbound::Udp(d)) = client.poll_transmit() {
                up.send(now, d);
            }
            for e in std::iter::from_fn(|| client.poll_event()) {
                if let SessionEvent::Packet { opcode, body, .. } = e {
                    match opcode {
                        CHAT => chat.push(body_number(&body)),
                        VIEWPOINT => views.push(body_number(&body)),
                        other => panic!("seed {seed}: unexpected opcode {other:#x}"),
                    }
                }
            }
            for e in std::iter::from_fn(|| server.poll_event()) {
                if let SessionEvent::Packet { opcode, body, .. } = e {
                    squad.push((opcode, body_number(&body)));
                }
            }
            if now > 7_000
                && server.in_flight(CHAT) == 0
                && server.in_flight(VIEWPOINT) == 0
                && client.in_flight(SQUAD_A) == 0
                && chat.len() == 300
            {
                break;
            }
        }
        eprintln!("seed {seed}: ended at {now} ms, chat {}, views {} (last {:?}), squad {}, in flight chat {} view {}",
            chat.len(), views.len(), views.last(), squad.len(), server.in_flight(CHAT), server.in_flight(VIEWPOINT));
        assert!(server.is_established() && client.is_established());
        assert_eq!(
            chat,
            (1..=300).collect::<Vec<_>>(),
            "seed {seed}: chat complete and in order"
        );
        assert!(
            views.windows(2).all(|w| w[0] <= w[1]),
            "seed {seed}: latest never goes back"
        );
        assert_eq!(
            views.last(),
            Some(&300),
            "seed {seed}: the newest value arrives"
        );
        let expected: Vec<(u8, u32)> = (1..=100)
            .map(|i: u32| {
                (
                    if i.is_multiple_of(3) {
                        SQUAD_B
                    } else {
                        SQUAD_A
                    },
                    i,
                )
            })
            .collect();
        assert_eq!(
            squad, expected,
            "seed {seed}: one order across the Squad group"
        );
        assert!(
            max_in_flight <= 15,
            "seed {seed}: {max_in_flight} in flight"
        );
        let resends: Vec<u64> = sent_at
            .values()
            .flat_map(|times| times.windows(2).map(|w| w[1] - w[0]))
            .collect();

        assert!(!resends.is_empty(), "seed {seed}: the link forced resends");
        assert!(
            resends.iter().all(|&gap| gap >= 200),
            "seed {seed}: a resend came sooner than the 200 ms floor: {:?}",
            resends.iter().min()
        );
        let timeout = server.retry_timeout_ms();
        assert!((200..=1000).contains(&timeout), "seed {seed}: {timeout}");
    }
}
