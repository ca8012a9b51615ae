//! Which step a kernel ran in, when the profile gives host step windows (`STEP_TIME`,
//! `ProfilerStep#N`) rather than a step per kernel: each step's device range is where the
//! tasks launched inside its host window ran (torch_npu's rule), or, with no launch links, the
//! host window itself (msprof-analyze's). A kernel belongs to the step whose range holds its
//! start. Facts: reference/profiler_db.md §3 (Step Id).

/// Steps with their ranges, ready to place kernels.
#[derive(Debug, Default)]
pub struct StepRanges {
    /// (start, end, label index), by start.
    ranges: Vec<(i64, i64, usize)>,
    labels: Vec<String>,
    /// True when the ranges come from launches, false when they are the host windows.
    pub by_device: bool,
}

/// Host step windows, widened into device ranges launch by launch.
#[derive(Debug)]
pub struct Launches {
    /// (host start, host end, label), by start.
    windows: Vec<(i64, i64, String)>,
    device: Vec<Option<(i64, i64)>>,
}

impl Launches {
    /// The host windows (start, end, label), in any order.
    pub fn new(mut windows: Vec<(i64, i64, String)>) -> Launches {
        windows.sort_by_key(|w| w.0);
        let device = vec![None; windows.len()];
        Launches { windows, device }
    }

    /// A task launched on the host at `host` ran on the device from `start` to `end`.
    pub fn launched(&mut self, host: i64, start: i64, end: i64) {
        let after = self.windows.partition_point(|w| w.0 <= host);
        if let Some(i) = (0..after).rev().find(|&i| host <= self.windows[i].1) {
            let r = self.device[i].get_or_insert((start, end));
            r.0 = r.0.min(start);
            r.1 = r.1.max(end);
        }
    }

    /// The steps: by device range when any launch was seen (a step that launched nothing
    /// then has no range), else by host window.
    pub fn finish(self) -> StepRanges {
        let by_device = self.device.iter().any(Option::is_some);
        let mut steps = StepRanges {
            by_device,
            ..StepRanges::default()
        };
        for ((start, end, label), device) in self.windows.into_iter().zip(self.device) {
            let (s, e) = match (by_device, device) {
                (true, Some(r)) => r,
                (true, None) => continue,
                (false, _) => (start, end),
            };
            steps.ranges.push((s, e, steps.labels.len()));
            steps.labels.push(label);
        }
        steps.ranges.sort_by_key(|r| r.0);
        steps
    }
}

impl StepRanges {
    /// The label of the step whose range holds `start`.
    pub fn of(&self, start: i64) -> Option<&str> {
        let after = self.ranges.partition_point(|r| r.0 <= start);
        self.ranges[..after]
            .iter()
            .rev()
            .find(|r| start <= r.1)
            .map(|r| self.labels[r.2].as_str())
    }

    /// How many steps have a range.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_carry_host_windows_to_the_device_and_kernels_fall_in_by_start() {
        let mut l = Launches::new(vec![(200, 300, "2".into()), (0, 100, "1".into())]);
        // Step 1 launched work that ran 150–260; step 2 work that ran 320–400.
        l.launched(10, 150, 180);
        l.launched(90, 230, 260);
        l.launched(250, 320, 400);
        // A launch outside every window counts nowhere.
        l.launched(150, 500, 600);
        let s = l.finish();
        assert!(s.by_device);
        assert_eq!(
            [149, 150, 260, 261, 320, 400, 401, 550].map(|t| s.of(t)),
            [
                None,
                Some("1"),
                Some("1"),
                None,
                Some("2"),
                Some("2"),
                None,
                None
            ]
        );
    }

    #[test]
    fn without_launches_the_host_windows_stand() {
        let s = Launches::new(vec![(0, 100, "7".into())]).finish();
        assert!(!s.by_device);
        assert_eq!((s.of(50), s.of(101), s.len()), (Some("7"), None, 1));
    }
}
