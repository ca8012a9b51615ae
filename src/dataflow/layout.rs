//! A small layered ("Sugiyama") layout of a DAG for a text grid, after reference
//! bridges.md §3.1: longest-path layers, a dummy per layer an edge spans, barycenter sweeps to
//! cut crossings, left-packed and centred rows, and edges routed as a drop from the source, a
//! horizontal jog in a channel row of the gap below it, and a drop into the target, channels
//! shared only by edges whose spans do not touch. Cells carry a 4-bit mask (N, E, S, W) per
//! edge class, so the drawing picks box-drawing glyphs and each class its style.

use std::collections::HashMap;

/// What kind of edge a cell belongs to (the drawing styles each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeClass {
    /// A data edge.
    Data,
    /// An ordering edge (drawn dashed).
    Control,
    /// An edge between two streams.
    CrossStream,
    /// The edge on which a break cuts a scope.
    Cut,
}

/// An edge to lay out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Source node.
    pub from: usize,
    /// Target node.
    pub to: usize,
    /// Its class.
    pub class: EdgeClass,
}

/// Where a node went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// Its layer, from 0 at the top.
    pub layer: usize,
    /// Its left column.
    pub x: usize,
    /// Its row.
    pub y: usize,
    /// Its width.
    pub width: usize,
}

/// North, east, south, west bits of a cell's mask.
pub const N: u8 = 1;
/// East.
pub const E: u8 = 2;
/// South.
pub const S: u8 = 4;
/// West.
pub const W: u8 = 8;

/// The box-drawing glyph of a mask.
pub fn glyph(mask: u8) -> char {
    [
        ' ', '╵', '╶', '└', '╷', '│', '┌', '├', '╴', '┘', '─', '┴', '┐', '┤', '┬', '┼',
    ][usize::from(mask & 15)]
}

/// A laid-out graph: each node's place, the edge cells (mask by class), the arrowheads above
/// targets, the edge labels' anchors and the grid's size.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Each node's place, by node.
    pub nodes: Vec<Placed>,
    /// Edge cells: (x, y) → mask per class.
    pub cells: HashMap<(usize, usize), Vec<(EdgeClass, u8)>>,
    /// Arrowheads: (x, y) above a target, by class.
    pub arrows: Vec<(usize, usize, EdgeClass)>,
    /// Each edge's jog: (edge, x, y) where a label can go, beside its horizontal run or its
    /// drop.
    pub anchors: Vec<(usize, usize, usize)>,
    /// Columns and rows the layout takes.
    pub size: (usize, usize),
    /// Crossings left between adjacent layers (after the sweeps).
    pub crossings: usize,
}

/// Longest-path layers of `n` nodes: a node is one below its lowest predecessor (sources at
/// 0).
pub fn layers(n: usize, edges: &[Edge]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        indegree[e.to] += 1;
        out[e.from].push(e.to);
    }
    let mut layer = vec![0usize; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    while let Some(v) = ready.pop() {
        for &w in &out[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    layer
}

/// Crossings between two adjacent rows: edges as (upper position, lower position) pairs.
pub fn crossings_between(pairs: &[(usize, usize)]) -> usize {
    let mut count = 0;
    for (i, a) in pairs.iter().enumerate() {
        for b in &pairs[i + 1..] {
            if (a.0 < b.0 && a.1 > b.1) || (a.0 > b.0 && a.1 < b.1) {
                count += 1;
            }
        }
    }
    count
}

/// Unit segments sharing a channel: the columns they span (from, to) and the segments as
/// (upper node, lower node).
type Group = (usize, usize, Vec<(usize, usize)>);

/// Rows between two node rows beyond their channels: one for the drop out of the source, one
/// for the arrowhead.
const GAP_EXTRA: usize = 2;
/// Columns between two nodes of a row.
const SPACING: usize = 2;
/// Barycenter sweeps (down and up count one each).
const SWEEPS: usize = 4;

/// Lays out `widths.len()` nodes of the given widths and `edges` (a DAG), keeping the initial
/// order `rank` (lower first) where the sweeps leave a tie.
pub fn layout(widths: &[usize], edges: &[Edge], rank: &[usize]) -> Layout {
    let n = widths.len();
    let layer = layers(n, edges);
    let depth = layer.iter().copied().max().map_or(0, |d| d + 1);
    // Dummies: each edge becomes unit segments through one virtual node per layer between.
    // Virtual nodes are numbered from n; their width is 1.
    let mut width: Vec<usize> = widths.to_vec();
    let mut vlayer = layer.clone();
    let mut vrank: Vec<f64> = rank.iter().map(|&r| r as f64).collect();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(edges.len());
    for e in edges {
        let mut chain = vec![e.from];
        for l in layer[e.from] + 1..layer[e.to] {
            width.push(1);
            vlayer.push(l);
            vrank.push((rank[e.from] as f64 + rank[e.to] as f64) / 2.0);
            chain.push(width.len() - 1);
        }
        chain.push(e.to);
        chains.push(chain);
    }
    let total = width.len();
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); total];
    for chain in &chains {
        for w in chain.windows(2) {
            down[w[0]].push(w[1]);
            up[w[1]].push(w[0]);
        }
    }
    // Rows in the initial order, then barycenter sweeps.
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for v in 0..total {
        rows[vlayer[v]].push(v);
    }
    for row in &mut rows {
        row.sort_by(|a, b| vrank[*a].total_cmp(&vrank[*b]));
    }
    let mut pos = vec![0usize; total];
    let place = |rows: &Vec<Vec<usize>>, pos: &mut Vec<usize>| {
        for row in rows {
            for (i, &v) in row.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    place(&rows, &mut pos);
    for sweep in 0..SWEEPS {
        let downward = sweep % 2 == 0;
        let order: Vec<usize> = if downward {
            (1..depth).collect()
        } else {
            (0..depth.saturating_sub(1)).rev().collect()
        };
        for l in order {
            let keys: HashMap<usize, f64> = rows[l]
                .iter()
                .map(|&v| {
                    let near = if downward { &up[v] } else { &down[v] };
                    let key = if near.is_empty() {
                        pos[v] as f64
                    } else {
                        near.iter().map(|&u| pos[u] as f64).sum::<f64>() / near.len() as f64
                    };
                    (v, key)
                })
                .collect();
            rows[l].sort_by(|a, b| keys[a].total_cmp(&keys[b]).then(pos[*a].cmp(&pos[*b])));
            for (i, &v) in rows[l].iter().enumerate() {
                pos[v] = i;
            }
        }
    }
    let crossings = (1..depth)
        .map(|l| {
            let pairs: Vec<(usize, usize)> = rows[l]
                .iter()
                .flat_map(|&v| up[v].iter().map(move |&u| (u, v)))
                .map(|(u, v)| (pos[u], pos[v]))
                .collect();
            crossings_between(&pairs)
        })
        .sum();
    // x: each row left-packed, then centred on the widest.
    let row_width = |row: &Vec<usize>| {
        row.iter().map(|&v| width[v]).sum::<usize>() + SPACING * row.len().saturating_sub(1)
    };
    let widest = rows.iter().map(row_width).max().unwrap_or(0);
    let mut x = vec![0usize; total];
    for row in &rows {
        let mut at = (widest - row_width(row)) / 2;
        for &v in row {
            x[v] = at;
            at += width[v] + SPACING;
        }
    }
    let mut x_signed: Vec<i64> = x.iter().map(|&v| v as i64).collect();
    // Straighter edges: each row, in turn down and then up, moves toward the median centre of
    // its neighbours in the row before, in order and without overlap.
    for pass in 0..2 {
        let downward = pass == 0;
        let order: Vec<usize> = if downward {
            (1..depth).collect()
        } else {
            (0..depth.saturating_sub(1)).rev().collect()
        };
        for l in order {
            let want: Vec<i64> = rows[l]
                .iter()
                .map(|&v| {
                    let near = if downward { &up[v] } else { &down[v] };
                    if near.is_empty() {
                        return x[v] as i64;
                    }
                    let mut centres: Vec<usize> =
                        near.iter().map(|&u| x[u] + width[u] / 2).collect();
                    centres.sort_unstable();
                    centres[centres.len() / 2] as i64 - (width[v] / 2) as i64
                })
                .collect();
            // Packed from the left (each at its wish or right of the one before) and from the
            // right (at its wish or left of the one after); the mean of the two keeps the
            // order and the spacing and centres a crowd on its wish.
            let n_row = rows[l].len();
            let w = |i: usize| width[rows[l][i]] as i64;
            let gap = SPACING as i64;
            let mut from_left = vec![0i64; n_row];
            for i in 0..n_row {
                from_left[i] = match i {
                    0 => want[0],
                    _ => want[i].max(from_left[i - 1] + w(i - 1) + gap),
                };
            }
            let mut from_right = vec![0i64; n_row];
            for i in (0..n_row).rev() {
                from_right[i] = match i + 1 < n_row {
                    true => want[i].min(from_right[i + 1] - gap - w(i)),
                    false => want[i],
                };
            }
            for (i, &v) in rows[l].iter().enumerate() {
                x_signed[v] = (from_left[i] + from_right[i]) / 2;
            }
            for &v in &rows[l] {
                x[v] = x_signed[v].max(0) as usize;
            }
        }
    }
    // Shift everything right so that the leftmost node is at 0.
    let least = (0..total).map(|v| x_signed[v]).min().unwrap_or(0).min(0);
    for v in 0..total {
        x[v] = (x_signed[v] - least) as usize;
    }
    let widest = (0..total).map(|v| x[v] + width[v]).max().unwrap_or(0);
    let centre = |v: usize| x[v] + width[v] / 2;
    // Channels per gap. Segments into one target share a channel (they merge into its column
    // anyway), as do the other segments out of one source; a group spans its members' columns,
    // and groups whose spans do not touch share a channel (greedy interval colouring).
    let mut channel: HashMap<(usize, usize), usize> = HashMap::new();
    let mut gap_channels = vec![0usize; depth];
    for l in 0..depth.saturating_sub(1) {
        let mut into: HashMap<usize, usize> = HashMap::new();
        for &v in &rows[l] {
            for &w in &down[v] {
                *into.entry(w).or_default() += 1;
            }
        }
        // Group key: (true, target) for a fan-in, (false, source) otherwise.
        let mut groups: HashMap<(bool, usize), Group> = HashMap::new();
        for &v in &rows[l] {
            for &w in &down[v] {
                let (a, b) = (centre(v), centre(w));
                if a == b {
                    continue;
                }
                let key = if into[&w] > 1 { (true, w) } else { (false, v) };
                let g = groups.entry(key).or_insert((usize::MAX, 0, Vec::new()));
                g.0 = g.0.min(a.min(b));
                g.1 = g.1.max(a.max(b));
                g.2.push((v, w));
            }
        }
        let mut spans: Vec<Group> = groups.into_values().collect();
        spans.sort_by_key(|g| (g.0, g.1));
        let mut ends: Vec<usize> = Vec::new();
        for (lo, hi, members) in spans {
            let c = match ends.iter().position(|&end| end + 1 < lo) {
                Some(c) => c,
                None => {
                    ends.push(0);
                    ends.len() - 1
                }
            };
            ends[c] = hi;
            for pair in members {
                channel.insert(pair, c);
            }
        }
        gap_channels[l] = ends.len();
    }
    let mut row_y = vec![0usize; depth];
    for l in 1..depth {
        row_y[l] = row_y[l - 1] + 1 + gap_channels[l - 1] + GAP_EXTRA;
    }
    let mut out = Layout {
        nodes: (0..n)
            .map(|v| Placed {
                layer: layer[v],
                x: x[v],
                y: row_y[layer[v]],
                width: width[v],
            })
            .collect(),
        size: (widest, row_y.last().map_or(0, |y| y + 1)),
        crossings,
        ..Layout::default()
    };
    let add = |cells: &mut HashMap<(usize, usize), Vec<(EdgeClass, u8)>>,
               class: EdgeClass,
               at: (usize, usize),
               mask: u8| {
        let list = cells.entry(at).or_default();
        match list.iter_mut().find(|(c, _)| *c == class) {
            Some((_, m)) => *m |= mask,
            None => list.push((class, mask)),
        }
    };
    // Horizontal runs (row, class, from, to): edges sharing a channel overlap, so they are
    // merged before their cells are drawn.
    let mut runs: Vec<(usize, EdgeClass, usize, usize)> = Vec::new();
    for (i, (e, chain)) in edges.iter().zip(&chains).enumerate() {
        for (k, pair) in chain.windows(2).enumerate() {
            let (v, w) = (pair[0], pair[1]);
            let (a, b) = (centre(v), centre(w));
            let top = row_y[vlayer[v]];
            let bottom = row_y[vlayer[w]];
            // Through a dummy's own row: a vertical line.
            if v >= n {
                add(&mut out.cells, e.class, (a, top), N | S);
            }
            let jog = top + 2 + channel.get(&(v, w)).copied().unwrap_or(0);
            if a == b {
                for y in top + 1..bottom {
                    add(&mut out.cells, e.class, (a, y), N | S);
                }
            } else {
                // Down from the source to its channel, across, down into the target.
                let (toward, back) = if b > a { (E, W) } else { (W, E) };
                for y in top + 1..jog {
                    add(&mut out.cells, e.class, (a, y), N | S);
                }
                add(&mut out.cells, e.class, (a, jog), N | toward);
                runs.push((jog, e.class, a.min(b) + 1, a.max(b)));
                add(&mut out.cells, e.class, (b, jog), S | back);
                for y in jog + 1..bottom {
                    add(&mut out.cells, e.class, (b, y), N | S);
                }
            }
            if k == 0 {
                out.anchors.push((i, (a.min(b) + a.max(b)) / 2, jog));
            }
            if w < n {
                out.arrows.push((b, bottom - 1, e.class));
            }
        }
    }
    runs.sort_unstable();
    let mut merged: Vec<(usize, EdgeClass, usize, usize)> = Vec::new();
    for run in runs {
        match merged.last_mut() {
            Some(last) if (last.0, last.1) == (run.0, run.1) && run.2 <= last.3 => {
                last.3 = last.3.max(run.3);
            }
            _ => merged.push(run),
        }
    }
    for (y, class, from, to) in merged {
        for x in from..to {
            add(&mut out.cells, class, (x, y), E | W);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: usize, to: usize) -> Edge {
        Edge {
            from,
            to,
            class: EdgeClass::Data,
        }
    }

    #[test]
    fn layers_are_longest_paths() {
        // 0 → 1 → 3, 0 → 3, 2 → 3: 3 is two below 0.
        let edges = [edge(0, 1), edge(1, 3), edge(0, 3), edge(2, 3)];
        assert_eq!(layers(4, &edges), [0, 1, 0, 2]);
    }

    #[test]
    fn the_sweeps_undo_a_crossing_the_initial_order_makes() {
        // Two chains a → b and c → d, the lower row given crossed.
        let edges = [edge(0, 2), edge(1, 3)];
        let crossed = layout(&[3, 3, 3, 3], &edges, &[0, 1, 1, 0]);
        assert_eq!(crossed.crossings, 0);
        assert!(crossed.nodes[2].x < crossed.nodes[3].x);
        assert_eq!(crossings_between(&[(0, 1), (1, 0)]), 1);
    }

    #[test]
    fn a_long_edge_runs_through_a_dummy_and_ends_in_an_arrow() {
        let edges = [edge(0, 1), edge(1, 2), edge(0, 2)];
        let l = layout(&[5, 5, 5], &edges, &[0, 1, 2]);
        assert_eq!(
            l.nodes.iter().map(|p| p.layer).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        // Each target gets an arrowhead right above it, and the graph's rows are apart.
        let target = l.nodes[2];
        let arrows: Vec<_> = l.arrows.iter().filter(|a| a.1 == target.y - 1).collect();
        assert_eq!(arrows.len(), 2, "{:?}", l.arrows);
        assert!(l.nodes[1].y > l.nodes[0].y && l.nodes[2].y > l.nodes[1].y);
        // The long edge passes the middle row through its own column, beside node 1.
        let middle = l.nodes[1];
        let beside: Vec<_> = l
            .cells
            .keys()
            .filter(|(x, y)| *y == middle.y && (*x < middle.x || *x >= middle.x + middle.width))
            .collect();
        assert_eq!(beside.len(), 1, "{:?}", l.cells);
    }

    #[test]
    fn masks_map_to_box_glyphs() {
        assert_eq!(glyph(N | S), '│');
        assert_eq!(glyph(E | W), '─');
        assert_eq!(glyph(N | E), '└');
        assert_eq!(glyph(N | S | E | W), '┼');
    }
}
