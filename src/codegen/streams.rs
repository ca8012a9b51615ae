//! The two-stream form's order between sub-ops (graph-autofusion `super_kernel_op_infos.py`):
//! consecutive sub-ops of one stream and the two ends of an event inside the segment are
//! linked, a mixed sub-op that notifies is linked to the next one on the other stream, and
//! links that others already imply are dropped. Each link is named by the core kinds at its
//! ends (`cub:vec`, …); the generator turns them into same-core syncs and cross-core flags.

use super::subop::{Arch, SubOp};

/// The links of one sub-op: to or from which sub-ops (by their stream name), with the core
/// kinds of each link (`cub:vec`, or `cub:vec;vec:cub` between two mixed sub-ops), in the order
/// they were made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links(pub Vec<(String, String)>);

impl Links {
    fn set(&mut self, name: &str, kinds: String) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = kinds,
            None => self.0.push((name.to_string(), kinds)),
        }
    }

    fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| n != name);
    }

    /// True when a link is of kind `kind`.
    pub fn any(&self, kind: &str) -> bool {
        self.0
            .iter()
            .any(|(_, kinds)| kinds.split(';').any(|k| k == kind))
    }

    /// True when there is no link.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// As the compiler's comments print them (a Python dict): `{'a_1': 'cub:vec'}`.
    pub fn shown(&self) -> String {
        let items: Vec<String> = self
            .0
            .iter()
            .map(|(name, kinds)| format!("'{name}': '{kinds}'"))
            .collect();
        format!("{{{}}}", items.join(", "))
    }
}

/// The links of every sub-op of a two-stream segment, and which sub-ops end their stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamLinks {
    /// What each sub-op (by index) must tell others when it ends.
    pub sends: Vec<Links>,
    /// What each sub-op must hear before it starts.
    pub recvs: Vec<Links>,
    /// True for the last sub-op of each stream.
    pub last_of_stream: Vec<bool>,
    /// True for a mixed sub-op whose notify moves to its cube side (the next sub-op is a cube
    /// one).
    pub notify_on_cube: Vec<bool>,
}

/// The kind a sub-op runs as: `cub`, `vec` or `mix`.
fn kind(sub: &SubOp) -> &'static str {
    match sub.arch() {
        Arch::Aic => "cub",
        Arch::Aiv => "vec",
        Arch::Mix => "mix",
    }
}

/// The name of a link from `before` to `after`.
fn link_name(before: &SubOp, after: &SubOp) -> String {
    match (kind(before), kind(after)) {
        ("mix", "mix") => "cub:vec;vec:cub".to_string(),
        ("mix", "cub") | ("vec", "mix") => "vec:cub".to_string(),
        ("mix", _) | ("cub", "mix") => "cub:vec".to_string(),
        (a, b) => format!("{a}:{b}"),
    }
}

impl StreamLinks {
    /// The links of `subs`, each with its `has_notify` (a notify to an op outside the segment).
    pub fn of(subs: &[SubOp], has_notify: &[bool]) -> StreamLinks {
        let n = subs.len();
        let mut links = StreamLinks {
            sends: vec![Links::default(); n],
            recvs: vec![Links::default(); n],
            last_of_stream: vec![false; n],
            notify_on_cube: vec![false; n],
        };
        // Consecutive sub-ops of a stream (streams in the order they first appear).
        let mut streams: Vec<u32> = Vec::new();
        for sub in subs {
            if !streams.contains(&sub.stream) {
                streams.push(sub.stream);
            }
        }
        for stream in streams {
            let on: Vec<usize> = (0..n).filter(|&i| subs[i].stream == stream).collect();
            if let Some(&last) = on.last() {
                links.last_of_stream[last] = true;
            }
            for pair in on.windows(2) {
                links.link(subs, pair[0], pair[1]);
            }
        }
        // Both ends of an event inside the segment (the last sender and receiver of an id).
        let mut senders: Vec<(i64, usize)> = Vec::new();
        let mut receivers: Vec<(i64, usize)> = Vec::new();
        for (i, sub) in subs.iter().enumerate() {
            for event in &sub.notifies {
                match senders.iter_mut().find(|(id, _)| *id == event.id) {
                    Some(entry) => entry.1 = i,
                    None => senders.push((event.id, i)),
                }
            }
            for event in &sub.waits {
                match receivers.iter_mut().find(|(id, _)| *id == event.id) {
                    Some(entry) => entry.1 = i,
                    None => receivers.push((event.id, i)),
                }
            }
        }
        for &(id, from) in &senders {
            if let Some(&(_, to)) = receivers.iter().find(|(r, _)| *r == id)
                && to != from
            {
                links.link(subs, from, to);
            }
        }
        // A mixed sub-op that notifies: before a cube sub-op its notify moves to the cube
        // side, and it is linked to the next sub-op when that is on another stream.
        for i in 0..n.saturating_sub(1) {
            if kind(&subs[i]) != "mix" || !has_notify[i] {
                continue;
            }
            let next = &subs[i + 1];
            if kind(next) == "cub" {
                links.notify_on_cube[i] = true;
            }
            let name = next.stream_name();
            if next.stream != subs[i].stream && !links.sends[i].0.iter().any(|(n, _)| *n == name) {
                links.link(subs, i, i + 1);
            }
        }
        links.drop_crossed(subs);
        links.keep_one_link(subs, true);
        links.keep_one_link(subs, false);
        links
    }

    fn link(&mut self, subs: &[SubOp], from: usize, to: usize) {
        let kinds = link_name(&subs[from], &subs[to]);
        self.sends[from].set(&subs[to].stream_name(), kinds.clone());
        self.recvs[to].set(&subs[from].stream_name(), kinds);
    }

    /// Removes `kind` from the link `from` → `to` on both ends (the link goes when nothing is
    /// left of it).
    fn unlink(&mut self, subs: &[SubOp], from: usize, to: usize, kind: &str) {
        let (to_name, from_name) = (subs[to].stream_name(), subs[from].stream_name());
        for (links, name) in [
            (&mut self.sends[from], &to_name),
            (&mut self.recvs[to], &from_name),
        ] {
            let Some((_, kinds)) = links.0.iter().find(|(n, _)| n == name) else {
                continue;
            };
            let left: Vec<&str> = kinds.split(';').filter(|k| *k != kind).collect();
            if left.is_empty() {
                links.remove(name);
            } else {
                links.set(name, left.join(";"));
            }
        }
    }

    /// The sub-op named `name`.
    fn index_of(subs: &[SubOp], name: &str) -> Option<usize> {
        subs.iter().position(|s| s.stream_name() == name)
    }

    /// Position of sub-op `i` among the sub-ops on `cube` (or vector) cores.
    fn position(subs: &[SubOp], i: usize, cube: bool) -> usize {
        subs.iter()
            .enumerate()
            .filter(|(_, s)| on_cube(s) == cube || kind(s) == "mix")
            .position(|(k, _)| k == i)
            .unwrap_or(0)
    }

    /// Drops a cross-core link that a later-sent, earlier-received one of the same direction
    /// already implies (the compiler's `remove_crossed_line_sync`).
    fn drop_crossed(&mut self, subs: &[SubOp]) {
        let mut drops = Vec::new();
        for (cube, kind_name) in [(true, "cub:vec"), (false, "vec:cub")] {
            for from in (0..subs.len()).filter(|&i| on_list(&subs[i], cube)) {
                for (name, kinds) in &self.sends[from].0 {
                    if !kinds.split(';').any(|k| k == kind_name) {
                        continue;
                    }
                    let Some(to) = Self::index_of(subs, name) else {
                        continue;
                    };
                    if self.crossed(subs, from, to, cube) {
                        drops.push((from, to, kind_name));
                    }
                }
            }
        }
        for (from, to, kind_name) in drops {
            self.unlink(subs, from, to, kind_name);
        }
    }

    /// True when a receiver before `to` (on the other core kind) hears the same direction from
    /// a sender after `from`.
    fn crossed(&self, subs: &[SubOp], from: usize, to: usize, cube: bool) -> bool {
        let kind_name = if cube { "cub:vec" } else { "vec:cub" };
        let send_at = Self::position(subs, from, cube);
        let recv_at = Self::position(subs, to, !cube);
        let receivers: Vec<usize> = (0..subs.len())
            .filter(|&i| on_list(&subs[i], !cube))
            .collect();
        receivers[..recv_at.min(receivers.len())]
            .iter()
            .rev()
            .any(|&r| {
                self.recvs[r].0.iter().any(|(name, kinds)| {
                    kinds.contains(kind_name)
                        && Self::index_of(subs, name).is_some_and(|s| {
                            Self::position(subs, s, cube) > send_at
                                && Self::position(subs, r, !cube) < recv_at
                        })
                })
            })
    }

    /// Of several cross-core links one sub-op sends, keeps the one to the earliest receiver;
    /// of several it receives, the one from the latest sender.
    fn keep_one_link(&mut self, subs: &[SubOp], sending: bool) {
        let directions = if sending {
            [(false, "vec:cub"), (true, "cub:vec")]
        } else {
            [(false, "cub:vec"), (true, "vec:cub")]
        };
        for (cube, kind_name) in directions {
            let mut drops = Vec::new();
            for at in (0..subs.len()).filter(|&i| on_list(&subs[i], cube)) {
                let links = if sending {
                    &self.sends[at]
                } else {
                    &self.recvs[at]
                };
                if links.0.len() < 2 {
                    continue;
                }
                let mut others: Vec<(usize, usize)> = links
                    .0
                    .iter()
                    .filter(|(_, kinds)| kinds.contains(kind_name))
                    .filter_map(|(name, _)| Self::index_of(subs, name))
                    .map(|other| (Self::position(subs, other, !cube), other))
                    .collect();
                if others.len() < 2 {
                    continue;
                }
                // the kept link comes first: the nearest receiver, or the latest sender
                others.sort_by_key(|o| {
                    if sending {
                        o.0 as isize
                    } else {
                        -(o.0 as isize)
                    }
                });
                drops.extend(others[1..].iter().map(|&(_, other)| {
                    if sending { (at, other) } else { (other, at) }
                }));
            }
            for (from, to) in drops {
                self.unlink(subs, from, to, kind_name);
            }
        }
    }
}

/// True for a sub-op that runs on the cube cores only.
fn on_cube(sub: &SubOp) -> bool {
    kind(sub) == "cub"
}

/// True for a sub-op in the cube list (`cube`) or the vector list: mixed sub-ops are in both.
pub(crate) fn on_list(sub: &SubOp, cube: bool) -> bool {
    kind(sub) == "mix" || on_cube(sub) == cube
}
