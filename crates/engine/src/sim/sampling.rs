//! The periodic samplers of `[record] queues` and `[record] rates`.

use super::world::{World, RATE_SAMPLE};
use crate::des::{Event, EventKind};

impl World {
    pub(super) fn sample_queues(&mut self) {
        let now = self.sched.now();
        let Some(series) = &mut self.queue_series else { return };
        let interval = series.interval;
        for i in 0..series.ports.len() {
            let port = self.queue_series.as_ref().unwrap().ports[i];
            // A sample sees the queue as an arrival at `now` would: before departures at `now`.
            if self.ports[port.idx()].busy_until < now {
                self.catch_up_free::<true>(port, now);
            }
            let queue = &mut self.ports[port.idx()].queue;
            let (q, phantom) = (queue.backlog, queue.phantom_bytes(now));
            self.queue_series.as_mut().unwrap().record(now, port, q.bytes, q.pkts, phantom);
        }
        if self.has_work() {
            self.sched.after(interval, Event::new(EventKind::Sample, 0));
        }
    }

    pub(super) fn sample_rates(&mut self) {
        let now = self.sched.now();
        let Some(series) = &mut self.rate_series else { return };
        for (id, f) in self.flows.enumerate() {
            if f.start <= now {
                series.record(now, id.idx(), f.sender.snd_una, f.sender.snd_nxt + f.sender.retx_bytes);
            }
        }
        let interval = series.interval;
        if self.has_work() {
            self.sched.after(interval, Event::new(EventKind::Sample, RATE_SAMPLE));
        }
    }

}
