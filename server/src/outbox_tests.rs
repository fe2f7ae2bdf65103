//! The outbox without a socket: the progress slot and its place in line,
//! the bound (4002), the frame-size guard (1011) and the connection's wake.

use super::*;

fn texts(o: &Outbox) -> Vec<String> {
    let mut frames = Vec::new();
    o.take_batch(&mut frames, std::task::Waker::noop());
    frames.iter().map(|f| f.as_str().to_owned()).collect()
}

#[test]
fn progress_is_replaced_by_the_full_list_when_unsent() {
    let o = Outbox::new(8, usize::MAX, 1, None);
    let full = || Utf8Bytes::from_static("full");
    o.progress(&Utf8Bytes::from_static("d1"), &mut || full());
    assert_eq!(texts(&o), ["d1"], "a free slot takes the delta");
    o.progress(&Utf8Bytes::from_static("d2"), &mut || full());
    o.progress(&Utf8Bytes::from_static("d3"), &mut || full());
    assert_eq!(texts(&o), ["full"], "missed deltas are superseded, not queued");
}

#[test]
fn progress_keeps_its_place_in_line() {
    let o = Outbox::new(8, usize::MAX, 1, None);
    let full = || Utf8Bytes::from_static("full");
    o.send(Utf8Bytes::from_static("welcome"));
    o.send(Utf8Bytes::from_static("snapshot"));
    o.progress(&Utf8Bytes::from_static("p"), &mut || full());
    o.send(Utf8Bytes::from_static("results"));
    assert_eq!(texts(&o), ["welcome", "snapshot", "p", "results"], "never ahead of what came first");
    o.progress(&Utf8Bytes::from_static("d1"), &mut || full());
    o.send(Utf8Bytes::from_static("finished"));
    o.progress(&Utf8Bytes::from_static("d2"), &mut || full());
    o.send(Utf8Bytes::from_static("results"));
    assert_eq!(texts(&o), ["finished", "full", "results"], "a replacement moves to its own place");
}

#[test]
fn progress_goes_before_what_is_queued_after_it() {
    let o = Outbox::new(8, usize::MAX, 1, None);
    o.progress(&Utf8Bytes::from_static("p"), &mut || Utf8Bytes::from_static("full"));
    o.send(Utf8Bytes::from_static("results"));
    assert_eq!(texts(&o), ["p", "results"]);
}

#[test]
fn a_full_queue_closes_with_4002() {
    let o = Outbox::new(3, usize::MAX, 1, None);
    for i in 0..3 {
        o.send(Utf8Bytes::from(format!("m{i}")));
    }
    assert!(!o.is_closing());
    o.send(Utf8Bytes::from_static("one too many"));
    assert_eq!(o.close_code(), Some(close::TOO_SLOW));
    assert!(o.is_killed(), "the connection stops writing at once");
    assert!(texts(&o).is_empty(), "the backlog is dropped, not sent");
    o.send(Utf8Bytes::from_static("later"));
    assert!(texts(&o).is_empty(), "nothing after the close");
}

/// Issue 34: a 64-player, 10-round `match_over` one frame over the write
/// limit failed every member's socket (1006, nothing said). A frame the
/// socket cannot take is not queued: that one connection gets what was
/// queued before it, then 1011; a room's other outboxes are untouched.
#[test]
fn a_frame_larger_than_the_socket_takes_closes_only_that_connection_with_1011() {
    let (o, other) = (Outbox::new(8, 10, 1, None), Outbox::new(8, 10, 2, None));
    o.send(Utf8Bytes::from_static("room"));
    let huge = Utf8Bytes::from_static(r#"{"type":"match_over","lines":[]}"#);
    let before = crate::metrics::render();
    o.send(huge.clone());
    other.send(Utf8Bytes::from_static("ok"));
    assert_eq!(o.close_code(), Some(close::SERVER_ERROR));
    assert!(!o.is_killed(), "what was queued before it still goes");
    let mut frames = Vec::new();
    let taken = o.take_batch(&mut frames, std::task::Waker::noop());
    assert!(matches!(taken, Taken::Batch { close: Some(CloseReq { code: close::SERVER_ERROR, .. }), .. }));
    assert_eq!(frames, [Utf8Bytes::from_static("room")], "the large frame is not sent");
    o.progress(&huge, &mut || huge.clone());
    assert!(texts(&o).is_empty(), "nothing after the close");
    assert_eq!(texts(&other), ["ok"]);
    assert_eq!(other.close_code(), None);
    let count = |t: &str| {
        t.lines().find_map(|l| l.strip_prefix("mazerace_frames_too_large_total ")?.parse::<f64>().ok())
    };
    assert!(count(&crate::metrics::render()) > count(&before), "counted in /metrics");
    let p = Outbox::new(8, 10, 3, None);
    p.progress(&huge, &mut || huge.clone());
    assert_eq!(p.close_code(), Some(close::SERVER_ERROR), "a progress frame is held to it too");
}

/// Filling an empty outbox wakes the connection's task, once it has
/// found the outbox empty; a closed one wakes it too.
#[test]
fn filling_wakes_the_connection() {
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(Arc::clone(&count));
    let o = Outbox::new(8, usize::MAX, 1, None);
    let mut frames = Vec::new();
    assert!(matches!(o.take_batch(&mut frames, &waker), Taken::Nothing));
    o.send(Utf8Bytes::from_static("a"));
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert!(matches!(o.take_batch(&mut frames, &waker), Taken::Batch { ping: false, close: None }));
    assert_eq!(frames.len(), 1);
    o.close(close::NORMAL, "bye");
    assert_eq!(count.0.load(Ordering::SeqCst), 2);
    assert!(matches!(o.take_batch(&mut frames, &waker), Taken::Batch { close: Some(_), .. }));
    o.abort(close::TOO_SLOW, "slow");
    assert!(matches!(o.take_batch(&mut frames, &waker), Taken::Killed));
}
