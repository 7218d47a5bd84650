//! Traffic matrices in htsim's connection-matrix (`.cm`) text format, as the Uno artifact
//! ships them (`shared/data/uno_artifact/README.md` describes the format):
//!
//! ```text
//! Nodes 256
//! Connections 2
//! 96->241 id 2 start 0 size 4012209
//! 103->83 id 1 start 1.5 size 22799
//! ```
//!
//! Tokens are separated by single spaces; `start` is in microseconds (a decimal), `size` in
//! bytes; host numbers index the topology's hosts in order. The header's `Connections`
//! count must equal the number of connection lines; `Nodes` is informational (htsim ignores
//! it too). Triggers and failures, which htsim also accepts, are not supported.

use crate::units::Time;

/// One line of a matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixFlow {
    pub src: u32,
    pub dst: u32,
    pub id: u64,
    pub start_ps: Time,
    pub size_bytes: u64,
}

/// What is wrong with a matrix, and where (1-based line; `field` is the key or `header`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixError {
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for MatrixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field == "line" {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            write!(f, "line {}, field `{}`: {}", self.line, self.field, self.message)
        }
    }
}

fn err(line: usize, field: &str, message: impl Into<String>) -> MatrixError {
    MatrixError { line, field: field.to_string(), message: message.into() }
}

/// Keys a connection line may carry that fanin does not model.
const UNSUPPORTED: &[&str] = &["trigger", "send_done_trigger", "recv_done_trigger"];

/// Parses a matrix; flows come back in file order.
pub fn parse(text: &str) -> Result<Vec<MatrixFlow>, MatrixError> {
    let mut declared: Option<(usize, usize)> = None; // (count, line)
    let mut flows = Vec::new();
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let tokens: Vec<&str> = line.split(' ').collect();
        if tokens.iter().any(|t| t.is_empty()) {
            return Err(err(n, "line", "tokens must be separated by single spaces (htsim splits on one space)"));
        }
        if tokens[0].contains("->") {
            flows.push(connection(n, &tokens)?);
            lines.push(n);
            continue;
        }
        if !flows.is_empty() {
            return Err(err(n, "line", "header lines must come before the first connection"));
        }
        match (tokens[0], tokens.get(1), tokens.len()) {
            ("Nodes", Some(v), 2) => {
                v.parse::<u64>().map_err(|_| err(n, "Nodes", "the value is not a whole number"))?;
            }
            ("Connections", Some(v), 2) => {
                let c = v.parse::<usize>().map_err(|_| err(n, "Connections", "the value is not a whole number"))?;
                declared = Some((c, n));
            }
            ("Triggers" | "Failures" | "trigger" | "failure", _, _) => {
                return Err(err(n, "line", "triggers and failures are not supported by fanin"));
            }
            _ => return Err(err(n, "line", "unknown header line (expected `Nodes <n>` or `Connections <m>`)")),
        }
    }
    let (count, at) = declared.ok_or_else(|| err(1, "Connections", "the header must declare `Connections <m>`"))?;
    if count != flows.len() {
        return Err(err(at, "Connections", format!("declares {count} connections but the file has {}", flows.len())));
    }
    let mut ids: Vec<(u64, usize)> = flows.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(err(lines[w[0].1.max(w[1].1)], "id", format!("id {} appears twice", w[0].0)));
    }
    Ok(flows)
}

fn connection(n: usize, tokens: &[&str]) -> Result<MatrixFlow, MatrixError> {
    let (s, d) = tokens[0].split_once("->").unwrap();
    let host = |field: &str, v: &str| v.parse::<u32>().map_err(|_| err(n, field, "the value is not a host number"));
    let (src, dst) = (host("src", s)?, host("dst", d)?);
    if src == dst {
        return Err(err(n, "dst", format!("host {src} sends to itself")));
    }
    if tokens.len() % 2 == 0 {
        return Err(err(n, "line", "every key needs a value"));
    }
    let (mut id, mut start, mut size) = (None, None, None);
    for kv in tokens[1..].chunks(2) {
        let (key, v) = (kv[0], kv[1]);
        match key {
            "id" => {
                let x = v.parse::<u64>().map_err(|_| err(n, "id", "the value is not a whole number"))?;
                if x == 0 {
                    return Err(err(n, "id", "must not be 0"));
                }
                id = Some(x);
            }
            "start" => {
                let us = v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0 && *x <= 1e12);
                let us = us.ok_or_else(|| err(n, "start", "the value is not a time in microseconds >= 0"))?;
                start = Some((us * 1e6).round() as Time);
            }
            "size" => {
                let x = v.parse::<u64>().map_err(|_| err(n, "size", "the value is not a whole number of bytes"))?;
                if x == 0 {
                    return Err(err(n, "size", "must be positive"));
                }
                size = Some(x);
            }
            // htsim's flow priority: fanin has no per-flow priorities, so it is read and ignored.
            "prio" => {
                v.parse::<i64>().map_err(|_| err(n, "prio", "the value is not a whole number"))?;
            }
            k if UNSUPPORTED.contains(&k) => return Err(err(n, k, "triggers are not supported by fanin")),
            _ => return Err(err(n, "line", "unknown key (allowed: id, start, size, prio)")),
        }
    }
    Ok(MatrixFlow {
        src,
        dst,
        id: id.ok_or_else(|| err(n, "id", "is required"))?,
        start_ps: start.ok_or_else(|| err(n, "start", "is required"))?,
        size_bytes: size.ok_or_else(|| err(n, "size", "is required"))?,
    })
}

/// Writes flows as a matrix that [`parse`] (and htsim) reads back; ids are 1, 2, ... in
/// order, starts in microseconds without trailing zeros.
pub fn to_text(nodes: usize, flows: &[(u32, u32, Time, u64)]) -> String {
    let mut out = format!("Nodes {nodes}\nConnections {}\n", flows.len());
    for (i, &(src, dst, start_ps, size)) in flows.iter().enumerate() {
        let us = if start_ps % 1_000_000 == 0 {
            (start_ps / 1_000_000).to_string()
        } else {
            let s = format!("{}.{:06}", start_ps / 1_000_000, start_ps % 1_000_000);
            s.trim_end_matches('0').to_string()
        };
        out.push_str(&format!("{src}->{dst} id {} start {us} size {size}\n", i + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_artifact_format() {
        let text = "Nodes 32\nConnections 3\n130->240 id 1 start 0 size 1000000000\n241->240 id 9 start 15000 size 12334\n1->2 size 5 start 1.5 id 3 prio 7";
        let f = parse(text).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f[1], MatrixFlow { src: 241, dst: 240, id: 9, start_ps: 15_000_000_000, size_bytes: 12334 });
        assert_eq!(f[2].start_ps, 1_500_000);
    }

    #[test]
    fn round_trips() {
        let flows = vec![(0, 5, 0, 10), (3, 2, 1_234_500, 77), (2, 3, 7_000_000, 1)];
        let text = to_text(8, &flows);
        assert!(text.contains("3->2 id 2 start 1.2345 size 77\n"), "{text}");
        let back: Vec<_> = parse(&text).unwrap().iter().map(|f| (f.src, f.dst, f.start_ps, f.size_bytes)).collect();
        assert_eq!(back, flows);
    }

    #[test]
    fn errors_name_line_and_field() {
        let cases = [
            ("Connections 1\n1->2 id 1 start 0  size 5", 2, "line"),
            ("Connections 1\n1->x id 1 start 0 size 5", 2, "dst"),
            ("Connections 1\n1->2 id 1 start -3 size 5", 2, "start"),
            ("Connections 1\n1->2 id 1 start 0 size 0", 2, "size"),
            // A field named by the file itself is not echoed: the line stands for it.
            ("Connections 1\n1->2 id 1 start 0 size 5 colour red", 2, "line"),
            ("Connections 1\n1->2 id 1 start 0", 2, "size"),
            ("Connections 1\n1->2 id 0 start 0 size 5", 2, "id"),
            ("Connections 1\n1->2 id 1 trigger 4 size 5", 2, "trigger"),
            ("Connections 2\n1->2 id 1 start 0 size 5\n2->1 id 1 start 0 size 5", 3, "id"),
            ("Connections 3\n1->2 id 1 start 0 size 5", 1, "Connections"),
            ("1->2 id 1 start 0 size 5", 1, "Connections"),
            ("Nodes x\n", 1, "Nodes"),
            ("Connections 1\n3->3 id 1 start 0 size 5", 2, "dst"),
            ("Connections 1\nfailure switch_type TOR", 2, "line"),
        ];
        for (text, line, field) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!((e.line, e.field.as_str()), (line, field), "{text}: {e}");
            for token in ["colour", "switch_type", "TOR", "-3"] {
                assert!(!e.to_string().contains(token), "{e} quotes the file");
            }
        }
    }
}
