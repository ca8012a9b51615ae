//! SuperKernel kernel names as the profiles show them, on both paths (reference
//! aclgraph_superkernel.md §9.1, §9.4): GE mode `sk_<segment>_start_<first op>_end_<last op>`,
//! where the segment is the scope or `<scope>_split_<a>_<b>`; aclgraph
//! `sk_<id>_<scope>_start_<first>_end_<last>`, the scope `none` when unnamed and the last part
//! not always a kernel's name. A name whose part after `sk_` starts with digits and `_` is read
//! as the aclgraph form.

/// A SuperKernel name taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FusedName<'n> {
    /// The aclgraph SuperKernel id, in the aclgraph form.
    pub id: Option<u32>,
    /// The segment (GE) or scope (aclgraph) part.
    pub segment: &'n str,
    /// Everything after `_start_`: the first and last sub-op, joined by `_end_` (names may
    /// hold `_end_` themselves).
    pub ends: &'n str,
}

impl<'n> FusedName<'n> {
    /// `name` taken apart, when it has the form.
    pub fn parse(name: &'n str) -> Option<FusedName<'n>> {
        let rest = name.strip_prefix("sk_")?;
        let (head, ends) = rest.split_once("_start_")?;
        let digits = head.bytes().take_while(u8::is_ascii_digit).count();
        let (id, segment) = match head[digits..].strip_prefix('_') {
            Some(scope) if digits > 0 && !scope.is_empty() => (head[..digits].parse().ok(), scope),
            _ => (None, head),
        };
        Some(FusedName { id, segment, ends })
    }

    /// The scope: the segment without its `_split_<a>_<b>` (the aclgraph form names the scope
    /// itself).
    pub fn scope(&self) -> &'n str {
        match self.id {
            Some(_) => self.segment,
            None => self
                .segment
                .rfind("_split_")
                .map_or(self.segment, |i| &self.segment[..i]),
        }
    }

    /// The first and last sub-op, where `is_kernel` knows both (the first `_end_` that
    /// splits the rest into two known names).
    pub fn first_and_last(&self, is_kernel: impl Fn(&str) -> bool) -> Option<(&'n str, &'n str)> {
        self.ends
            .match_indices("_end_")
            .map(|(i, _)| (&self.ends[..i], &self.ends[i + "_end_".len()..]))
            .find(|(a, b)| is_kernel(a) && is_kernel(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_paths_names_come_apart() {
        let ge = FusedName::parse("sk_moe_1_split_49_54_start_layer1_gate_end_layer1_end_add")
            .unwrap_or_else(|| panic!("a GE name"));
        assert_eq!(
            (ge.id, ge.segment, ge.scope()),
            (None, "moe_1_split_49_54", "moe_1")
        );
        let known = ["layer1_gate", "layer1_end_add"];
        assert_eq!(
            ge.first_and_last(|n| known.contains(&n)),
            Some(("layer1_gate", "layer1_end_add"))
        );
        let acl = FusedName::parse("sk_3_attn_start_static_kernel_RmsNorm_ab_end_clear_ops")
            .unwrap_or_else(|| panic!("an aclgraph name"));
        assert_eq!(
            (acl.id, acl.segment, acl.scope()),
            (Some(3), "attn", "attn")
        );
        let none = FusedName::parse("sk_0_none_start_a_end_b").unwrap_or_else(|| panic!("none"));
        assert_eq!((none.id, none.scope()), (Some(0), "none"));
        assert_eq!(FusedName::parse("MatMul_3"), None);
        // Digits alone are a GE scope name.
        let digits = FusedName::parse("sk_12_start_a_end_b").unwrap_or_else(|| panic!("digits"));
        assert_eq!((digits.id, digits.segment), (None, "12"));
    }
}
