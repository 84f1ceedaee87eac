//! The VAPID key (RFC 8292) Web Push requests are signed with: from configuration, or in
//! development one generated once and kept in the store (as the token secret is), so that
//! browser subscriptions survive a restart.

use base64::Engine;
use web_push::VapidSignatureBuilder;

use crate::config::{Config, Environment};
use crate::store::{Store, StoreError};

const SETTING: &str = "vapid_private_key";

/// The private key (32 bytes, base64url), or None when Web Push is off (production without
/// a configured key). Blocks (may read the store).
pub fn private_key(config: &Config, store: &Store) -> Result<Option<String>, StoreError> {
    if let Some(key) = &config.push.vapid_private_key {
        return Ok(Some(key.expose().trim().to_string()));
    }
    if config.environment == Environment::Production {
        return Ok(None);
    }
    store.setting_or_insert(SETTING, new_key).map(Some)
}

/// A new P-256 private key; empty when OpenSSL cannot make one (then no push is signed).
fn new_key() -> String {
    let key = openssl::ec::EcGroup::from_curve_name(openssl::nid::Nid::X9_62_PRIME256V1)
        .and_then(|group| openssl::ec::EcKey::generate(&group))
        .and_then(|key| key.private_key().to_vec_padded(32));
    match key {
        Ok(bytes) => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
        Err(e) => {
            tracing::error!(error = %e, "cannot make a VAPID key");
            String::new()
        }
    }
}

/// The public key a browser passes to `pushManager.subscribe` (`applicationServerKey`):
/// the uncompressed point, base64url. None when the private key does not parse.
pub fn public_key(private: &str) -> Option<String> {
    let builder = VapidSignatureBuilder::from_base64_no_sub(private).ok()?;
    Some(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(builder.get_public_key()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_has_a_public_half() {
        let private = new_key();
        let public = public_key(&private).expect("a valid key");
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(public)
            .expect("base64url");
        assert_eq!(
            (bytes.len(), bytes[0]),
            (65, 4),
            "an uncompressed P-256 point"
        );
        assert_eq!(public_key("not a key"), None);
    }
}
