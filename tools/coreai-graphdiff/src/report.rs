//! Per-graph diffs (composite-aware) and their text report, in the layout of
//! coreai-torch's `tools/graphdiff`: a `GRAPH: <label>` section per graph
//! with the verdict, a summary and the ops that differ, then the overall
//! verdict.

use crate::graph::Graph;
use crate::iso::{matching, Matching};
use std::collections::{BTreeMap, HashSet};

/// One section: a label, and the diff (None: no counterpart).
pub struct Section {
    pub label: String,
    pub diff: Option<(Graph, Graph, Matching)>,
}

impl Section {
    pub fn isomorphic(&self) -> bool {
        self.diff.as_ref().is_some_and(|d| d.2.isomorphic)
    }
}

pub fn diff(s: Graph, t: Graph) -> (Graph, Graph, Matching) {
    let m = matching(&s, &t);
    (s, t, m)
}

/// The callee pairs of matched `coreai.invoke`s of main, then the invokes
/// left over paired in program order (callee names never matter).
pub fn invoke_pairs(s: &Graph, t: &Graph, m: &Matching) -> Vec<(String, String)> {
    let callee = |g: &Graph, n: usize| g.op[n].as_ref().and_then(|o| o.callee.clone());
    let mut pairs = Vec::new();
    let mut used_t = HashSet::new();
    let mut left_s = Vec::new();
    for n in 0..s.len() {
        let Some(cs) = callee(s, n) else { continue };
        match m.map.get(&n).and_then(|&tn| callee(t, tn).map(|c| (tn, c))) {
            Some((tn, ct)) => {
                used_t.insert(tn);
                pairs.push((cs, ct));
            }
            None => left_s.push(cs),
        }
    }
    let left_t: Vec<String> = (0..t.len())
        .filter(|n| !used_t.contains(n))
        .filter_map(|n| callee(t, n))
        .collect();
    pairs.extend(left_s.into_iter().zip(left_t));
    pairs
}

/// The unmatched op nodes of each side, by op name.
fn unmatched_ops(g: &Graph, matched: &HashSet<usize>) -> BTreeMap<String, Vec<usize>> {
    let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for n in 0..g.len() {
        if let (Some(op), false) = (&g.op[n], matched.contains(&n)) {
            by.entry(op.name.clone()).or_default().push(n);
        }
    }
    by
}

/// Pairs whose colours agreed for at least this many rounds are aligned:
/// the same op, fed by and feeding the same ops.
const ALIGNED_DEPTH: usize = 2;

fn aligned(m: &Matching) -> Vec<(usize, usize)> {
    m.map
        .iter()
        .filter(|(n, _)| m.depth.get(n).is_some_and(|&d| d >= ALIGNED_DEPTH))
        .map(|(&a, &b)| (a, b))
        .collect()
}

fn ops_table(s: &Graph, t: &Graph, m: &Matching, max_items: Option<usize>) -> Vec<String> {
    let pairs = aligned(m);
    let src_matched: HashSet<usize> = pairs.iter().map(|p| p.0).collect();
    let tgt_matched: HashSet<usize> = pairs.iter().map(|p| p.1).collect();
    let (us, ut) = (
        unmatched_ops(s, &src_matched),
        unmatched_ops(t, &tgt_matched),
    );
    let mut rows = Vec::new();
    let names: std::collections::BTreeSet<&String> = us.keys().chain(ut.keys()).collect();
    for name in names {
        let a = us.get(name).map_or(&[][..], |v| v.as_slice());
        let b = ut.get(name).map_or(&[][..], |v| v.as_slice());
        for i in 0..a.len().max(b.len()) {
            let (kind, loc) = match (a.get(i), b.get(i)) {
                (Some(&x), Some(_)) => ("modified", location(s, x)),
                (Some(&x), None) => ("removed", location(s, x)),
                (None, Some(&y)) => ("added", location(t, y)),
                (None, None) => continue,
            };
            rows.push(format!("{kind:<9} {name:<40} {loc}"));
        }
    }
    let total = rows.len();
    if let Some(limit) = max_items {
        rows.truncate(limit);
    }
    let mut out = vec!["Operations Diff Table:".to_string()];
    out.extend(rows.into_iter().map(|r| format!("  {r}")));
    if out.len() - 1 < total {
        out.push(format!("  ... {} more", total - (out.len() - 1)));
    }
    out
}

fn location(g: &Graph, n: usize) -> String {
    g.op[n]
        .as_ref()
        .map_or(String::new(), |o| o.location.clone())
}

/// The text of one section.
pub fn section_text(sec: &Section, max_items: Option<usize>) -> String {
    let bar = "=".repeat(80);
    let mut lines = vec![
        bar.clone(),
        format!("GRAPH: {}", sec.label),
        bar,
        String::new(),
    ];
    let Some((s, t, m)) = &sec.diff else {
        lines.push("(no counterpart in the other program)".into());
        return lines.join("\n");
    };
    let ops = |g: &Graph| g.op.iter().filter(|o| o.is_some()).count();
    if m.isomorphic {
        lines.push("\u{2713} Graphs are ISOMORPHIC.".into());
    } else {
        lines.push("\u{2717} Graphs are NOT isomorphic.".into());
        lines.push(format!(
            "  Common subgraph: {}/{} nodes.",
            aligned(m).len(),
            s.len()
        ));
    }
    lines.push(String::new());
    lines.push("Summary:".into());
    lines.push(format!(
        "  Source graph: {} nodes, {} edges, {} ops",
        s.len(),
        s.edge_count(),
        ops(s)
    ));
    lines.push(format!(
        "  Target graph: {} nodes, {} edges, {} ops",
        t.len(),
        t.edge_count(),
        ops(t)
    ));
    if !m.isomorphic {
        let mapped = aligned(m).len();
        lines.push(format!("  Mapped nodes: {mapped}"));
        lines.push(format!("  Unmapped in source: {} nodes", s.len() - mapped));
        lines.push(format!("  Unmapped in target: {} nodes", t.len() - mapped));
        lines.push(String::new());
        lines.extend(ops_table(s, t, m, max_items));
    }
    lines.join("\n")
}

/// The whole report and whether every graph is isomorphic.
pub fn report_text(sections: &[Section], max_items: Option<usize>) -> (String, bool) {
    let all = sections.iter().all(Section::isomorphic);
    let mut parts: Vec<String> = sections
        .iter()
        .map(|s| section_text(s, max_items))
        .collect();
    let bar = "=".repeat(80);
    let verdict = if all {
        "\u{2713} ALL GRAPHS ARE ISOMORPHIC."
    } else {
        "\u{2717} GRAPHS DIFFER. See per-graph details above."
    };
    parts.push(format!("{bar}\n{verdict}\n{bar}"));
    (parts.join("\n\n") + "\n", all)
}

/// The report as an HTML page (differences highlighted).
pub fn html(text: &str) -> String {
    let mut body = String::new();
    for line in text.lines() {
        let esc = line
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        let class = if line.contains('\u{2717}') || line.trim_start().starts_with("removed") {
            " class=\"bad\""
        } else if line.contains('\u{2713}') {
            " class=\"good\""
        } else if line.trim_start().starts_with("added")
            || line.trim_start().starts_with("modified")
        {
            " class=\"changed\""
        } else {
            ""
        };
        body += &format!("<span{class}>{esc}</span>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>graphdiff</title><style>\
body {{ font-family: monospace; margin: 2em; }} .bad {{ color: #b00020; }} .good {{ color: #1b7f1b; }} \
.changed {{ color: #8a6d00; }}</style></head><body><pre>\n{body}</pre></body></html>\n"
    )
}
