//! `muster serve`: the relay. Each capability brings its own flags; the ones here are the
//! relay's own or shared by several capabilities.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use super::out;
use crate::alerts::AlertsArgs;
use crate::bridge::BridgeArgs;
use crate::browse::BrowseArgs;
use crate::cluster::ClusterArgs;
use crate::demos::DemosArgs;
use crate::edge::{EdgeArgs, EdgeConfig};
use crate::geo::GeoArgs;
use crate::highlights::HighlightsArgs;
use crate::history::HistoryArgs;
use crate::master::MasterArgs;
use crate::matches::MatchesArgs;
use crate::moments::MomentsArgs;
use crate::owners::OwnersArgs;
use crate::rcon::RconArgs;
use crate::rewind::RewindArgs;
use crate::spectate::SpectateArgs;
use crate::wulfram::WulframArgs;
use crate::{Relay, ServeConfig};

/// Poll masters and servers, and serve the page, the JSON API and the live feed.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address for the page, the API and the sockets, IPv4 (`0.0.0.0:8080`) or IPv6
    /// (`[::]:8080`); repeat for more (the environment variable takes a comma-separated list).
    #[arg(
        long,
        env = "MUSTER_LISTEN",
        default_value = "127.0.0.1:8080",
        value_delimiter = ','
    )]
    listen: Vec<SocketAddr>,
    /// The directory the page was built into.
    #[arg(long, env = "MUSTER_DIST", default_value = "dist")]
    dist: PathBuf,
    /// An origin (`https://example.org`) besides the relay's own whose pages may open its
    /// WebSockets; repeat for more.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// Let the bridge reach private and loopback servers (a LAN, the lab on 127.0.0.1), and
    /// the master list them; multicast, broadcast and reflector ports stay refused.
    #[arg(long = "allow-private")]
    allow_private: bool,
    /// A reverse proxy whose `X-Forwarded-For` names the client; repeat for more.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    trusted_proxies: Vec<IpAddr>,
    /// Also be a master server on this address (stock: 0.0.0.0:20610); the relay lists its
    /// servers too, and `GET /api/master` shows them. `--allow-private` applies to it.
    #[arg(long = "master-listen", value_name = "ADDR")]
    master_listen: Option<SocketAddr>,
    /// Read settings from this TOML file: its keys are the flags' names (`refresh-interval =
    /// 20`, `master = ["host:20610"]`, `no-lan = true`); flags and MUSTER_* variables win.
    #[arg(long, env = "MUSTER_CONFIG", value_name = "FILE")]
    config: Option<String>,
    /// Print the effective configuration (flags, environment, file, defaults) as TOML, and exit.
    #[arg(long)]
    print_config: bool,
    #[command(flatten)]
    edge: EdgeArgs,
    #[command(flatten)]
    browse: BrowseArgs,
    #[command(flatten)]
    spectate: SpectateArgs,
    #[command(flatten)]
    demos: DemosArgs,
    #[command(flatten)]
    bridge: BridgeArgs,
    #[command(flatten)]
    wulfram: WulframArgs,
    #[command(flatten)]
    master: MasterArgs,
    #[command(flatten)]
    history: HistoryArgs,
    #[command(flatten)]
    matches: MatchesArgs,
    #[command(flatten)]
    rewind: RewindArgs,
    #[command(flatten)]
    moments: MomentsArgs,
    #[command(flatten)]
    highlights: HighlightsArgs,
    #[command(flatten)]
    alerts: AlertsArgs,
    #[command(flatten)]
    geo: GeoArgs,
    #[command(flatten)]
    owners: OwnersArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    rcon: RconArgs,
}

impl Args {
    /// The relay's configuration, each capability's from its own flags.
    pub async fn config(self) -> anyhow::Result<ServeConfig> {
        Ok(ServeConfig {
            listen: self.listen,
            edge: EdgeConfig {
                limits: self.edge.limits(),
                trusted_proxies: self.trusted_proxies.clone(),
            },
            dist: self.dist,
            allowed_origins: self.allowed_origins,
            poller: self.browse.config(),
            spectate: self.spectate.config(),
            recording: self.demos.recording(),
            operator_token: self.demos.operator_token(),
            bridge: self
                .bridge
                .config(self.allow_private, self.trusted_proxies.clone()),
            rcon: self.rcon.config(self.trusted_proxies),
            wulfram: self.wulfram.config().await?,
            master: self
                .master_listen
                .map(|listen| self.master.listen(listen, self.allow_private)),
            history: self.history.config(),
            cluster: self.cluster.config(),
            matches: self.matches.config(),
            rewind: self.rewind.config(),
            moments: self.moments,
            highlights: self.highlights,
            alerts: self.alerts,
            geo: self.geo,
            owners: self.owners,
        })
    }
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let relay = Relay::start(args.config().await?).await?;
    for addr in &relay.addrs {
        out(format_args!("muster: serving http://{addr}/"))?;
    }
    super::notify::ready(&relay.addrs);
    let signal = stop_signal().await?;
    tracing::info!("{signal}: shutting down");
    super::notify::stopping(signal);
    let report = relay.shutdown().await;
    tracing::info!(
        sockets_closed = report.sockets_closed,
        hubs_closed = report.hubs_closed,
        leases_released = report.leases_released,
        history_flushed = report.history_flushed,
        "stopped in {} ms",
        report.took.as_millis()
    );
    Ok(())
}

/// Waits for SIGTERM (systemd, `kill`) or SIGINT (Ctrl-C) and names it.
async fn stop_signal() -> anyhow::Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    })
}
