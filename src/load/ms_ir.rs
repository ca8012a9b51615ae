//! MindSpore IR text (`*.ir`, written with `save_graphs` / `MS_DEV_SAVE_GRAPHS`;
//! reference/profiling_and_dumps.md §4.3): graphs as `subgraph @NAME(params) { … }` blocks of
//! node lines `%N(debug_name) = Op(args) attrs`, each followed by its types
//! (`: (inputs) -> (output)`) and comment lines (`# Fullname with scope: (…)`, `# In file …`).
//! Both the 2.x shapes (`PrimFunc_Sub`, `<Tensor[Float32], (2, 3)>`) and the 1.x ones
//! (`Sub(…) {instance name: sub}`, `<Tensor[Float32]x(2, 3)>`) are read.
//!
//! The graph skope shows is every graph that is not a graph-kernel subgraph, op by op. A node
//! calling a graph-kernel subgraph (`%N(…) = call @g(…)`, where `subgraph attr:` of `g` has
//! `graph_kernel: <fused name>`; MindSpore's `anf_ir_dump.cc` and `graph_builder.cc`) is
//! replaced by that subgraph's basic ops, each carrying the composite's name in
//! [`ATTR_COMPOSITE`]; edges follow the call's arguments into the subgraph and its output out.

use super::ms_composite::{ATTR_COMPOSITE, ATTR_FULL_NAME, dtype};
use super::textproto::SyntaxError;
use crate::graph::{AttrValue, Attrs, GraphBuilder, Interned, OpBuilder, TensorDesc};
use std::collections::HashMap;

/// The attribute holding an op's source line (`# In file …`).
pub const ATTR_SOURCE: &str = "_ms_source";

/// The attribute holding a node's attributes as the IR writes them (`primitive_attrs: {…}
/// cnode_attrs: {…}`).
pub const ATTR_NODE_ATTRS: &str = "_ms_attrs";

/// The attribute holding the graph an op was read from, when the file has several.
pub const ATTR_GRAPH: &str = "_ms_graph";

/// True when `head` (the start of a text file) looks like MindSpore IR.
pub fn looks_like(head: &[u8]) -> bool {
    let head = &head[..head.len().min(64 << 10)];
    let text = String::from_utf8_lossy(head);
    text.lines().take(400).any(|l| {
        let t = l.trim_start();
        t.starts_with("# IR entry")
            || t.starts_with("#IR entry")
            || t.starts_with("subgraph @")
            || t.starts_with("subgraph attr:")
            || t.starts_with("subgraph instance:")
            || t.starts_with("# Total subgraphs")
    })
}

/// One node line and what follows it, as slices of the text.
#[derive(Debug, Default, Clone)]
struct Node<'a> {
    /// `%N` as written (`%3`), or empty for a line without an assignment (`Return(%2)`).
    id: &'a str,
    /// The op: a primitive (`Sub`, `PrimFunc_Sub`), `@graph` for a call of a graph.
    op: &'a str,
    /// The arguments, top-level, as written.
    args: Vec<&'a str>,
    /// The attributes after the arguments (`primitive_attrs: {…} cnode_attrs: {…}`).
    attrs: &'a str,
    /// The first types line (`: (…) -> (…)`).
    types: Option<&'a str>,
    /// `# Fullname with scope: (…)`.
    full_name: Option<&'a str>,
    /// The first `# In file …` line.
    source: Option<&'a str>,
}

/// One `subgraph @NAME(…) { … }` block.
#[derive(Debug, Default)]
struct Graph<'a> {
    name: &'a str,
    params: Vec<&'a str>,
    /// The `subgraph attr:` lines before it.
    attrs: Vec<&'a str>,
    nodes: Vec<Node<'a>>,
}

impl Graph<'_> {
    /// The value of subgraph attribute `key` (`key: value`, or `key : value` in older dumps).
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find_map(|a| {
            let (k, v) = a.split_once(':')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"'))
        })
    }

    /// True for a graph-kernel subgraph: MindSpore's graph builder sets the string attribute
    /// `graph_kernel` (`FUNC_GRAPH_ATTR_GRAPH_KERNEL`) to the fused op's name on it.
    fn is_graph_kernel(&self) -> bool {
        self.attr("graph_kernel").is_some()
    }

    /// The fused op's name (`Add_Mul_fusion`): the `graph_kernel` attribute. The kernel built
    /// from it is `Fused_<name>_<hash>`; the hash is not in the IR. Several calls may share it.
    fn kernel_name(&self) -> String {
        self.attr("graph_kernel")
            .filter(|v| !v.is_empty())
            .unwrap_or(self.name)
            .to_string()
    }
}

/// The top-level arguments of `text` (the inside of an argument list).
fn split_args(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// The byte index of the bracket closing the one at `open` in `text`, if any.
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parses a node line's text after the indentation; `None` when it is not a node line.
fn node_line(text: &str) -> Option<Result<Node<'_>, String>> {
    let (id, rest) = if let Some(after) = text.strip_prefix('%') {
        let eq = after.find(") = ").or_else(|| after.find(" = "))?;
        let head = &after[..eq];
        let id_len = head.find('(').unwrap_or(head.len());
        if id_len == 0
            || !head[..id_len]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return None;
        }
        let skip = if after[eq..].starts_with(") = ") {
            4
        } else {
            3
        };
        (&text[..id_len + 1], &after[eq + skip..])
    } else {
        // `Return(%2)` and other lines without an assignment.
        let open = text.find('(')?;
        let op = &text[..open];
        if op.is_empty() || !op.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        ("", text)
    };
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("call ").unwrap_or(rest);
    let Some(open) = rest.find('(') else {
        return Some(Err(format!("expected `(` after the op in `{rest}`")));
    };
    let op = rest[..open].trim();
    let Some(close) = closing(rest, open) else {
        return Some(Err(format!("the argument list of `{op}` is not closed")));
    };
    Some(Ok(Node {
        id,
        op,
        args: split_args(&rest[open + 1..close]),
        attrs: rest[close + 1..].trim(),
        ..Node::default()
    }))
}

/// Every graph of the file, in order, and the entry graph's name when it says.
fn graphs(src: &str) -> Result<(Vec<Graph<'_>>, Option<&str>), SyntaxError> {
    let mut out: Vec<Graph> = Vec::new();
    let mut entry = None;
    let mut pending_attrs: Vec<&str> = Vec::new();
    let mut in_attrs = false;
    let mut current: Option<(Graph, usize)> = None;
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let trimmed = line.trim();
        let indent = line.len() - line.trim_start().len();
        if trimmed.is_empty() {
            continue;
        }
        if let Some((graph, _)) = &mut current {
            if trimmed == "}" {
                if let Some((graph, _)) = current.take() {
                    out.push(graph);
                }
                continue;
            }
            if let Some(types) = trimmed.strip_prefix(": ") {
                if let Some(node) = graph.nodes.last_mut()
                    && node.types.is_none()
                {
                    node.types = Some(types);
                }
                continue;
            }
            if let Some(comment) = trimmed.strip_prefix('#') {
                let comment = comment.trim();
                if let Some(node) = graph.nodes.last_mut() {
                    // `Fullname with scope:` (2.x), `fullname_with_scope:` (some 2.x) or
                    // `Scope:` (without dump_full_name).
                    let scope = ["Fullname with scope:", "fullname_with_scope:", "Scope:"]
                        .iter()
                        .find_map(|p| comment.strip_prefix(p));
                    if let Some(name) = scope {
                        let name = name.trim().trim_start_matches('(').trim_end_matches(')');
                        node.full_name = Some(name);
                    } else if comment.starts_with("In file") && node.source.is_none() {
                        node.source = Some(comment);
                    }
                }
                continue;
            }
            match node_line(trimmed) {
                Some(Ok(node)) => graph.nodes.push(node),
                Some(Err(message)) => {
                    return Err(SyntaxError::new(at + indent, message));
                }
                // Other lines inside a graph (attribute continuations, blank markers) say
                // nothing about its nodes.
                None => {}
            }
            continue;
        }
        // `# IR entry: @g` (2.x) or `#IR entry      : @g` (1.x).
        if let Some(rest) = trimmed.strip_prefix('#').map(str::trim_start)
            && let Some(rest) = rest.strip_prefix("IR entry")
            && let Some((_, name)) = rest.split_once(':')
        {
            entry = Some(name.trim().trim_start_matches('@'));
            continue;
        }
        if trimmed.starts_with("subgraph attr:") {
            pending_attrs.clear();
            in_attrs = true;
            continue;
        }
        if trimmed.starts_with("subgraph instance:") || trimmed.starts_with('#') {
            in_attrs &= trimmed.starts_with('#');
            continue;
        }
        if let Some(head) = trimmed.strip_prefix("subgraph @") {
            in_attrs = false;
            let (name, params) = match head.find('(') {
                Some(open) => {
                    let close = closing(head, open).ok_or_else(|| {
                        SyntaxError::new(at + indent, "the parameter list is not closed")
                    })?;
                    (&head[..open], split_args(&head[open + 1..close]))
                }
                None => (head.trim_end_matches('{').trim(), Vec::new()),
            };
            let graph = Graph {
                name: name.trim(),
                params: params
                    .iter()
                    .map(|p| p.split(':').next().unwrap_or(p).trim())
                    .collect(),
                attrs: std::mem::take(&mut pending_attrs),
                nodes: Vec::new(),
            };
            current = Some((graph, at + indent));
            continue;
        }
        if in_attrs {
            pending_attrs.push(trimmed);
        }
    }
    if let Some((graph, at)) = current {
        return Err(SyntaxError::new(
            at,
            format!(
                "unexpected end of input: subgraph @{} is not closed with `}}`",
                graph.name
            ),
        ));
    }
    Ok((out, entry))
}

/// The output tensor a types line gives (`… -> (<Tensor[Float32], (2, 3)>)`; 1.x
/// `<Tensor[Float32]x(2, 3)>`), if it names one.
fn output_desc(types: &str, interned: &mut Interned) -> Option<TensorDesc> {
    let out = types.rsplit_once("->")?.1;
    tensor_desc(out, interned)
}

/// The first tensor type in `text`.
fn tensor_desc(text: &str, interned: &mut Interned) -> Option<TensorDesc> {
    let start = text.find("Tensor[")? + "Tensor[".len();
    let end = start + text[start..].find(']')?;
    let dtype_name = &text[start..end];
    let after = &text[end + 1..];
    let open = after.find('(')?;
    let close = open + after[open..].find(')')?;
    let shape: Vec<i64> = after[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<i64>().unwrap_or(-1))
        .collect();
    Some(TensorDesc {
        dtype: dtype(dtype_name),
        shape: interned.shape(&shape),
        ..TensorDesc::default()
    })
}

/// The op type of a node's op: the primitive without `PrimFunc_` (or the 1.x `S-Prim-`).
fn op_type(op: &str) -> String {
    let op = op
        .strip_prefix("PrimFunc_")
        .or_else(|| op.strip_prefix("S-Prim-"))
        .or_else(|| op.strip_prefix("S_Prim_"))
        .unwrap_or(op);
    if op.starts_with('@') || op.starts_with('%') {
        "Call".to_string()
    } else {
        op.to_string()
    }
}

/// The `%N` or `%paraN_x` a top-level argument refers to, if it is one.
fn reference(arg: &str) -> Option<&str> {
    let rest = arg.strip_prefix('%')?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &arg[..end + 1])
}

/// What each `%…` of a graph is called in the graph skope builds: `%N` by number, parameters
/// by name.
#[derive(Default)]
struct Names<'a> {
    /// `%N` by N, for the numbers MindSpore gives (0, 1, 2… in each graph).
    nodes: Vec<Option<String>>,
    /// `%N` with an N far past the others (a hand-edited file): kept by number, so a huge N
    /// costs one entry, not a list that long.
    far: HashMap<usize, String>,
    params: HashMap<&'a str, String>,
}

/// How far past the last `%N` kept in order a number may be and still extend the list.
const NAMES_AHEAD: usize = 1 << 16;

impl<'a> Names<'a> {
    fn get(&self, reference: &str) -> Option<&String> {
        match reference[1..].parse::<usize>() {
            Ok(n) => self
                .nodes
                .get(n)
                .and_then(Option::as_ref)
                .or_else(|| self.far.get(&n)),
            Err(_) => self.params.get(reference),
        }
    }

    fn insert(&mut self, reference: &'a str, name: String) {
        match reference[1..].parse::<usize>() {
            Ok(n) if n < self.nodes.len() + NAMES_AHEAD => {
                if self.nodes.len() <= n {
                    self.nodes.resize(n + 1, None);
                }
                self.nodes[n] = Some(name);
            }
            Ok(n) => {
                self.far.insert(n, name);
            }
            Err(_) => {
                self.params.insert(reference, name);
            }
        }
    }
}

/// The inputs of `node` as edge texts (`name:0`), its references resolved by `names`; an
/// unresolved one is an unconnected input.
fn inputs_of(node: &Node, names: &Names) -> Vec<String> {
    node.args
        .iter()
        .filter_map(|a| reference(a))
        .map(|r| names.get(r).map_or(String::new(), |n| format!("{n}:0")))
        .collect()
}

/// Op names made unique: a repeated one gets `#2`, `#3`… Names are told apart by a 64-bit
/// hash (two names sharing one would only make the second `#2`), so none is stored twice.
#[derive(Default)]
struct Unique {
    seen: HashMap<u64, usize>,
    hasher: std::collections::hash_map::RandomState,
}

impl Unique {
    fn name(&mut self, name: String) -> String {
        use std::hash::BuildHasher;
        match self.seen.entry(self.hasher.hash_one(&name)) {
            std::collections::hash_map::Entry::Occupied(mut n) => {
                *n.get_mut() += 1;
                format!("{name}#{}", n.get())
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(1);
                name
            }
        }
    }
}

/// Reads `src` into one graph: every graph that is not a graph-kernel subgraph, with calls of
/// graph-kernel subgraphs replaced by their basic ops.
pub fn load(src: &[u8], default_name: &str) -> Result<Vec<GraphBuilder>, SyntaxError> {
    let text = std::str::from_utf8(src)
        .map_err(|e| SyntaxError::new(e.valid_up_to(), "invalid UTF-8 in the IR text"))?;
    let (graphs, entry) = graphs(text)?;
    if graphs.is_empty() {
        return Err(SyntaxError::new(
            0,
            "no `subgraph @NAME(…) {` block: not a MindSpore IR dump",
        ));
    }
    let kernels: HashMap<&str, &Graph> = graphs
        .iter()
        .filter(|g| g.is_graph_kernel())
        .map(|g| (g.name, g))
        .collect();
    let mains: Vec<&Graph> = graphs.iter().filter(|g| !g.is_graph_kernel()).collect();
    let several = mains.len() > 1;
    let mut b = GraphBuilder::new(entry.unwrap_or(default_name));
    let mut unique = Unique::default();
    let mut interned = Interned::default();
    for graph in mains {
        let prefix = |id: &str| {
            if several {
                format!("{}/{id}", graph.name)
            } else {
                id.to_string()
            }
        };
        let from = several.then_some(graph.name);
        let mut names = Names::default();
        for p in &graph.params {
            let Some(id) = reference(p) else { continue };
            let name = unique.name(prefix(id.trim_start_matches('%')));
            names.insert(id, name.clone());
            let mut attrs = Attrs::default();
            if let Some(g) = from {
                attrs.insert(interned.key(ATTR_GRAPH), AttrValue::Str(g.to_string()));
            }
            b.push(OpBuilder {
                name,
                op_type: "Parameter".into(),
                attrs,
                ..OpBuilder::default()
            });
        }
        for node in &graph.nodes {
            let base = match node.full_name {
                Some(full) => full.to_string(),
                None => prefix(if node.id.is_empty() { node.op } else { node.id }),
            };
            let inputs = inputs_of(node, &names);
            let callee = node.op.strip_prefix('@').and_then(|g| kernels.get(g));
            let name = match callee {
                Some(kernel) => {
                    let call = Call {
                        node,
                        base: &base,
                        inputs: &inputs,
                        from,
                    };
                    expand(&mut b, &mut unique, &mut interned, kernel, &call)
                }
                None => {
                    let name = unique.name(base);
                    b.push(op_of(node, name.clone(), inputs, from, None, &mut interned));
                    name
                }
            };
            if !node.id.is_empty() {
                names.insert(node.id, name);
            }
        }
    }
    Ok(vec![b])
}

/// An op of the graph for `node`, of graph `from` when the file has several; its full name is
/// kept when the op's name is not it.
fn op_of(
    node: &Node,
    name: String,
    inputs: Vec<String>,
    from: Option<&str>,
    composite: Option<&str>,
    interned: &mut Interned,
) -> OpBuilder {
    let mut attrs = Attrs::default();
    if let Some(g) = from {
        attrs.insert(interned.key(ATTR_GRAPH), AttrValue::Str(g.to_string()));
    }
    if let Some(full) = node.full_name.filter(|f| *f != name) {
        attrs.insert(
            interned.key(ATTR_FULL_NAME),
            AttrValue::Str(full.to_string()),
        );
    }
    if let Some(source) = node.source {
        attrs.insert(
            interned.key(ATTR_SOURCE),
            AttrValue::Str(source.to_string()),
        );
    }
    if let Some(kernel) = composite {
        attrs.insert(
            interned.key(ATTR_COMPOSITE),
            AttrValue::Str(kernel.to_string()),
        );
    }
    if !node.attrs.is_empty() {
        attrs.insert(
            interned.key(ATTR_NODE_ATTRS),
            AttrValue::Str(node.attrs.to_string()),
        );
    }
    OpBuilder {
        name,
        op_type: op_type(node.op),
        attrs,
        output_descs: node
            .types
            .and_then(|types| output_desc(types, interned))
            .into_iter()
            .collect(),
        inputs,
        ..OpBuilder::default()
    }
}

/// A node calling a graph-kernel subgraph: its name in the graph (`base`), the edges of its
/// arguments, and the graph it is in when the file has several.
struct Call<'c, 'a> {
    node: &'c Node<'a>,
    base: &'c str,
    inputs: &'c [String],
    from: Option<&'c str>,
}

/// Adds the basic ops of graph-kernel subgraph `kernel` for `call`; returns the name of the op
/// whose output the call gives.
fn expand(
    b: &mut GraphBuilder,
    unique: &mut Unique,
    interned: &mut Interned,
    kernel: &Graph,
    call: &Call,
) -> String {
    // One composite per call: the call's own name (`GraphKernel_Add_Mul_fusion-op12`, as
    // MindSpore names the fused node), else the fused name and the subgraph.
    let kernel_name = call
        .node
        .full_name
        .and_then(|f| f.rsplit('/').next())
        .filter(|n| !n.is_empty())
        .map_or_else(
            || format!("{}@{}", kernel.kernel_name(), kernel.name),
            str::to_string,
        );
    let mut names = Names::default();
    for (p, input) in kernel.params.iter().zip(call.inputs) {
        if let Some(id) = reference(p) {
            // The caller's op, without the output index the edge text carries.
            names.insert(id, input.trim_end_matches(":0").to_string());
        }
    }
    let mut last = None;
    for (i, node) in kernel.nodes.iter().enumerate() {
        let args = inputs_of(node, &names);
        if node.op == "Return" {
            // The call's value is the returned one.
            last = args.first().map(|a| a.trim_end_matches(":0").to_string());
            continue;
        }
        let inner = node
            .full_name
            .and_then(|f| f.rsplit('/').next())
            .map_or_else(|| format!("{}_{i}", op_type(node.op)), str::to_string);
        let name = unique.name(format!("{}/{inner}", call.base));
        let mut op = op_of(
            node,
            name.clone(),
            args,
            call.from,
            Some(&kernel_name),
            interned,
        );
        if node.source.is_none()
            && let Some(source) = call.node.source
        {
            op.attrs.insert(
                interned.key(ATTR_SOURCE),
                AttrValue::Str(source.to_string()),
            );
        }
        b.push(op);
        if !node.id.is_empty() {
            names.insert(node.id, name.clone());
        }
        last.get_or_insert(name);
    }
    last.unwrap_or_else(|| call.base.to_string())
}
