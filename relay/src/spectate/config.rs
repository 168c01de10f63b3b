//! How the relay spectates: `muster serve`'s flags and the hubs' settings.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::net::ServerAddr;
use crate::seams::TapMaker;

/// How the relay spectates (`muster serve`).
#[derive(clap::Args, Debug, Clone)]
pub struct SpectateArgs {
    /// The broadcast delay of every spectator hub, in seconds (0 to 300; 0 only with the
    /// server admin's consent).
    #[arg(long = "spectate-delay", value_name = "SECS", default_value_t = 30.0)]
    pub spectate_delay: f64,
    /// Spectator hubs (one server slot each) at once.
    #[arg(long = "max-hubs", default_value_t = 16)]
    pub max_hubs: usize,
    /// Seconds a hub stays after its last viewer leaves.
    #[arg(long = "spectate-grace", value_name = "SECS", default_value_t = 30.0)]
    pub spectate_grace: f64,
    /// The name hubs join servers with.
    #[arg(long = "spectator-name", default_value = "Muster")]
    pub spectator_name: String,
    /// An overview image for a map's watch view, with the world coordinates of its top-left
    /// and bottom-right corners; repeat for more maps.
    #[arg(long = "overview", value_name = "MAP=FILE,x0,y0,x1,y1",
          value_parser = OverviewFile::parse)]
    pub overviews: Vec<OverviewFile>,
    /// A passworded server's password for the hubs: ADDR=FILE, the password on FILE's first
    /// line; repeat for more. Viewers never see it.
    #[arg(long = "server-password", value_name = "ADDR=FILE",
          value_parser = ServerPassword::parse)]
    pub server_passwords: Vec<ServerPassword>,
}

impl SpectateArgs {
    /// The hubs' settings; their taps (the demo recorder) are added by whoever starts them.
    pub fn config(&self) -> SpectateConfig {
        SpectateConfig {
            max_hubs: self.max_hubs,
            grace: Duration::from_secs_f64(self.spectate_grace.clamp(0.0, 3600.0)),
            name: self.spectator_name.clone(),
            delay: Duration::from_secs_f64(self.spectate_delay.clamp(0.0, 300.0)),
            overviews: self.overviews.clone(),
            server_passwords: self
                .server_passwords
                .iter()
                .map(|p| (p.addr, p.password.clone()))
                .collect(),
            ..SpectateConfig::default()
        }
    }
}

/// An operator's overview image for one map.
#[derive(Clone, Debug, PartialEq)]
pub struct OverviewFile {
    pub map: String,
    pub path: PathBuf,
    /// World coordinates of the image's top-left and bottom-right corners.
    pub corners: [f32; 4],
}

impl OverviewFile {
    /// `MAP=FILE,x0,y0,x1,y1`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (map, rest) = text
            .split_once('=')
            .ok_or("expected MAP=FILE,x0,y0,x1,y1")?;
        let parts: Vec<&str> = rest.rsplitn(5, ',').collect();
        let [y1, x1, y0, x0, file] = parts[..] else {
            return Err("expected MAP=FILE,x0,y0,x1,y1".into());
        };
        let num = |v: &str| {
            v.trim()
                .parse::<f32>()
                .map_err(|_| format!("{v:?} is not a number"))
        };
        let corners = [num(x0)?, num(y0)?, num(x1)?, num(y1)?];
        if map.is_empty() || map.contains('/') {
            return Err(format!("{map:?} is not a map name"));
        }
        Ok(Self {
            map: map.into(),
            path: file.into(),
            corners,
        })
    }
}

/// A passworded server's password, as the operator gives it: `ADDR=FILE`, the password on the
/// file's first line (read at start, so a wrong path fails then, and never a flag's value).
#[derive(Clone, Debug)]
pub struct ServerPassword {
    pub addr: ServerAddr,
    pub password: protocol::secret::Secret,
}

impl ServerPassword {
    /// `ADDR=FILE`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (addr, file) = text.split_once('=').ok_or("expected ADDR=FILE")?;
        let addr = addr
            .trim()
            .parse()
            .map_err(|_| format!("{addr:?} is not an IPv4 ip:port"))?;
        let password = crate::secrets::read(Some(std::path::Path::new(file.trim())), "")
            .map_err(|e| e.to_string())?
            .ok_or("no password")?;
        Ok(Self { addr, password })
    }
}

/// How the relay spectates.
#[derive(Clone, Debug)]
pub struct SpectateConfig {
    /// Hubs (server slots taken) at once.
    pub max_hubs: usize,
    /// How long a hub stays after its last viewer.
    pub grace: Duration,
    /// The userinfo name.
    pub name: String,
    /// The broadcast delay.
    pub delay: Duration,
    /// Silence after which a session counts as lost.
    pub timeout: Duration,
    pub overviews: Vec<OverviewFile>,
    /// Whether the operator can record (the demos capability's tap is among `taps`).
    pub recordable: bool,
    /// What follows each hub's session (the demo recorder; match statistics next).
    pub taps: Taps,
    /// Where a viewer goes back to (`rewind`'s windows, which one of `taps` fills).
    pub rewind: Rewind,
    /// Taps that also follow a hub this relay mirrors in a cluster (the rewind window): they
    /// are offered each frame as it reaches this relay's viewers, never the session.
    pub mirror_taps: Taps,
    /// Passworded servers' passwords (`g_password`): hubs join those servers with them, and
    /// viewers never see them.
    pub server_passwords: BTreeMap<ServerAddr, protocol::secret::Secret>,
}

impl Default for SpectateConfig {
    fn default() -> Self {
        Self {
            max_hubs: 16,
            grace: Duration::from_secs(30),
            name: "Muster".into(),
            delay: Duration::from_secs(30),
            timeout: Duration::from_secs(15),
            overviews: Vec::new(),
            recordable: false,
            taps: Taps::default(),
            rewind: Rewind::default(),
            mirror_taps: Taps::default(),
            server_passwords: BTreeMap::new(),
        }
    }
}

/// The rewind windows viewers may go back into, when the relay keeps them.
#[derive(Clone, Default)]
pub struct Rewind(pub Option<std::sync::Arc<dyn crate::seams::Rewinding>>);

impl std::fmt::Debug for Rewind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rewind {}", if self.0.is_some() { "on" } else { "off" })
    }
}

/// The taps every hub session gets, one of each maker per session.
#[derive(Clone, Default)]
pub struct Taps(pub Vec<TapMaker>);

impl std::fmt::Debug for Taps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} taps", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overviews_parse_from_the_flag() {
        let o = OverviewFile::parse("mp_foy=/maps/foy,top.png,-3000,4000,3500.5,-2500").unwrap();
        assert_eq!(o.map, "mp_foy");
        assert_eq!(o.path, PathBuf::from("/maps/foy,top.png"));
        assert_eq!(o.corners, [-3000.0, 4000.0, 3500.5, -2500.0]);
        assert!(OverviewFile::parse("mp_foy=foy.png,1,2,3").is_err());
        assert!(OverviewFile::parse("foy.png,1,2,3,4").is_err());
        assert!(OverviewFile::parse("../x=foy.png,1,2,3,4").is_err());
    }
}
