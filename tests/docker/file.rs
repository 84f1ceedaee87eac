//! The Dockerfile's build stage, read as far as the tests need: WORKDIR, COPY and RUN.

/// A `COPY src… dest` from the build context (not `--from` another stage).
#[derive(Debug)]
pub struct Copy {
    pub sources: Vec<String>,
    pub dest: String,
}

#[derive(Debug, Default)]
pub struct BuildStage {
    pub workdir: String,
    pub copies: Vec<Copy>,
    pub runs: Vec<String>,
}

impl BuildStage {
    /// `dest` relative to the context's root as laid out under WORKDIR ("./" is "").
    pub fn inside_workdir(&self, dest: &str) -> String {
        let workdir = self.workdir.trim_end_matches('/');
        let relative = match dest.strip_prefix('/') {
            Some(_) => dest
                .strip_prefix(workdir)
                .unwrap_or_else(|| panic!("COPY to {dest}, outside WORKDIR {workdir}")),
            None => dest,
        };
        let relative = relative.trim_start_matches('/').trim_start_matches("./");
        match relative.trim_end_matches('/') {
            "." => String::new(),
            r => r.to_string(),
        }
    }
}

/// The instructions, one per logical line (continuations joined, comments dropped).
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || (line.is_empty() && pending.is_empty()) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => {
                pending.push_str(part);
                pending.push(' ');
            }
            None => {
                pending.push_str(line);
                let (keyword, args) = pending.split_once(' ').unwrap_or((&pending, ""));
                out.push((keyword.to_ascii_uppercase(), args.trim().to_string()));
                pending.clear();
            }
        }
    }
    out
}

/// The first stage (up to the second FROM), where the binary is compiled.
pub fn build_stage(text: &str) -> BuildStage {
    let mut stage = BuildStage::default();
    let mut froms = 0;
    for (keyword, args) in instructions(text) {
        match keyword.as_str() {
            "FROM" => {
                froms += 1;
                if froms > 1 {
                    break;
                }
            }
            "WORKDIR" => stage.workdir = args,
            "COPY" | "ADD" => {
                assert_eq!(keyword, "COPY", "ADD in the build stage: use COPY");
                let words: Vec<String> = args
                    .split_whitespace()
                    .filter(|w| !w.starts_with("--"))
                    .map(str::to_string)
                    .collect();
                assert!(
                    !args.contains("--from"),
                    "COPY --from in the build stage: {args}"
                );
                let (dest, sources) = words.split_last().expect("COPY names a destination");
                assert!(!sources.is_empty(), "COPY without a source: {args}");
                stage.copies.push(Copy {
                    sources: sources.to_vec(),
                    dest: dest.clone(),
                });
            }
            "RUN" => stage.runs.push(args),
            _ => {}
        }
    }
    assert_eq!(froms, 2, "a build stage and a run stage");
    assert!(!stage.workdir.is_empty(), "the build stage sets WORKDIR");
    stage
}

#[test]
fn reads_a_stage() {
    let stage = build_stage(
        "# c\nFROM a AS build\nWORKDIR /src\nCOPY x y ./\nCOPY --chown=1 src src\n\
         RUN cargo build \\\n  --locked\nFROM b\nCOPY --from=build /src/t /t\n",
    );
    assert_eq!(stage.copies.len(), 2);
    assert_eq!(stage.copies[0].sources, ["x", "y"]);
    assert_eq!(stage.inside_workdir(&stage.copies[0].dest), "");
    assert_eq!(stage.inside_workdir("/src/src"), "src");
    let run: Vec<&str> = stage.runs[0].split_whitespace().collect();
    assert_eq!(run, ["cargo", "build", "--locked"]);
}

/// The last stage, the image itself, read as far as a start of it needs.
#[derive(Debug, Default)]
pub struct RunStage {
    pub workdir: String,
    pub user: String,
    /// `ENV` settings, in order.
    pub env: Vec<(String, String)>,
    pub expose: Vec<u16>,
    pub entrypoint: Vec<String>,
    pub cmd: Vec<String>,
    /// `COPY --from=<stage> <source> <dest>`: (source in that stage, dest in the image).
    pub from_build: Vec<(String, String)>,
    /// The health check's command (`CMD …` of `HEALTHCHECK`), as written.
    pub healthcheck: Option<String>,
}

/// An exec-form (`["a", "b"]`) argument list; the shell form is refused (the image would run
/// it through `/bin/sh -c`, which this reading does not model).
fn exec_form(keyword: &str, args: &str) -> Vec<String> {
    serde_json::from_str(args)
        .unwrap_or_else(|e| panic!("{keyword} {args}: write it in exec form ([\"…\"]): {e}"))
}

/// The stage after the last FROM.
pub fn run_stage(text: &str) -> RunStage {
    let all = instructions(text);
    let last_from = all.iter().rposition(|(k, _)| k == "FROM").expect("a FROM");
    let mut stage = RunStage::default();
    for (keyword, args) in &all[last_from + 1..] {
        match keyword.as_str() {
            "WORKDIR" => stage.workdir = args.clone(),
            "USER" => stage.user = args.clone(),
            "ENV" => {
                let (name, value) = args
                    .split_once('=')
                    .or_else(|| args.split_once(' '))
                    .unwrap_or_else(|| panic!("ENV {args}"));
                assert!(
                    !value.contains(' ') || value.starts_with('"'),
                    "one setting per ENV line: {args}"
                );
                stage.env.push((
                    name.trim().to_string(),
                    value.trim().trim_matches('"').to_string(),
                ));
            }
            "EXPOSE" => stage.expose.extend(args.split_whitespace().map(|p| {
                p.trim_end_matches("/tcp")
                    .parse::<u16>()
                    .unwrap_or_else(|e| panic!("EXPOSE {p}: {e}"))
            })),
            "ENTRYPOINT" => stage.entrypoint = exec_form(keyword, args),
            "CMD" => stage.cmd = exec_form(keyword, args),
            "HEALTHCHECK" => {
                stage.healthcheck = args.split_once("CMD ").map(|(_, c)| c.trim().to_string())
            }
            "COPY" if args.contains("--from=") => {
                let words: Vec<&str> = args
                    .split_whitespace()
                    .filter(|w| !w.starts_with("--"))
                    .collect();
                let [source, dest] = words[..] else {
                    panic!("COPY --from with one source only: {args}")
                };
                stage
                    .from_build
                    .push((source.to_string(), dest.to_string()));
            }
            _ => {}
        }
    }
    stage
}

#[test]
fn reads_the_run_stage() {
    let stage = run_stage(
        "FROM a AS build\nWORKDIR /src\nENV X=1\nFROM b\nRUN x\n\
         COPY --from=build /src/t/racko /usr/local/bin/racko\nUSER racko\nWORKDIR /var/lib/r\n\
         ENV RACKO_BIND=0.0.0.0:8080\nEXPOSE 8080\n\
         HEALTHCHECK --interval=10s CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1\n\
         ENTRYPOINT [\"racko\"]\nCMD [\"serve\"]\n",
    );
    assert_eq!(stage.workdir, "/var/lib/r");
    assert_eq!(stage.user, "racko");
    assert_eq!(
        stage.env,
        [("RACKO_BIND".to_string(), "0.0.0.0:8080".to_string())]
    );
    assert_eq!(stage.expose, [8080]);
    assert_eq!(stage.entrypoint, ["racko"]);
    assert_eq!(stage.cmd, ["serve"]);
    assert_eq!(
        stage.from_build,
        [(
            "/src/t/racko".to_string(),
            "/usr/local/bin/racko".to_string()
        )]
    );
    assert!(stage
        .healthcheck
        .as_deref()
        .is_some_and(|c| c.contains("/readyz")));
}
