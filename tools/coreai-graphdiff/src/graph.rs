//! The graph of one `coreai.graph` (or `func.func`), built as coreai-torch's
//! `tools/graphdiff` builds it: a node per op, per value, per region and per
//! block; edges `defines` (op → result), `operand` (value → op),
//! `contains_region`, `contains_block`, `block_arg`. Op nodes are labelled
//! by op name only and edges by kind only, so two graphs are isomorphic when
//! they wire the same ops the same way, whatever the order of the ops in
//! their blocks, the names of symbols or the values of attributes.

use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef},
    RegionLike, ValueLike,
};
use std::collections::HashMap;

/// Edge kinds.
pub const DEFINES: u8 = 0;
pub const OPERAND: u8 = 1;
pub const CONTAINS_REGION: u8 = 2;
pub const CONTAINS_BLOCK: u8 = 3;
pub const BLOCK_ARG: u8 = 4;

/// What an op node says about its op, for reports.
#[derive(Debug, Clone)]
pub struct OpInfo {
    pub name: String,
    pub location: String,
    /// The callee symbol of a `coreai.invoke` (or `func.call`).
    pub callee: Option<String>,
}

#[derive(Debug, Default)]
pub struct Graph {
    /// The node's label: `op:<name>`, `value`, `region` or `block`.
    pub label: Vec<String>,
    pub op: Vec<Option<OpInfo>>,
    /// Outgoing edges (target, kind) and incoming edges (source, kind).
    pub out: Vec<Vec<(usize, u8)>>,
    pub inn: Vec<Vec<(usize, u8)>>,
    values: HashMap<usize, usize>,
}

impl Graph {
    /// The graph of `root` and everything nested in it.
    pub fn build(root: OperationRef) -> Graph {
        let mut g = Graph::default();
        g.add_op(root);
        g
    }

    pub fn len(&self) -> usize {
        self.label.len()
    }

    pub fn edge_count(&self) -> usize {
        self.out.iter().map(Vec::len).sum()
    }

    fn node(&mut self, label: String, op: Option<OpInfo>) -> usize {
        self.label.push(label);
        self.op.push(op);
        self.out.push(Vec::new());
        self.inn.push(Vec::new());
        self.label.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, kind: u8) {
        self.out[from].push((to, kind));
        self.inn[to].push((from, kind));
    }

    fn value(&mut self, raw: usize) -> usize {
        if let Some(&n) = self.values.get(&raw) {
            return n;
        }
        let n = self.node("value".into(), None);
        self.values.insert(raw, n);
        n
    }

    fn add_op(&mut self, op: OperationRef) -> usize {
        let name = op
            .name()
            .as_string_ref()
            .as_str()
            .unwrap_or("?")
            .to_string();
        let callee = op
            .attribute("callee")
            .ok()
            .and_then(|a| symbol_in(&a.to_string()));
        let info = OpInfo {
            name: name.clone(),
            location: op.location().to_string(),
            callee,
        };
        let id = self.node(format!("op:{name}"), Some(info));
        for r in op.results() {
            let v = self.value(r.to_raw().ptr as usize);
            self.edge(id, v, DEFINES);
        }
        for o in op.operands() {
            let v = self.value(o.to_raw().ptr as usize);
            self.edge(v, id, OPERAND);
        }
        for region in op.regions() {
            let r = self.node("region".into(), None);
            self.edge(id, r, CONTAINS_REGION);
            let mut block = region.first_block();
            while let Some(b) = block {
                let bn = self.node("block".into(), None);
                self.edge(r, bn, CONTAINS_BLOCK);
                for i in 0..b.argument_count() {
                    if let Ok(arg) = b.argument(i) {
                        let v = self.value(arg.to_raw().ptr as usize);
                        self.edge(bn, v, BLOCK_ARG);
                    }
                }
                let mut child = b.first_operation();
                while let Some(c) = child {
                    self.add_op(c);
                    child = c.next_in_block();
                }
                block = b.next_in_region();
            }
        }
        id
    }
}

/// The first symbol reference in an attribute's text: `@g` in
/// `#param.constant<@g> : !param.symbol` (coreai.invoke) or `@g` (func.call).
pub fn symbol_in(text: &str) -> Option<String> {
    let rest = &text[text.find('@')? + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next().map(str::to_string);
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_.$-".contains(c)))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}
