// The page's sounds, made with WebAudio (no sound file): the buzz of a
// blocked move, and the tones of a screen's cues (tv.js). The context is made
// on first use; a browser lets it sound after a key or a tap (`unlock`).

let ctx = null;
let last = 0;

/** The context, running if the browser allows; null without audio. */
export function unlock() {
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = ctx || new AC();
    if (ctx.state === 'suspended') ctx.resume();
  } catch {
    return null; // no audio device: silence is fine
  }
  return ctx;
}

/** A tone from `f0` to `f1` Hz over `dur` seconds, `at` seconds from now. */
export function tone(f0, f1, dur, type = 'sine', vol = 0.12, at = 0) {
  const c = unlock();
  if (!c) return;
  const t = c.currentTime + at;
  const osc = c.createOscillator();
  const gain = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f0, t);
  osc.frequency.exponentialRampToValueAtTime(f1, t + dur - 0.01);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(vol, t + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  osc.connect(gain).connect(c.destination);
  osc.start(t);
  osc.stop(t + dur + 0.01);
}

export function buzz() {
  const c = unlock();
  if (!c || c.currentTime - last < 0.08) return; // a held key: one buzz, not a drone
  last = c.currentTime;
  tone(110, 70, 0.15, 'square');
}

/** The context is running: a sound played now is heard. */
export const audible = () => !!ctx && ctx.state === 'running';
