use super::*;

fn op(name: &str, ty: &str, id: Option<i64>, inputs: &[&str]) -> OpBuilder {
    OpBuilder {
        name: name.into(),
        op_type: ty.into(),
        topo_id: id,
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
        ..OpBuilder::default()
    }
}

#[test]
fn inputs_resolve_to_data_control_unconnected_and_dangling() {
    let mut b = GraphBuilder::new("g");
    b.push(op("a", "Data", None, &[]));
    b.push(op("b", "Cast", None, &["a:0", "", "a:-1", "^a", "ghost:1"]));
    let g = b.build();
    let b_op = g.op(OpId(1));
    assert_eq!(
        b_op.inputs,
        vec![
            Input::Data {
                src: OpId(0),
                out: 0
            },
            Input::Unconnected,
            Input::Control { src: OpId(0) },
            Input::Control { src: OpId(0) },
            Input::Dangling {
                text: "ghost:1".into()
            },
        ]
    );
    assert_eq!(g.edge_counts(), (1, 2));
    assert_eq!(g.notes().len(), 1);
    assert!(g.notes()[0].message.contains("ghost:1"));
    let succ: Vec<_> = g.successors(OpId(0)).collect();
    assert_eq!(succ.len(), 3);
    assert!(succ.contains(&(OpId(1), EdgeKind::Data { out: 0, input: 0 })));
}

#[test]
fn execution_order_follows_topo_ids_and_omitted_id_means_zero() {
    let mut b = GraphBuilder::new("g");
    b.push(op("c", "Add", Some(2), &[]));
    b.push(op("a", "Data", None, &[]));
    b.push(op("b", "Mul", Some(1), &[]));
    let g = b.build();
    let names: Vec<_> = g
        .exec_order()
        .iter()
        .map(|&i| g.op(i).name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(g.op(OpId(1)).topo_id, Some(0));
    let positions: Vec<_> = (0..3).map(|i| g.exec_position(OpId(i))).collect();
    assert_eq!(positions, [2, 0, 1]);
}

#[test]
fn without_ids_file_order_is_execution_order_and_streams_stay_unknown() {
    let mut b = GraphBuilder::new("g");
    b.push(op("z", "Data", None, &[]));
    b.push(op("y", "Add", None, &["z:0"]));
    let g = b.build();
    assert_eq!(g.exec_order(), &[OpId(0), OpId(1)]);
    assert!(!g.has_topo_ids());
    assert!(!g.has_streams());
}

#[test]
fn assigned_streams_default_to_zero() {
    let mut b = GraphBuilder::new("g");
    b.streams_assigned(true);
    let mut x = op("x", "Add", Some(0), &[]);
    x.stream = Some(3);
    b.push(x);
    b.push(op("y", "Add", Some(1), &[]));
    let g = b.build();
    assert_eq!(g.op(OpId(0)).stream, Some(3));
    assert_eq!(g.op(OpId(1)).stream, Some(0));
}

#[test]
fn duplicate_names_are_noted_and_resolve_to_the_first() {
    let mut b = GraphBuilder::new("g");
    b.push(op("a", "Data", None, &[]));
    b.push(op("a", "Data", None, &[]));
    b.push(op("b", "Add", None, &["a:0"]));
    let g = b.build();
    assert_eq!(g.find("a"), Some(OpId(0)));
    assert!(g.notes()[0].message.contains("duplicate op name"));
}

#[test]
fn scope_accessors_read_the_superkernel_attributes() {
    let mut o = op("m", "MatMul", None, &[]);
    o.attrs.insert(ATTR_SCOPE, AttrValue::Str("sp1".into()));
    o.attrs
        .insert(ATTR_OPTIONS, AttrValue::Str("stream-fusion=1".into()));
    o.attrs
        .insert(ATTR_STREAM_LABEL, AttrValue::Str("5".into()));
    let mut b = GraphBuilder::new("g");
    b.push(o);
    b.push(op("n", "Add", None, &[]));
    let g = b.build();
    assert_eq!(g.op(OpId(0)).scope(), Some("sp1"));
    assert_eq!(g.op(OpId(0)).sk_options(), Some("stream-fusion=1"));
    assert_eq!(g.op(OpId(0)).stream_label(), Some("5"));
    assert_eq!(g.op(OpId(1)).scope(), None);
}
