// ChaCha8 exactly as rand_chacha 0.9's ChaCha8Rng::seed_from_u64 produces it
// (protocol/src/rng.rs draws every board from that stream). Owns three things:
// - rand_core's seed_from_u64: PCG32 steps of the u64 seed give the 8 key
//   words (each output's little-endian bytes are the key's next word);
// - the ChaCha block function, 8 rounds (4 double rounds), state
//   "expand 32-byte k", key, a 64-bit block counter in words 12-13 and the
//   stream id (0) in words 14-15; the output is the block plus the input;
// - rand_core's BlockRng buffering: rand_chacha fills 4 blocks (64 words) at
//   a time; next_u32 reads the next word, next_u64 reads two (low word
//   first), straddling a refill the way BlockRng::next_u64 does.
// 32-bit words are plain numbers kept unsigned with `>>> 0`; only the seed
// expansion needs BigInt.

const MASK64 = (1n << 64n) - 1n;
const PCG_MUL = 6364136223846793005n;
const PCG_INC = 11634580027462260723n;
const BUF_WORDS = 64; // 4 blocks of 16 words

/** The 8 key words seed_from_u64(seed) gives. `seed` is a BigInt in 0..2^64. */
export function keyFromU64(seed) {
  let state = BigInt.asUintN(64, seed);
  const key = new Uint32Array(8);
  for (let i = 0; i < 8; i++) {
    state = (state * PCG_MUL + PCG_INC) & MASK64;
    const xorshifted = Number(BigInt.asUintN(32, ((state >> 18n) ^ state) >> 27n));
    const rot = Number(state >> 59n);
    key[i] = ((xorshifted >>> rot) | (xorshifted << ((32 - rot) & 31))) >>> 0;
  }
  return key;
}

/** One ChaCha8 block (16 words) for `key` and block counter `ctrLo`/`ctrHi`, into out[at..at+16]. */
function block(key, ctrLo, ctrHi, out, at) {
  const i0 = 0x61707865,
    i1 = 0x3320646e,
    i2 = 0x79622d32,
    i3 = 0x6b206574;
  const i4 = key[0] | 0,
    i5 = key[1] | 0,
    i6 = key[2] | 0,
    i7 = key[3] | 0;
  const i8 = key[4] | 0,
    i9 = key[5] | 0,
    i10 = key[6] | 0,
    i11 = key[7] | 0;
  const i12 = ctrLo | 0,
    i13 = ctrHi | 0,
    i14 = 0,
    i15 = 0;
  let x0 = i0,
    x1 = i1,
    x2 = i2,
    x3 = i3,
    x4 = i4,
    x5 = i5,
    x6 = i6,
    x7 = i7;
  let x8 = i8,
    x9 = i9,
    x10 = i10,
    x11 = i11,
    x12 = i12,
    x13 = i13,
    x14 = i14,
    x15 = i15;
  for (let r = 0; r < 4; r++) {
    // Column round.
    x0 = (x0 + x4) | 0;
    x12 ^= x0;
    x12 = (x12 << 16) | (x12 >>> 16);
    x8 = (x8 + x12) | 0;
    x4 ^= x8;
    x4 = (x4 << 12) | (x4 >>> 20);
    x0 = (x0 + x4) | 0;
    x12 ^= x0;
    x12 = (x12 << 8) | (x12 >>> 24);
    x8 = (x8 + x12) | 0;
    x4 ^= x8;
    x4 = (x4 << 7) | (x4 >>> 25);
    x1 = (x1 + x5) | 0;
    x13 ^= x1;
    x13 = (x13 << 16) | (x13 >>> 16);
    x9 = (x9 + x13) | 0;
    x5 ^= x9;
    x5 = (x5 << 12) | (x5 >>> 20);
    x1 = (x1 + x5) | 0;
    x13 ^= x1;
    x13 = (x13 << 8) | (x13 >>> 24);
    x9 = (x9 + x13) | 0;
    x5 ^= x9;
    x5 = (x5 << 7) | (x5 >>> 25);
    x2 = (x2 + x6) | 0;
    x14 ^= x2;
    x14 = (x14 << 16) | (x14 >>> 16);
    x10 = (x10 + x14) | 0;
    x6 ^= x10;
    x6 = (x6 << 12) | (x6 >>> 20);
    x2 = (x2 + x6) | 0;
    x14 ^= x2;
    x14 = (x14 << 8) | (x14 >>> 24);
    x10 = (x10 + x14) | 0;
    x6 ^= x10;
    x6 = (x6 << 7) | (x6 >>> 25);
    x3 = (x3 + x7) | 0;
    x15 ^= x3;
    x15 = (x15 << 16) | (x15 >>> 16);
    x11 = (x11 + x15) | 0;
    x7 ^= x11;
    x7 = (x7 << 12) | (x7 >>> 20);
    x3 = (x3 + x7) | 0;
    x15 ^= x3;
    x15 = (x15 << 8) | (x15 >>> 24);
    x11 = (x11 + x15) | 0;
    x7 ^= x11;
    x7 = (x7 << 7) | (x7 >>> 25);
    // Diagonal round.
    x0 = (x0 + x5) | 0;
    x15 ^= x0;
    x15 = (x15 << 16) | (x15 >>> 16);
    x10 = (x10 + x15) | 0;
    x5 ^= x10;
    x5 = (x5 << 12) | (x5 >>> 20);
    x0 = (x0 + x5) | 0;
    x15 ^= x0;
    x15 = (x15 << 8) | (x15 >>> 24);
    x10 = (x10 + x15) | 0;
    x5 ^= x10;
    x5 = (x5 << 7) | (x5 >>> 25);
    x1 = (x1 + x6) | 0;
    x12 ^= x1;
    x12 = (x12 << 16) | (x12 >>> 16);
    x11 = (x11 + x12) | 0;
    x6 ^= x11;
    x6 = (x6 << 12) | (x6 >>> 20);
    x1 = (x1 + x6) | 0;
    x12 ^= x1;
    x12 = (x12 << 8) | (x12 >>> 24);
    x11 = (x11 + x12) | 0;
    x6 ^= x11;
    x6 = (x6 << 7) | (x6 >>> 25);
    x2 = (x2 + x7) | 0;
    x13 ^= x2;
    x13 = (x13 << 16) | (x13 >>> 16);
    x8 = (x8 + x13) | 0;
    x7 ^= x8;
    x7 = (x7 << 12) | (x7 >>> 20);
    x2 = (x2 + x7) | 0;
    x13 ^= x2;
    x13 = (x13 << 8) | (x13 >>> 24);
    x8 = (x8 + x13) | 0;
    x7 ^= x8;
    x7 = (x7 << 7) | (x7 >>> 25);
    x3 = (x3 + x4) | 0;
    x14 ^= x3;
    x14 = (x14 << 16) | (x14 >>> 16);
    x9 = (x9 + x14) | 0;
    x4 ^= x9;
    x4 = (x4 << 12) | (x4 >>> 20);
    x3 = (x3 + x4) | 0;
    x14 ^= x3;
    x14 = (x14 << 8) | (x14 >>> 24);
    x9 = (x9 + x14) | 0;
    x4 ^= x9;
    x4 = (x4 << 7) | (x4 >>> 25);
  }
  // Uint32Array stores wrap the sums to unsigned 32 bits.
  out[at] = x0 + i0;
  out[at + 1] = x1 + i1;
  out[at + 2] = x2 + i2;
  out[at + 3] = x3 + i3;
  out[at + 4] = x4 + i4;
  out[at + 5] = x5 + i5;
  out[at + 6] = x6 + i6;
  out[at + 7] = x7 + i7;
  out[at + 8] = x8 + i8;
  out[at + 9] = x9 + i9;
  out[at + 10] = x10 + i10;
  out[at + 11] = x11 + i11;
  out[at + 12] = x12 + i12;
  out[at + 13] = x13 + i13;
  out[at + 14] = x14 + i14;
  out[at + 15] = x15 + i15;
}

/** ChaCha8Rng::seed_from_u64(seed): next_u32, next_u64 (as a word pair or a BigInt). */
export class ChaCha8 {
  /** `seed`: a BigInt, or a decimal string, in 0..2^64. */
  constructor(seed) {
    this.key = keyFromU64(typeof seed === 'bigint' ? seed : BigInt(seed));
    this.ctr = new Uint32Array(2); // the block counter, low word first
    this.buf = new Uint32Array(BUF_WORDS);
    this.index = BUF_WORDS; // empty: the first read refills
    // nextPair() leaves its result here: pair[0] the low word, pair[1] the
    // high. A typed array, not two fields: words above 2^30 would be boxed
    // numbers in fields, garbage on every draw.
    this.pair = new Uint32Array(2);
  }

  refill() {
    const ctr = this.ctr;
    for (let b = 0; b < BUF_WORDS; b += 16) {
      block(this.key, ctr[0], ctr[1], this.buf, b);
      ctr[0] += 1; // wraps in the typed array
      if (ctr[0] === 0) ctr[1] += 1;
    }
  }

  nextU32() {
    if (this.index >= BUF_WORDS) {
      this.refill();
      this.index = 0;
    }
    return this.buf[this.index++];
  }

  /** The next u64 into this.pair (BlockRng::next_u64, straddle included). */
  nextPair() {
    const i = this.index,
      pair = this.pair,
      buf = this.buf;
    if (i < BUF_WORDS - 1) {
      pair[0] = buf[i];
      pair[1] = buf[i + 1];
      this.index = i + 2;
    } else if (i >= BUF_WORDS) {
      this.refill();
      pair[0] = buf[0];
      pair[1] = buf[1];
      this.index = 2;
    } else {
      pair[0] = buf[BUF_WORDS - 1];
      this.refill();
      pair[1] = buf[0];
      this.index = 1;
    }
  }

  /** The next u64 as a BigInt (tests; the builders use nextPair). */
  nextU64() {
    this.nextPair();
    return (BigInt(this.pair[1]) << 32n) | BigInt(this.pair[0]);
  }
}
