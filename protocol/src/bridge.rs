//! The WebSocket↔UDP bridge's egress policy, written once: the relay enforces it on every
//! datagram a page asks it to send, and the page uses the same code to explain a refusal.
//!
//! A bridge session has one target: a game server the relay already knows, or a configured
//! master. Only the connectionless commands a browser and a joining player need pass
//! (`getinfo`, `getstatus`, `getchallenge`, `connect` for protocol 22 to servers; `getservers`
//! for protocol 22 to masters); `rcon` and everything else is refused. Sequenced netchan
//! traffic passes only once the target has answered a `getchallenge` with a valid
//! `challengeResponse`, and until then the whole session may send at most
//! [`UNVALIDATED_PACKETS`] datagrams and [`UNVALIDATED_BYTES`] bytes, so a silent or spoofed
//! target gets almost nothing. Every client datagram must carry the qport the relay gave the
//! session: two sessions to one server with one qport would take over each other's slot
//! (stock matches clients by address and qport).

use core::fmt;
// Named by the schema derive.
#[cfg(feature = "openapi")]
use alloc::{string::String, vec::Vec};
use core::net::Ipv4Addr;

use crate::cod::netchan::{Header, Side};
use crate::cod::oob::Packet;
use crate::cod::PROTOCOL_VERSION as PROTOCOL;

/// Datagrams a session may send before the target validated it.
pub const UNVALIDATED_PACKETS: u32 = 4;
/// Bytes a session may send before the target validated it.
pub const UNVALIDATED_BYTES: usize = 512;
/// The largest datagram the bridge carries either way (a stock packet is at most 1,400).
pub const MAX_DATAGRAM: usize = 2048;

/// UDP ports of services that answer a small packet with a large one, refused as targets
/// whatever a master lists: echo, daytime, qotd, chargen, time, DNS, portmap, NTP, NetBIOS,
/// SNMP, CLDAP, RIP, OpenVPN, SSDP, WS-Discovery, mDNS, memcached.
pub const REFLECTOR_PORTS: [u16; 17] = [
    7, 13, 17, 19, 37, 53, 111, 123, 137, 161, 389, 520, 1194, 1900, 3702, 5353, 11211,
];

/// What a session is to its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TargetKind {
    /// A game server the relay knows (a master listed it, the LAN scan found it, or the
    /// operator named it).
    Server,
    /// A master the relay's operator configured: `getservers` only.
    Master,
}

/// Why the bridge refused a target or a datagram; shown to the page as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A private, loopback, link-local, shared, multicast, broadcast or reserved address.
    SpecialAddress(Ipv4Addr),
    /// A port of a well-known reflector service.
    ReflectorPort(u16),
    /// Port 0.
    NoPort,
    /// Not a server or master this relay knows.
    UnknownTarget,
    /// Larger than [`MAX_DATAGRAM`].
    TooLarge(usize),
    /// `rcon`: never through the bridge.
    Rcon,
    /// A connectionless command the policy does not pass to this kind of target.
    Command {
        command: alloc::string::String,
        target: TargetKind,
    },
    /// A connectionless packet that does not parse.
    Malformed,
    /// `connect` or `getservers` for another protocol.
    WrongProtocol(alloc::string::String),
    /// A qport other than the one the relay assigned.
    WrongQport { sent: Option<u16>, assigned: u16 },
    /// Sequenced traffic before the target sent a `challengeResponse`.
    NotValidated,
    /// More than the session may send before the target validated it.
    UnvalidatedBudget,
}

impl Refusal {
    /// A short stable name, for counters and scripts.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SpecialAddress(_) => "special_address",
            Self::ReflectorPort(_) => "reflector_port",
            Self::NoPort => "no_port",
            Self::UnknownTarget => "unknown_target",
            Self::TooLarge(_) => "too_large",
            Self::Rcon => "rcon",
            Self::Command { .. } => "command",
            Self::Malformed => "malformed",
            Self::WrongProtocol(_) => "wrong_protocol",
            Self::WrongQport { .. } => "wrong_qport",
            Self::NotValidated => "not_validated",
            Self::UnvalidatedBudget => "unvalidated_budget",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SpecialAddress(ip) => write!(f, "{ip} is not a public address"),
            Self::ReflectorPort(port) => write!(f, "port {port} belongs to a reflector service"),
            Self::NoPort => f.write_str("port 0"),
            Self::UnknownTarget => f.write_str("not a server or master this relay knows"),
            Self::TooLarge(len) => write!(f, "a {len}-byte datagram, over {MAX_DATAGRAM}"),
            Self::Rcon => f.write_str("rcon never goes through the bridge"),
            Self::Command { command, target } => {
                let to = match target {
                    TargetKind::Server => "a server",
                    TargetKind::Master => "a master",
                };
                write!(f, "`{command}` is not sent to {to}")
            }
            Self::Malformed => f.write_str("a connectionless packet that does not parse"),
            Self::WrongProtocol(p) => write!(f, "protocol {p}, not {PROTOCOL}"),
            Self::WrongQport { sent, assigned } => match sent {
                Some(q) => write!(f, "qport {q}, not the session's {assigned}"),
                None => write!(f, "no qport; the session's is {assigned}"),
            },
            Self::NotValidated => {
                f.write_str("sequenced traffic before the server answered a getchallenge")
            }
            Self::UnvalidatedBudget => write!(
                f,
                "more than {UNVALIDATED_PACKETS} packets or {UNVALIDATED_BYTES} bytes before \
                 the server answered a getchallenge"
            ),
        }
    }
}

/// Whether `ip:port` may be a target at all: public unicast, not a reflector port. With
/// `allow_private` (an operator's LAN or the lab on loopback) private ranges pass, still not
/// multicast, broadcast, reserved or reflector ports.
pub fn check_address(ip: Ipv4Addr, port: u16, allow_private: bool) -> Result<(), Refusal> {
    let [a, b, ..] = ip.octets();
    let private = ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || (a == 100 && (64..128).contains(&b));
    let never = ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_broadcast()
        || a == 0
        || a >= 240
        || ip.is_documentation();
    if never || (private && !allow_private) {
        return Err(Refusal::SpecialAddress(ip));
    }
    if port == 0 {
        return Err(Refusal::NoPort);
    }
    if REFLECTOR_PORTS.contains(&port) {
        return Err(Refusal::ReflectorPort(port));
    }
    Ok(())
}

/// What passed: the relay counts connectionless requests against the target's budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passed {
    Connectionless,
    Sequenced,
}

/// A datagram the policy passes: what it is, and whether it asks for a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub passed: Passed,
    pub challenge: bool,
}

/// One session's policy state.
#[derive(Clone, Debug)]
pub struct Egress {
    target: TargetKind,
    qport: u16,
    asked_challenge: bool,
    validated: bool,
    sent_packets: u32,
    sent_bytes: usize,
}

impl Egress {
    pub fn new(target: TargetKind, qport: u16) -> Self {
        Self {
            target,
            qport,
            asked_challenge: false,
            validated: false,
            sent_packets: 0,
            sent_bytes: 0,
        }
    }

    /// The qport every client datagram of this session must carry.
    pub fn qport(&self) -> u16 {
        self.qport
    }

    /// Whether the target answered this session's `getchallenge`.
    pub fn validated(&self) -> bool {
        self.validated
    }

    /// The verdict on a datagram the page asks the relay to send, counted as sent.
    pub fn outbound(&mut self, datagram: &[u8]) -> Result<Passed, Refusal> {
        let verdict = self.check(datagram)?;
        self.sent(datagram, verdict);
        Ok(verdict.passed)
    }

    /// The verdict on a datagram, changing nothing: the relay checks its own budgets next, and
    /// only then [`Self::sent`] it.
    pub fn check(&self, datagram: &[u8]) -> Result<Verdict, Refusal> {
        if datagram.len() > MAX_DATAGRAM {
            return Err(Refusal::TooLarge(datagram.len()));
        }
        let verdict = if datagram.starts_with(&crate::cod::oob::MARKER) {
            Verdict {
                passed: Passed::Connectionless,
                challenge: self.connectionless(datagram)?,
            }
        } else {
            Verdict {
                passed: self.sequenced(datagram)?,
                challenge: false,
            }
        };
        if !self.validated {
            let over_packets = self.sent_packets + 1 > UNVALIDATED_PACKETS;
            if over_packets || self.sent_bytes + datagram.len() > UNVALIDATED_BYTES {
                return Err(Refusal::UnvalidatedBudget);
            }
        }
        Ok(verdict)
    }

    /// Counts a datagram that went to the target.
    pub fn sent(&mut self, datagram: &[u8], verdict: Verdict) {
        self.sent_packets += 1;
        self.sent_bytes += datagram.len();
        // Only a getchallenge that went out makes a challengeResponse count.
        self.asked_challenge |= verdict.challenge;
    }

    /// Whether a connectionless datagram may go; true for a `getchallenge`.
    fn connectionless(&self, datagram: &[u8]) -> Result<bool, Refusal> {
        let packet = Packet::parse(datagram).map_err(|_| Refusal::Malformed)?;
        let refused = |command: &str| Refusal::Command {
            command: command.into(),
            target: self.target,
        };
        match (self.target, packet) {
            (TargetKind::Server, Packet::GetInfo { .. } | Packet::GetStatus { .. }) => {}
            (TargetKind::Server, Packet::GetChallenge) => return Ok(true),
            (TargetKind::Server, Packet::Connect { userinfo }) => {
                let protocol = userinfo.get("protocol").unwrap_or("");
                if protocol.parse::<u32>() != Ok(PROTOCOL) {
                    return Err(Refusal::WrongProtocol(protocol.into()));
                }
                let sent = userinfo.get("qport").and_then(|q| q.parse().ok());
                if sent != Some(self.qport) {
                    return Err(Refusal::WrongQport {
                        sent,
                        assigned: self.qport,
                    });
                }
            }
            (TargetKind::Master, Packet::GetServers(query)) => {
                if query.protocol != PROTOCOL {
                    return Err(Refusal::WrongProtocol(alloc::format!("{}", query.protocol)));
                }
            }
            (_, Packet::Other { command, .. }) if command.eq_ignore_ascii_case("rcon") => {
                return Err(Refusal::Rcon)
            }
            (_, Packet::Other { command, .. }) => return Err(refused(&command)),
            (_, other) => return Err(refused(command_name(&other))),
        }
        Ok(false)
    }

    fn sequenced(&self, datagram: &[u8]) -> Result<Passed, Refusal> {
        if !self.validated {
            return Err(Refusal::NotValidated);
        }
        let sent = Header::parse(datagram, Side::Client)
            .ok()
            .and_then(|(h, _)| h.qport);
        if sent != Some(self.qport) {
            return Err(Refusal::WrongQport {
                sent,
                assigned: self.qport,
            });
        }
        Ok(Passed::Sequenced)
    }

    /// A datagram from the target: a `challengeResponse` to this session's `getchallenge`
    /// validates it.
    pub fn inbound(&mut self, datagram: &[u8]) {
        if self.asked_challenge && !self.validated {
            self.validated = matches!(
                Packet::parse(datagram),
                Ok(Packet::ChallengeResponse { .. })
            );
        }
    }
}

/// The stock name of a parsed connectionless command, for a refusal.
fn command_name(packet: &Packet) -> &'static str {
    match packet {
        Packet::GetInfo { .. } => "getinfo",
        Packet::GetStatus { .. } => "getstatus",
        Packet::GetChallenge => "getchallenge",
        Packet::Heartbeat { .. } => "heartbeat",
        Packet::GetServers(_) => "getservers",
        Packet::InfoResponse(_) => "infoResponse",
        Packet::StatusResponse(_) => "statusResponse",
        Packet::ChallengeResponse { .. } => "challengeResponse",
        Packet::Print(_) => "print",
        Packet::Error(_) => "error",
        Packet::ServerList(_) => "getserversResponse",
        Packet::Connect { .. } => "connect",
        Packet::Other { .. } => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::info::{InfoString, MAX_INFO_STRING};
    use crate::cod::master::GetServers;
    use alloc::vec;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    const QPORT: u16 = 4660;

    fn oob(text: &str) -> Vec<u8> {
        let mut d = crate::cod::oob::MARKER.to_vec();
        d.extend_from_slice(text.as_bytes());
        d
    }

    fn connect(protocol: &str, qport: &str) -> Vec<u8> {
        let mut userinfo = InfoString::new(MAX_INFO_STRING);
        userinfo.set("name", "Muster").unwrap();
        userinfo.set("protocol", protocol).unwrap();
        userinfo.set("qport", qport).unwrap();
        Packet::Connect { userinfo }.emit()
    }

    fn sequenced(qport: u16) -> Vec<u8> {
        let mut d = Vec::new();
        Header {
            sequence: 1,
            qport: Some(qport),
            fragment: None,
        }
        .emit(&mut d);
        d.extend_from_slice(&[0; 8]);
        d
    }

    fn challenge_response() -> Vec<u8> {
        oob("challengeResponse 1234")
    }

    /// The verdict on `datagram` as the first thing a fresh session sends.
    fn verdict(target: TargetKind, datagram: &[u8]) -> Result<Passed, Refusal> {
        Egress::new(target, QPORT).outbound(datagram)
    }

    #[test]
    fn datagram_to_verdict() {
        use TargetKind::{Master, Server};
        let getservers = Packet::GetServers(GetServers {
            protocol: 22,
            keywords: vec!["full".into(), "empty".into()],
        })
        .emit();
        let other_protocol = Packet::GetServers(GetServers {
            protocol: 68,
            keywords: vec![],
        })
        .emit();
        let command = |c: &str, target| {
            Err(Refusal::Command {
                command: c.into(),
                target,
            })
        };
        let cases: Vec<(TargetKind, Vec<u8>, Result<Passed, Refusal>)> = vec![
            (Server, oob("getinfo xxx"), Ok(Passed::Connectionless)),
            (Server, oob("getstatus"), Ok(Passed::Connectionless)),
            (Server, oob("GETINFO"), Ok(Passed::Connectionless)),
            (Server, oob("getchallenge"), Ok(Passed::Connectionless)),
            (Server, connect("22", "4660"), Ok(Passed::Connectionless)),
            (
                Server,
                connect("21", "4660"),
                Err(Refusal::WrongProtocol("21".into())),
            ),
            (
                Server,
                connect("22", "1"),
                Err(Refusal::WrongQport {
                    sent: Some(1),
                    assigned: QPORT,
                }),
            ),
            (Server, oob("rcon secret map mp_foy"), Err(Refusal::Rcon)),
            (Server, oob("RCON secret status"), Err(Refusal::Rcon)),
            (Server, getservers.clone(), command("getservers", Server)),
            (Server, oob("heartbeat COD-1"), command("heartbeat", Server)),
            (
                Server,
                oob("infoResponse\n\\a\\b"),
                command("infoResponse", Server),
            ),
            (Server, oob("print\nhello"), command("print", Server)),
            (
                Server,
                oob("ipAuthorize 1 accept"),
                command("ipAuthorize", Server),
            ),
            (Server, oob(""), Err(Refusal::Malformed)),
            (Server, oob(" getinfo"), Err(Refusal::Malformed)),
            (Master, getservers, Ok(Passed::Connectionless)),
            (
                Master,
                other_protocol,
                Err(Refusal::WrongProtocol("68".into())),
            ),
            (Master, oob("getinfo"), command("getinfo", Master)),
            (Master, oob("getchallenge"), command("getchallenge", Master)),
            (Server, sequenced(QPORT), Err(Refusal::NotValidated)),
            (
                Server,
                vec![0; MAX_DATAGRAM + 1],
                Err(Refusal::TooLarge(MAX_DATAGRAM + 1)),
            ),
            (
                Server,
                oob(&"x".repeat(600)),
                command(&"x".repeat(600), Server),
            ),
        ];
        for (target, datagram, want) in cases {
            assert_eq!(
                verdict(target, &datagram),
                want,
                "{:?}",
                alloc::string::String::from_utf8_lossy(&datagram)
            );
        }
    }

    #[test]
    fn a_silent_target_gets_at_most_four_small_packets() {
        let mut session = Egress::new(TargetKind::Server, QPORT);
        let sent = (0..10)
            .filter(|_| session.outbound(&oob("getinfo xxx")).is_ok())
            .count();
        assert_eq!(sent, UNVALIDATED_PACKETS as usize);
        let mut session = Egress::new(TargetKind::Server, QPORT);
        let big = oob(&alloc::format!("getinfo {}", "x".repeat(300)));
        assert!(session.outbound(&big).is_ok());
        assert_eq!(session.outbound(&big), Err(Refusal::UnvalidatedBudget));
    }

    #[test]
    fn a_challenge_response_opens_the_session_to_its_qport_only() {
        let mut session = Egress::new(TargetKind::Server, QPORT);
        // An answer nobody asked for validates nothing.
        session.inbound(&challenge_response());
        assert!(!session.validated());
        session.outbound(&oob("getchallenge")).unwrap();
        session.inbound(&oob("infoResponse\n\\a\\b"));
        assert!(!session.validated());
        session.inbound(&challenge_response());
        assert!(session.validated());
        assert_eq!(session.outbound(&sequenced(QPORT)), Ok(Passed::Sequenced));
        assert_eq!(
            session.outbound(&sequenced(QPORT + 1)),
            Err(Refusal::WrongQport {
                sent: Some(QPORT + 1),
                assigned: QPORT
            })
        );
        for _ in 0..100 {
            session.outbound(&sequenced(QPORT)).unwrap();
        }
        assert_eq!(session.outbound(&oob("rcon x status")), Err(Refusal::Rcon));
    }

    #[test]
    fn targets_are_public_unicast_and_not_reflectors() {
        let ip = |s: &str| s.parse::<Ipv4Addr>().unwrap();
        for special in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.0.1",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "0.0.0.0",
            "240.0.0.1",
            "192.0.2.1",
        ] {
            assert_eq!(
                check_address(ip(special), 28960, false),
                Err(Refusal::SpecialAddress(ip(special))),
                "{special}"
            );
        }
        assert_eq!(check_address(ip("8.8.8.8"), 28960, false), Ok(()));
        assert_eq!(check_address(ip("127.0.0.1"), 28960, true), Ok(()));
        assert_eq!(
            check_address(ip("224.0.0.1"), 28960, true),
            Err(Refusal::SpecialAddress(ip("224.0.0.1")))
        );
        assert_eq!(
            check_address(ip("8.8.8.8"), 53, true),
            Err(Refusal::ReflectorPort(53))
        );
        assert_eq!(check_address(ip("8.8.8.8"), 0, true), Err(Refusal::NoPort));
    }

    /// A datagram a page might send: allowed commands, forbidden ones, sequenced traffic with
    /// the right or a wrong qport, and noise.
    fn any_datagram() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(oob("getinfo xxx")),
            Just(oob("getstatus")),
            Just(oob("getchallenge")),
            Just(oob("rcon pass status")),
            Just(oob("getservers 22 full empty")),
            Just(connect("22", "4660")),
            Just(connect("22", "7")),
            Just(sequenced(QPORT)),
            Just(sequenced(7)),
            "[ -~]{0,40}".prop_map(|t| oob(&t)),
            proptest::collection::vec(any::<u8>(), 0..64),
        ]
    }

    proptest! {
        /// Whatever a page sends and whatever the target answers, what passes is an allowed
        /// command or, after a challengeResponse to a getchallenge, sequenced traffic with the
        /// session's qport; and before that, at most 4 datagrams and 512 bytes.
        #[test]
        fn only_allowed_traffic_passes_within_the_budget(
            steps in proptest::collection::vec((any_datagram(), any::<bool>()), 0..40),
            master in any::<bool>(),
        ) {
            let target = if master { TargetKind::Master } else { TargetKind::Server };
            let mut session = Egress::new(target, QPORT);
            let (mut packets, mut bytes, mut asked, mut validated) = (0u32, 0usize, false, false);
            for (datagram, answer) in steps {
                if let Ok(passed) = session.outbound(&datagram) {
                    if !validated {
                        packets += 1;
                        bytes += datagram.len();
                        prop_assert!(packets <= UNVALIDATED_PACKETS);
                        prop_assert!(bytes <= UNVALIDATED_BYTES);
                    }
                    match (passed, Packet::parse(&datagram)) {
                        (Passed::Sequenced, _) => {
                            prop_assert!(validated && target == TargetKind::Server);
                            let (h, _) = Header::parse(&datagram, Side::Client).unwrap();
                            prop_assert_eq!(h.qport, Some(QPORT));
                        }
                        (Passed::Connectionless, Ok(Packet::GetChallenge)) => asked = true,
                        (Passed::Connectionless, Ok(p)) => {
                            let allowed = matches!(
                                (target, p),
                                (TargetKind::Server, Packet::GetInfo { .. }
                                    | Packet::GetStatus { .. } | Packet::Connect { .. })
                                    | (TargetKind::Master, Packet::GetServers(_))
                            );
                            prop_assert!(allowed);
                        }
                        (Passed::Connectionless, Err(_)) => prop_assert!(false, "unparsed passed"),
                    }
                }
                if answer {
                    session.inbound(&challenge_response());
                    validated |= asked;
                }
                prop_assert_eq!(session.validated(), validated);
            }
        }
    }
}
