//! How a set of measured times is spread: the median, the median absolute deviation, the
//! 10th and 90th percentiles and the extremes, from exact nanoseconds.

use serde::Serialize;

/// The spread of some times, in µs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// How many times.
    pub count: usize,
    /// The median.
    pub median_us: f64,
    /// The median absolute deviation from the median.
    pub mad_us: f64,
    /// The 10th percentile (nearest rank).
    pub p10_us: f64,
    /// The 90th percentile (nearest rank).
    pub p90_us: f64,
    /// The smallest.
    pub min_us: f64,
    /// The largest.
    pub max_us: f64,
}

/// The median of `ns`, in ns (the mean of the middle two for an even count; 0 for none).
pub fn median_ns(ns: &[i64]) -> f64 {
    let mut sorted = ns.to_vec();
    sorted.sort_unstable();
    median_sorted(&sorted)
}

/// The median of sorted `ns`, in ns (the mean of the middle two for an even count).
fn median_sorted(ns: &[i64]) -> f64 {
    match ns.len() {
        0 => 0.0,
        n if n % 2 == 1 => ns[n / 2] as f64,
        n => (ns[n / 2 - 1] as f64 + ns[n / 2] as f64) / 2.0,
    }
}

/// The `p`-th percentile of sorted `ns` by nearest rank.
fn percentile_sorted(ns: &[i64], p: f64) -> f64 {
    if ns.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * ns.len() as f64).ceil() as usize;
    ns[rank.clamp(1, ns.len()) - 1] as f64
}

impl Spread {
    /// The spread of `ns`; `None` for no times.
    pub fn of(ns: &[i64]) -> Option<Spread> {
        if ns.is_empty() {
            return None;
        }
        let mut sorted = ns.to_vec();
        sorted.sort_unstable();
        let median = median_sorted(&sorted);
        // Deviations in half nanoseconds, exactly: a median of an even count lies half-way
        // between two whole ones, and rounding each deviation would move the MAD (and every
        // noise threshold made from it) by up to a nanosecond.
        let twice_median = match sorted.len() {
            n if n % 2 == 1 => 2 * i128::from(sorted[n / 2]),
            n => i128::from(sorted[n / 2 - 1]) + i128::from(sorted[n / 2]),
        };
        let mut deviations: Vec<i128> = sorted
            .iter()
            .map(|&v| (2 * i128::from(v) - twice_median).abs())
            .collect();
        deviations.sort_unstable();
        let half_ns = match deviations.len() {
            n if n % 2 == 1 => deviations[n / 2] as f64,
            n => (deviations[n / 2 - 1] as f64 + deviations[n / 2] as f64) / 2.0,
        };
        let us = |ns: f64| ns / 1000.0;
        Some(Spread {
            count: sorted.len(),
            median_us: us(median),
            mad_us: us(half_ns / 2.0),
            p10_us: us(percentile_sorted(&sorted, 10.0)),
            p90_us: us(percentile_sorted(&sorted, 90.0)),
            min_us: us(sorted[0] as f64),
            max_us: us(sorted[sorted.len() - 1] as f64),
        })
    }

    /// True when `us` lies more than `k` median absolute deviations from the median (never,
    /// when every time is the same).
    pub fn is_outlier(&self, us: f64, k: f64) -> bool {
        self.mad_us > 0.0 && (us - self.median_us).abs() > k * self.mad_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_and_its_deviation_resist_one_slow_value() {
        let s = Spread::of(&[10_000, 11_000, 9_000, 10_000, 90_000]).unwrap_or_else(|| {
            panic!("five times have a spread");
        });
        assert_eq!(s.count, 5);
        assert_eq!(s.median_us, 10.0);
        assert_eq!(s.mad_us, 1.0);
        assert_eq!((s.min_us, s.max_us), (9.0, 90.0));
        assert_eq!((s.p10_us, s.p90_us), (9.0, 90.0));
        assert!(s.is_outlier(90.0, 3.0) && !s.is_outlier(11.0, 3.0));
        let even = Spread::of(&[1_000, 2_000]).unwrap_or_else(|| panic!("two times"));
        assert_eq!(even.median_us, 1.5);
        assert!(Spread::of(&[]).is_none());
        let same = Spread::of(&[5_000; 4]).unwrap_or_else(|| panic!("four times"));
        assert!(!same.is_outlier(6.0, 3.0));
    }

    #[test]
    fn the_deviation_is_exact_to_the_half_nanosecond() {
        // Median 1.5 ns: both deviations are 0.5 ns, not rounded up to 1.
        let s = Spread::of(&[1, 2]).unwrap_or_else(|| panic!("two times"));
        assert_eq!(s.mad_us * 1000.0, 0.5);
        // Median 2.5 ns; deviations 1.5, 0.5, 0.5, 1.5: their median is 1.0 ns.
        let s = Spread::of(&[1, 2, 3, 4]).unwrap_or_else(|| panic!("four times"));
        assert_eq!(s.mad_us * 1000.0, 1.0);
        // Three values: median 2 ns, deviations 1, 0 and 2 ns: their median is 1 ns.
        let s = Spread::of(&[1, 2, 4]).unwrap_or_else(|| panic!("three times"));
        assert_eq!((s.median_us * 1000.0, s.mad_us * 1000.0), (2.0, 1.0));
    }
}
