//! The order the relay's capabilities start in: each starts from what the ones before it
//! started and gives back its handle and its routes; its tasks join the relay's, which stop
//! with it. Then the edge serves their routes.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::{
    alerts, banners, bridge, browse, cluster, demos, edge, geo, highlights, history, master,
    matches, metrics, moments, openapi, owners, rcon, rewind, seams, site, spectate, store,
    wulfram, Directory, ServeConfig,
};

/// What the capabilities gave back.
pub(crate) struct Started {
    pub master: Option<master::BesideRelay>,
    pub cluster: Option<Arc<cluster::Cluster>>,
    pub directory: Arc<Directory>,
    pub history: Option<Arc<history::History>>,
    pub hubs: Arc<spectate::Hubs>,
    /// Each capability's figures for `/metrics`.
    pub scrapes: Vec<Arc<dyn metrics::Scrape>>,
    pub routers: Vec<Router>,
}

/// A cluster shares one history, so it needs the shared database.
fn check(config: &ServeConfig) -> anyhow::Result<()> {
    let local_history = config
        .history
        .as_ref()
        .is_some_and(|h| h.store.database.is_none());
    if config.cluster.is_some() && local_history {
        anyhow::bail!(
            "--cluster needs a shared history: --database postgres://... (or --no-history)"
        );
    }
    Ok(())
}

/// Starts every capability, in order; `addr` names this relay to its cluster.
pub(crate) async fn capabilities(
    mut config: ServeConfig,
    addr: SocketAddr,
    metrics: &metrics::Metrics,
    tasks: &mut JoinSet<()>,
) -> anyhow::Result<Started> {
    check(&config)?;
    config.poller.metrics = metrics.poll.clone();
    let (master, master_routes) =
        master::start_for_relay(config.master.take(), &mut config.poller.masters).await?;
    let (cluster, cluster_routes) = cluster::start(config.cluster.take(), addr).await?;
    // In a cluster only the poller's lease holder writes history, with its token.
    let fence = cluster.as_ref().map(|_| Arc::new(store::Fence::default()));
    let (countries, geo_routes) = geo::start(config.geo.clone())?;
    let directory = Arc::new(
        Directory::new(&config.poller.masters)
            .hiding_down_after(config.poller.hide_down_after)
            .placing_with(countries.map(|c| c as Arc<dyn seams::CountryOf>)),
    );
    if let Some(started) = &master {
        tasks.spawn(started.show_on(directory.clone()));
    }
    // The names given no figures are never highlighted either.
    let excluded = Arc::new(
        (config.history.as_ref())
            .map(|h| h.hidden_names.clone())
            .unwrap_or_default(),
    );
    // History first: it puts the persisted directory back before the poller starts.
    let history = history::start(
        config.history.take(),
        directory.clone(),
        config.poller.refresh_interval,
        fence.clone(),
        metrics.store.clone(),
    )
    .await
    .context("opening the history")?;
    let (history, history_routes) = history.unzip();
    let masters = config.poller.masters.clone();
    let (feed, browse_routes) = browse::start(
        browse::BrowseStart {
            directory: directory.clone(),
            poller: config.poller,
            log: history
                .as_ref()
                .map(|h| h.log.clone() as Arc<dyn seams::PollLog>),
            cluster: cluster.clone(),
            fence,
            dist: config.dist.clone(),
        },
        tasks,
    );
    let wulfram_routes = wulfram::start(config.wulfram, directory.clone(), tasks);
    if let Some(recording) = &config.recording {
        config.spectate.recordable = true;
        config.spectate.taps.0.push(demos::tap(recording.clone()));
    }
    let (rewinds, rewind_routes) = rewind::start(config.rewind);
    // A mirror asks the relay holding a match's session for its clips.
    let clipping = rewinds.clone().map(|local| match &cluster {
        Some(cluster) => Arc::new(spectate::ClusterClipping {
            local,
            cluster: cluster.clone(),
            runtime: tokio::runtime::Handle::current(),
        }) as Arc<dyn seams::Clipping>,
        None => local as Arc<dyn seams::Clipping>,
    });
    let overview_files = (config.spectate.overviews.iter())
        .map(|o| (o.map.clone(), o.path.clone(), o.corners))
        .collect();
    if let Some(rewinds) = &rewinds {
        config.spectate.taps.0.push(rewinds.tap());
        config.spectate.mirror_taps.0.push(rewinds.tap());
        config.spectate.rewind = spectate::Rewind(Some(rewinds.clone()));
    }
    // Alerts hear of a followed match's end on its way to the history.
    let alerts = alerts::start(
        alerts::AlertsStart {
            config: config.alerts,
            store: history.as_ref().map(|h| h.readers()),
            servers: directory.clone(),
            known: directory.clone(),
            cluster: cluster.clone(),
            trusted: config.edge.trusted_proxies.clone(),
        },
        history
            .as_ref()
            .map(|h| h.log.clone() as Arc<dyn seams::MatchLog>),
        tasks,
    )?;
    let keep_days = config.moments.moment_days;
    let moments = moments::start(
        moments::MomentsStart {
            config: config.moments,
            store: history.as_ref().map(|h| h.readers()),
            clipping,
            dist: config.dist.clone(),
            overviews: overview_files,
            trusted: config.edge.trusted_proxies.clone(),
        },
        tasks,
    );
    // Each match's plays are found by the tap that keeps its record, and cut as moments.
    let highlights = highlights::start(
        highlights::HighlightsStart {
            store: history.as_ref().map(|h| h.readers()),
            cutting: moments.as_ref().map(|m| m.cutting.clone()),
            keep_days,
            dist: config.dist.clone(),
            config: config.highlights.clone(),
            told: alerts.highlights.clone(),
        },
        tasks,
    );
    // Every followed match is kept when there is a history to keep it in.
    if let Some(log) = alerts.log {
        let plays = (highlights.as_ref())
            .and_then(|h| h.plays.clone())
            .map(|found| matches::PlaysTo { found, excluded });
        config.spectate.taps.0.push(matches::tap(log, plays));
    }
    let overviews = (config.spectate.overviews.iter())
        .map(|o| (o.map.clone(), o.corners))
        .collect();
    let (hubs, spectate_routes) =
        spectate::start(config.spectate, directory.clone(), cluster.clone());
    let audit = history
        .as_ref()
        .map(|h| h.log.clone() as Arc<dyn seams::AuditLog>);
    let (rcon, rcon_routes) = rcon::start(config.rcon, directory.clone(), cluster.clone(), audit)?;
    // An owner proves a server theirs through the console; matches follow what owners opt in.
    let owners = owners::start(
        owners::OwnersStart {
            config: config.owners,
            store: history.as_ref().map(|h| h.readers()),
            prove: rcon.clone(),
            records: directory.clone(),
            webhooks: alerts.webhooks.clone(),
            trusted: config.edge.trusted_proxies.clone(),
        },
        tasks,
    );
    let matches_routes = matches::start(
        matches::MatchesStart {
            config: config.matches,
            readers: history.as_ref().map(|h| h.readers()),
            dist: config.dist.clone(),
            overviews,
            hubs: hubs.clone(),
            recorder: (config.recording.as_ref())
                .map(|_| hubs.clone() as Arc<dyn seams::RecordingHubs>),
            servers: directory.clone(),
            list: directory.clone(),
            owners: owners.owners.clone(),
        },
        tasks,
    )?;
    let demos_routes = demos::routes(hubs.clone(), config.recording, config.operator_token);
    let bridge_config = bridge::BridgeConfig {
        masters,
        ..config.bridge
    };
    let (bridge, bridge_routes) = bridge::start(bridge_config, directory.clone(), cluster.clone());
    let mut scrapes: Vec<Arc<dyn metrics::Scrape>> =
        vec![directory.clone(), feed, hubs.clone(), bridge, rcon];
    if let Some(started) = &master {
        scrapes.push(Arc::new(started.shared.clone()));
    }
    if let Some(cluster) = &cluster {
        scrapes.push(cluster.clone());
    }
    if let Some(history) = &history {
        scrapes.push(history.clone());
    }
    if let Some(rewinds) = rewinds {
        scrapes.push(rewinds);
    }
    scrapes.extend(alerts.scrape.clone());
    scrapes.extend(highlights.as_ref().map(|h| h.scrape.clone()));
    let mut routers = vec![
        browse_routes,
        spectate_routes,
        demos_routes,
        bridge_routes,
        wulfram_routes,
        master_routes,
        cluster_routes,
        rcon_routes,
        rewind_routes,
        geo_routes,
        banners::routes(banners::Banners::new(
            directory.clone(),
            Some(owners.owners.clone()),
        )),
        owners.routes,
        site::routes(site::Site {
            servers: directory.clone(),
            store: history.as_ref().map(|h| h.readers()),
        }),
    ];
    routers.extend(history_routes);
    routers.extend(matches_routes);
    routers.extend(moments.map(|m| m.routes));
    routers.extend(highlights.map(|h| h.routes));
    routers.extend(alerts.routes);
    Ok(Started {
        master,
        cluster,
        directory,
        history,
        hubs,
        scrapes,
        routers,
    })
}

/// What the edge hands back: the signal that stops it, the sockets still saying goodbye, and
/// the server's task.
pub(crate) struct Serving {
    pub stop: CancellationToken,
    pub goodbyes: TaskTracker,
    pub server: tokio::task::JoinHandle<()>,
}

/// Serves `app` on the listeners behind the edge's limits.
pub(crate) fn serve(
    listeners: Vec<TcpListener>,
    app: Router,
    config: edge::EdgeConfig,
    metrics: &metrics::Metrics,
    tasks: &mut JoinSet<()>,
) -> Serving {
    let guard = edge::limits::Guard::new(
        &config.limits,
        config.trusted_proxies.clone(),
        metrics.http.clone(),
    );
    // Outermost, so the edge's own refusals (429) wear the API's error shape too.
    let app = app
        .layer(axum::middleware::from_fn_with_state(
            guard.clone(),
            edge::limits::enforce,
        ))
        .layer(axum::middleware::from_fn(openapi::refusal::as_json));
    tasks.spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            guard.forget_idle();
        }
    });
    let stop = CancellationToken::new();
    let goodbyes = TaskTracker::new();
    let closing = edge::Closing::new(
        stop.clone(),
        goodbyes.clone(),
        config.limits.ws_ping_every,
        config.limits.ws_answer_within,
        metrics.http.clone(),
    );
    let server = tokio::spawn(edge::listen::serve(
        listeners,
        app,
        config.limits,
        metrics.http.clone(),
        closing,
        stop.clone(),
    ));
    Serving {
        stop,
        goodbyes,
        server,
    }
}
