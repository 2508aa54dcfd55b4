//! `--plot out.svg`: a horizontal bar chart of the op counts (grouped bars
//! in two-file mode), as a self-contained SVG file.

use crate::count::Counts;
use crate::table::{comparison_rows, escape, Row};

const BAR: f64 = 14.0;
const LABEL_W: f64 = 260.0;
const PLOT_W: f64 = 480.0;
const COLORS: [&str; 2] = ["#4c72b0", "#dd8452"];

/// The chart: one row per op, largest first; `b` adds a second bar per row.
pub fn svg(a: &Counts, b: Option<&Counts>, labels: (&str, &str)) -> String {
    let rows: Vec<Row> = match b {
        Some(b) => comparison_rows(a, b),
        None => a.sorted().into_iter().map(|(n, c)| (n, c, 0, 0)).collect(),
    };
    let series = if b.is_some() { 2 } else { 1 };
    let row_h = BAR * series as f64 + 8.0;
    let max = rows.iter().map(|r| r.1.max(r.2)).max().unwrap_or(1).max(1) as f64;
    let height = 60.0 + row_h * rows.len() as f64 + 30.0;
    let width = LABEL_W + PLOT_W + 60.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let title = match b {
        Some(_) => "Core AI op frequency comparison".to_string(),
        None => format!("Core AI op frequency — {}", escape(labels.0)),
    };
    out += &format!("<text x=\"10\" y=\"20\" font-size=\"14\">{title}</text>\n");
    for (i, (op, x, y, _)) in rows.iter().enumerate() {
        let top = 40.0 + row_h * i as f64;
        out += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            LABEL_W - 6.0,
            top + BAR * series as f64 / 2.0 + 4.0,
            escape(op)
        );
        for (s, value) in [*x, *y].iter().take(series).enumerate() {
            let w = PLOT_W * *value as f64 / max;
            let y0 = top + BAR * s as f64;
            out += &format!(
                "<rect x=\"{LABEL_W}\" y=\"{y0}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\"><title>{}: {value}</title></rect>\n",
                BAR - 1.0,
                COLORS[s],
                escape(op)
            );
            out += &format!(
                "<text x=\"{:.1}\" y=\"{}\">{value}</text>\n",
                LABEL_W + w + 4.0,
                y0 + BAR - 3.0
            );
        }
    }
    if b.is_some() {
        let y = height - 14.0;
        for (s, label) in [labels.0, labels.1].iter().enumerate() {
            let x = LABEL_W + 240.0 * s as f64;
            out += &format!(
                "<rect x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{y}\">{}</text>\n",
                y - 9.0,
                COLORS[s],
                x + 14.0,
                escape(label)
            );
        }
    }
    out + "</svg>\n"
}
