//! Tensor descriptions of op inputs and outputs.

use super::DType;
use std::borrow::Cow;
use std::sync::Arc;

/// A tensor's dimensions; `-1` is an unknown dim, `[-2]` an unknown rank. Shared: readers keep
/// each shape once ([`super::Interned`]).
pub type Shape = Arc<[i64]>;

/// A storage format's name: the formats GE prints (`ND`, `FRACTAL_NZ`…) are shared, any
/// other is kept as read.
pub type Layout = Cow<'static, str>;

/// Format names GE writes in dumps, kept once for every tensor that has them.
const KNOWN_LAYOUTS: [&str; 18] = [
    "ND",
    "NCHW",
    "NHWC",
    "HWCN",
    "NC1HWC0",
    "NC1HWC0_C04",
    "C1HWNCoC0",
    "FRACTAL_Z",
    "FRACTAL_NZ",
    "FRACTAL_Z_3D",
    "FRACTAL_ZN_LSTM",
    "FRACTAL_ZN_RNN",
    "ND_RNN_BIAS",
    "NDHWC",
    "NCDHW",
    "NDC1HWC0",
    "NCL",
    "RESERVED",
];

/// The [`Layout`] for `text`, shared when GE knows the format.
pub fn layout(text: &str) -> Layout {
    match KNOWN_LAYOUTS.iter().find(|known| **known == text) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(text.to_string()),
    }
}

/// Single dimension value GE uses for "unknown rank".
pub const UNKNOWN_RANK: i64 = -2;

/// One input or output tensor of an op, as the dump describes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TensorDesc {
    /// The tensor's name in the op's IR (`x`, `y`, `bias`…); may be empty. Shared: readers
    /// keep each name once ([`super::Interned`]).
    pub name: super::AttrKey,
    /// Element type.
    pub dtype: DType,
    /// Dimensions; `-1` is an unknown dim, `[-2]` an unknown rank.
    pub shape: Shape,
    /// Storage format (`ND`, `NZ`, `FRACTAL_NZ`…); may be empty.
    pub layout: Layout,
    /// Shape before format transformation, when the dump records it.
    pub origin_shape: Option<Shape>,
    /// Format before transformation, when the dump records it.
    pub origin_layout: Option<Layout>,
}

impl TensorDesc {
    /// True when any dimension or the rank is unknown (a dynamic shape).
    pub fn is_dynamic(&self) -> bool {
        self.shape.iter().any(|&d| d < 0)
    }

    /// The shape as text: `[8,16]`, with `?` for unknown dims and `[*]` for unknown rank.
    pub fn shape_text(&self) -> String {
        shape_text(&self.shape)
    }
}

/// Formats a shape: `[8,16]`, `?` for unknown dims, `[*]` for unknown rank, `[]` for a scalar.
pub fn shape_text(dims: &[i64]) -> String {
    if dims == [UNKNOWN_RANK] {
        return "[*]".to_string();
    }
    let parts: Vec<String> = dims
        .iter()
        .map(|&d| {
            if d < 0 {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    format!("[{}]", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_layouts_are_shared_and_others_kept_as_read() {
        assert!(matches!(layout("FRACTAL_NZ"), Cow::Borrowed("FRACTAL_NZ")));
        assert!(matches!(layout("NZ_CUSTOM"), Cow::Owned(ref s) if s == "NZ_CUSTOM"));
        assert_eq!(layout(""), "");
    }

    #[test]
    fn dynamic_dims_are_detected_and_shown() {
        let mut t = TensorDesc {
            shape: vec![8, -1, 16].into(),
            ..TensorDesc::default()
        };
        assert!(t.is_dynamic());
        assert_eq!(t.shape_text(), "[8,?,16]");
        t.shape = vec![UNKNOWN_RANK].into();
        assert_eq!(t.shape_text(), "[*]");
        t.shape = Shape::default();
        assert!(!t.is_dynamic());
        assert_eq!(t.shape_text(), "[]");
    }
}
