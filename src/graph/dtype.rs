//! Tensor element types, as GE's `DataType` enum names them.

/// GE `DataType` names by enum value (`ge_ir.proto`).
const NAMES: [&str; 42] = [
    "DT_UNDEFINED",
    "DT_FLOAT",
    "DT_FLOAT16",
    "DT_INT8",
    "DT_UINT8",
    "DT_INT16",
    "DT_UINT16",
    "DT_INT32",
    "DT_INT64",
    "DT_UINT32",
    "DT_UINT64",
    "DT_BOOL",
    "DT_DOUBLE",
    "DT_STRING",
    "DT_DUAL_SUB_INT8",
    "DT_DUAL_SUB_UINT8",
    "DT_COMPLEX64",
    "DT_COMPLEX128",
    "DT_QINT8",
    "DT_QINT16",
    "DT_QINT32",
    "DT_QUINT8",
    "DT_QUINT16",
    "DT_RESOURCE",
    "DT_STRING_REF",
    "DT_DUAL",
    "DT_VARIANT",
    "DT_BF16",
    "DT_INT4",
    "DT_UINT1",
    "DT_INT2",
    "DT_UINT2",
    "DT_COMPLEX32",
    "DT_HIFLOAT8",
    "DT_FLOAT8_E5M2",
    "DT_FLOAT8_E4M3FN",
    "DT_FLOAT8_E8M0",
    "DT_FLOAT6_E3M2",
    "DT_FLOAT6_E2M3",
    "DT_FLOAT4_E2M1",
    "DT_FLOAT4_E1M2",
    "DT_HIFLOAT4",
];

/// A tensor element type. Values outside GE's enum are kept by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DType(i64);

impl DType {
    /// `DT_UNDEFINED`.
    pub const UNDEFINED: DType = DType(0);

    /// The type with GE enum value `code`.
    pub fn from_code(code: i64) -> DType {
        DType(code)
    }

    /// The type named `name` (`"DT_FLOAT16"`; the `DT_` prefix is optional), if GE knows it.
    pub fn from_name(name: &str) -> Option<DType> {
        let bare = name.strip_prefix("DT_").unwrap_or(name);
        NAMES
            .iter()
            .position(|n| n[3..].eq_ignore_ascii_case(bare))
            .map(|i| DType(i as i64))
    }

    /// The GE enum value.
    pub fn code(self) -> i64 {
        self.0
    }

    /// The GE enum name (`"DT_FLOAT16"`), or `None` for a value GE does not define.
    pub fn name(self) -> Option<&'static str> {
        usize::try_from(self.0)
            .ok()
            .and_then(|i| NAMES.get(i).copied())
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "DT_<{}>", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_with_the_enum_values() {
        assert_eq!(DType::from_name("DT_FLOAT16"), Some(DType::from_code(2)));
        assert_eq!(DType::from_name("DT_BF16").map(DType::code), Some(27));
        assert_eq!(DType::from_name("float16"), Some(DType::from_code(2)));
        assert_eq!(DType::from_code(41).name(), Some("DT_HIFLOAT4"));
        assert_eq!(DType::from_name("DT_NOPE"), None);
        assert_eq!(DType::from_code(99).to_string(), "DT_<99>");
    }
}
