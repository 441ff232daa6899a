//! The checker on small synthetic trees: cycles found (through `use`, paths, `super::`,
//! re-exports, macros), clean DAGs, folder scopes and the top-level collapse.

use super::*;

fn tree(files: &[(&str, &str)]) -> BTreeMap<ModulePath, String> {
    files
        .iter()
        .map(|(path, text)| (module_path(Path::new(path), false), text.to_string()))
        .collect()
}

fn edges(graph: &Graph, from: &str) -> Vec<String> {
    graph[from].iter().cloned().collect()
}

#[test]
fn a_cycle_through_use_and_paths_is_found() {
    let files = tree(&[
        (
            "lib.rs",
            "mod a; mod b; mod c; pub use a::Alpha; pub use other::Ext;",
        ),
        ("a.rs", "use crate::b::Beta; pub struct Alpha(Beta);"),
        ("b.rs", "pub struct Beta; fn f() { crate::c::gamma(); }"),
        (
            "c.rs",
            "pub fn gamma() { let _ = crate::Alpha; let _ = crate::Ext; }",
        ),
    ]);
    let graph = file_graph(&files);
    assert_eq!(edges(&graph, "a"), ["b"]);
    assert_eq!(edges(&graph, "b"), ["c"]);
    // `crate::Alpha` goes through lib.rs's re-export to `a`, not to lib.rs.
    assert_eq!(edges(&graph, "c"), ["a"]);
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, ["a", "b", "c"]);
    assert_eq!(found[0].1, ["a", "b", "c", "a"]);
}

#[test]
fn a_child_using_its_parent_through_super_closes_a_cycle_with_a_parent_use() {
    let files = tree(&[
        ("lib.rs", "mod sim;"),
        (
            "sim/mod.rs",
            "mod launch; pub(crate) use launch::run; pub struct Options;",
        ),
        (
            "sim/launch.rs",
            "use super::Options; pub fn run(_: Options) {}",
        ),
    ]);
    let graph = file_graph(&files);
    assert_eq!(edges(&graph, "sim"), ["sim::launch"]);
    assert_eq!(edges(&graph, "sim::launch"), ["sim"]);
    assert_eq!(cycles(&graph)[0].0, ["sim", "sim::launch"]);
}

#[test]
fn a_dag_with_mod_declarations_tests_and_macros_is_clean() {
    let files = tree(&[
        ("lib.rs", "mod error; mod device; mod launch; pub use error::Error;"),
        (
            "error.rs",
            "pub enum Error {} #[cfg(test)] mod tests { use super::*; use crate::launch::g; }",
        ),
        (
            "device/mod.rs",
            "mod stream; pub use stream::Stream; use crate::error::Error; \
             pub(in crate::launch) fn f() -> Result<(), crate::Error> { Ok(()) }",
        ),
        ("device/stream.rs", "pub struct Stream(crate::error::Error);"),
        (
            "launch.rs",
            "use crate::device::Stream; fn g() { assert!(matches!(1, 1), \"{}\", crate::device::f().is_ok()); }",
        ),
    ]);
    let graph = file_graph(&files);
    assert_eq!(edges(&graph, "device"), ["device::stream", "error"]);
    // The re-export `device::Stream` is followed to the file that defines it, and a
    // path inside a macro's tokens is an edge.
    assert_eq!(edges(&graph, "launch"), ["device", "device::stream"]);
    assert!(edges(&graph, "error").is_empty(), "{:?}", graph["error"]);
    assert!(cycles(&graph).is_empty(), "{:?}", cycles(&graph));
}

#[test]
fn top_level_collapse_finds_cycles_between_folders_only() {
    let files = tree(&[
        ("lib.rs", "mod front; mod back;"),
        ("front/mod.rs", "mod lower; use lower::x;"),
        (
            "front/lower.rs",
            "use super::*; pub fn x() { crate::back::y(); }",
        ),
        ("back/mod.rs", "pub fn y() {}"),
    ]);
    assert!(cycles(&collapse_to_top_level(file_graph(&files))).is_empty());
    // Inside `front` the two files form a cycle, which the collapse hides.
    assert_eq!(cycles(&file_graph(&files)).len(), 1);

    let files = tree(&[
        ("lib.rs", "mod front; mod back;"),
        ("front/mod.rs", "pub fn x() { crate::back::y(); }"),
        ("back/writer.rs", "fn z() { crate::front::x(); }"),
        ("back/mod.rs", "mod writer; pub fn y() {}"),
    ]);
    let found = cycles(&collapse_to_top_level(file_graph(&files)));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, ["back", "front"]);
}

#[test]
fn a_module_only_pointing_into_a_cycle_is_not_in_it() {
    let files = tree(&[
        ("lib.rs", "mod a; mod b; pub use a::A;"),
        ("a.rs", "pub struct A; use crate::b::B;"),
        ("b.rs", "pub struct B; use crate::a::A;"),
    ]);
    let found = cycles(&file_graph(&files));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, ["a", "b"]);
}

#[test]
fn dir_scope_restricts_to_the_folder() {
    let files = tree(&[
        ("lib.rs", "mod back;"),
        ("back/mod.rs", "mod nvvm; use nvvm::W;"),
        (
            "back/nvvm/mod.rs",
            "mod writer; pub use writer::W; use crate::back::other;",
        ),
        (
            "back/nvvm/writer.rs",
            "pub struct W; fn f() { super::super::other(); }",
        ),
    ]);
    let prefix = module_path(Path::new("back/nvvm"), true);
    let graph = restrict(file_graph(&files), |m| within(m, &prefix));
    assert_eq!(
        graph.keys().collect::<Vec<_>>(),
        ["back::nvvm", "back::nvvm::writer"]
    );
    assert!(cycles(&graph).is_empty());
}

#[test]
fn a_test_only_module_file_is_no_node_and_closes_no_cycle() {
    let files = tree(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a/mod.rs",
            "use crate::b::Beta; pub struct Alpha(Beta); #[cfg(test)] mod tests;",
        ),
        ("a/tests.rs", "use crate::b::check; mod more;"),
        ("a/tests/more.rs", "fn f() { crate::b::check(); }"),
        (
            "b.rs",
            "pub struct Beta; #[cfg(test)] pub fn check() { let _ = crate::a::Alpha; }",
        ),
    ]);
    let graph = file_graph(&files);
    assert!(!graph.contains_key("a::tests") && !graph.contains_key("a::tests::more"));
    assert_eq!(edges(&graph, "a"), ["b"]);
    assert!(cycles(&collapse_to_top_level(graph)).is_empty());
}
