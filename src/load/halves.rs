//! Reading a big graph's items (`op`, `node`) on both cores: split at an item boundary found in
//! the text, each half read into its own builder, joined in file order.

use super::textproto::{Reader, Result};
use crate::graph::{GraphBuilder, Interned};

/// Below this many bytes of items, a message is read on one thread.
const HALVES_FROM: usize = 4 << 20;

/// Reads the rest of a graph whose first `item` (`op`, `node`) was just opened in two halves,
/// the first on another thread, when it is big: the split is the first line after the middle
/// of the graph that opens an item exactly as the first item's line does (the printers escape
/// newlines in strings, so such a line is never inside a string), and the graph ends at the
/// first line that closes a brace at the graph's own indent. `read_fields` reads a graph's
/// fields into a builder, on one thread. True when it did, with the items in `builder` in file
/// order and `r` after the graph; false — with `r` where it was and `builder` untouched — when
/// the graph is small, laid out otherwise, or a half fails (the caller then reads it all on
/// this thread, so an error keeps its exact place and words).
pub fn read_in_halves<F>(
    r: &mut Reader<'_>,
    builder: &mut GraphBuilder,
    interned: &mut Interned,
    item: &str,
    read_fields: F,
) -> bool
where
    F: Fn(&mut Reader<'_>, &mut GraphBuilder, &mut Interned) -> Result<()> + Sync,
{
    let src = r.source();
    let open = r.offset();
    let line = src[..open]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let head = &src[line..open];
    let indent = head.iter().take_while(|c| **c == b' ').count();
    let opens_item = head[indent..]
        .strip_prefix(item.as_bytes())
        .is_some_and(|rest| matches!(rest, b" {" | b"{"));
    if !opens_item {
        return false;
    }
    let end = match indent {
        // The graph is the whole input.
        0 => src.len(),
        1 => return false,
        _ => {
            let mut close = vec![b' '; indent - 1];
            close[0] = b'\n';
            close.push(b'}');
            match memchr::memmem::find(&src[line..], &close) {
                Some(at) => line + at,
                None => return false,
            }
        }
    };
    if end - line < HALVES_FROM {
        return false;
    }
    let middle = line + (end - line) / 2;
    let mut pattern = Vec::with_capacity(head.len() + 1);
    pattern.push(b'\n');
    pattern.extend_from_slice(head);
    let split = match memchr::memmem::find(&src[middle..end], &pattern) {
        Some(found) => middle + found + 1,
        None => return false,
    };
    let entry = r.mark();
    let read_first = || -> Result<GraphBuilder> {
        let mut first = GraphBuilder::default();
        let part = &mut Reader::part(src, line, split);
        read_fields(part, &mut first, &mut Interned::default())?;
        Ok(first)
    };
    let halves = std::thread::scope(|scope| {
        let first = std::thread::Builder::new()
            .name("skope-load".into())
            .spawn_scoped(scope, read_first)
            .ok()?;
        r.reset(entry.clone().outer_at(split));
        let mut second = GraphBuilder::default();
        let second = read_fields(r, &mut second, interned).map(|()| second);
        Some((first.join().ok()?.ok()?, second.ok()?))
    });
    match halves {
        Some((first, second)) => {
            builder.append(first);
            builder.append(second);
            true
        }
        None => {
            r.reset(entry);
            false
        }
    }
}
