#!/usr/bin/env python3
"""Splits a race server's `perf record -g` samples by what the kernel was doing.

Issue 17 asks what stands between rooms of 8 and rooms of 2; `perf report`
names the hottest functions but not how much of the kernel's share is the
loopback delivering our own frames into the load generator's sockets (work
that a real network does on the client's machine). This reads
`perf script -F comm,ip,sym` and files each sample of the server's threads
by its call chain (bench/RESULTS.md, "Where a room of 8's server time goes").

    perf script -i /tmp/perf.race -F comm,ip,sym | python3 bench/tools/perf-split.py
"""
import collections
import sys

SERVER_THREADS = ("mazerace", "tokio-rt")
SEND = {"tcp_sendmsg", "__sys_sendto", "do_writev", "sock_write_iter", "ksys_write"}
READ = {"tcp_recvmsg", "__sys_recvfrom", "sock_read_iter", "ksys_read"}
# The receive path: under a send, it is the loopback handing our segment to the peer's socket.
DELIVER = {"tcp_v4_rcv", "ip_rcv", "__netif_receive_skb", "process_backlog", "net_rx_action"}
WAIT = {"do_epoll_wait", "do_futex", "schedule", "__schedule"}


def samples(lines):
    block = []
    for line in lines:
        if line.strip():
            block.append(line.rstrip("\n"))
        elif block:
            yield block
            block = []
    if block:
        yield block


def kind(block):
    frames = [line.split(None, 1) for line in block[1:]]
    if not frames:
        return None
    if not frames[0][0].startswith("ffffffff"):
        return "user space (mazerace, libc)"
    syms = {f[1] for f in frames if len(f) > 1}
    if syms & SEND:
        return "kernel: send, delivering to the peer's socket" if syms & DELIVER else "kernel: send, the sender's own part"
    if syms & READ:
        return "kernel: read"
    if syms & WAIT:
        return "kernel: epoll, futex, scheduling"
    return "kernel: other (faults, timers, softirq)"


counts = collections.Counter()
for block in samples(sys.stdin):
    if block[0].startswith(SERVER_THREADS):
        k = kind(block)
        if k:
            counts[k] += 1
total = sum(counts.values()) or 1
print(f"{total} samples of the server's threads")
for k, n in counts.most_common():
    print(f"{100 * n / total:5.1f}%  {k}")
