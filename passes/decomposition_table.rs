//! Decomposition tables, by name: which ATen overloads a table decomposes.
//!
//! `decompose` rewrites the ops its table decomposes, and
//! `legalize-aten-to-coreai` reports the ops its table would have decomposed
//! as "non-decomposed"; both take the table by name (`table=coreai|default|none`).
//! The `default` table is PyTorch's `torch.export.default_decompositions()`
//! (`data/torch_default_decompositions.txt`, written by
//! `utils/gen-decomposition-list.py`); `coreai` is that table minus the 12 ops
//! coreai-torch keeps whole ([`PRESERVED_BY_COREAI_TABLE`]).

use std::sync::LazyLock;

/// The ATen ops coreai-torch keeps whole (`get_decomp_table()` removes them
/// from PyTorch's default decompositions): they have direct lowerings or
/// become composites.
pub const PRESERVED_BY_COREAI_TABLE: &[&str] = &[
    "hardsigmoid.default",
    "hardswish.default",
    "instance_norm.default",
    "pixel_shuffle.default",
    "reflection_pad1d.default",
    "reflection_pad2d.default",
    "reflection_pad3d.default",
    "replication_pad1d.default",
    "replication_pad2d.default",
    "replication_pad3d.default",
    "scaled_dot_product_attention.default",
    "silu.default",
];

/// PyTorch's `torch.export.default_decompositions()` (ATen overloads).
const TORCH_DEFAULT_DECOMPOSITIONS: &str = include_str!("data/torch_default_decompositions.txt");

/// The keys of [`TORCH_DEFAULT_DECOMPOSITIONS`] (`name.overload`), in the
/// file's order, which is sorted (a test checks), collected on first use:
/// both passes ask once per op.
static TORCH_DEFAULT_DECOMPOSITION_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    TORCH_DEFAULT_DECOMPOSITIONS
        .lines()
        .filter_map(|line| line.strip_prefix("aten."))
        .collect()
});

/// A decomposition table, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// PyTorch's default decompositions minus [`PRESERVED_BY_COREAI_TABLE`].
    Coreai,
    /// PyTorch's default decompositions.
    Default,
    /// No decomposition.
    None,
}

impl Table {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "coreai" => Ok(Table::Coreai),
            "default" => Ok(Table::Default),
            "none" => Ok(Table::None),
            other => Err(format!(
                "unknown table '{other}'; choose coreai, default or none"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Table::Coreai => "coreai",
            Table::Default => "default",
            Table::None => "none",
        }
    }

    /// Whether the table decomposes the ATen overload `key` (`linear.default`).
    pub fn decomposes(self, key: &str) -> bool {
        match self {
            Table::None => false,
            Table::Coreai if PRESERVED_BY_COREAI_TABLE.contains(&key) => false,
            Table::Coreai | Table::Default => {
                TORCH_DEFAULT_DECOMPOSITION_KEYS.binary_search(&key).is_ok()
            }
        }
    }
}

/// How the compiler handles one ATen overload it knows (`name.overload`):
/// `decompose` rewrites it (`decomposed`), `legalize-aten-to-coreai` lowers
/// it as is (`lowered`), or both (the decomposition runs first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Support {
    pub key: &'static str,
    pub decomposed: bool,
    pub lowered: bool,
}

/// Every ATen overload with a built-in decomposition or lowering, sorted
/// by key (`coreai-compile --print-aten-support`; the importer asks it
/// which ops to leave to PyTorch's own decompositions).
pub fn aten_support() -> Vec<Support> {
    use crate::{aten_to_coreai, decompose};
    let mut keys: Vec<&'static str> = decompose::keys();
    keys.extend(aten_to_coreai::keys());
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|key| Support {
            key,
            decomposed: decompose::lookup(key).is_some(),
            lowered: aten_to_coreai::lookup(key).is_some(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_differ_exactly_by_the_preserved_ops() {
        assert!(
            TORCH_DEFAULT_DECOMPOSITION_KEYS.is_sorted(),
            "data/torch_default_decompositions.txt must stay sorted (binary search)"
        );
        assert!(Table::Default.decomposes("silu.default"));
        assert!(!Table::Coreai.decomposes("silu.default"));
        assert!(Table::Coreai.decomposes("linear.default"));
        assert!(!Table::None.decomposes("linear.default"));
        for key in PRESERVED_BY_COREAI_TABLE {
            assert!(!Table::Coreai.decomposes(key), "{key}");
        }
    }

    #[test]
    fn preserved_ops_are_sorted_and_unique() {
        let mut sorted = PRESERVED_BY_COREAI_TABLE.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, PRESERVED_BY_COREAI_TABLE);
    }
}
