//! A pair of graphs for the fusion diff, made from the bundled example: in B one op stops
//! being fusible (`layer0_rope`: attn_0 splits), an op joins the scope it broke
//! (`layer2_mask_fill`: attn_2 heals), `layer3_o_proj` is renamed `layer3_out_proj`, and
//! scope moe_3 is removed.

use super::{repo, scratch};

/// The bundled example's file name (graph A).
pub const GRAPH: &str = "moe_decode.ge_proto.txt";

/// Graph B, written to a scratch file.
pub fn graph_b() -> std::path::PathBuf {
    let a = std::fs::read_to_string(repo("assets/examples").join(GRAPH)).expect("the example");
    let mut b = a.replacen(
        "name: \"layer2_mask_fill\"\n    type: \"MaskedFill\"\n",
        "name: \"layer2_mask_fill\"\n    type: \"MaskedFill\"\n    attr {\n      key: \
         \"_super_kernel_scope\"\n      value {\n        s: \"attn_2\"\n      }\n    }\n",
        1,
    );
    let at = b.find("name: \"layer0_rope\"").expect("layer0_rope");
    let flag = at
        + b[at..]
            .find("key: \"supportSuperKernel\"")
            .expect("its flag");
    let one = flag + b[flag..].find("i: 1").expect("set");
    b.replace_range(one..one + 4, "i: 0");
    let b = b
        .replace("layer3_o_proj", "layer3_out_proj")
        .replace("s: \"moe_3\"", "s: \"\"");
    let path = scratch("fusion-diff").join("b.ge_proto.txt");
    std::fs::write(&path, b).expect("write B");
    path
}
