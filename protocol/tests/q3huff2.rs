//! Differential tests against ioquake3's own Huffman code (q3huff2), on thousands of random
//! inputs, both codecs, both directions. Run by `cargo xtask test`, which installs q3huff2.

mod common;

use common::{hex, unhex};

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRng, TestRunner};
use protocol::cod::huffman::{adaptive, fixed};

const CASES: usize = 3000;

/// Asks the oracle every question in one process, one line each.
fn oracle(questions: &[String]) -> Vec<Vec<u8>> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/q3huff2_oracle.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = questions.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let answers: Vec<Vec<u8>> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| unhex(l.unwrap().trim()))
        .collect();
    writer.join().unwrap().unwrap();
    assert!(
        child.wait().unwrap().success(),
        "oracle failed (is q3huff2 installed?)"
    );
    assert_eq!(answers.len(), questions.len());
    answers
}

/// Random buffers shaped like game traffic: mostly small values and text, some noise.
fn inputs(max_len: usize) -> Vec<Vec<u8>> {
    let strategy = prop_oneof![
        proptest::collection::vec(any::<u8>(), 1..max_len),
        proptest::collection::vec(0u8..16, 1..max_len),
        "[ -~]{1,200}".prop_map(String::into_bytes),
    ];
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[22; 32]),
    );
    (0..CASES)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

#[test]
#[ignore = "needs q3huff2; run by cargo xtask test"]
fn fixed_tree_matches_ioquake3_both_ways() {
    let inputs = inputs(1400);
    let ours: Vec<Vec<u8>> = inputs.iter().map(|i| fixed::compress(i)).collect();
    // ioquake3's bit writer counts `(bits >> 3) + 1` bytes, one zero byte more than stock UO's
    // ceil(bits / 8) when the codes end on a byte boundary, and its reader needs that byte.
    let aligned: Vec<bool> = inputs
        .iter()
        .map(|i| i.iter().map(|&b| fixed::code(b).1).sum::<u32>() % 8 == 0)
        .collect();
    let questions: Vec<String> = inputs
        .iter()
        .map(|i| format!("fixed-compress {}", hex(i)))
        .chain(ours.iter().zip(&inputs).zip(&aligned).map(|((c, i), &a)| {
            let framed = if a { hex(c) + "00" } else { hex(c) };
            format!("fixed-decompress {framed} {}", i.len())
        }))
        .collect();
    let answers = oracle(&questions);
    let (theirs, their_reads) = answers.split_at(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let mut expected = theirs[i].clone();
        if aligned[i] {
            assert_eq!(expected.pop(), Some(0), "ioquake3's extra byte");
        }
        assert_eq!(ours[i], expected, "compressing {}", hex(input));
        assert_eq!(&their_reads[i], input, "ioquake3 reading ours");
        let back = fixed::decompress(&theirs[i], 1 << 16).unwrap();
        assert!(
            back.starts_with(input),
            "reading ioquake3's {}",
            hex(&theirs[i])
        );
    }
}

#[test]
#[ignore = "needs q3huff2; run by cargo xtask test"]
fn adaptive_codec_matches_ioquake3_both_ways() {
    let inputs = inputs(1024);
    let ours: Vec<Vec<u8>> = inputs
        .iter()
        .map(|i| adaptive::compress(i).unwrap())
        .collect();
    let questions: Vec<String> = inputs
        .iter()
        .map(|i| format!("adaptive-compress {}", hex(i)))
        .chain(
            ours.iter()
                .map(|c| format!("adaptive-decompress {}", hex(c))),
        )
        .collect();
    let answers = oracle(&questions);
    let (theirs, their_reads) = answers.split_at(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        // ioquake3 leaves the spare byte of a byte-aligned stream uninitialised.
        assert_eq!(ours[i].len(), theirs[i].len(), "length for {}", hex(input));
        let n = ours[i].len() - 1;
        assert_eq!(ours[i][..n], theirs[i][..n], "compressing {}", hex(input));
        assert_eq!(&their_reads[i], input, "ioquake3 reading ours");
        assert_eq!(&adaptive::decompress(&theirs[i], 1 << 16).unwrap(), input);
    }
}

/// Our outline of a demo, as the oracle writes ioquake3's.
fn our_outline(demo: &[u8]) -> String {
    use protocol::cod::demo::{Playback, Records};
    use protocol::cod::stream::{Heard, Said};
    let mut lines = Vec::new();
    let mut records = Records::new(demo);
    let mut playback = Playback::new();
    for record in records.by_ref() {
        let record = record.unwrap();
        let mut parts = vec![format!("r{}", record.sequence)];
        for heard in playback.read(&record).unwrap() {
            match heard {
                Heard::Said(Said::ServerCommand { sequence, text }) => {
                    parts.push(format!("c{sequence}:{text}"))
                }
                Heard::Said(Said::Gamestate(g)) => {
                    parts.push(format!("g{}", g.server_command_sequence));
                    for (index, value) in &g.configstrings {
                        parts.push(format!("cs{index}={value}"));
                    }
                }
                Heard::Said(Said::Snapshot(s)) => {
                    parts.push(format!("s{}/{}", s.server_time, s.delta_num))
                }
                _ => {}
            }
        }
        lines.push(parts.join(" "));
    }
    if records.ended {
        lines.push("end".into());
    }
    lines.join("\n")
}

#[test]
#[ignore = "needs q3huff2; run by cargo xtask test"]
fn a_moment_cut_from_a_reel_reads_in_ioquake3s_demo_loop_as_in_ours() {
    use protocol::cod::entity::EntityState;
    use protocol::cod::gamestate::{Gamestate, CS_SERVERINFO};
    use protocol::cod::reel::{Reel, ReelLimits};
    use protocol::cod::snapshot::Snapshot;
    let mut reel = Reel::new(ReelLimits {
        span_ms: 60_000,
        keyframe_every_ms: 5_000,
    });
    let mut gamestate = Gamestate {
        server_command_sequence: 40,
        ..Gamestate::default()
    };
    gamestate
        .configstrings
        .insert(CS_SERVERINFO, "\\mapname\\mp_foy\\g_gametype\\sd".into());
    gamestate.configstrings.insert(1200, "Sgt. Ivan".into());
    gamestate.baselines.insert(5, EntityState::zero(5));
    reel.gamestate(&gamestate);
    let mut command = 40;
    for n in 0..300 {
        if n % 25 == 0 {
            command += 1;
            reel.command(command, &format!("print \"round {n}\""));
        }
        let mut snapshot = Snapshot {
            server_time: 20_000 + n * 50,
            ..Snapshot::default()
        };
        let mut entity = EntityState::zero(5);
        entity.set_origin([n as f32, -(n as f32), 16.0]);
        snapshot.entities.insert(5, entity);
        reel.snapshot(&snapshot);
    }
    // From between keyframes to near the end: the first snapshot whole, the rest deltas.
    let cut = reel.cut(20_000 + 133 * 50, 20_000 + 290 * 50).unwrap();
    let theirs = oracle(&[format!("demo-outline {}", hex(&cut.demo))]);
    let theirs = String::from_utf8(theirs[0].clone()).unwrap();
    let ours = our_outline(&cut.demo);
    assert_eq!(theirs, ours);
    assert!(ours.starts_with("r"), "{ours}");
    assert_eq!(ours.matches(" s").count() as u32, cut.snapshots);
    assert!(
        ours.contains(&format!("s{}/0", 20_000 + 133 * 50)),
        "the first is whole"
    );
    assert!(ours.ends_with("end"));
}
