# Build stage: compile the release binary (bundled SQLite, system libpq).
FROM rust:1.95-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libpq-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs ./
COPY rules rules
COPY src src
COPY migrations migrations
COPY openapi openapi
# Declared in Cargo.toml, so they must exist for the manifest to load.
COPY benches benches
COPY examples examples
COPY sample sample
RUN cargo build --release --locked --bin racko

# Run stage: a small image with the binary and libpq only.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/racko racko
COPY --from=build /src/target/release/racko /usr/local/bin/racko
USER racko
WORKDIR /var/lib/racko
ENV RACKO_BIND=0.0.0.0:8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["racko"]
CMD ["serve"]
