#!/usr/bin/env python3
"""A WebSocket ping flood against a running race server, for SECURITY.md's
figures (issue 24, item 4): what a flooder still costs the server after it
is closed for flooding (1008).

    mazerace serve --bind 127.0.0.1:7999 --metrics-bind '' --data-dir /tmp/flood &
    python3 bench/tools/flood.py 127.0.0.1:7999 --pid $! --conns 8 --secs 10

Each of --conns flooders connects, upgrades, and writes ping frames as fast
as the socket takes them (reading and dropping whatever comes back); when
the server closes it (a close frame, EOF or a reset) it reconnects at once.
Printed: upgrades made and refused (429), closes seen, bytes written in all and
after a close frame, and the server's CPU over the window (--pid, from
/proc/PID/stat) as a share of one core.

--after-close: one flooder that, once it has the 1008 close frame, goes on
writing for --secs without reconnecting: bytes the server still took.

Standard library only; the pings are 6 bytes each (empty payload, zero mask).
"""

import argparse
import asyncio
import os
import time

PING = b"\x89\x80\x00\x00\x00\x00"
CHUNK = PING * 10_000
HANDSHAKE = (
    "GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Tally:
    def __init__(self):
        self.upgrades = self.refused = self.closes = 0
        self.written = self.after_close = 0


async def upgrade(host, port):
    r, w = await asyncio.open_connection(host, port)
    w.write(HANDSHAKE.format(host=f"{host}:{port}").encode())
    head = await r.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        w.close()
        return None
    return r, w


async def read_until_close(r, closed):
    """Drops what the server sends; sets `closed` at its close frame or the end."""
    buf = b""
    try:
        while True:
            data = await r.read(65536)
            if not data:
                break
            buf = (buf + data)[-65536:]
            # A server close frame: opcode 0x8, unmasked, code 1008 or any.
            if b"\x88" in buf:
                i = buf.rfind(b"\x88")
                if i + 1 < len(buf) and buf[i + 1] < 126:
                    closed.set()
    except (ConnectionError, OSError):
        pass
    closed.set()


async def flooder(host, port, deadline, tally, after_close):
    while time.monotonic() < deadline:
        try:
            # A penalised address waits for its 101: never past the window.
            up = await asyncio.wait_for(upgrade(host, port), timeout=max(0.01, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.001)
            continue
        if up is None:
            tally.refused += 1
            await asyncio.sleep(0.001)
            continue
        tally.upgrades += 1
        r, w = up
        closed = asyncio.Event()
        reader = asyncio.create_task(read_until_close(r, closed))
        try:
            while time.monotonic() < deadline:
                w.write(CHUNK)
                await asyncio.wait_for(w.drain(), timeout=max(0.01, deadline - time.monotonic()))
                tally.written += len(CHUNK)
                if closed.is_set():
                    tally.after_close += len(CHUNK)
                    if not after_close:
                        break
        except (ConnectionError, OSError, asyncio.TimeoutError):
            pass
        if closed.is_set():
            tally.closes += 1
        reader.cancel()
        w.close()
        if after_close:
            return


async def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("addr", help="HOST:PORT of the race server")
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--secs", type=float, default=10.0)
    ap.add_argument("--pid", type=int, help="the server's pid, for its CPU")
    ap.add_argument("--after-close", action="store_true")
    a = ap.parse_args()
    host, port = a.addr.rsplit(":", 1)
    tally = Tally()
    conns = 1 if a.after_close else a.conns
    if a.after_close:
        # Flood until the close frame, then time the rest from there.
        up = await upgrade(host, int(port))
        r, w = up
        closed = asyncio.Event()
        reader = asyncio.create_task(read_until_close(r, closed))
        try:
            while not closed.is_set():
                w.write(CHUNK)
                try:
                    await asyncio.wait_for(w.drain(), timeout=0.05)
                except asyncio.TimeoutError:
                    pass
        except (ConnectionError, OSError):
            pass
        await asyncio.wait_for(closed.wait(), timeout=10)
        cpu0, t0 = (cpu_seconds(a.pid) if a.pid else 0.0), time.monotonic()
        deadline = t0 + a.secs
        try:
            while time.monotonic() < deadline:
                w.write(CHUNK)
                await asyncio.wait_for(w.drain(), timeout=max(0.01, deadline - time.monotonic()))
                tally.after_close += len(CHUNK)
        except (ConnectionError, OSError, asyncio.TimeoutError):
            pass
        reader.cancel()
        w.close()
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    else:
        cpu0, t0 = (cpu_seconds(a.pid) if a.pid else 0.0), time.monotonic()
        deadline = t0 + a.secs
        await asyncio.gather(*(flooder(host, int(port), deadline, tally, False) for _ in range(conns)))
    secs = time.monotonic() - t0
    cpu = (cpu_seconds(a.pid) - cpu0) / secs * 100 if a.pid else float("nan")
    print(
        f"flooders {conns}, {secs:.1f} s: upgrades {tally.upgrades}, refused {tally.refused}, "
        f"closes {tally.closes}, written {tally.written / 1e6:.1f} MB ({tally.written // len(PING):,} pings), "
        f"after a close {tally.after_close / 1e6:.1f} MB ({tally.after_close // len(PING):,} pings), "
        f"server CPU {cpu:.0f}% of a core"
    )


if __name__ == "__main__":
    asyncio.run(main())
