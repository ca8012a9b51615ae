//! The decoder layer a name belongs to, as model code names layers: `layer0_qkv_proj`,
//! `model.layers.3.mlp`, `layers_7_add`, `decoder.layer.2`, `blocks.5`, `block-1`. The
//! SuperKernel team's own tools read layers from scope names the same way
//! (reference/aclgraph_superkernel.md §9.3: `(?:decoder\.layer|layers?|blocks?)\.?[_-]?(\d+)`).

/// The layer number in `name`: the digits after the first `layer`, `layers`, `block` or
/// `blocks` (in any case) they follow, past any `.`, `_` or `-`.
pub fn layer_of(name: &str) -> Option<&str> {
    // One pass over the bytes, without allocating: this runs on every op of a graph.
    let bytes = name.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // Most bytes start neither word: one comparison rules them out.
        if !matches!(bytes[at] | 0x20, b'l' | b'b') {
            at += 1;
            continue;
        }
        let word = [b"layer", b"block"].into_iter().find(|w| {
            bytes
                .get(at..at + w.len())
                .is_some_and(|b| b.eq_ignore_ascii_case(*w))
        });
        let Some(word) = word else {
            at += 1;
            continue;
        };
        // Past the word: ASCII, so a char boundary.
        let mut rest = &name[at + word.len()..];
        rest = rest.strip_prefix(['s', 'S']).unwrap_or(rest);
        rest = rest.trim_start_matches(['.', '_', '-']);
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if end > 0 {
            return Some(&rest[..end]);
        }
        at += word.len();
    }
    None
}

/// Each op's decoder layer, read once per graph: the layer its name gives ([`layer_of`]), else
/// its scope's (an aclgraph task is named by its kernel, its layer by its scope).
#[derive(Debug, Clone, Default)]
pub struct OpLayers {
    /// The layers met, each once.
    names: Vec<String>,
    /// Each op's layer (an index into `names`), in file order.
    of_op: Vec<Option<u32>>,
}

impl OpLayers {
    /// The layers of `ops`.
    pub fn of_ops(ops: &[super::Op]) -> OpLayers {
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let mut names = Vec::new();
        let of_op = ops
            .iter()
            .map(|op| {
                let layer = layer_of(&op.name).or_else(|| op.scope().and_then(layer_of))?;
                Some(*index.entry(layer).or_insert_with(|| {
                    names.push(layer.to_string());
                    (names.len() - 1) as u32
                }))
            })
            .collect();
        OpLayers { names, of_op }
    }

    /// The layer of op `id`.
    pub fn of(&self, id: super::OpId) -> Option<&str> {
        let at = (*self.of_op.get(id.index())?)?;
        self.names.get(at as usize).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::layer_of;

    #[test]
    fn layers_are_read_as_model_code_names_them() {
        assert_eq!(layer_of("layer12_qkv_proj"), Some("12"));
        assert_eq!(layer_of("model.layers.3.mlp"), Some("3"));
        assert_eq!(layer_of("layers_7_add"), Some("7"));
        assert_eq!(layer_of("decoder.layer.2.attn"), Some("2"));
        assert_eq!(layer_of("blocks.5"), Some("5"));
        assert_eq!(layer_of("block-1_ffn"), Some("1"));
        assert_eq!(layer_of("layer_norm_layer4"), Some("4"));
        assert_eq!(layer_of("lm_head"), None);
        assert_eq!(layer_of("layernorm"), None);
        assert_eq!(layer_of("layer_norm"), None);
        assert_eq!(layer_of("Layer-05/Cast"), Some("05"));
        assert_eq!(layer_of("layernorm.layer7.x"), Some("7"));
        assert_eq!(layer_of("matmul_3"), None);
    }
}
