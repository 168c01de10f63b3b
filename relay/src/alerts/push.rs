//! Web Push: the relay's VAPID key pair (RFC 8292), made once and kept in the store so every
//! relay sharing it signs alike and subscriptions outlive restarts; a push message is the
//! alert's short JSON encrypted to the browser's keys (RFC 8291, `aes128gcm`) and posted to
//! its push service's endpoint (RFC 8030) with the VAPID signature.

use base64ct::{Base64UrlUnpadded, Encoding};
use protocol::relay_api::alerts::{AlertEvent, PushSubscription};
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256KeyPair};
use web_push_native::{Auth, WebPushBuilder};

use crate::store::alerts as stored;
use crate::store::worker::Workers;

/// Where the key pair is kept in the store.
const KEY_NAME: &str = "vapid_private_key";
/// How long a push service keeps a message for a browser that is offline (RFC 8030 TTL).
const TTL: std::time::Duration = std::time::Duration::from_secs(6 * 3600);

/// The VAPID identity, read from the store when first needed (by the sender or by `GET
/// /api/push/key`), shared by both.
#[derive(Clone)]
pub struct Keys {
    cell: std::sync::Arc<tokio::sync::OnceCell<Vapid>>,
    store: Workers,
    contact: String,
}

impl Keys {
    pub fn new(store: Workers, contact: String) -> Self {
        Self {
            cell: Default::default(),
            store,
            contact,
        }
    }

    pub async fn get(&self) -> anyhow::Result<&Vapid> {
        self.cell
            .get_or_try_init(|| Vapid::load(&self.store, self.contact.clone()))
            .await
    }
}

/// The relay's VAPID identity.
pub struct Vapid {
    pair: ES256KeyPair,
    /// Who runs the relay (`--alert-contact`), told to push services in the signature.
    contact: String,
}

impl Vapid {
    /// The key pair the store keeps, made and kept now if there is none (the first relay to
    /// keep one wins; the others read it back).
    pub async fn load(store: &Workers, contact: String) -> anyhow::Result<Self> {
        let made = Base64UrlUnpadded::encode_string(&ES256KeyPair::generate().to_bytes());
        let kept = store
            .run(move |s| stored::key_or_insert(s.exec()?, KEY_NAME, &made))
            .await?;
        let bytes = Base64UrlUnpadded::decode_vec(&kept)
            .map_err(|e| anyhow::anyhow!("the stored VAPID key: {e}"))?;
        let pair = ES256KeyPair::from_bytes(&bytes)
            .map_err(|e| anyhow::anyhow!("the stored VAPID key: {e}"))?;
        Ok(Self { pair, contact })
    }

    /// The public key as browsers take it (`applicationServerKey`): the uncompressed point,
    /// base64url without padding.
    pub fn public_key(&self) -> String {
        Base64UrlUnpadded::encode_string(
            &self.pair.public_key().public_key().to_bytes_uncompressed(),
        )
    }

    /// The signed, encrypted request for `event` to `subscription`.
    pub fn request(
        &self,
        subscription: &PushSubscription,
        event: &AlertEvent,
    ) -> Result<axum::http::Request<Vec<u8>>, String> {
        let (public, auth) = keys(subscription)?;
        let endpoint = subscription
            .endpoint
            .parse()
            .map_err(|e| format!("endpoint: {e}"))?;
        WebPushBuilder::new(endpoint, public, auth)
            .with_valid_duration(TTL)
            .with_vapid(&self.pair, &self.contact)
            .build(message(event))
            .map_err(|e| format!("encrypting: {e:?}"))
    }
}

/// The subscription's keys, if they are a P-256 point and a 16-byte secret.
pub fn keys(
    subscription: &PushSubscription,
) -> Result<(web_push_native::p256::PublicKey, Auth), String> {
    let point = Base64UrlUnpadded::decode_vec(subscription.keys.p256dh.trim_end_matches('='))
        .map_err(|_| "keys.p256dh: not base64url".to_owned())?;
    let public = web_push_native::p256::PublicKey::from_sec1_bytes(&point)
        .map_err(|_| "keys.p256dh: not a P-256 public key".to_owned())?;
    let auth = Base64UrlUnpadded::decode_vec(subscription.keys.auth.trim_end_matches('='))
        .map_err(|_| "keys.auth: not base64url".to_owned())?;
    if auth.len() != 16 {
        return Err("keys.auth: not 16 bytes".into());
    }
    Ok((public, Auth::clone_from_slice(&auth)))
}

/// What the service worker shows: a title, the text (and its language), where a click goes,
/// and the key (a repeat of a key it showed is not shown again). Push services take 4 KB at most.
pub fn message(event: &AlertEvent) -> Vec<u8> {
    let title = event
        .server
        .as_ref()
        .map_or_else(|| "Muster".to_owned(), |s| super::rules::plain(&s.hostname));
    let open = event.server.as_ref().map(|s| format!("/?q={}", s.addr));
    let mut text: String = event.text.chars().take(300).collect();
    if text.len() < event.text.len() {
        text.push('…');
    }
    let message = protocol::relay_api::alerts::PushMessage {
        title: title.chars().take(100).collect(),
        body: text,
        tag: event.key.clone(),
        url: open,
        join: event.join.clone(),
        lang: event.lang.clone(),
    };
    serde_json::to_vec(&message).unwrap_or_default()
}
