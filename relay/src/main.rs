//! `muster`: the relay and its command-line tools.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use relay::{PollerConfig, Relay, ServeConfig, DEFAULT_MASTERS};

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Muster: a server browser and spectator relay for CoD:UO 1.51"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Poll masters and servers, and serve the page, the JSON API and the live feed.
    Serve(Box<ServeArgs>),
    /// Query servers once: getinfo and getstatus, with players, cvars and ping. Addresses are
    /// read from stdin, one per line, when none are given.
    Query(QueryArgs),
    /// Ask masters for their server lists, merged, each server with the masters that listed it.
    Master(MasterArgs),
    /// Find servers on the LAN with the stock broadcast probe (ports 28960-28963).
    Scan(ScanArgs),
    /// What a server will deliver to a player: packets, user commands and snapshots per
    /// second from the cvars, with the tuning guide's advice. Stock defaults where a flag is
    /// absent; with a server address, its published sv_fps and sv_maxRate.
    Tune(TuneArgs),
    /// Join a server as a spectator and print the match as it arrives: state changes,
    /// configstrings, server commands, and per snapshot the players and entities with
    /// positions. Leaves cleanly after --duration, or runs until the server drops the session.
    Spectate(SpectateArgs),
    /// Dissect captured datagrams (hex on stdin, one per line, optionally prefixed c2s or s2c)
    /// into JSON, one object per datagram.
    Wire(WireArgs),
    /// Join a server as a spectator and record the match as a stock .dm_3 demo (one file per
    /// map), then print what was written.
    Record(RecordArgs),
    /// Run a master server: heartbeats verified by challenge, lists for stock clients, QStat
    /// and relays, with limits on by default.
    MasterServer(MasterServerArgs),
    /// Read demo files.
    Demo {
        #[command(subcommand)]
        tool: DemoTool,
    },
}

#[derive(Parser, Debug)]
struct MasterServerArgs {
    /// Where the master listens (stock clients ask port 20610).
    #[arg(long, default_value = "0.0.0.0:20610")]
    listen: SocketAddr,
    /// Accept heartbeats and queries from private and loopback addresses (a LAN, the lab).
    #[arg(long = "allow-private")]
    allow_private: bool,
    #[command(flatten)]
    master: MasterFlags,
}

/// The master's limits and federation, shared by `master-server` and `serve --master-listen`.
#[derive(clap::Args, Debug, Clone)]
struct MasterFlags {
    /// Servers listed at once, in all.
    #[arg(long = "master-max-servers", value_name = "N", default_value_t = 4096)]
    max_servers: usize,
    /// Servers listed at once from one IP address.
    #[arg(
        long = "master-max-per-address",
        value_name = "N",
        default_value_t = 32
    )]
    max_per_address: usize,
    /// Seconds a server stays listed after its last verified answer.
    #[arg(long = "master-timeout", value_name = "SECS", default_value_t = 900)]
    timeout: u64,
    /// getservers a client address may send at once, then one a second; 0 turns the flood
    /// limit off.
    #[arg(long = "master-flood-burst", value_name = "N", default_value_t = 4)]
    flood_burst: u32,
    /// Also list the servers this master lists, each verified by our own challenge first;
    /// repeat for more.
    #[arg(long = "federate", value_name = "HOST:PORT")]
    federate: Vec<String>,
}

impl MasterFlags {
    fn config(&self, allow_private: bool) -> protocol::cod::master_server::MasterConfig {
        use protocol::cod::master_server::{Flood, MasterConfig};
        MasterConfig {
            max_servers: self.max_servers,
            max_per_address: self.max_per_address,
            timeout_ms: self.timeout.max(1).saturating_mul(1000),
            flood: (self.flood_burst > 0).then_some(Flood {
                burst: self.flood_burst,
                refill_ms: 1000,
            }),
            allow_private,
            ..MasterConfig::default()
        }
    }
}

async fn master_server(args: MasterServerArgs) -> anyhow::Result<()> {
    let config = args.master.config(args.allow_private);
    let (master, _task) =
        relay::master_server::start(args.listen, config, args.master.federate.clone()).await?;
    println!("muster: master listening on {}", master.addr);
    tokio::signal::ctrl_c().await?;
    Ok(())
}

#[derive(Parser, Debug)]
struct RecordArgs {
    /// The server, HOST[:PORT] (default port 28960).
    server: String,
    /// The first file (later maps add -MAP); default: demos/DATE-TIME-SERVER-MAP.dm_3.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Seconds to record before leaving cleanly; default: until the server drops the session.
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
    /// The recording stops, with its end marker, before its files reach this many MB.
    #[arg(long = "record-max-mb", default_value_t = 256)]
    record_max_mb: u64,
    /// The userinfo name.
    #[arg(long, default_value = "Muster")]
    name: String,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum DemoTool {
    /// Map, duration, players and kills of a .dm_3.
    Info {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

async fn record(args: RecordArgs) -> anyhow::Result<()> {
    let addrs = relay::cli::resolve(&args.server, protocol::cod::DEFAULT_SERVER_PORT).await?;
    let server = SocketAddr::V4(addrs[0]);
    let target = relay::record::RecordTarget {
        dir: PathBuf::from("demos"),
        server: server.to_string().replace(':', "_"),
        out: args.out,
        max_bytes: args.record_max_mb.saturating_mul(1_000_000),
    };
    let options = relay::spectate::SpectateOptions {
        name: args.name,
        duration: args
            .duration
            .map(|secs| Duration::from_secs_f64(secs.max(0.0))),
        record: Some(target),
        ..Default::default()
    };
    let mut reason = None;
    let recorder = relay::spectate::spectate(server, options, |line| {
        if line["type"] == "disconnect" {
            reason = line["reason"].as_str().map(String::from);
        }
        Ok(())
    })
    .await?;
    let recorder = recorder.context("no recording")?;
    if recorder.written().is_empty() {
        anyhow::bail!(
            "nothing recorded: {}",
            reason
                .as_deref()
                .unwrap_or("the session never became active")
        );
    }
    let summary = relay::demo::recorded_json(recorder.written(), recorder.stopped.as_deref())?;
    if args.json {
        out(serde_json::to_string_pretty(&summary)?)?;
    } else {
        for demo in summary["demos"].as_array().into_iter().flatten() {
            out(format!(
                "{}: {}, {} bytes, {} records, {:.1} s, {} players, {} kills",
                demo["path"].as_str().unwrap_or_default(),
                demo["map"].as_str().unwrap_or_default(),
                demo["bytes"],
                demo["records"],
                demo["duration_ms"].as_f64().unwrap_or(0.0) / 1000.0,
                demo["players"].as_array().map_or(0, Vec::len),
                demo["kills"],
            ))?;
        }
        if let Some(stopped) = &recorder.stopped {
            out(format!("stopped: {stopped}"))?;
        }
    }
    Ok(())
}

fn demo(tool: DemoTool) -> anyhow::Result<()> {
    match tool {
        DemoTool::Info { file, json } => {
            let summary = relay::demo::summary(&file)?;
            if json {
                out(serde_json::to_string_pretty(&summary)?)?;
            } else {
                out(relay::demo::summary_text(&summary).trim_end())?;
            }
        }
    }
    Ok(())
}

#[derive(Parser, Debug)]
struct QueryArgs {
    /// Servers as HOST[:PORT] (default port 28960).
    addrs: Vec<String>,
    /// Also query every server this master lists (HOST[:PORT], default port 20610); repeat
    /// for more. The lists are merged, each server once.
    #[arg(long = "master", value_name = "HOST:PORT")]
    masters: Vec<String>,
    /// Packets per second sent, across all servers.
    #[arg(long, default_value_t = 5000.0)]
    rate: f64,
    /// Print one JSON array, one object per server, in input order.
    #[arg(long)]
    json: bool,
    /// In text output, list every cvar under each server.
    #[arg(long)]
    cvars: bool,
}

#[derive(Parser, Debug)]
struct SpectateArgs {
    /// The server, HOST[:PORT] (default port 28960).
    server: String,
    /// One JSON object per line, each with a "type": state, gamestate, configstring,
    /// server_command, snapshot, download, loadingnewmap, disconnect.
    #[arg(long)]
    json: bool,
    /// Seconds to watch before disconnecting cleanly.
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
    /// The userinfo name.
    #[arg(long, default_value = "Muster")]
    name: String,
    /// The userinfo rate, bytes per second (the server clamps it to 1000-90000).
    #[arg(long, default_value_t = 25000)]
    rate: u32,
    /// The userinfo snaps, snapshots per second (the server clamps it to 1-30).
    #[arg(long, default_value_t = 20)]
    snaps: u32,
    /// Fetch this server-relative file in-band once active; repeat for more.
    #[arg(long = "download", value_name = "FILE")]
    downloads: Vec<String>,
    /// Where downloaded files are written.
    #[arg(long = "download-dir", default_value = ".")]
    download_dir: PathBuf,
    /// Stay in free-fly instead of pressing fire to cycle through the players (a stock server
    /// sends a spectator only what is visible from its view point).
    #[arg(long)]
    free: bool,
}

async fn spectate(args: SpectateArgs) -> anyhow::Result<()> {
    let addrs = relay::cli::resolve(&args.server, protocol::cod::DEFAULT_SERVER_PORT).await?;
    let options = relay::spectate::SpectateOptions {
        name: args.name,
        rate: args.rate,
        snaps: args.snaps,
        duration: args
            .duration
            .map(|secs| Duration::from_secs_f64(secs.max(0.0))),
        downloads: args.downloads,
        download_dir: args.download_dir,
        follow: !args.free,
        record: None,
    };
    let json = args.json;
    relay::spectate::spectate(SocketAddr::V4(addrs[0]), options, |line| {
        if json {
            out(line)
        } else {
            out(relay::spectate::event_text(&line))
        }
    })
    .await?;
    Ok(())
}

#[derive(Parser, Debug)]
struct TuneArgs {
    /// A server to read sv_fps and sv_maxRate from (HOST[:PORT]); flags still override.
    server: Option<String>,
    #[arg(long = "com-maxfps", allow_hyphen_values = true)]
    com_maxfps: Option<i32>,
    #[arg(long = "cl-maxpackets", allow_hyphen_values = true)]
    cl_maxpackets: Option<i32>,
    #[arg(long = "cl-packetdup", allow_hyphen_values = true)]
    cl_packetdup: Option<i32>,
    #[arg(long, allow_hyphen_values = true)]
    rate: Option<i32>,
    #[arg(long, allow_hyphen_values = true)]
    snaps: Option<i32>,
    #[arg(long = "cl-timenudge", allow_hyphen_values = true)]
    cl_timenudge: Option<i32>,
    #[arg(long = "sv-fps", allow_hyphen_values = true)]
    sv_fps: Option<i32>,
    #[arg(long = "sv-maxrate", allow_hyphen_values = true)]
    sv_maxrate: Option<i32>,
    /// Compressed snapshot size in bytes (the scheduler charges at most 1,500).
    #[arg(long = "packet-size", default_value_t = 1500)]
    packet_size: u32,
    /// The server is on the LAN or loopback: both pacing gates are bypassed.
    #[arg(long)]
    lan: bool,
    #[arg(long)]
    json: bool,
}

async fn tune(args: TuneArgs) -> anyhow::Result<()> {
    use protocol::cod::tuning::ClientSettings;
    let stock = ClientSettings::default();
    let client = ClientSettings {
        com_maxfps: args.com_maxfps.unwrap_or(stock.com_maxfps),
        cl_maxpackets: args.cl_maxpackets.unwrap_or(stock.cl_maxpackets),
        cl_packetdup: args.cl_packetdup.unwrap_or(stock.cl_packetdup),
        rate: args.rate.unwrap_or(stock.rate),
        snaps: args.snaps.unwrap_or(stock.snaps),
        cl_time_nudge: args.cl_timenudge.unwrap_or(stock.cl_time_nudge),
        lan: args.lan,
    };
    let mut server = relay::tune::ServerSource::stock();
    if let Some(target) = &args.server {
        let addrs = relay::cli::resolve(target, protocol::cod::DEFAULT_SERVER_PORT).await?;
        let results = relay::cli::query(&addrs[..1], Default::default()).await?;
        server = relay::tune::ServerSource::from_query(&results[0])?;
    }
    server.override_with(args.sv_fps, args.sv_maxrate);
    let report = relay::tune::report(&client, &server, args.packet_size);
    if args.json {
        out(serde_json::to_string_pretty(&report)?)?;
    } else {
        out(relay::tune::text(&report).trim_end())?;
    }
    Ok(())
}

#[derive(Parser, Debug)]
struct MasterArgs {
    /// Masters as HOST[:PORT] (default port 20610).
    #[arg(required = true)]
    masters: Vec<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Parser, Debug)]
struct ScanArgs {
    /// Where to send the probe; repeat for more.
    #[arg(long = "lan", value_name = "ADDR", default_value = "255.255.255.255")]
    lan: Vec<Ipv4Addr>,
    #[arg(long)]
    json: bool,
}

async fn query(args: QueryArgs) -> anyhow::Result<()> {
    use std::io::BufRead;
    let mut targets = args.addrs;
    let config = relay::query::EngineConfig {
        send_rate: args.rate.max(1.0),
        ..Default::default()
    };
    if args.masters.is_empty() && targets.is_empty() {
        for line in std::io::stdin().lock().lines() {
            let line = line?;
            if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
                targets.push(line);
            }
        }
    }
    let mut addrs = Vec::new();
    for target in &targets {
        addrs.extend(relay::cli::resolve(target, protocol::cod::DEFAULT_SERVER_PORT).await?);
    }
    let results = if args.masters.is_empty() {
        relay::cli::query(&addrs, config).await?
    } else {
        let names = resolve_masters(&args.masters).await?;
        let (listing, results) = relay::cli::survey(&names, &addrs, config).await?;
        report_masters(&listing);
        results
    };
    if args.json {
        out(serde_json::to_string_pretty(&results)?)?;
    } else {
        let text = relay::cli::query_text(&results, args.cvars);
        if !text.is_empty() {
            out(text.trim_end())?;
        }
    }
    eprintln!("{}", relay::cli::query_summary(&results));
    Ok(())
}

async fn resolve_masters(
    masters: &[String],
) -> anyhow::Result<Vec<(String, Vec<std::net::SocketAddrV4>)>> {
    let mut names = Vec::new();
    for name in masters {
        let addrs = relay::cli::resolve(name, protocol::cod::MASTER_PORT).await?;
        names.push((name.clone(), addrs));
    }
    Ok(names)
}

/// One line per master on stderr: how its list went.
fn report_masters(listing: &relay::cli::MasterListing) {
    for m in &listing.masters {
        let state = match &m.error {
            Some(e) => e.clone(),
            None if m.complete => format!("{} servers in {} packets", m.servers, m.packets),
            None => format!("{} servers in {} packets, no \\EOF", m.servers, m.packets),
        };
        eprintln!("{} ({}): {state}", m.master, m.addr);
    }
}

async fn master(args: MasterArgs) -> anyhow::Result<()> {
    let names = resolve_masters(&args.masters).await?;
    let listing = relay::cli::masters(&names, Default::default()).await?;
    if args.json {
        out(serde_json::to_string_pretty(&listing)?)?;
    } else {
        for server in &listing.servers {
            out(&server.addr)?;
        }
    }
    report_masters(&listing);
    Ok(())
}

async fn scan(args: ScanArgs) -> anyhow::Result<()> {
    let found = relay::cli::scan(&args.lan, Default::default()).await?;
    if args.json {
        out(serde_json::to_string_pretty(&found)?)?;
    } else {
        for s in &found {
            out(format_args!(
                "{:<21} {:>2}/{:<2}  {:<16} {:<5} {}",
                s.addr,
                s.clients,
                s.max_clients,
                s.map,
                s.gametype,
                protocol::cod::text::strip(&s.hostname)
            ))?;
        }
    }
    eprintln!("{} servers on the LAN", found.len());
    Ok(())
}

#[derive(Parser, Debug)]
struct WireArgs {
    #[command(subcommand)]
    tool: Option<WireTool>,
    /// Who sent the lines that carry no c2s/s2c prefix.
    #[arg(long, value_enum, default_value_t = Sender::Client)]
    from: Sender,
    /// The connection's challenge: un-XOR and decompress sequenced bodies.
    #[arg(long, allow_hyphen_values = true)]
    challenge: Option<i32>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Sender {
    Client,
    Server,
}

#[derive(Subcommand, Debug)]
enum WireTool {
    /// Run a Huffman codec over hex on stdin; prints hex.
    Huffman {
        #[arg(value_enum)]
        direction: HuffmanDirection,
        /// The adaptive codec of the connect tail (2-byte length header).
        #[arg(long, conflicts_with = "fixed", required_unless_present = "fixed")]
        adaptive: bool,
        /// The fixed tree of sequenced message bodies.
        #[arg(long)]
        fixed: bool,
    },
    /// Dissect Wulfram II traffic: TCP frames or UDP records, as JSON lines.
    Wulfram(WulframArgs),
    /// Dissect a .dm_3 demo: each record's server message as JSON, one object per line.
    Demo { file: PathBuf },
}

#[derive(Parser, Debug)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["tcp", "udp"])))]
struct WulframArgs {
    /// A TCP byte stream in hex (lines may split it between any two bytes): one object per frame.
    #[arg(long)]
    tcp: bool,
    /// One hex datagram per line: one object per record.
    #[arg(long)]
    udp: bool,
    /// An opcode's stream mode, as OPCODE=MODE (0x35=latest, 31=3); repeat. Others are raw.
    #[arg(long = "mode", value_name = "OPCODE=MODE", value_parser = relay::wulfram_wire::parse_mode)]
    modes: Vec<(u8, protocol::wulfram::record::StreamMode)>,
    /// Mode 2's header layout, an open question: seq-and-length (as modes 1 and 3) or seq-only.
    #[arg(long = "mode2-header", value_enum, default_value_t = Mode2Layout::SeqAndLength)]
    mode2_header: Mode2Layout,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Mode2Layout {
    SeqAndLength,
    SeqOnly,
}

fn wulfram_wire(args: WulframArgs) -> anyhow::Result<()> {
    use std::io::BufRead;
    if args.tcp {
        let mut dissector = relay::wulfram_wire::TcpDissector::default();
        for line in std::io::stdin().lock().lines() {
            for value in dissector.line(&line?) {
                out(value)?;
            }
        }
        if let Some(value) = dissector.finish() {
            out(value)?;
        }
        return Ok(());
    }
    let mut table = protocol::wulfram::record::ModeTable::default();
    for (opcode, mode) in args.modes {
        table.set(opcode, mode);
    }
    table.mode2 = match args.mode2_header {
        Mode2Layout::SeqAndLength => protocol::wulfram::record::Mode2Header::SeqAndLength,
        Mode2Layout::SeqOnly => protocol::wulfram::record::Mode2Header::SeqOnly,
    };
    let lines = std::io::stdin().lock().lines();
    for (index, line) in lines.enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        for value in relay::wulfram_wire::udp_line(index, &line, &table) {
            out(value)?;
        }
    }
    Ok(())
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum HuffmanDirection {
    Encode,
    Decode,
}

fn wire(args: WireArgs) -> anyhow::Result<()> {
    use std::io::{BufRead, Read};
    match args.tool {
        Some(WireTool::Huffman {
            direction,
            adaptive,
            ..
        }) => {
            let mut input = String::new();
            std::io::stdin().read_to_string(&mut input)?;
            let codec = if adaptive {
                relay::wire::Codec::Adaptive
            } else {
                relay::wire::Codec::Fixed
            };
            let encode = matches!(direction, HuffmanDirection::Encode);
            let hex = relay::wire::huffman(codec, encode, &input).map_err(anyhow::Error::msg)?;
            out(&hex)?;
        }
        Some(WireTool::Wulfram(args)) => wulfram_wire(args)?,
        Some(WireTool::Demo { file }) => relay::demo::dissect(&file, out)?,
        None => {
            let from = match args.from {
                Sender::Client => protocol::cod::netchan::Side::Client,
                Sender::Server => protocol::cod::netchan::Side::Server,
            };
            let mut dissector = relay::wire::Dissector::new(from, args.challenge);
            for line in std::io::stdin().lock().lines() {
                if let Some(value) = dissector.line(&line?) {
                    out(&value)?;
                }
            }
        }
    }
    Ok(())
}

#[derive(Parser, Debug)]
struct ServeArgs {
    /// Address for the page, the API and the WebSocket.
    #[arg(long, env = "MUSTER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// A master to poll, as HOST:PORT; repeat for more.
    #[arg(long = "master", value_name = "HOST:PORT")]
    masters: Vec<String>,
    /// Poll only the masters given with --master.
    #[arg(long)]
    no_default_masters: bool,
    /// Where the LAN scan sends `getinfo xxx` (ports 28960-28963); repeat for more.
    #[arg(long = "lan", value_name = "ADDR", default_value = "255.255.255.255")]
    lan: Vec<Ipv4Addr>,
    /// Do not scan the LAN.
    #[arg(long)]
    no_lan: bool,
    /// A server to poll even if no master lists it; repeat for more.
    #[arg(long = "server", value_name = "IP:PORT")]
    servers: Vec<SocketAddrV4>,
    /// The directory the page was built into.
    #[arg(long, env = "MUSTER_DIST", default_value = "dist")]
    dist: PathBuf,
    /// Seconds between master polls.
    #[arg(long, default_value_t = 300)]
    master_interval: u64,
    /// Seconds between refreshes of every server.
    #[arg(long, default_value_t = 20)]
    refresh_interval: u64,
    /// Seconds between LAN scans.
    #[arg(long, default_value_t = 60)]
    lan_interval: u64,
    /// A Wulfram II server pages may open sessions to, as NAME=HOST[:PORT] (port 2627); repeat
    /// for more. The relay proxies only to these.
    #[arg(long = "wulfram", value_name = "NAME=HOST[:PORT]")]
    wulfram: Vec<String>,
    /// Seconds between checks of the Wulfram II servers.
    #[arg(long, default_value_t = 30)]
    wulfram_interval: u64,
    /// The broadcast delay of every spectator hub, in seconds (0 to 300; 0 only with the
    /// server admin's consent).
    #[arg(long = "spectate-delay", value_name = "SECS", default_value_t = 30.0)]
    spectate_delay: f64,
    /// Spectator hubs (one server slot each) at once.
    #[arg(long = "max-hubs", default_value_t = 16)]
    max_hubs: usize,
    /// Seconds a hub stays after its last viewer leaves.
    #[arg(long = "spectate-grace", value_name = "SECS", default_value_t = 30.0)]
    spectate_grace: f64,
    /// The name hubs join servers with.
    #[arg(long = "spectator-name", default_value = "Muster")]
    spectator_name: String,
    /// An overview image for a map's watch view, with the world coordinates of its top-left
    /// and bottom-right corners; repeat for more maps.
    #[arg(long = "overview", value_name = "MAP=FILE,x0,y0,x1,y1",
          value_parser = relay::spectate::OverviewFile::parse)]
    overviews: Vec<relay::spectate::OverviewFile>,
    /// An origin (`https://example.org`) besides the relay's own whose pages may open its
    /// WebSockets; repeat for more.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// Let the bridge reach private and loopback servers (a LAN, the lab on 127.0.0.1);
    /// multicast, broadcast and reflector ports stay refused.
    #[arg(long = "allow-private")]
    allow_private: bool,
    /// A reverse proxy whose `X-Forwarded-For` names the client; repeat for more.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Bridge sessions open at once, in all.
    #[arg(long = "bridge-sessions", value_name = "N", default_value_t = 256)]
    bridge_sessions: usize,
    /// Bridge sessions open at once from one client address.
    #[arg(long = "bridge-sessions-per-ip", value_name = "N", default_value_t = 4)]
    bridge_sessions_per_ip: usize,
    /// Seconds without a datagram either way before a bridge session is closed.
    #[arg(long = "bridge-idle", value_name = "SECS", default_value_t = 30)]
    bridge_idle: u64,
    /// Datagrams a second one client address may send through the bridge.
    #[arg(long = "bridge-client-rate", value_name = "N", default_value_t = 100)]
    bridge_client_rate: u32,
    /// Datagrams a second through the whole bridge.
    #[arg(long = "bridge-rate", value_name = "N", default_value_t = 5000)]
    bridge_rate: u32,
    /// Where hubs record demos when the operator asks (the Record button, or POST
    /// /api/spectate/ADDR/record); the finished ones are listed at /api/demos.
    #[arg(long = "record-dir", value_name = "DIR")]
    record_dir: Option<PathBuf>,
    /// One recording stops, with its end marker, before its files reach this many MB.
    #[arg(long = "record-max-mb", default_value_t = 256)]
    record_max_mb: u64,
    /// The secret the relay's operator gives to start and stop recordings (as a Bearer
    /// token); without it nobody can.
    #[arg(
        long = "operator-token",
        env = "MUSTER_OPERATOR_TOKEN",
        value_name = "TOKEN"
    )]
    operator_token: Option<String>,
    /// Also be a master server on this address (stock: 0.0.0.0:20610); the relay lists its
    /// servers too, and `GET /api/master` shows them. `--allow-private` applies to it.
    #[arg(long = "master-listen", value_name = "ADDR")]
    master_listen: Option<SocketAddr>,
    #[command(flatten)]
    master: MasterFlags,
}

impl ServeArgs {
    async fn into_config(self) -> anyhow::Result<ServeConfig> {
        let mut wulfram = Vec::new();
        for target in &self.wulfram {
            wulfram.push(relay::wulfram::parse_target(target).await?);
        }
        let mut masters: Vec<String> = if self.no_default_masters {
            Vec::new()
        } else {
            DEFAULT_MASTERS.iter().map(|m| m.to_string()).collect()
        };
        masters.extend(self.masters);
        let spectate = relay::spectate::SpectateConfig {
            max_hubs: self.max_hubs,
            grace: Duration::from_secs_f64(self.spectate_grace.clamp(0.0, 3600.0)),
            name: self.spectator_name,
            delay: Duration::from_secs_f64(self.spectate_delay.clamp(0.0, 300.0)),
            overviews: self.overviews,
            recording: self.record_dir.map(|dir| relay::spectate::RecordConfig {
                dir,
                max_bytes: self.record_max_mb.saturating_mul(1_000_000),
            }),
            ..Default::default()
        };
        let bridge = relay::bridge::BridgeConfig {
            allow_private: self.allow_private,
            trusted_proxies: self.trusted_proxies,
            max_sessions: self.bridge_sessions,
            sessions_per_ip: self.bridge_sessions_per_ip,
            idle: Duration::from_secs(self.bridge_idle.clamp(1, 3600)),
            masters: Vec::new(),
            client_rate: self.bridge_client_rate,
            global_rate: self.bridge_rate,
        };
        let master = self.master_listen.map(|listen| relay::MasterListen {
            listen,
            config: self.master.config(self.allow_private),
            federate: self.master.federate.clone(),
        });
        Ok(ServeConfig {
            master,
            operator_token: self.operator_token.filter(|t| !t.is_empty()),
            bridge,
            spectate,
            allowed_origins: self.allowed_origins,
            listen: self.listen,
            dist: self.dist,
            wulfram,
            wulfram_check: Duration::from_secs(self.wulfram_interval.max(1)),
            poller: PollerConfig {
                masters,
                lan: if self.no_lan { Vec::new() } else { self.lan },
                servers: self.servers,
                master_interval: Duration::from_secs(self.master_interval.max(10)),
                refresh_interval: Duration::from_secs(self.refresh_interval.max(1)),
                lan_interval: Duration::from_secs(self.lan_interval.max(5)),
                ..PollerConfig::default()
            },
        })
    }
}

/// Writes command output; a reader that went away (`| head`) ends the output quietly instead
/// of panicking as `println!` does.
fn out(text: impl std::fmt::Display) -> anyhow::Result<()> {
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{text}") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        result => Ok(result?),
    }
}

/// jemalloc, configured in `.cargo/config.toml` to give memory back soon after it is freed.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let command = Cli::parse().command;
    // The relay serves many pages at once; a one-shot tool does its work on one thread, which
    // costs less CPU than handing every datagram between threads.
    let runtime = match command {
        Command::Serve(_) => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    }
    .enable_all()
    .build()?;
    runtime.block_on(async {
        match command {
            Command::Serve(args) => {
                let relay = Relay::start(args.into_config().await?).await?;
                println!("muster: serving http://{}/", relay.addr);
                tokio::signal::ctrl_c().await?;
            }
            Command::Wire(args) => wire(args)?,
            Command::Query(args) => query(args).await?,
            Command::Master(args) => master(args).await?,
            Command::Scan(args) => scan(args).await?,
            Command::Tune(args) => tune(args).await?,
            Command::Spectate(args) => spectate(args).await?,
            Command::Record(args) => record(args).await?,
            Command::MasterServer(args) => master_server(args).await?,
            Command::Demo { tool } => demo(tool)?,
        }
        Ok(())
    })
}
