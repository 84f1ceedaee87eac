//! `cargo run` needs nothing but Rust (and the C compiler, perl and make a Rust machine has):
//! libpq and OpenSSL are compiled into the binary (Cargo.toml: pq-sys `bundled`, openssl-sys
//! `vendored`). This fails if the built binary links a system libpq, libssl or libcrypto again,
//! which would make a machine without their -dev packages unable to build it.

#[cfg(target_os = "linux")]
#[test]
fn the_binary_links_no_system_libpq_or_openssl() {
    let binary = env!("CARGO_BIN_EXE_racko");
    let out = std::process::Command::new("ldd")
        .arg(binary)
        .output()
        .expect("ldd runs");
    assert!(out.status.success(), "ldd {binary} failed: {out:?}");
    let linked = String::from_utf8_lossy(&out.stdout);
    for library in ["libpq", "libssl", "libcrypto"] {
        assert!(
            !linked.contains(library),
            "{binary} links the system {library}:\n{linked}"
        );
    }
}
