//! Scope edits on the bundled example: each edit's effect on the plan, its undo and redo,
//! the errors, and random edit sequences undone to the original plan.

use skope::edit::{Edit, EditError};
use skope::fusion::plan::{BreakReason, ScopeStatus, plan};
use skope::fusion::rules::RuleSet;
use skope::graph::OpId;
use skope::load::load_file;
use skope::workspace::{OpChange, Workspace};
use std::path::Path;

fn example() -> Workspace {
    let path = Path::new("assets/examples/moe_decode.ge_proto.txt");
    let dump = load_file(path, Default::default()).unwrap();
    let format = dump.format;
    Workspace::new(dump.into_main(), format, "example", &RuleSet::bundled())
}

fn id(ws: &Workspace, name: &str) -> OpId {
    ws.graph()
        .find(name)
        .unwrap_or_else(|| panic!("no op {name}"))
}

fn scope<'w>(ws: &'w Workspace, name: &str) -> &'w skope::fusion::plan::ScopePlan {
    ws.plan()
        .scopes
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scope {name}"))
}

fn has_scope(ws: &Workspace, name: &str) -> bool {
    ws.plan().scopes.iter().any(|s| s.name == name)
}

#[test]
fn assigning_the_unscoped_op_heals_the_break_and_undo_brings_it_back() {
    let mut ws = example();
    let fill = id(&ws, "layer2_mask_fill");
    assert_eq!(scope(&ws, "attn_2").status, ScopeStatus::Split);
    ws.apply(
        Edit::Assign {
            ops: vec![fill],
            scope: "attn_2".into(),
        },
        None,
    )
    .unwrap();
    let attn = scope(&ws, "attn_2");
    assert_eq!(attn.status, ScopeStatus::Fused);
    assert_eq!(attn.segments.len(), 1);
    assert_eq!(attn.segments[0].ops.len(), 9);
    assert_eq!(ws.changes().of(fill), Some(OpChange::Healed));
    assert_eq!(
        ws.changes().added_segments,
        ["sk_attn_2_start_layer2_input_rmsnorm_end_layer2_residual_add"]
    );
    assert_eq!(ws.changes().removed_segments.len(), 2);
    let fused = "sk_attn_2_start_layer2_input_rmsnorm_end_layer2_residual_add";
    let status = |from, to| vec![("attn_2".to_string(), Some(from), Some(to))];
    let (split, whole) = (ScopeStatus::Split, ScopeStatus::Fused);
    assert_eq!(ws.changes().statuses, status(split, whole));
    let halves = ws.changes().removed_segments.clone();
    assert!(ws.is_dirty());
    // Each change is against the plan just before it, edit after edit.
    ws.undo().unwrap();
    assert_eq!(scope(&ws, "attn_2").status, ScopeStatus::Split);
    assert_eq!(ws.changes().of(fill), Some(OpChange::NewBreak));
    assert_eq!(ws.changes().added_segments, halves);
    assert_eq!(ws.changes().removed_segments, [fused]);
    assert_eq!(ws.changes().statuses, status(whole, split));
    assert!(!ws.is_dirty());
    ws.redo().unwrap();
    assert_eq!(scope(&ws, "attn_2").status, ScopeStatus::Fused);
    assert_eq!(ws.changes().added_segments, [fused]);
    assert_eq!(ws.changes().removed_segments, halves);
    assert_eq!(ws.changes().statuses, status(split, whole));
    assert!(ws.is_dirty());
}

#[test]
fn a_new_scope_takes_its_ops_and_its_name_must_be_free_and_sound() {
    let mut ws = example();
    let ops: Vec<OpId> = ["layer3_gate", "layer3_gating_topk"]
        .iter()
        .map(|n| id(&ws, n))
        .collect();
    ws.apply(
        Edit::NewScope {
            ops: ops.clone(),
            scope: "router_3".into(),
            options: "early-start=0".into(),
        },
        None,
    )
    .unwrap();
    let router = scope(&ws, "router_3");
    assert_eq!(router.members, ops);
    assert_eq!(router.options, "early-start=0");
    assert_eq!(router.segments[0].name, "router_3");
    // moe_3 lost two members from its middle: they now cut it.
    assert_eq!(scope(&ws, "moe_3").status, ScopeStatus::Split);
    let err = |scope: &str| Edit::NewScope {
        ops: ops.clone(),
        scope: scope.into(),
        options: String::new(),
    };
    assert_eq!(
        ws.apply(err("moe_2"), None),
        Err(EditError::ScopeExists("moe_2".into()))
    );
    assert!(matches!(
        ws.apply(err(""), None),
        Err(EditError::BadName(..))
    ));
    assert!(matches!(
        ws.apply(err(" x"), None),
        Err(EditError::BadName(..))
    ));
    assert!(matches!(
        ws.apply(err("a\u{1b}b"), None),
        Err(EditError::BadName(..))
    ));
    assert_eq!(
        ws.apply(
            Edit::NewScope {
                ops: vec![],
                scope: "y".into(),
                options: String::new()
            },
            None
        ),
        Err(EditError::NoOps)
    );
    // Failed edits leave no trace in the history.
    assert_eq!(ws.history_len(), (1, 0));
}

#[test]
fn remove_and_do_not_fuse_keep_cutting_with_their_own_reasons() {
    let mut ws = example();
    let cast = id(&ws, "layer1_expert_ids_cast");
    ws.apply(Edit::Remove { ops: vec![cast] }, None).unwrap();
    let moe = scope(&ws, "moe_1");
    let b = moe.breaks.iter().find(|b| b.op == cast).unwrap();
    assert_eq!(b.reason, BreakReason::Unscoped);
    let rope = id(&ws, "layer0_rope");
    ws.apply(Edit::DoNotFuse { ops: vec![rope] }, None).unwrap();
    let attn = scope(&ws, "attn_0");
    assert_eq!(attn.status, ScopeStatus::Split);
    assert_eq!(attn.breaks[0].reason, BreakReason::DoNotFuse);
    assert_eq!(ws.changes().of(rope), Some(OpChange::NewBreak));
    // Doing it again changes nothing and is refused.
    assert_eq!(
        ws.apply(Edit::DoNotFuse { ops: vec![rope] }, None),
        Err(EditError::Unchanged)
    );
}

#[test]
fn rename_merge_delete_and_options_change_whole_scopes() {
    let mut ws = example();
    ws.apply(
        Edit::Rename {
            scope: "attn_0".into(),
            to: "attention_0".into(),
        },
        None,
    )
    .unwrap();
    assert!(!has_scope(&ws, "attn_0"));
    assert_eq!(
        scope(&ws, "attention_0").segments[0].fused_node,
        "sk_attention_0_start_layer0_input_rmsnorm_end_layer0_residual_add"
    );
    assert_eq!(
        ws.apply(
            Edit::Rename {
                scope: "attention_0".into(),
                to: "moe_0".into()
            },
            None
        ),
        Err(EditError::ScopeExists("moe_0".into()))
    );
    // Renaming to the old, now unused name works and frees it.
    ws.apply(
        Edit::Rename {
            scope: "attention_0".into(),
            to: "attn_0".into(),
        },
        None,
    )
    .unwrap();
    assert!(has_scope(&ws, "attn_0"));
    // Merge moe_0 into attn_0: attn_0 gets moe_0's ops with its own (empty) options.
    let moe_ops = scope(&ws, "moe_0").members.clone();
    ws.apply(
        Edit::Merge {
            scope: "moe_0".into(),
            into: "attn_0".into(),
        },
        None,
    )
    .unwrap();
    assert!(!has_scope(&ws, "moe_0"));
    let attn = scope(&ws, "attn_0");
    assert!(moe_ops.iter().all(|op| attn.members.contains(op)));
    assert_eq!(attn.options, "");
    assert_eq!(
        ws.apply(
            Edit::Merge {
                scope: "attn_0".into(),
                into: "attn_0".into()
            },
            None
        ),
        Err(EditError::SameScope("attn_0".into()))
    );
    ws.apply(
        Edit::Delete {
            scope: "moe_2".into(),
        },
        None,
    )
    .unwrap();
    assert!(!has_scope(&ws, "moe_2"));
    assert_eq!(
        ws.apply(
            Edit::Delete {
                scope: "moe_2".into()
            },
            None
        ),
        Err(EditError::NoScope("moe_2".into()))
    );
    // strict-scope-check=abort on a split scope fails the build.
    ws.apply(
        Edit::SetOptions {
            scope: "moe_1".into(),
            options: "stream-fusion=1:strict-scope-check=abort".into(),
        },
        None,
    )
    .unwrap();
    assert_eq!(scope(&ws, "moe_1").status, ScopeStatus::Aborted);
    // Everything undone: the plan the dump gave.
    let original = example();
    while ws.undo().is_some() {}
    assert_eq!(ws.plan(), original.plan());
    assert!(!ws.is_dirty());
}

#[test]
fn edits_with_the_same_key_are_one_step() {
    let mut ws = example();
    for options in ["e", "ea", "early-start=0"] {
        ws.apply(
            Edit::SetOptions {
                scope: "attn_1".into(),
                options: options.into(),
            },
            Some(7),
        )
        .unwrap();
    }
    assert_eq!(ws.history_len(), (1, 0));
    assert_eq!(scope(&ws, "attn_1").options, "early-start=0");
    ws.undo().unwrap();
    assert_eq!(scope(&ws, "attn_1").options, "");
    ws.redo().unwrap();
    assert_eq!(scope(&ws, "attn_1").options, "early-start=0");
    // Another key, or an edit in between, starts a new step.
    ws.apply(
        Edit::SetOptions {
            scope: "attn_1".into(),
            options: "early-start=1".into(),
        },
        Some(8),
    )
    .unwrap();
    assert_eq!(ws.history_len(), (2, 0));
}

/// A small deterministic random generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_edit(ws: &Workspace, rng: &mut Rng, k: usize) -> Edit {
    let n = ws.graph().len();
    let start = rng.below(n);
    let ops: Vec<OpId> = ws.graph().exec_order()[start..(start + 1 + rng.below(6)).min(n)].to_vec();
    let scopes: Vec<String> = ws.plan().scopes.iter().map(|s| s.name.clone()).collect();
    let any_scope = |rng: &mut Rng| scopes[rng.below(scopes.len())].clone();
    let options = [
        "",
        "stream-fusion=1",
        "early-start=0",
        "strict-scope-check=bypass",
        "x=1",
    ];
    match rng.below(if scopes.is_empty() { 3 } else { 8 }) {
        0 => Edit::NewScope {
            ops,
            scope: format!("s{k}"),
            options: options[rng.below(options.len())].into(),
        },
        1 => Edit::Remove { ops },
        2 => Edit::DoNotFuse { ops },
        3 => Edit::Assign {
            ops,
            scope: any_scope(rng),
        },
        4 => Edit::Rename {
            scope: any_scope(rng),
            to: format!("r{k}"),
        },
        5 => Edit::Merge {
            scope: any_scope(rng),
            into: any_scope(rng),
        },
        6 => Edit::Delete {
            scope: any_scope(rng),
        },
        _ => Edit::SetOptions {
            scope: any_scope(rng),
            options: options[rng.below(options.len())].into(),
        },
    }
}

#[test]
fn random_edit_sequences_undo_to_the_original_plan_and_redo_to_the_last() {
    let original = example();
    for seed in 1..=30u64 {
        let mut ws = example();
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut plans = vec![ws.plan().clone()];
        for k in 0..60 {
            let edit = random_edit(&ws, &mut rng, k);
            let breaks_before = ws.plan().break_count();
            if ws.apply(edit, None).is_ok() {
                // The re-plan that keeps unaffected scopes equals a plan from scratch.
                let full = plan(ws.context(), ws.marks());
                assert_eq!(ws.plan(), &full, "seed {seed}, edit {k}");
                // What the edit says it did to the breaks adds up to the new count.
                let changes = ws.changes();
                assert_eq!(
                    breaks_before + changes.breaks_added - changes.breaks_healed,
                    ws.plan().break_count(),
                    "seed {seed}, edit {k}"
                );
                plans.push(ws.plan().clone());
            }
        }
        assert!(
            plans.len() > 30,
            "seed {seed}: only {} edits applied",
            plans.len()
        );
        // Undo step by step, checking every intermediate plan on the way back.
        for expected in plans.iter().rev().skip(1) {
            ws.undo().unwrap();
            assert_eq!(ws.plan(), expected, "seed {seed}");
            assert_eq!(ws.plan(), &plan(ws.context(), ws.marks()), "seed {seed}");
        }
        assert!(ws.undo().is_none());
        assert_eq!(ws.plan(), original.plan(), "seed {seed}");
        assert!(!ws.is_dirty());
        while ws.redo().is_some() {
            assert_eq!(ws.plan(), &plan(ws.context(), ws.marks()), "seed {seed}");
        }
        assert_eq!(ws.plan(), plans.last().unwrap(), "seed {seed}");
    }
}

#[test]
fn steps_of_several_different_edits_undo_and_redo_whole() {
    // As accepting a template makes them: several edits under one key, or made together, are
    // one step, undone and redone whole, whatever they are.
    let original = example();
    for seed in 1..=20u64 {
        let mut ws = example();
        let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let mut plans = vec![ws.plan().clone()];
        let mut k = 0;
        for step in 0..15u64 {
            let mut made = false;
            if rng.below(2) == 0 {
                // Made one by one under one key, each planned.
                for _ in 0..1 + rng.below(4) {
                    let edit = random_edit(&ws, &mut rng, k);
                    k += 1;
                    made |= ws.apply(edit, Some(1000 + step)).is_ok();
                }
            } else {
                // Made together, planned once; refused whole, leaving the plan as it was.
                let before = ws.plan().clone();
                let edits: Vec<Edit> = (0..1 + rng.below(4))
                    .map(|i| random_edit(&ws, &mut rng, k + i))
                    .collect();
                k += edits.len();
                made = ws.apply_all(edits, Some(1000 + step)).is_ok();
                if !made {
                    assert_eq!(ws.plan(), &before, "seed {seed}");
                }
            }
            if made {
                assert_eq!(ws.plan(), &plan(ws.context(), ws.marks()), "seed {seed}");
                plans.push(ws.plan().clone());
            }
        }
        assert_eq!(ws.history_len().0, plans.len() - 1, "seed {seed}");
        for expected in plans.iter().rev().skip(1) {
            ws.undo().unwrap();
            assert_eq!(ws.plan(), expected, "seed {seed}");
        }
        assert_eq!(ws.plan(), original.plan(), "seed {seed}");
        for expected in plans.iter().skip(1) {
            ws.redo().unwrap();
            assert_eq!(ws.plan(), expected, "seed {seed}");
            assert_eq!(ws.plan(), &plan(ws.context(), ws.marks()), "seed {seed}");
        }
    }
}

#[test]
fn the_range_of_a_plan_on_assumed_verdicts_follows_every_edit() {
    // The TorchAir dump: 75 scope members are assumed fusible.
    let path = Path::new("assets/examples/moe_decode.txt");
    let dump = load_file(path, Default::default()).unwrap();
    let format = dump.format;
    let mut ws = Workspace::new(dump.into_main(), format, "torchair", &RuleSet::bundled());
    let range = |ws: &Workspace| {
        let other = ws.context().assumed_unfusible().expect("assumed verdicts");
        let other_plan = plan(&other, ws.marks());
        (other_plan.segment_count(), other_plan.break_count())
    };
    let first = ws.assumed_range().unwrap();
    assert_eq!((first.ops, first.segments, first.breaks), (75, 4, 78));
    assert_eq!(
        scope(&ws, "attn_0").status_words(),
        "fused if 7 assumed ops are AscendC"
    );
    let mut rng = Rng(7);
    for k in 0..60 {
        let edit = random_edit(&ws, &mut rng, k);
        if ws.apply(edit, None).is_ok() {
            let now = ws.assumed_range();
            let ops: usize = ws.plan().scopes.iter().map(|s| s.assumed).sum();
            match now {
                Some(r) => assert_eq!((r.ops, r.segments, r.breaks), {
                    let (s, b) = range(&ws);
                    (ops, s, b)
                }),
                None => assert_eq!(ops, 0),
            }
        }
    }
    // A compiled dump rests on no assumption.
    assert_eq!(example().assumed_range(), None);
}
