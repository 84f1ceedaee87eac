//! The Docker image builds from the repository as it is. No Docker engine runs here, so this
//! does what `docker build` would do to the build stage: it copies into an empty folder exactly
//! what the stage's COPY lines name (minus `.dockerignore`), then runs the stage's own cargo
//! command there, as `cargo check` so that it stays cheap (the repository's target folder keeps
//! the dependencies). A workspace member or a declared path the Dockerfile forgets fails here.
//! `docker-compose.yml` is read too: its services, its build context and its settings. And the
//! image runs: the binary built from that context, laid out and started as the run stage
//! says, plays a game against the computer to its end (`docker/image.rs` says what is not
//! checked without an engine).

// Beside this file, not in tests/, where cargo would take them for test binaries of their own.
#[path = "docker/compose.rs"]
mod compose;
#[path = "docker/file.rs"]
mod file;
#[path = "docker/image.rs"]
mod image;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use file::{build_stage, BuildStage};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Held while the image's binary is built: cargo puts it where `CARGO_BIN_EXE_racko` points
/// (the same sources, built from the context), so nothing here runs that one meanwhile.
static BINARY: Mutex<()> = Mutex::new(());

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(name))
        .unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
}

fn stage() -> BuildStage {
    build_stage(&read("Dockerfile"))
}

/// A folder under the target folder's scratch space, removed when dropped (on a panic too).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
        // A folder left by a killed run.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("scratch folder");
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Root-relative paths `docker build` leaves out of the context. Only plain names are
/// understood; a pattern would need a matcher, so it fails here rather than being misread.
fn ignored() -> Vec<PathBuf> {
    read(".dockerignore")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            assert!(
                !l.contains(['*', '?', '[', '!']),
                ".dockerignore pattern {l:?}: teach tests/docker.rs to match it"
            );
            PathBuf::from(l.trim_matches('/'))
        })
        .collect()
}

fn copy_tree(from: &Path, to: &Path, relative: &Path, ignored: &[PathBuf]) {
    if ignored.iter().any(|i| relative.starts_with(i)) {
        return;
    }
    let meta = std::fs::metadata(from).unwrap_or_else(|e| {
        panic!(
            "the Dockerfile copies {}, which does not exist: {e}",
            from.display()
        )
    });
    if meta.is_dir() {
        std::fs::create_dir_all(to).expect("create folder");
        for entry in std::fs::read_dir(from).expect("read folder") {
            let entry = entry.expect("folder entry");
            let name = entry.file_name();
            copy_tree(
                &entry.path(),
                &to.join(&name),
                &relative.join(&name),
                ignored,
            );
        }
    } else {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).expect("create folder");
        }
        std::fs::copy(from, to).expect("copy file");
    }
}

/// Builds the stage's context in `into`, as the COPY lines lay it out under WORKDIR.
fn lay_out(stage: &BuildStage, into: &Path) {
    let ignored = ignored();
    for copy in &stage.copies {
        let dest = stage.inside_workdir(&copy.dest);
        let into_folder = copy.sources.len() > 1 || copy.dest.ends_with('/');
        for source in &copy.sources {
            let relative = Path::new(source.trim_start_matches("./"));
            let target = if into_folder {
                let name = relative.file_name().expect("a source has a name");
                into.join(&dest).join(name)
            } else {
                into.join(&dest)
            };
            copy_tree(&Path::new(ROOT).join(relative), &target, relative, &ignored);
        }
    }
}

/// The stage's `cargo build …`, as `cargo check …` without `--release`: the same packages,
/// lock file and flags, with no code generated.
fn cheap_cargo_command(stage: &BuildStage) -> Vec<String> {
    let build = stage
        .runs
        .iter()
        .map(|run| run.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.starts_with(&["cargo", "build"]))
        .unwrap_or_else(|| panic!("no `cargo build` in the build stage: {:?}", stage.runs));
    assert!(
        build.contains(&"--locked"),
        "the image's build should use Cargo.lock as it is (--locked): {build:?}"
    );
    std::iter::once("check")
        .chain(build[2..].iter().copied().filter(|w| *w != "--release"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_build_stage_copies_every_package_and_target_cargo_loads() {
    let stage = stage();
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .current_dir(ROOT)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {out:?}");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let copied: Vec<PathBuf> = stage
        .copies
        .iter()
        .flat_map(|c| &c.sources)
        .map(|s| Path::new(ROOT).join(s.trim_start_matches("./")))
        .collect();
    let is_copied = |path: &Path| copied.iter().any(|c| path.starts_with(c));
    let packages = meta["packages"].as_array().expect("packages");
    assert!(packages.len() >= 4, "the workspace's members: {packages:?}");
    for package in packages {
        let manifest = Path::new(package["manifest_path"].as_str().expect("manifest"));
        assert!(
            is_copied(manifest),
            "Dockerfile never copies {}",
            manifest.display()
        );
        let declared = declared_targets(manifest);
        for target in package["targets"].as_array().expect("targets") {
            let kinds: Vec<&str> = target["kind"]
                .as_array()
                .expect("kinds")
                .iter()
                .filter_map(|k| k.as_str())
                .collect();
            let name = target["name"].as_str().expect("name");
            // Tests, examples and benches found by their folder may be left out; a library, a
            // binary, a build script or a target the manifest names must be there.
            let needed = kinds
                .iter()
                .any(|k| !matches!(*k, "test" | "example" | "bench"))
                || declared.iter().any(|d| d == name);
            let src = Path::new(target["src_path"].as_str().expect("src_path"));
            assert!(
                !needed || is_copied(src),
                "Dockerfile never copies {} ({kinds:?} {name})",
                src.display()
            );
        }
    }
}

/// The names under `[[bench]]`, `[[example]]` and `[[test]]` in a manifest.
fn declared_targets(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).expect("manifest");
    let mut in_target = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_target = matches!(line, "[[bench]]" | "[[example]]" | "[[test]]");
        } else if let Some(value) = line.strip_prefix("name").map(str::trim_start) {
            if in_target {
                if let Some(value) = value.strip_prefix('=') {
                    names.push(value.trim().trim_matches('"').to_string());
                }
            }
        }
    }
    names
}

#[test]
fn the_build_stage_loads_the_workspace_and_compiles_from_its_copy_lines_alone() {
    let stage = stage();
    let context = Scratch::new("docker-context");
    lay_out(&stage, &context.0);
    let args = cheap_cargo_command(&stage);
    // The repository's own target folder: the dependencies are checked already (clippy),
    // and the context's crates sit apart from the repository's (their paths differ).
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the scratch folder is inside the target folder");
    let started = std::time::Instant::now();
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(&args)
        .current_dir(&context.0)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {} in the Dockerfile's context failed:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("cargo {} took {:?}", args.join(" "), started.elapsed());
}

#[test]
fn compose_builds_this_dockerfile_and_sets_only_settings_the_server_reads() {
    let compose = compose::parse(&read("docker-compose.yml"));
    let racko = compose.service("racko");
    let context = Path::new(ROOT).join(racko.build_context());
    assert!(
        context.join("Dockerfile").is_file(),
        "racko's build context {} has no Dockerfile",
        context.display()
    );
    // The database service racko waits for and connects to.
    compose.service("db");
    assert!(racko.depends_on().contains(&"db".to_string()));
    let env = racko.environment();
    let url = env
        .iter()
        .find(|(k, _)| k == "DATABASE_URL")
        .map(|(_, v)| v.as_str())
        .expect("DATABASE_URL");
    assert!(
        url.contains("@db:"),
        "DATABASE_URL names the db service: {url}"
    );
    // Every setting is one `racko serve` reads (a misspelt one would be silently ignored).
    let help = {
        let _binary = BINARY.lock().unwrap_or_else(|e| e.into_inner());
        Command::new(env!("CARGO_BIN_EXE_racko"))
            .args(["serve", "--help"])
            .output()
            .expect("racko runs")
    };
    let help = String::from_utf8_lossy(&help.stdout);
    for (name, _) in &env {
        assert!(
            help.contains(&format!("[env: {name}=")) || help.contains(&format!("[env: {name}]")),
            "compose sets {name}, which `racko serve` does not read"
        );
    }
    // The published port is the one the server binds and the image exposes.
    let bind = env
        .iter()
        .find(|(k, _)| k == "RACKO_BIND")
        .map(|(_, v)| v.as_str())
        .expect("RACKO_BIND");
    let port = bind.rsplit(':').next().expect("a port");
    assert!(
        racko
            .ports()
            .iter()
            .any(|p| p.ends_with(&format!(":{port}"))),
        "compose publishes {:?}, the server binds {bind}",
        racko.ports()
    );
    let dockerfile = read("Dockerfile");
    assert!(
        dockerfile.contains(&format!("EXPOSE {port}")),
        "the image exposes {port}"
    );
    docker_compose_config();
}

/// `docker compose config` where a Compose is installed: the file as Compose itself reads it.
fn docker_compose_config() {
    let candidates: [&[&str]; 2] = [&["docker", "compose"], &["docker-compose"]];
    let found = candidates.into_iter().find(|c| {
        Command::new(c[0])
            .args(&c[1..])
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some(compose) = found else {
        eprintln!("note: no `docker compose` or `docker-compose` here; `config` not run");
        return;
    };
    let out = Command::new(compose[0])
        .args(&compose[1..])
        .args(["-f", "docker-compose.yml", "config", "--quiet"])
        .current_dir(ROOT)
        .env("RACKO_JWT_SECRET", "x".repeat(64))
        .env("RACKO_METRICS_TOKEN", "x".repeat(64))
        .output()
        .expect("compose runs");
    assert!(out.status.success(), "compose config: {out:?}");
}

/// The stage's `cargo build …` as it is, less `--release` (the debug profile reuses the
/// dependencies the tests compiled); and the profile's folder under the target folder.
fn debug_cargo_build(stage: &BuildStage) -> (Vec<String>, &'static str) {
    let build = stage
        .runs
        .iter()
        .map(|run| run.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.starts_with(&["cargo", "build"]))
        .unwrap_or_else(|| panic!("no `cargo build` in the build stage: {:?}", stage.runs));
    let args = build[1..]
        .iter()
        .filter(|w| **w != "--release")
        .map(|w| w.to_string())
        .collect();
    (args, "debug")
}

#[tokio::test]
async fn the_image_built_from_its_context_plays_a_game_against_the_computer_to_its_end() {
    let dockerfile = read("Dockerfile");
    let (stage, image) = (build_stage(&dockerfile), file::run_stage(&dockerfile));
    let context = Scratch::new("docker-image-context");
    lay_out(&stage, &context.0);
    let (args, profile) = debug_cargo_build(&stage);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the scratch folder is inside the target folder")
        .to_path_buf();
    let root = Scratch::new("docker-image-root");
    let started = Instant::now();
    {
        let _binary = BINARY.lock().unwrap_or_else(|e| e.into_inner());
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(&args)
            .current_dir(&context.0)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo {} in the Dockerfile's context failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        // What the run stage copies from the build stage: its release folder is our profile's.
        let release = format!("{}/target/release/", stage.workdir.trim_end_matches('/'));
        assert!(
            !image.from_build.is_empty(),
            "the image copies the binary in"
        );
        for (source, dest) in &image.from_build {
            let name = source
                .strip_prefix(&release)
                .unwrap_or_else(|| panic!("COPY --from of {source}, not a built binary"));
            let dest = image::inside(&root.0, dest);
            std::fs::create_dir_all(dest.parent().expect("a folder")).expect("image folders");
            std::fs::copy(target.join(profile).join(name), &dest).expect("the binary copied");
        }
    }
    eprintln!("cargo {} took {:?}", args.join(" "), started.elapsed());
    let mut running = image::start(&root.0, &image);
    image::healthy(&mut running, Duration::from_secs(60)).await;
    let actions = image::smoke_game(&running.url).await;
    assert!(actions > 0, "the guest played");
    drop(running);
    // The embedded store (no DATABASE_URL in the image) lives in the WORKDIR: the one place
    // the image's user may write.
    let workdir = image::inside(&root.0, &image.workdir);
    let written: Vec<_> = std::fs::read_dir(&workdir)
        .expect("the WORKDIR")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(
        !written.is_empty(),
        "the server kept its data in {}",
        workdir.display()
    );
}
