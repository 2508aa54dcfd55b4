//! Isomorphism of two labelled directed graphs by colour refinement
//! (1-dimensional Weisfeiler-Leman on both graphs in one colour space) and
//! individualization, with the mapping found checked edge by edge, so
//! "isomorphic" is always backed by a verified bijection.
//!
//! Different colour histograms prove the graphs different. Equal histograms
//! lead to a mapping: the smallest ambiguous colour class is split by giving
//! one node of each graph a fresh colour, and refinement runs again, until
//! every class is a pair. The result is checked: every node label and every
//! edge (with its kind) must be carried over. When no mapping is found the
//! stable colours still give the best partial matching, used for the report.

use crate::graph::Graph;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

pub struct Matching {
    pub isomorphic: bool,
    /// Source node → target node, for the nodes matched.
    pub map: HashMap<usize, usize>,
    /// Per matched source node, how many refinement rounds its colour
    /// agreed with its partner's: 0 is the same label only, 2 and more the
    /// same op with the same producers and consumers.
    pub depth: HashMap<usize, usize>,
}

/// Refinement rounds kept for the partial matching.
const MAX_ROUNDS: usize = 24;

/// The best partial matching of two different graphs: pairs of equal colour
/// at the deepest round first (the most context in common), then shallower
/// rounds for the nodes left, in node order.
fn partial(s: &Graph, t: &Graph) -> Matching {
    let mut cs: Vec<u64> = s.label.iter().map(hash_of).collect();
    let mut ct: Vec<u64> = t.label.iter().map(hash_of).collect();
    let mut rounds = vec![(cs.clone(), ct.clone())];
    for _ in 0..MAX_ROUNDS {
        let (ns, nt) = (round(s, &cs), round(t, &ct));
        let split = class_count(&ns, &nt) != class_count(&cs, &ct);
        cs = ns;
        ct = nt;
        rounds.push((cs.clone(), ct.clone()));
        if !split {
            break;
        }
    }
    let (mut map, mut depth) = (HashMap::new(), HashMap::new());
    let mut taken = HashSet::new();
    for (r, (rs, rt)) in rounds.iter().enumerate().rev() {
        let mut free_t: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for n in (0..t.len()).rev().filter(|n| !taken.contains(n)) {
            free_t.entry(rt[n]).or_default().push(n);
        }
        let free_s: Vec<usize> = (0..s.len()).filter(|n| !map.contains_key(n)).collect();
        for n in free_s {
            if let Some(m) = free_t.get_mut(&rs[n]).and_then(Vec::pop) {
                map.insert(n, m);
                depth.insert(n, r);
                taken.insert(m);
            }
        }
    }
    Matching {
        isomorphic: false,
        map,
        depth,
    }
}

fn hash_of<T: Hash>(t: &T) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// One refinement round of colour `c` over graph `g`.
fn round(g: &Graph, c: &[u64]) -> Vec<u64> {
    (0..g.len())
        .map(|n| {
            let mut out: Vec<(u8, u64)> = g.out[n].iter().map(|&(m, k)| (k, c[m])).collect();
            let mut inn: Vec<(u8, u64)> = g.inn[n].iter().map(|&(m, k)| (k, c[m])).collect();
            out.sort_unstable();
            inn.sort_unstable();
            hash_of(&(c[n], out, inn))
        })
        .collect()
}

fn class_count(a: &[u64], b: &[u64]) -> usize {
    a.iter().chain(b).collect::<HashSet<_>>().len()
}

/// Refines both colourings until the joint partition stops splitting.
fn refine(s: &Graph, t: &Graph, cs: &mut Vec<u64>, ct: &mut Vec<u64>) {
    let mut classes = class_count(cs, ct);
    loop {
        let (ns, nt) = (round(s, cs), round(t, ct));
        let n = class_count(&ns, &nt);
        *cs = ns;
        *ct = nt;
        if n == classes {
            return;
        }
        classes = n;
    }
}

fn histogram(c: &[u64]) -> BTreeMap<u64, Vec<usize>> {
    let mut h: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (n, &col) in c.iter().enumerate() {
        h.entry(col).or_default().push(n);
    }
    h
}

fn same_histogram(a: &BTreeMap<u64, Vec<usize>>, b: &BTreeMap<u64, Vec<usize>>) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(c, v)| b.get(c).is_some_and(|w| w.len() == v.len()))
}

/// Pairs the nodes of equal colour, in node order (a partial matching).
fn pair_by_colour(cs: &[u64], ct: &[u64]) -> HashMap<usize, usize> {
    let (hs, ht) = (histogram(cs), histogram(ct));
    let mut map = HashMap::new();
    for (col, srcs) in &hs {
        if let Some(tgts) = ht.get(col) {
            map.extend(srcs.iter().copied().zip(tgts.iter().copied()));
        }
    }
    map
}

/// Whether `map` is a bijection carrying every label and edge of `s` to `t`.
fn verify(s: &Graph, t: &Graph, map: &HashMap<usize, usize>) -> bool {
    if s.len() != t.len() || map.len() != s.len() || s.edge_count() != t.edge_count() {
        return false;
    }
    let edges: HashSet<(usize, usize, u8)> = (0..t.len())
        .flat_map(|n| t.out[n].iter().map(move |&(m, k)| (n, m, k)))
        .collect();
    (0..s.len()).all(|n| {
        s.label[n] == t.label[map[&n]]
            && s.out[n]
                .iter()
                .all(|&(m, k)| edges.contains(&(map[&n], map[&m], k)))
    })
}

/// Matches `s` against `t`.
pub fn matching(s: &Graph, t: &Graph) -> Matching {
    let mut cs: Vec<u64> = s.label.iter().map(hash_of).collect();
    let mut ct: Vec<u64> = t.label.iter().map(hash_of).collect();
    refine(s, t, &mut cs, &mut ct);
    if s.len() != t.len() || !same_histogram(&histogram(&cs), &histogram(&ct)) {
        return partial(s, t);
    }
    let mut fresh = 0u64;
    loop {
        let (hs, ht) = (histogram(&cs), histogram(&ct));
        if !same_histogram(&hs, &ht) {
            break;
        }
        let Some((col, srcs)) = hs
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .min_by_key(|(_, v)| v.len())
        else {
            let map = pair_by_colour(&cs, &ct);
            if !verify(s, t, &map) {
                return partial(s, t);
            }
            let depth = map.keys().map(|&n| (n, usize::MAX)).collect();
            return Matching {
                isomorphic: true,
                map,
                depth,
            };
        };
        fresh += 1;
        let new = hash_of(&("individualized", fresh));
        cs[srcs[0]] = new;
        ct[ht[col][0]] = new;
        refine(s, t, &mut cs, &mut ct);
    }
    partial(s, t)
}
