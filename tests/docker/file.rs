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
