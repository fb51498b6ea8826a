// The table's sounds, made by the page itself with Web Audio (no file is downloaded):
// a card dealt, a chip placed, your turn, a win, a big win, a jackpot. Silent until
// the player turns sound on (settings.js): no AudioContext exists before that.

import { settings } from './settings.js';

let ctx = null;

function audio() {
  if (!settings.sound) return null;
  if (!ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    ctx = new AC();
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

/** A tone: frequency (Hz), start (s from now), length (s), wave, loudness 0..1. */
function tone(a, freq, at, len, type = 'sine', loud = 0.5) {
  const gain = a.createGain();
  const osc = a.createOscillator();
  const t = a.currentTime + at;
  const level = loud * (settings.volume / 100);
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(Math.max(level, 0.0002), t + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + len);
  osc.connect(gain).connect(a.destination);
  osc.start(t);
  osc.stop(t + len + 0.02);
}

/** A short burst of filtered noise: a card sliding onto the felt. */
function swish(a) {
  const len = 0.09;
  const buf = a.createBuffer(1, Math.floor(a.sampleRate * len), a.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
  const src = a.createBufferSource();
  const filter = a.createBiquadFilter();
  const gain = a.createGain();
  src.buffer = buf;
  filter.type = 'bandpass';
  filter.frequency.value = 2400;
  gain.gain.value = 0.6 * (settings.volume / 100);
  src.connect(filter).connect(gain).connect(a.destination);
  src.start();
}

const NOTES = [523.25, 659.25, 783.99, 1046.5, 1318.5];

const SOUNDS = {
  card: (a) => swish(a),
  chip: (a) => { tone(a, 2200, 0, 0.05, 'triangle', 0.35); tone(a, 2900, 0.04, 0.05, 'triangle', 0.3); },
  turn: (a) => { tone(a, 880, 0, 0.18, 'sine', 0.35); tone(a, 1320, 0.12, 0.25, 'sine', 0.3); },
  win: (a) => NOTES.slice(0, 3).forEach((f, i) => tone(a, f, i * 0.09, 0.22, 'triangle', 0.4)),
  'big-win': (a) => NOTES.forEach((f, i) => tone(a, f, i * 0.1, 0.35, 'triangle', 0.45)),
  jackpot: (a) => {
    for (let r = 0; r < 3; r += 1) NOTES.forEach((f, i) => tone(a, f * (1 + r * 0.125), r * 0.55 + i * 0.08, 0.4, 'square', 0.18));
  },
};

/** Plays one of the table's sounds (nothing while sound is off). */
export function play(name) {
  const a = audio();
  const s = SOUNDS[name];
  if (a && s) s(a);
}
