//! Standard Webhooks signatures (<https://www.standardwebhooks.com/>): the secret is
//! `whsec_<base64 key>`; a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds)
//! and `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`.

use base64::{engine::general_purpose::STANDARD, Engine};
use sha2::{Digest, Sha256};

/// The prefix of a secret as shown to its owner.
pub const SECRET_PREFIX: &str = "whsec_";

/// A new random key, base64 (as stored; shown with [`SECRET_PREFIX`]).
pub fn new_key() -> String {
    STANDARD.encode(rand::random::<[u8; 32]>())
}

/// HMAC-SHA256 (RFC 2104) over sha2: the only MAC needed here, a few lines.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// The `webhook-signature` value for a delivery; None when the stored key is not base64.
pub fn signature(key_base64: &str, id: &str, timestamp: i64, body: &str) -> Option<String> {
    let key = STANDARD.decode(key_base64).ok()?;
    let signed = format!("{id}.{timestamp}.{body}");
    Some(format!(
        "v1,{}",
        STANDARD.encode(hmac_sha256(&key, signed.as_bytes()))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2 of RFC 4231.
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        let mac = hmac_sha256(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        assert_eq!(
            hex::encode(mac),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn signature_matches_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification.
        let sig = signature(
            "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(
            sig.as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
    }
}
