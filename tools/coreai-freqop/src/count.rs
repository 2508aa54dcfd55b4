//! Op counting: every `coreai.*` op of a module, the way coreai-torch's
//! `tools/freqop` counts them, so the two tools agree on the same program.
//!
//! A `coreai.graph` with a `composite_decl` is one instance of
//! `composite.<name>`. By default every op inside it is counted too and the
//! graph itself counts as `graph`; with `collapse` the graph counts as
//! `composite.<name>` and its body goes to that composite's own table.

use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef},
    RegionLike,
};

/// Names and counts in first-seen order (a stable tie order for sorting).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts(pub Vec<(String, usize)>);

impl Counts {
    pub fn add(&mut self, name: &str) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => *c += 1,
            None => self.0.push((name.to_string(), 1)),
        }
    }

    pub fn get(&self, name: &str) -> usize {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, c)| *c)
    }

    pub fn total(&self) -> usize {
        self.0.iter().map(|(_, c)| c).sum()
    }

    /// By count, largest first; ties keep first-seen order.
    pub fn sorted(&self) -> Vec<(String, usize)> {
        let mut v = self.0.clone();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        v
    }
}

/// What [`count_module`] finds.
#[derive(Debug, Default)]
pub struct Census {
    /// Every counted op of the program.
    pub ops: Counts,
    /// Instances of each composite (graphs with a `composite_decl`).
    pub composites: Counts,
    /// The ops inside each composite's graphs (only with `collapse`).
    pub details: Vec<(String, Counts)>,
    /// The ops of each top-level `coreai.graph` / `func.func`, by symbol.
    pub per_graph: Vec<(String, Counts)>,
}

/// The composite name of a `coreai.graph`: the quoted name that opens its
/// `#coreai.composite_declaration<"name" = ...>` attribute.
pub fn composite_name(op: &OperationRef) -> Option<String> {
    let attr = op.attribute("composite_decl").ok()?.to_string();
    let start = attr.find('"')? + 1;
    let len = attr[start..].find('"')?;
    Some(attr[start..start + len].to_string())
}

/// The `sym_name` of `op`, without quotes.
pub fn symbol_name(op: &OperationRef) -> Option<String> {
    let attr = op.attribute("sym_name").ok()?.to_string();
    Some(attr.trim_matches('"').to_string())
}

/// Counts the ops nested in `module` (the module op itself is not a `coreai`
/// op and is not counted).
pub fn count_module(module: OperationRef, collapse: bool) -> Census {
    let mut census = Census::default();
    for_each_child(module, |top| {
        let mut graph_counts = Counts::default();
        walk(top, collapse, &mut census, None, &mut graph_counts);
        if let Some(name) = symbol_name(&top) {
            census.per_graph.push((name, graph_counts));
        }
    });
    census
}

/// Calls `f` on every op directly nested in `op`'s regions, in order.
pub fn for_each_child<'c, 'a>(op: OperationRef<'c, 'a>, mut f: impl FnMut(OperationRef<'c, 'a>)) {
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut child = b.first_operation();
            while let Some(c) = child {
                f(c);
                child = c.next_in_block();
            }
            block = b.next_in_region();
        }
    }
}

/// Counts `op` into `detail` (a composite body's table) or the program's
/// table, and the ops nested in it.
fn walk(
    op: OperationRef,
    collapse: bool,
    census: &mut Census,
    detail: Option<usize>,
    graph_counts: &mut Counts,
) {
    let full = op.name().as_string_ref().as_str().unwrap_or("").to_string();
    let mut body_detail = detail;
    if let Some(short) = full.strip_prefix("coreai.") {
        let mut name = short.to_string();
        if short == "graph" {
            if let Some(composite) = composite_name(&op) {
                census.composites.add(&composite);
                if collapse {
                    name = format!("composite.{composite}");
                    body_detail = Some(detail_index(census, &composite));
                }
            }
        }
        match detail {
            Some(i) => census.details[i].1.add(&name),
            None => census.ops.add(&name),
        }
        graph_counts.add(&name);
    }
    for_each_child(op, |child| {
        walk(child, collapse, census, body_detail, graph_counts)
    });
}

fn detail_index(census: &mut Census, composite: &str) -> usize {
    match census.details.iter().position(|(n, _)| n == composite) {
        Some(i) => i,
        None => {
            census
                .details
                .push((composite.to_string(), Counts::default()));
            census.details.len() - 1
        }
    }
}
