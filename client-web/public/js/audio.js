// The buzz of a blocked move (WebAudio, made on the fly: no sound file). The
// AudioContext is made on first use, always inside a key or tap handler, so
// the browsers' autoplay rules let it sound.

let ctx = null;
let last = 0;

export function buzz() {
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return;
  try {
    ctx = ctx || new AC();
    if (ctx.state === 'suspended') ctx.resume();
    const t = ctx.currentTime;
    if (t - last < 0.08) return; // a held key: one buzz, not a drone
    last = t;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'square';
    osc.frequency.setValueAtTime(110, t);
    osc.frequency.exponentialRampToValueAtTime(70, t + 0.14);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.12, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.15);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.16);
  } catch {
    /* no audio device: silence is fine */
  }
}
