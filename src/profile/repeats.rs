//! Steps of a profile without step ids, from a kernel sequence that repeats: a Level0
//! `kernel_details.csv` has no `Step Id`, yet a run of N iterations executes the same kernels
//! N times. Real sequences are not exact repeats — communication kernels carry a per-call
//! index in their names (`hcom_allReduce__503_0_1`, `…_1_1`) and a few kernels (AI CPU ones)
//! change place between iterations — so communication kernels' names are compared without
//! their digits (other names' digits tell ops apart), and a small share of kernels may differ.
//!
//! How: every kernel runs in every iteration, so the number of iterations N is the least
//! count of any name, and nearly every count is a multiple of it (a model's layers repeat
//! too, but its embedding and head run once a pass, so one pass of many layers is not taken
//! for many iterations); an iteration starts where the earliest kernel that runs once an
//! iteration runs, less the kernels before it in the first iteration; every iteration must
//! then hold nearly the same kernels as the first.

use std::collections::HashMap;

/// The share of kernels that may break the repetition (moved or extra ones).
const TOLERANCE: f64 = 0.05;

/// A communication kernel's name without its digits, so per-call indices do not tell calls
/// apart:
/// `hcom_allReduce__503_0_1` → `hcom_allReduce__#_#_#`.
pub fn without_indices(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_digits = false;
    for c in name.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// Where each iteration of `sequence` (kernel names, as ids of their names without indices,
/// in execution order) starts, when it repeats two or more times; `None` when it does not.
pub fn iteration_starts(sequence: &[u32]) -> Option<Vec<usize>> {
    let total = sequence.len();
    if total < 4 {
        return None;
    }
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for &name in sequence {
        *counts.entry(name).or_default() += 1;
    }
    // Every kernel runs in every iteration, so N is the least count, and nearly every count
    // is a multiple of it (a few kernels may run an extra time). A kernel that ran fewer times
    // is one of a single pass (an embedding, a head): the repeats are layers, not iterations.
    let iterations = counts.values().copied().min()?;
    let off: usize = counts.values().filter(|&&c| c % iterations != 0).sum();
    // An iteration of one kernel is no iteration: a sequence of one name over and over.
    if iterations < 2 || iterations * 2 > total || off as f64 > total as f64 * TOLERANCE {
        return None;
    }
    // The anchor: of the names that run once an iteration, the one first in the sequence.
    let (first_at, anchor) = sequence
        .iter()
        .enumerate()
        .find(|(_, name)| counts.get(name) == Some(&iterations))
        .map(|(at, &name)| (at, name))?;
    let starts: Vec<usize> = sequence
        .iter()
        .enumerate()
        .filter(|(_, name)| **name == anchor)
        .map(|(at, _)| at.saturating_sub(first_at))
        .collect();
    if starts.len() != iterations || starts.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    // Every iteration holds nearly the kernels of the first.
    let bag = |from: usize, to: usize| {
        let mut bag: HashMap<u32, i64> = HashMap::new();
        for &name in &sequence[from..to] {
            *bag.entry(name).or_default() += 1;
        }
        bag
    };
    let end = |k: usize| starts.get(k + 1).copied().unwrap_or(total);
    let first = bag(starts[0], end(0));
    let first_len = end(0) - starts[0];
    for (k, &start) in starts.iter().enumerate().skip(1) {
        let this = bag(start, end(k));
        let differing: i64 = first
            .keys()
            .chain(this.keys())
            .collect::<std::collections::HashSet<_>>()
            .into_iter()
            .map(|name| {
                (first.get(name).copied().unwrap_or(0) - this.get(name).copied().unwrap_or(0)).abs()
            })
            .sum();
        if differing as f64 > (first_len as f64 * 2.0 * TOLERANCE).max(2.0) {
            return None;
        }
    }
    Some(starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<u32> {
        let mut known: HashMap<String, u32> = HashMap::new();
        names
            .iter()
            .map(|n| {
                let next = known.len() as u32;
                let name = if n.starts_with("hcom") {
                    without_indices(n)
                } else {
                    n.to_string()
                };
                *known.entry(name).or_insert(next)
            })
            .collect()
    }

    #[test]
    fn per_call_indices_are_not_names() {
        assert_eq!(
            without_indices("hcom_allReduce__503_0_1"),
            without_indices("hcom_allReduce__503_1_1")
        );
        assert_eq!(without_indices("MatMul_12"), "MatMul_#");
    }

    #[test]
    fn ten_iterations_with_indexed_and_moved_kernels_are_ten() {
        let mut names = Vec::new();
        for i in 0..10 {
            names.push("Embedding_1".to_string());
            for layer in 0..4 {
                names.push(format!("MatMul_{layer}"));
                names.push(format!("hcom_allReduce__503_{i}_{layer}"));
                names.push(format!("Add_{layer}"));
            }
            // An AI CPU kernel that runs at another place in odd iterations.
            if i % 2 == 0 {
                names.insert(names.len() - 3, "aicpu_Unique".to_string());
            } else {
                names.push("aicpu_Unique".to_string());
            }
            names.push("Softmax_9".to_string());
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let starts = iteration_starts(&ids(&refs)).expect("iterations");
        assert_eq!(starts.len(), 10);
        assert_eq!(starts[0], 0);
        assert_eq!(starts[1], 15);
    }

    #[test]
    fn a_sequence_that_does_not_repeat_has_no_iterations() {
        assert_eq!(iteration_starts(&ids(&["A", "B", "C", "D", "E"])), None);
        // Layers repeated inside one pass are not iterations of it.
        let mut pass = vec!["Embed"];
        for _ in 0..32 {
            pass.extend(["MatMul", "Add", "hcom_allReduce__503_0_1"]);
        }
        pass.push("Head");
        assert_eq!(iteration_starts(&ids(&pass)), None);
    }

    #[test]
    fn kernels_before_the_anchor_belong_to_their_iteration() {
        // Cast runs several times an iteration; Embed once, second in each.
        let seq = ids(&[
            "Cast", "Embed", "Cast", "Mul", "Cast", "Embed", "Cast", "Mul", "Cast", "Embed",
            "Cast", "Mul",
        ]);
        assert_eq!(iteration_starts(&seq), Some(vec![0, 4, 8]));
    }
}
