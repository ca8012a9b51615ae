//! What a reader keeps once however often a dump repeats it: attribute keys, tensor names and
//! shapes (a dump repeats the same few hundred of each on tens of thousands of ops).

use super::{AttrKey, Shape};
use std::collections::HashSet;

/// The keys, tensor names and shapes a reader has met, each kept once.
#[derive(Debug, Default)]
pub struct Interned {
    keys: HashSet<AttrKey>,
    shapes: HashSet<Shape>,
}

impl Interned {
    /// The shared key (or tensor name) for `text`.
    pub fn key(&mut self, text: &str) -> AttrKey {
        if let Some(key) = self.keys.get(text) {
            return key.clone();
        }
        let key = AttrKey::from(text);
        self.keys.insert(key.clone());
        key
    }

    /// The shared shape with `dims`.
    pub fn shape(&mut self, dims: &[i64]) -> Shape {
        if let Some(shape) = self.shapes.get(dims) {
            return shape.clone();
        }
        let shape = Shape::from(dims);
        self.shapes.insert(shape.clone());
        shape
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn each_key_and_shape_is_kept_once() {
        let mut interned = Interned::default();
        let (a, b) = (interned.key("tvm_blockdim"), interned.key("tvm_blockdim"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &interned.key("_kernelname")));
        let (x, y) = (interned.shape(&[8, 7168]), interned.shape(&[8, 7168]));
        assert!(Arc::ptr_eq(&x, &y));
        assert_eq!(*interned.shape(&[8, 4096]), [8, 4096]);
    }
}
