//! `docs/passes.md` is generated from the pass registry and must match it.
//! Re-bless with `COREAI_BLESS=1 cargo test --test docs`.

#[test]
fn pass_reference_matches_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/passes.md");
    let expected = coreai::registry::markdown();
    if std::env::var_os("COREAI_BLESS").is_some() {
        std::fs::write(path, &expected).expect("write docs/passes.md");
        return;
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/passes.md is out of date with the registry; run COREAI_BLESS=1 cargo test --test docs"
    );
}
