//! An approval cannot be forged: each file in `tests/compile_fail/` tries one way and must
//! fail to compile with the error pinned in its `.stderr` file (regenerate them with
//! `TRYBUILD=overwrite` after a toolchain change, and read the diff).

#[test]
fn approvals_cannot_be_forged() {
    trybuild::TestCases::new().compile_fail("tests/compile_fail/*.rs");
}
