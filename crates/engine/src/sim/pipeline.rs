//! How the partitions of a run advance (issue 23): windows on a fixed grid, each partition a
//! few windows ahead of the others at most, meeting at no global barrier inside an epoch.
//!
//! The grid (`Grid`, `grid.rs`) cuts time into windows of `lookahead / windows_per_lookahead`. A
//! partition runs its window `k` once every other partition has finished window
//! `k - 1 - slack`; before it does, it takes in the packets the others sent it in windows up
//! to then, by source partition, window, and the order they started. A packet sent in window
//! `j` arrives no sooner than `(j + windows_per_lookahead)` windows' starts, so it is taken
//! in `windows_per_lookahead - 1 - slack` windows before it arrives (5/8 of the lookahead
//! per datacenter): conservative, and the tie margin of `partition.rs`. Where each packet is
//! taken in depends on the window numbers alone, so one thread (running the partitions
//! window by window in turn) and any number of threads give the same run.
//!
//! The slack lets a partition with little to do in a window run on while another catches
//! up: Uno's 200-flow bench (e), whose traffic moves between the datacenters in bursts,
//! could gain 1.70x from two cores with a barrier per window and 1.93x with this slack
//! (by the event counts of each window; docs/performance.md).
//!
//! Epochs (`grid::epoch_windows`: 512 windows, at most 10 us while flows stream) end in a
//! barrier (the threads are started per epoch):
//! there the run skips to the window of the next event anywhere, or ends when nothing is
//! left. A run in steps (`run_until`) stops each partition at the step's end, mid-window if
//! need be, and goes on in the same window.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use super::partition::Partitioned;
use super::world::World;
use crate::units::Time;

/// What the threads of one epoch share.
struct Epoch<'a> {
    run: &'a Partitioned,
    /// The window the epoch ends before, and the last instant to run (inclusive).
    until: u64,
    stop: Time,
}

impl Partitioned {
    /// Runs up to `limit` (inclusive) or the end; true when the run is over.
    pub fn run_until(&mut self, limit: Time) -> bool {
        let stop = limit.min(self.end);
        loop {
            let until = match self.epoch_end {
                Some(k) => k,
                None => match self.next_start() {
                    Some(t) => {
                        // Every partition is at the same window here: skip to the next event's.
                        let k0 = (t / self.window).max(self.next[0].load(Relaxed));
                        self.next.iter().for_each(|n| n.store(k0, Relaxed));
                        *self.epoch_end.insert(k0 + self.epoch_windows)
                    }
                    None => {
                        // Nothing left anywhere: every wire is empty, so nothing waits to start.
                        self.parts.iter_mut().for_each(|w| w.catch_up_all());
                        self.retire_finished();
                        return true;
                    }
                },
            };
            self.run_epoch(until, stop);
            if until * self.window <= stop {
                self.epoch_end = None;
                self.retire_finished();
                if self.rows_ready() {
                    // Not over: the caller takes the rows and calls again.
                    return false;
                }
                continue;
            }
            if stop >= self.end {
                for w in &mut self.parts {
                    w.catch_up_all();
                    w.sched.advance_to(self.end);
                }
                self.retire_finished();
                return true;
            }
            self.parts.iter_mut().for_each(|w| w.sched.advance_to(stop));
            return false;
        }
    }

    /// When the next epoch starts: the earliest event, start on a leaving link, or arrival
    /// of a packet not taken in yet, anywhere.
    fn next_start(&self) -> Option<Time> {
        let events = self.parts.iter().filter_map(|w| w.sched.next_time());
        let leaving = self.parts.iter().filter_map(|w| w.partition.as_ref().and_then(|s| s.next_leaving));
        let mail = self.mail.iter().filter_map(|m| m.lock().expect("no thread panicked").sent.iter().filter_map(|b| b.1.first_arrival()).min());
        events.chain(leaving).chain(mail).min()
    }

    /// Runs every partition through the epoch's windows up to `stop`, partition `i` on
    /// thread `i mod threads` (threads beyond the partitions are not started).
    fn run_epoch(&mut self, until: u64, stop: Time) {
        let threads = self.threads.min(self.parts.len()).max(1);
        let mut parts = std::mem::take(&mut self.parts);
        {
            let epoch = Epoch { run: self, until, stop };
            let mut groups: Vec<Vec<(usize, &mut World)>> = (0..threads).map(|_| Vec::new()).collect();
            for (i, w) in parts.iter_mut().enumerate() {
                groups[i % threads].push((i, w));
            }
            let mut groups = groups.into_iter();
            let here = groups.next().expect("at least one thread");
            std::thread::scope(|s| {
                for group in groups {
                    let epoch = &epoch;
                    s.spawn(move || epoch.drive(group));
                }
                epoch.drive(here);
            });
        }
        self.parts = parts;
    }
}

impl Epoch<'_> {
    /// Runs the given partitions' windows, each as soon as its turn and the others allow.
    fn drive(&self, mut mine: Vec<(usize, &mut World)>) {
        let window = self.run.window;
        let mut stopped = vec![false; mine.len()];
        loop {
            let (mut moved, mut waiting) = (false, false);
            for (i, (p, w)) in mine.iter_mut().enumerate() {
                let k = self.run.next[*p].load(Acquire);
                if stopped[i] || k >= self.until || k * window > self.stop {
                    continue;
                }
                if !self.ready(*p, k) {
                    waiting = true;
                    continue;
                }
                moved = true;
                self.take_in(*p, k, w);
                let last = (k + 1) * window - 1;
                w.run_window(k, last.min(self.stop));
                if last > self.stop {
                    stopped[i] = true;
                    continue;
                }
                w.start_leaving(last);
                self.send(*p, k, w);
                self.run.next[*p].store(k + 1, Release);
            }
            if !moved && !waiting {
                return;
            }
            if !moved {
                std::thread::yield_now();
            }
        }
    }

    /// Whether every other partition has finished window `k - 1 - slack`.
    fn ready(&self, p: usize, k: u64) -> bool {
        let need = k.saturating_sub(self.run.grid().slack);
        self.run.next.iter().enumerate().all(|(q, n)| q == p || n.load(Acquire) >= need)
    }

    /// Partition `p`, about to run window `k`, takes in the packets sent to it in windows up
    /// to `k - 1 - slack`: by source partition, then window, then the order they started.
    /// Each batch is taken in outside the lock (its sender may be posting the next) and
    /// handed back empty.
    fn take_in(&self, p: usize, k: u64, w: &mut World) {
        let (n, slack) = (self.run.next.len(), self.run.grid().slack);
        for src in (0..n).filter(|&q| q != p) {
            let mailbox = &self.run.mail[src * n + p];
            let mut done = None;
            loop {
                let mut bag = {
                    let mut mb = mailbox.lock().expect("no thread panicked");
                    mb.emptied.extend(done.take());
                    match mb.sent.front() {
                        Some(b) if b.0 + 1 + slack <= k => mb.sent.pop_front().expect("just looked").1,
                        _ => break,
                    }
                };
                w.enter_all(&bag);
                bag.clear();
                done = Some(bag);
            }
        }
    }

    /// Partition `p` posts the packets it sent in window `k`, one batch per destination.
    fn send(&self, p: usize, k: u64, w: &mut World) {
        let n = self.run.next.len();
        for dst in (0..n).filter(|&q| q != p) {
            let sent = w.outbox_len(dst);
            if sent == 0 {
                continue;
            }
            let mut mb = self.run.mail[p * n + dst].lock().expect("no thread panicked");
            let mut empty = mb.emptied.pop().unwrap_or_default();
            // The next window's batch is about as long as this one's.
            empty.reserve(sent);
            let bag = w.take_outbox(dst, empty);
            mb.sent.push_back((k, bag));
        }
    }
}
