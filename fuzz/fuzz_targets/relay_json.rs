//! Any bytes as the JSON the relay and the page exchange outside the binary feeds: a page's
//! message, the records of `/api/*` (servers, masters, history, demos), the bridge's and the
//! proxy's reports, and the records a cluster's relays pass each other (server records, masters,
//! progress). A value that decodes must encode and decode again to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::relay_api::bridge::BridgeReport;
use protocol::relay_api::demos::DemoListing;
use protocol::relay_api::history::{PlayerSeen, ServerHistory};
use protocol::relay_api::proxy::ProxyReport;
use protocol::relay_api::{MasterStatus, PageMessage, Progress, ServerInfo};

fn round_trip<T>(data: &[u8])
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + core::fmt::Debug,
{
    if let Ok(value) = serde_json::from_slice::<T>(data) {
        let text = serde_json::to_vec(&value).expect("a decoded value encodes");
        let again: T = serde_json::from_slice(&text).expect("what was encoded decodes");
        assert_eq!(again, value);
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<PageMessage>(data);
    round_trip::<ServerInfo>(data);
    round_trip::<Vec<MasterStatus>>(data);
    round_trip::<Progress>(data);
    round_trip::<BridgeReport>(data);
    round_trip::<ProxyReport>(data);
    let _ = serde_json::from_slice::<ServerHistory>(data);
    let _ = serde_json::from_slice::<PlayerSeen>(data);
    let _ = serde_json::from_slice::<DemoListing>(data);
});
