//! Operation names, one constant per op of each dialect, generated at build
//! time from the dialect's ODS (the same TableGen files the C++ side and the
//! typed builders in [`crate::dialects`] are built from). A pass names an op
//! as `coreai::REDUCE_SUM`, never as a string: an op that does not exist
//! does not compile, and a constant works where a typed builder's `name()`
//! cannot (match patterns, `const` tables).

/// The `coreai` dialect's operations.
pub mod coreai {
    /// The dialect's name, the prefix of its ops' names.
    pub const DIALECT: &str = "coreai";

    /// Whether `name` is an op of this dialect.
    pub fn contains(name: &str) -> bool {
        name.strip_prefix(DIALECT)
            .is_some_and(|r| r.starts_with('.'))
    }

    /// The name users write for op `name` in options such as `keep-f32=`:
    /// without the dialect, and a broadcasting form as its elementwise op
    /// (`add` for `coreai.decomposable.broadcasting_add`, `exp` for
    /// `coreai.exp`); a name of another dialect as it is.
    pub fn short(name: &str) -> &str {
        let base = broadcast_base(name).unwrap_or(name);
        match base.strip_prefix(DIALECT).and_then(|r| r.strip_prefix('.')) {
            Some(short) => short,
            None => name,
        }
    }

    /// The broadcasting form of elementwise op `op`
    /// (`coreai.decomposable.broadcasting_add` for `coreai.add`).
    pub fn broadcasting(op: &str) -> Option<&'static str> {
        BROADCASTING_FORMS
            .iter()
            .find(|(base, _)| *base == op)
            .map(|&(_, form)| form)
    }

    /// The elementwise op that `op` is the broadcasting form of
    /// (`coreai.add` for `coreai.decomposable.broadcasting_add`).
    pub fn broadcast_base(op: &str) -> Option<&'static str> {
        BROADCASTING_FORMS
            .iter()
            .find(|(_, form)| *form == op)
            .map(|&(base, _)| base)
    }

    // One constant per op, and a test that each is its typed builder's name.
    include!(concat!(env!("OUT_DIR"), "/op_names_coreai.rs"));
}

/// The `coreaix` dialect's operations.
pub mod coreaix {
    include!(concat!(env!("OUT_DIR"), "/op_names_coreaix.rs"));
}

#[cfg(test)]
mod short_names {
    use super::coreai;

    #[test]
    fn short_names_drop_the_dialect_and_the_broadcasting_form() {
        assert_eq!(coreai::short(coreai::DECOMPOSABLE_BROADCASTING_ADD), "add");
        assert_eq!(coreai::short(coreai::EXP), "exp");
        assert_eq!(coreai::short("aten.relu.default"), "aten.relu.default");
        assert!(coreai::contains(coreai::EXP));
        assert!(!coreai::contains("coreaix.view"));
        assert_eq!(
            coreai::broadcasting(coreai::SUB),
            Some(coreai::DECOMPOSABLE_BROADCASTING_SUB)
        );
        assert_eq!(
            coreai::broadcast_base(coreai::DECOMPOSABLE_BROADCASTING_WHERE),
            Some(coreai::WHERE)
        );
        assert_eq!(coreai::broadcasting(coreai::EXP), None);
    }
}

/// Attribute names in the `coreai` namespace that are not an op's own
/// attributes: they annotate functions and function arguments.
pub mod attr {
    /// A function argument's or result's name in the asset.
    pub const NAME: &str = "coreai.name";
    /// A function argument that is a runtime state.
    pub const STATE: &str = "coreai.state";
    /// A function the legalizer must not inline.
    pub const NOINLINE: &str = "coreai.noinline";
    /// A function that declares a composite.
    pub const COMPOSITE_DECL: &str = "coreai.composite_decl";
}
