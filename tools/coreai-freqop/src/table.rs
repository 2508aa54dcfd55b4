//! The text and HTML tables, in the layout of coreai-torch's `freqop`
//! (`Operation  Count`, two-file `Model 1  Model 2  Delta` with `*` on the
//! rows that differ), so scripts that read one read the other.

use crate::count::{Census, Counts};

/// One comparison row: op, count in model 1, in model 2, delta.
pub type Row = (String, usize, usize, i64);

/// Rows of a comparison, by the larger of the two counts, largest first;
/// ties in first-seen order (model 1's ops, then model 2's new ones).
pub fn comparison_rows(a: &Counts, b: &Counts) -> Vec<Row> {
    let mut names: Vec<&str> = a.0.iter().map(|(n, _)| n.as_str()).collect();
    for (n, _) in &b.0 {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    let mut rows: Vec<Row> = names
        .iter()
        .map(|n| {
            let (x, y) = (a.get(n), b.get(n));
            (n.to_string(), x, y, y as i64 - x as i64)
        })
        .collect();
    rows.sort_by(|r, s| r.1.max(r.2).cmp(&s.1.max(s.2)).reverse());
    rows
}

fn delta_text(d: i64) -> String {
    if d == 0 {
        String::new()
    } else {
        format!("{d:+}")
    }
}

/// The single-program table.
pub fn single_text(census: &Census, label: &str) -> String {
    let counts = &census.ops;
    if counts.0.is_empty() {
        return format!("No coreai operations found in {label}.\n");
    }
    let w = counts
        .0
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "  {}  Count\n  {}  {}\n",
        pad("Operation", w),
        "─".repeat(w),
        "─".repeat(5)
    );
    for (op, c) in counts.sorted() {
        out += &format!("  {}  {c}\n", pad(&op, w));
    }
    out += &format!(
        "\n  Total: {} ops  ({} unique)\n",
        counts.total(),
        counts.0.len()
    );
    out += &composites_text(census);
    out
}

/// The composite instance counts and, when collapsed, each body's ops.
fn composites_text(census: &Census) -> String {
    let mut out = String::new();
    for (name, instances) in census.composites.sorted() {
        out += &format!("\n  composite.{name}  ({instances} instances)\n");
        let Some((_, inner)) = census.details.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let w = inner
            .0
            .iter()
            .map(|(n, _)| n.chars().count())
            .max()
            .unwrap_or(0);
        out += &format!("  {}  {}\n", "─".repeat(w), "─".repeat(5));
        for (op, c) in inner.sorted() {
            out += &format!("    {}  {c}\n", pad(&op, w));
        }
        let total = inner.total();
        out += &format!(
            "    {}  {total} total ({} per instance)\n",
            pad("", w),
            total / instances.max(1)
        );
    }
    out
}

/// The two-program table; `color` highlights rows (a terminal).
pub fn comparison_text(a: &Census, b: &Census, labels: (&str, &str), color: bool) -> String {
    let rows = comparison_rows(&a.ops, &b.ops);
    if rows.is_empty() {
        return "No coreai operations found in either file.\n".into();
    }
    let w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let rule = format!(
        "  {}  {}  {}  {}\n",
        "─".repeat(w),
        "─".repeat(8),
        "─".repeat(8),
        "─".repeat(8)
    );
    let mut out = format!(
        "  {}  {:>8}  {:>8}  {:>8}\n{rule}",
        pad("Operation", w),
        "Model 1",
        "Model 2",
        "Delta"
    );
    for (op, x, y, d) in &rows {
        let marker = if *d != 0 { " *" } else { "" };
        let line = format!(
            "  {}  {x:>8}  {y:>8}  {:>8}{marker}",
            pad(op, w),
            delta_text(*d)
        );
        out += &match (color, d.signum()) {
            (true, -1) => format!("\x1b[48;2;50;10;10m\x1b[97m{line}\x1b[0m\n"),
            (true, 1) => format!("\x1b[48;2;10;40;10m\x1b[97m{line}\x1b[0m\n"),
            _ => format!("{line}\n"),
        };
    }
    let (ta, tb) = (a.ops.total(), b.ops.total());
    let td = tb as i64 - ta as i64;
    let td = if td == 0 {
        "0".to_string()
    } else {
        format!("{td:+}")
    };
    out += &rule;
    out += &format!("  {}  {ta:>8}  {tb:>8}  {td:>8}\n", pad("Total", w));
    out += &format!("\n  Unique ops: {} vs {}\n", a.ops.0.len(), b.ops.0.len());
    let differing = rows.iter().filter(|r| r.3 != 0).count();
    if differing == 0 {
        out += "  No differences found — programs have identical op frequencies.\n";
    } else {
        out += &format!("  {differing} op(s) differ (marked with *).\n");
    }
    out += &format!("\n  Model 1: {}\n  Model 2: {}\n", labels.0, labels.1);
    out
}

fn pad(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())))
}

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An HTML page with one table: the single-program counts, or the
/// comparison rows (class `added`/`removed` on differing rows).
pub fn html(a: &Census, b: Option<&Census>, labels: (&str, &str)) -> String {
    let mut body = String::from("<table><thead><tr><th>Operation</th>");
    match b {
        None => {
            body += "<th>Count</th></tr></thead><tbody>\n";
            for (op, c) in a.ops.sorted() {
                body += &format!("<tr><td>{}</td><td>{c}</td></tr>\n", escape(&op));
            }
            body += &format!(
                "<tr class=\"total\"><td>Total</td><td>{}</td></tr>\n",
                a.ops.total()
            );
        }
        Some(b) => {
            body += "<th>Model 1</th><th>Model 2</th><th>Delta</th></tr></thead><tbody>\n";
            for (op, x, y, d) in comparison_rows(&a.ops, &b.ops) {
                let class = match d.signum() {
                    1 => " class=\"added\"",
                    -1 => " class=\"removed\"",
                    _ => "",
                };
                body += &format!(
                    "<tr{class}><td>{}</td><td>{x}</td><td>{y}</td><td>{}</td></tr>\n",
                    escape(&op),
                    delta_text(d)
                );
            }
        }
    }
    body += "</tbody></table>\n";
    for (name, instances) in a.composites.sorted() {
        body += &format!(
            "<p>composite.{} ({instances} instances)</p>\n",
            escape(&name)
        );
    }
    let title = match b {
        None => format!("Core AI op frequency — {}", escape(labels.0)),
        Some(_) => format!(
            "Core AI op frequency: {} vs {}",
            escape(labels.0),
            escape(labels.1)
        ),
    };
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>freqop</title>\n<style>\
body {{ font-family: monospace; margin: 2em; }} table {{ border-collapse: collapse; }} \
th, td {{ padding: 4px 12px; text-align: right; border: 1px solid #ccc; }} \
td:first-child, th:first-child {{ text-align: left; }} .added {{ background: #d4edda; }} \
.removed {{ background: #f8d7da; }} .total {{ font-weight: bold; }}</style></head><body>\n\
<h2>{title}</h2>\n{body}</body></html>\n"
    )
}
