//! PostgreSQL connection strings in either of libpq's two forms: a URL
//! (`postgresql://a:5432,b:5432/racko?target_session_attrs=read-write`) or keyword/value pairs
//! (`host=a,b port=5432 dbname=racko target_session_attrs=read-write`). Both may name several
//! hosts: libpq tries them in order and, with `target_session_attrs=read-write`, keeps the one
//! that accepts writes. After a failover that is the promoted standby, so every new connection
//! (the pool's, the relay's) finds the new primary by itself.

/// Whether `s` is in the keyword/value form: its first word is `keyword=…`.
pub fn is_keywords(s: &str) -> bool {
    let first = s.split_whitespace().next().unwrap_or_default();
    match first.split_once('=') {
        Some((key, _)) => {
            !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        }
        None => false,
    }
}

/// Whether `s` already sets `key`.
pub fn sets(s: &str, key: &str) -> bool {
    let needle = format!("{key}=");
    if is_keywords(s) {
        s.split_whitespace().any(|word| word.starts_with(&needle))
    } else {
        let query = s.split_once('?').map_or("", |(_, q)| q);
        query.split('&').any(|pair| pair.starts_with(&needle))
    }
}

/// `s` with `key=value` added (the caller checks [`sets`] first).
pub fn with(s: &str, key: &str, value: &str) -> String {
    if is_keywords(s) {
        format!("{} {key}={value}", s.trim_end())
    } else {
        let join = if s.contains('?') { '&' } else { '?' };
        format!("{s}{join}{key}={value}")
    }
}

/// Where a keyword/value string points, without its password: `hosts:ports/dbname`.
pub fn describe_keywords(s: &str) -> String {
    let value = |key: &str| {
        let needle = format!("{key}=");
        s.split_whitespace()
            .find_map(|word| word.strip_prefix(needle.as_str()))
            .map(|v| v.trim_matches('\''))
    };
    let hosts = value("host")
        .or_else(|| value("hostaddr"))
        .unwrap_or("localhost");
    let mut place = hosts.to_string();
    if let Some(port) = value("port") {
        place = format!("{place} port {port}");
    }
    if let Some(db) = value("dbname") {
        place = format!("{place}/{db}");
    }
    place
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_are_told_apart_and_extended() {
        let words = "host=a,b port=5432,5433 dbname=racko password=secret \
                     target_session_attrs=read-write";
        assert!(is_keywords(words));
        assert!(!is_keywords("postgres://a,b/racko"));
        assert!(!is_keywords("./racko.db"));
        assert!(!is_keywords("sqlite://x.db?synchronous=full"));
        assert!(sets(words, "target_session_attrs"));
        assert!(!sets(words, "connect_timeout"));
        assert_eq!(
            with("host=a dbname=r", "connect_timeout", "2"),
            "host=a dbname=r connect_timeout=2"
        );
        assert_eq!(
            with("postgres://a,b/r", "connect_timeout", "2"),
            "postgres://a,b/r?connect_timeout=2"
        );
        assert_eq!(
            with("postgres://a/r?x=1", "connect_timeout", "2"),
            "postgres://a/r?x=1&connect_timeout=2"
        );
        assert!(sets(
            "postgres://a/r?x=1&connect_timeout=9",
            "connect_timeout"
        ));
        let described = describe_keywords(words);
        assert_eq!(described, "a,b port 5432,5433/racko");
        assert!(!described.contains("secret"));
    }
}
