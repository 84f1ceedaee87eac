# Build stage: compile the release binary. SQLite, libpq and OpenSSL are compiled from source
# into it (Cargo.toml), with the image's cc, perl and make: no -dev package to install.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs ./
# Every workspace member (Cargo.toml's `members`): cargo loads them all before building one.
COPY rules rules
COPY bots bots
COPY src src
COPY migrations migrations
COPY openapi openapi
# The web client's built files, embedded in the binary.
COPY web/dist web/dist
# Declared in Cargo.toml, so they must exist for the manifest to load.
COPY benches benches
COPY examples examples
COPY sample sample
RUN cargo build --release --locked --bin racko

# Run stage: a small image with the binary (it links only libc), CA certificates for TLS to
# PostgreSQL, and curl for the health check.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/racko racko
COPY --from=build /src/target/release/racko /usr/local/bin/racko
USER racko
WORKDIR /var/lib/racko
ENV RACKO_BIND=0.0.0.0:8080
# The OpenSSL built into the binary looks for CA certificates under /usr/local/ssl; point it at
# Debian's bundle so that `sslrootcert=system` in DATABASE_URL verifies the server.
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["racko"]
CMD ["serve"]
