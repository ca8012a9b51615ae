//! Fixes for breaks, each checked by planning it: every fix offered heals its break when made,
//! and a break no scope edit heals says that only a model change can.

use crate::plan::{T, ge_proto, t};
use skope::edit::Edit;
use skope::fix::Healing;
use skope::workspace::Workspace;

fn workspace_of(text: &str) -> Workspace {
    let dump = skope::load::load_bytes(std::path::Path::new("g.txt"), text.as_bytes()).unwrap();
    let format = dump.format;
    Workspace::new(
        dump.into_main(),
        format,
        "g.txt",
        &skope::fusion::rules::RuleSet::bundled(),
    )
}

/// The healing of every break of `ws`: (op, scope, healing).
fn healings(ws: &Workspace) -> Vec<(String, String, Healing)> {
    let what_if = ws.what_if();
    let mut out = Vec::new();
    for scope in &ws.plan().scopes {
        for b in &scope.breaks {
            let op = ws.graph().op(b.op).name.clone();
            out.push((op, scope.name.clone(), what_if.heal(scope, b)));
        }
    }
    out
}

/// Makes `edit` on a fresh workspace of `text` (the dump of `ws`) and checks it healed the
/// break of `op` in `scope`: the op no longer breaks it, its neighbours share a segment,
/// nothing fused before is unfused.
fn assert_heals(text: &str, ws: &Workspace, scope: &str, op: &str, edit: &Edit) {
    let before = ws.plan().clone();
    let id = ws.graph().find(op).unwrap();
    let b = before
        .scopes
        .iter()
        .find(|s| s.name == scope)
        .and_then(|s| s.breaks.iter().find(|b| b.op == id))
        .unwrap()
        .clone();
    let mut after = workspace_of(text);
    after.apply(edit.clone(), None).unwrap();
    let plan = after.plan();
    let s = plan
        .scopes
        .iter()
        .find(|s| s.name == scope)
        .expect("scope kept");
    assert!(
        !s.breaks.iter().any(|x| x.op == id),
        "{op} still breaks {scope}"
    );
    if let (Some(a), Some(z)) = (b.before, b.after) {
        assert!(
            s.segments
                .iter()
                .any(|g| g.ops.contains(&a) && g.ops.contains(&z)),
            "{op}'s neighbours are not in one segment"
        );
    }
    let fused = |p: &skope::fusion::plan::Plan| -> Vec<_> {
        let mut v: Vec<_> = p
            .scopes
            .iter()
            .flat_map(|s| &s.segments)
            .flat_map(|s| s.ops.clone())
            .collect();
        v.sort();
        v
    };
    let now = fused(plan);
    assert!(
        fused(&before).iter().all(|o| now.contains(o)),
        "an op left fusion"
    );
}

/// `ops` as a GE dump: its text, and the workspace on it.
fn load(ops: &[T]) -> (String, Workspace) {
    let text = ge_proto(ops);
    let ws = workspace_of(&text);
    (text, ws)
}

const S: Option<&str> = Some("s");
const O: Option<&str> = Some("o");

#[test]
fn an_op_of_no_scope_between_the_scopes_ops_is_healed_by_adding_it() {
    let (text, ws) = load(&[
        t("x", "Data", None),
        t("a", "MatMulV2", S),
        t("gap", "Add", None),
        t("b", "MatMulV2", S),
    ]);
    let h = healings(&ws);
    let Healing::Fixes(fixes) = &h[0].2 else {
        panic!("{h:?}")
    };
    assert_eq!(fixes[0].words, "add gap to scope s");
    assert_eq!(fixes[0].before, ["s_split_0_2", "s_split_2_4"]);
    assert_eq!(fixes[0].after, ["s"]);
    assert_heals(&text, &ws, "s", "gap", &fixes[0].edit);
    assert!(
        h[0].2
            .words()
            .contains("planned: s_split_0_2 + s_split_2_4 → s")
    );
}

#[test]
fn an_unfusible_op_between_the_scopes_ops_needs_a_model_change() {
    // The bundled example's case: taking the op out of the scope leaves it between the
    // scope's ops, where it still cuts; no edit heals it.
    let (_, ws) = load(&[
        t("a", "MatMulV2", S),
        T {
            support: 0,
            ..t("routing", "MoeInitRoutingV2", S)
        },
        t("b", "MatMulV2", S),
        T {
            support: 0,
            ..t("cast", "Cast", None)
        },
        t("c", "MatMulV2", S),
    ]);
    let h = healings(&ws);
    assert_eq!(h.len(), 2, "{h:?}");
    for (op, _, healing) in &h {
        let Healing::ModelChange(what) = healing else {
            panic!("{op}: {healing:?}")
        };
        assert!(
            what.contains("move its code before or after s's ops on stream 0"),
            "{what}"
        );
        assert!(
            !healing.words().contains("out of the scope"),
            "{}",
            healing.words()
        );
    }
    assert!(
        h[1].2.words().contains("cast cannot be fused"),
        "{:?}",
        h[1]
    );
    // Checked: the edit the old advice named does not heal it.
    let (_, mut edited) = load(&[
        t("a", "MatMulV2", S),
        T {
            support: 0,
            ..t("routing", "MoeInitRoutingV2", S)
        },
        t("b", "MatMulV2", S),
    ]);
    let before = edited.plan().clone();
    let routing = edited.graph().find("routing").unwrap();
    edited
        .apply(Edit::Remove { ops: vec![routing] }, None)
        .unwrap();
    assert_eq!(edited.plan().segment_count(), before.segment_count());
}

#[test]
fn an_unfusible_op_at_the_edge_of_its_scope_is_healed_by_taking_it_out() {
    let (text, ws) = load(&[
        T {
            support: 0,
            ..t("routing", "MoeInitRoutingV2", S)
        },
        t("a", "MatMulV2", S),
        t("b", "MatMulV2", S),
    ]);
    let h = healings(&ws);
    let Healing::Fixes(fixes) = &h[0].2 else {
        panic!("{h:?}")
    };
    assert_eq!(fixes[0].words, "take routing out of scope s");
    assert_heals(&text, &ws, "s", "routing", &fixes[0].edit);
}

#[test]
fn interleaved_scopes_are_healed_by_moving_the_op_then_by_merging() {
    let (text, ws) = load(&[
        t("a", "MatMulV2", S),
        t("x", "Add", O),
        t("b", "MatMulV2", S),
        t("y", "Add", O),
    ]);
    let h = healings(&ws);
    // x breaks s; b breaks o.
    let (_, _, Healing::Fixes(fixes)) = h.iter().find(|(op, s, _)| op == "x" && s == "s").unwrap()
    else {
        panic!("{h:?}")
    };
    assert_eq!(fixes[0].words, "move x from scope o into scope s");
    for fix in fixes {
        assert_heals(&text, &ws, "s", "x", &fix.edit);
    }
}

#[test]
fn every_fix_offered_on_the_bundled_examples_heals_its_break() {
    for name in ["moe_decode.ge_proto.txt", "moe_decode.txt"] {
        let path = crate::common::example_path(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let ws = workspace_of(&text);
        let h = healings(&ws);
        assert!(!h.is_empty());
        for (op, scope, healing) in &h {
            match healing {
                Healing::Fixes(fixes) => {
                    for fix in fixes {
                        assert_heals(&text, &ws, scope, op, &fix.edit);
                    }
                }
                Healing::ModelChange(_) => {}
                other => panic!("{name}: {op}: {other:?}"),
            }
        }
        // layer0_init_routing (the case) gets no fix that does not heal.
        let (_, _, routing) = h
            .iter()
            .find(|(op, ..)| op == "layer0_init_routing")
            .unwrap();
        assert!(matches!(routing, Healing::ModelChange(_)), "{routing:?}");
    }
}
