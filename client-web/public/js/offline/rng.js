// The frozen sampling of protocol/src/rng.rs (BoardRng) on top of ChaCha8:
// - nextU64(): the next 64 bits (BigInt; tests), nextPair() for the builders;
// - below(n): Lemire's multiply-and-reject on next_u64: threshold = 2^64 mod n,
//   m = x * n as 128 bits, accept when the low 64 bits >= threshold, answer the
//   high 64 bits;
// - unit(): (next_u64 >> 11) * 2^-53, a float in [0, 1);
// - shuffle(a): Fisher-Yates from the back, j = below(i + 1).
// below() does the 128-bit product in exact doubles for n < 2^21 (every
// board draw: at most 64), and in BigInt above that.

import { ChaCha8 } from './chacha.js';

const TWO32 = 4294967296;
const TWO53_INV = 1 / 9007199254740992;
const SMALL = 1 << 21;

export class BoardRng {
  /** `seed`: a BigInt or a decimal string, in 0..2^64. */
  constructor(seed) {
    this.c = new ChaCha8(seed);
  }

  nextU64() {
    return this.c.nextU64();
  }

  /** Uniform in 0..n (n >= 1); a Number for n < 2^53 given as a Number, else a BigInt. */
  below(n) {
    if (typeof n === 'number' && n < SMALL) return this.belowSmall(n);
    const big = BigInt(n);
    const threshold = (1n << 64n) % big;
    for (;;) {
      const m = this.c.nextU64() * big;
      if (BigInt.asUintN(64, m) >= threshold) {
        const r = m >> 64n;
        return typeof n === 'number' ? Number(r) : r;
      }
    }
  }

  belowSmall(n) {
    const r32 = TWO32 % n;
    const threshold = (r32 * r32) % n; // 2^64 mod n, exact: r32 < 2^21
    const c = this.c,
      pair = c.pair;
    for (;;) {
      c.nextPair();
      // x * n = hi*n*2^32 + lo*n, each part exact in a double.
      const a = pair[0] * n;
      const aHi = Math.floor(a / TWO32);
      const aLo = a - aHi * TWO32;
      const b = pair[1] * n + aHi;
      const bHi = Math.floor(b / TWO32);
      const bLo = b - bHi * TWO32; // the low 64 bits are bLo*2^32 + aLo
      if (bLo > 0 || aLo >= threshold) return bHi;
    }
  }

  /** Uniform in [0, 1) with 53 bits: exactly Rust's `(x >> 11) as f64 / 2^53`. */
  unit() {
    const c = this.c;
    c.nextPair();
    return (c.pair[1] * 2097152 + (c.pair[0] >>> 11)) * TWO53_INV;
  }

  /** Fisher-Yates in place, walking from the last element down (of the first `len` items). */
  shuffle(items, len = items.length) {
    for (let i = len - 1; i >= 1; i--) {
      const j = this.belowSmall(i + 1);
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  }
}
