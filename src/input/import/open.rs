//! Spans held per conversation until it is finished, within a memory bound: what lets
//! `import` read a file of any size.
//!
//! A conversation is the OTLP traces that share a conversation id (`spans::conversation`),
//! else one trace: the unit `spans::steps` makes steps of. Spans are held per conversation
//! until the held spans pass the bound; then conversations are released, least recently
//! added to first, those that look finished before those that do not, until half the bound
//! is free, and made into steps together. A conversation looks finished when one of its
//! traces' root spans has ended, or when the input's own clock (the latest span end read)
//! is `idle` past its last span. A trace that holds only a server span whose context did
//! not propagate stays while an open conversation's time holds it (its client call may be
//! there). Input that fits the bound is released once, at the end: exactly what reading
//! it whole gives. A span of a conversation already released is late: counted, not used.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::spans::{Span, SpanKind, conversation};

/// One conversation being held.
#[derive(Default)]
struct Conv {
    spans: Vec<Span>,
    bytes: usize,
    traces: Vec<String>,
    convs: Vec<String>,
    start: Option<DateTime<Utc>>,
    end: Option<DateTime<Utc>>,
    root_ended: bool,
    /// Input position of its latest span.
    touched: u64,
}

impl Conv {
    /// Its time stretched to hold `start..end`.
    fn widen(&mut self, start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) {
        self.start = match (self.start, start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.end = match (self.end, end) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    /// Only server spans without a parent in the trace: a server whose trace context did
    /// not propagate, which `spans::steps` ties to the client call whose time holds it.
    fn orphan_server(&self) -> bool {
        let ids: HashSet<&str> = self.spans.iter().map(|s| s.span_id.as_str()).collect();
        self.spans
            .iter()
            .any(|s| s.kind == SpanKind::Server && !ids.contains(s.parent_id.as_str()))
            && !self
                .spans
                .iter()
                .any(|s| s.parent_id.is_empty() && s.kind != SpanKind::Server)
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Released {
    /// Releases made before the end of the input.
    pub early: usize,
    /// Conversations released before they looked finished (the bound was too small).
    pub cut: usize,
    /// Spans of a conversation already released: not used.
    pub late: usize,
    /// Traces those late spans belonged to.
    pub late_traces: usize,
}

pub struct OpenTraces {
    convs: HashMap<usize, Conv>,
    by_trace: HashMap<String, usize>,
    by_conv: HashMap<String, usize>,
    next: usize,
    bytes: usize,
    limit: usize,
    idle: Duration,
    /// The input's clock: the latest span end read.
    clock: Option<DateTime<Utc>>,
    seq: u64,
    /// Hashes of released trace and conversation ids (8 bytes a trace: what stays of a
    /// released conversation, so that a late span is known as late).
    gone: HashSet<u64>,
    late_seen: HashSet<u64>,
    pub released: Released,
}

fn key(kind: u8, id: &str) -> u64 {
    // A fixed hasher: the same input releases the same way on every run.
    let mut h =
        std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
            .build_hasher();
    kind.hash(&mut h);
    id.hash(&mut h);
    h.finish()
}

/// Roughly the memory a span takes while held: its strings and attribute values with
/// their map overhead, times 3/2 for what the count misses (allocator rounding, vectors'
/// spare capacity, pages not given back). The factor is measured: `import --memory M` of
/// a 1.6 GiB OTLP file peaked at 1.6 M + 100 MiB without it (benches/otlp.py).
pub(super) fn size(s: &Span) -> usize {
    counted(s) * 3 / 2
}

fn counted(s: &Span) -> usize {
    fn value(v: &Value) -> usize {
        match v {
            Value::String(s) => 24 + s.len(),
            Value::Array(a) => 24 + a.iter().map(value).sum::<usize>(),
            Value::Object(o) => {
                48 + o
                    .iter()
                    .map(|(k, v)| 64 + k.len() + value(v))
                    .sum::<usize>()
            }
            _ => 16,
        }
    }
    let attrs = |m: &serde_json::Map<String, Value>| {
        m.iter()
            .map(|(k, v)| 64 + k.len() + value(v))
            .sum::<usize>()
    };
    256 + s.trace_id.len()
        + s.span_id.len()
        + s.parent_id.len()
        + s.name.len()
        + s.error_message.as_ref().map_or(0, String::len)
        + attrs(&s.attrs)
        + s.events
            .iter()
            .map(|e| 96 + e.name.len() + attrs(&e.attrs))
            .sum::<usize>()
}

impl OpenTraces {
    /// Holds at most about `limit` bytes of spans; `idle` on the input's clock finishes a
    /// conversation whose root span was not seen.
    pub fn new(limit: usize, idle: Duration) -> Self {
        Self {
            convs: HashMap::new(),
            by_trace: HashMap::new(),
            by_conv: HashMap::new(),
            next: 0,
            bytes: 0,
            limit,
            idle,
            clock: None,
            seq: 0,
            gone: HashSet::new(),
            late_seen: HashSet::new(),
            released: Released::default(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.convs.is_empty()
    }

    /// Past the bound: time to `release`.
    pub fn full(&self) -> bool {
        self.bytes > self.limit
    }

    pub fn push(&mut self, s: Span) {
        self.seq += 1;
        let conv = conversation(&s);
        let t = key(0, &s.trace_id);
        if self.gone.contains(&t)
            || conv
                .as_ref()
                .is_some_and(|c| self.gone.contains(&key(1, c)))
        {
            self.released.late += 1;
            if self.late_seen.insert(t) {
                self.released.late_traces += 1;
            }
            return;
        }
        if let Some(e) = s.end {
            self.clock = Some(self.clock.map_or(e, |c| c.max(e)));
        }
        let mut id = match self.by_trace.get(&s.trace_id) {
            Some(&id) => id,
            None => {
                let id = self.new_conv();
                self.by_trace.insert(s.trace_id.clone(), id);
                self.convs
                    .get_mut(&id)
                    .expect("made")
                    .traces
                    .push(s.trace_id.clone());
                id
            }
        };
        if let Some(c) = conv {
            match self.by_conv.get(&c).copied() {
                Some(other) if other != id => id = self.merge(id, other),
                Some(_) => {}
                None => {
                    self.by_conv.insert(c.clone(), id);
                    self.convs.get_mut(&id).expect("held").convs.push(c);
                }
            }
        }
        let n = size(&s);
        self.bytes += n;
        let seq = self.seq;
        let g = self.convs.get_mut(&id).expect("held");
        g.bytes += n;
        g.touched = seq;
        g.widen(s.start, s.end);
        g.root_ended |= s.parent_id.is_empty() && s.end.is_some();
        g.spans.push(s);
    }

    fn new_conv(&mut self) -> usize {
        self.next += 1;
        self.convs.insert(self.next, Conv::default());
        self.next
    }

    /// One conversation of two (the smaller moved into the larger); returns its id.
    fn merge(&mut self, a: usize, b: usize) -> usize {
        let (keep, gone) = if self.convs[&a].spans.len() >= self.convs[&b].spans.len() {
            (a, b)
        } else {
            (b, a)
        };
        let g = self.convs.remove(&gone).expect("held");
        for t in &g.traces {
            self.by_trace.insert(t.clone(), keep);
        }
        for c in &g.convs {
            self.by_conv.insert(c.clone(), keep);
        }
        let k = self.convs.get_mut(&keep).expect("held");
        k.spans.extend(g.spans);
        k.bytes += g.bytes;
        k.traces.extend(g.traces);
        k.convs.extend(g.convs);
        k.widen(g.start, g.end);
        k.root_ended |= g.root_ended;
        k.touched = k.touched.max(g.touched);
        keep
    }

    fn finished(&self, g: &Conv) -> bool {
        g.root_ended || matches!((self.clock, g.end), (Some(c), Some(e)) if c - e >= self.idle)
    }

    /// The spans of the conversations to make into steps now: all of them with `all`,
    /// else enough (finished ones first, least recently added to first) to free half the
    /// bound.
    pub fn release(&mut self, all: bool) -> Vec<Span> {
        let mut order: Vec<(bool, u64, usize)> = self
            .convs
            .iter()
            .map(|(&id, g)| (!self.finished(g), g.touched, id))
            .collect();
        order.sort_unstable();
        let mut out: Vec<usize> = Vec::new();
        let mut left = self.bytes;
        let mut next = 0;
        loop {
            while next < order.len() && (all || left > self.limit / 2) {
                let id = order[next].2;
                left -= self.convs[&id].bytes;
                out.push(id);
                next += 1;
            }
            if all {
                break;
            }
            // Server spans an open call holds stay; others are taken in their place.
            let before = out.len();
            self.keep_held_servers(&mut out);
            if out.len() == before {
                break;
            }
            left = self.bytes - out.iter().map(|id| self.convs[id].bytes).sum::<usize>();
            if next == order.len() || left <= self.limit / 2 {
                break;
            }
        }
        if !all {
            self.released.early += 1;
            self.released.cut += out
                .iter()
                .filter(|id| !self.finished(&self.convs[*id]))
                .count();
        }
        let mut spans = Vec::new();
        for id in out {
            let g = self.convs.remove(&id).expect("held");
            self.bytes -= g.bytes;
            for t in &g.traces {
                self.by_trace.remove(t);
                self.gone.insert(key(0, t));
            }
            for c in &g.convs {
                self.by_conv.remove(c);
                self.gone.insert(key(1, c));
            }
            spans.extend(g.spans);
        }
        spans
    }

    /// Takes back from `out` the server-only conversations whose time an open
    /// conversation that stays holds: their client call may be in it.
    fn keep_held_servers(&self, out: &mut Vec<usize>) {
        let leaving: HashSet<usize> = out.iter().copied().collect();
        let skew = Duration::seconds(1);
        // Only a conversation with a client side holds one (servers do not hold servers:
        // when every client has left, so do they).
        let mut staying: Vec<(DateTime<Utc>, DateTime<Utc>)> = self
            .convs
            .iter()
            .filter(|(id, g)| !leaving.contains(id) && !g.orphan_server())
            .filter_map(|(_, g)| Some((g.start?, g.end?)))
            .collect();
        if staying.is_empty() {
            return;
        }
        staying.sort_unstable();
        // Latest end among the conversations that started by each one.
        let mut reach = Vec::with_capacity(staying.len());
        let mut m = staying[0].1;
        for &(_, e) in &staying {
            m = m.max(e);
            reach.push(m);
        }
        out.retain(|id| {
            let g = &self.convs[id];
            let (Some(s), Some(e)) = (g.start, g.end) else {
                return true;
            };
            if !g.orphan_server() {
                return true;
            }
            let k = staying.partition_point(|&(a, _)| a - skew <= s);
            !(k > 0 && reach[k - 1] + skew >= e)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp(1_700_000_000 + s, 0)
    }

    fn span(trace: &str, id: &str, parent: &str, kind: SpanKind, t: (i64, i64)) -> Span {
        Span {
            trace_id: trace.into(),
            span_id: id.into(),
            parent_id: parent.into(),
            kind,
            start: at(t.0),
            end: at(t.1),
            ..Span::default()
        }
    }

    fn traces(spans: &[Span]) -> Vec<&str> {
        let mut t: Vec<&str> = spans.iter().map(|s| s.trace_id.as_str()).collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// Bytes held for `trace`'s conversation.
    fn held(open: &OpenTraces, trace: &str) -> usize {
        open.convs[&open.by_trace[trace]].bytes
    }

    #[test]
    fn traces_naming_one_conversation_leave_together_and_late_spans_are_counted() {
        let mut open = OpenTraces::new(usize::MAX, Duration::seconds(300));
        let turn = |trace: &str, t: i64| {
            let mut s = span(
                trace,
                &format!("{trace}-root"),
                "",
                SpanKind::Internal,
                (t, t + 5),
            );
            s.attrs
                .insert("gen_ai.conversation.id".into(), "chat-1".into());
            s
        };
        open.push(span("a", "a-tool", "a-root", SpanKind::Internal, (1, 2)));
        open.push(turn("a", 0));
        open.push(span("c", "c-root", "", SpanKind::Internal, (10, 20)));
        open.push(turn("b", 60));
        // Half the bound is what the chat holds: the least recently added to (c) goes; the
        // chat (a, then b) was added to since.
        open.limit = 2 * held(&open, "a");
        assert_eq!(traces(&open.release(false)), ["c"]);
        open.limit = 1;
        assert_eq!(traces(&open.release(false)), ["a", "b"]);
        assert!(open.is_empty());
        // Spans of a released trace, and a new trace naming a released conversation.
        open.push(span("b", "b-late", "b-root", SpanKind::Internal, (61, 62)));
        open.push(span("b", "b-later", "b-root", SpanKind::Internal, (62, 63)));
        let mut again = span("z", "z-root", "", SpanKind::Internal, (70, 71));
        again.attrs.insert("session.id".into(), "chat-1".into());
        open.push(again);
        assert!(open.is_empty());
        let r = open.released;
        assert_eq!((r.early, r.cut, r.late, r.late_traces), (2, 0, 3, 2));
    }

    #[test]
    fn a_server_span_without_its_context_stays_while_a_call_around_it_is_open() {
        // a: the agent's conversation, open from 39 s to 100 s (no root span yet); s: a
        // server's span at 40 s whose trace context did not propagate (its own trace);
        // c: an older, finished conversation, larger than s.
        let mut open = OpenTraces::new(usize::MAX, Duration::seconds(300));
        open.push(span("a", "a-call", "a-root", SpanKind::Client, (39, 42)));
        open.push(span("s", "s-tool", "", SpanKind::Server, (40, 41)));
        let mut c = span("c", "c-root", "", SpanKind::Internal, (0, 10));
        c.attrs.insert("big".into(), "x".repeat(4096).into());
        open.push(c);
        open.push(span("a", "a-next", "a-root", SpanKind::Internal, (50, 100)));
        // s is the least recently added to of the finished ones, but a holds its time: c
        // leaves in its place.
        open.limit = 2 * (held(&open, "a") + held(&open, "s"));
        assert_eq!(traces(&open.release(false)), ["c"]);
        // When a leaves, s leaves with it, in the same release.
        open.limit = 2 * held(&open, "s");
        assert_eq!(traces(&open.release(false)), ["a", "s"]);
        assert_eq!(open.released.cut, 1, "a had not finished");
    }
}
