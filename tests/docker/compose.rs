//! `docker-compose.yml`, read as far as the tests need: block maps and lists of scalars, by
//! indentation (flow values such as `["CMD", "x"]` stay one scalar). A construct outside that
//! subset fails loudly rather than being misread.

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Scalar(String),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

struct Line<'a> {
    indent: usize,
    text: &'a str,
}

pub fn parse(text: &str) -> Compose {
    let lines: Vec<Line> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            assert!(!l.contains('\t'), "a tab in docker-compose.yml: {l:?}");
            let text = l.trim_start();
            Line {
                indent: l.len() - text.len(),
                text: text.trim_end(),
            }
        })
        .collect();
    let mut at = 0;
    let root = block(&lines, &mut at, 0);
    assert_eq!(
        at,
        lines.len(),
        "unread from {:?}",
        lines.get(at).map(|l| l.text)
    );
    Compose(root)
}

fn scalar(value: &str) -> Node {
    let v = value.trim();
    let unquoted = v
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(v);
    Node::Scalar(unquoted.to_string())
}

/// The block whose lines are indented exactly `indent`.
fn block(lines: &[Line], at: &mut usize, indent: usize) -> Node {
    let list = lines[*at].text.starts_with("- ");
    let mut map = Vec::new();
    let mut items = Vec::new();
    while let Some(line) = lines.get(*at) {
        if line.indent < indent {
            break;
        }
        assert_eq!(
            line.indent, indent,
            "unexpected indentation: {:?}",
            line.text
        );
        *at += 1;
        if list {
            let item = line.text.strip_prefix("- ").expect("a list item");
            assert!(!item.ends_with(':'), "a map inside a list: {item:?}");
            items.push(scalar(item));
            continue;
        }
        let (key, value) = line
            .text
            .split_once(':')
            .unwrap_or_else(|| panic!("not `key: value`: {:?}", line.text));
        let value = value.trim();
        let node = if value.is_empty() {
            match lines.get(*at) {
                Some(next) if next.indent > indent => block(lines, at, next.indent),
                _ => Node::Scalar(String::new()),
            }
        } else {
            scalar(value)
        };
        map.push((key.trim().to_string(), node));
    }
    if list {
        Node::List(items)
    } else {
        Node::Map(map)
    }
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn scalars(&self) -> Vec<String> {
        match self {
            Node::List(items) => items.iter().flat_map(Node::scalars).collect(),
            Node::Scalar(s) => vec![s.clone()],
            Node::Map(entries) => entries.iter().map(|(k, _)| k.clone()).collect(),
        }
    }
}

pub struct Compose(Node);

pub struct Service<'a>(&'a Node);

impl Compose {
    pub fn service(&self, name: &str) -> Service<'_> {
        let services = self.0.get("services").expect("compose has services");
        Service(
            services
                .get(name)
                .unwrap_or_else(|| panic!("compose has no service {name}")),
        )
    }
}

impl Service<'_> {
    /// `build: PATH` or `build: {context: PATH}`.
    pub fn build_context(&self) -> String {
        match self.0.get("build").expect("the service is built here") {
            Node::Scalar(path) => path.clone(),
            build => match build.get("context") {
                Some(Node::Scalar(path)) => path.clone(),
                other => panic!("build context: {other:?}"),
            },
        }
    }

    /// The services named under `depends_on`, as a list or as a map.
    pub fn depends_on(&self) -> Vec<String> {
        self.0
            .get("depends_on")
            .map(Node::scalars)
            .unwrap_or_default()
    }

    /// `environment:` as a map or as a list of `NAME=value`.
    pub fn environment(&self) -> Vec<(String, String)> {
        match self.0.get("environment") {
            Some(Node::Map(entries)) => entries
                .iter()
                .map(|(k, v)| match v {
                    Node::Scalar(v) => (k.clone(), v.clone()),
                    other => panic!("environment {k}: {other:?}"),
                })
                .collect(),
            Some(Node::List(items)) => items
                .iter()
                .flat_map(Node::scalars)
                .map(|i| match i.split_once('=') {
                    Some((k, v)) => (k.to_string(), v.to_string()),
                    None => (i, String::new()),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn ports(&self) -> Vec<String> {
        self.0.get("ports").map(Node::scalars).unwrap_or_default()
    }
}

#[test]
fn reads_maps_lists_and_quotes() {
    let c = parse(
        "# c\nservices:\n  a:\n    build: .\n    depends_on:\n      db:\n        condition: x\n\
         \x20   ports:\n      - \"80:80\"\n    environment:\n      K: ${V:?set V}\n  db:\n\
         \x20   image: p\nvolumes:\n  v:\n",
    );
    let a = c.service("a");
    assert_eq!(a.build_context(), ".");
    assert_eq!(a.depends_on(), ["db"]);
    assert_eq!(a.ports(), ["80:80"]);
    assert_eq!(a.environment(), [("K".into(), "${V:?set V}".into())]);
}
