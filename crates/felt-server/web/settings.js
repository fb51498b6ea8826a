// The player's table settings, remembered in this browser (localStorage): sound on or
// off (off until the player turns it on), its volume, and the pace of the dealer
// (normal or fast). The controls that change them sit in the table's head.

import { h } from './dom.js';

const KEYS = { sound: 'felt.sound', volume: 'felt.volume', speed: 'felt.speed' };

/** The pace of each speed, in ms: between two of the dealer's cards, between two
 * cards of the deal or of a player's hand, and from the last card to the results. */
export const SPEEDS = {
  normal: { dealer: 600, deal: 350, settle: 450, banner: 3200 },
  fast: { dealer: 200, deal: 110, settle: 150, banner: 1600 },
};

function read(key, fallback) {
  try {
    return localStorage.getItem(key) ?? fallback;
  } catch (e) {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, String(value));
  } catch (e) {
    // A browser that keeps nothing: the setting lasts for this page only.
  }
}

export const settings = {
  get sound() { return read(KEYS.sound, 'off') === 'on'; },
  set sound(on) { write(KEYS.sound, on ? 'on' : 'off'); },
  /** 0 to 100. */
  get volume() {
    const v = Number(read(KEYS.volume, '60'));
    return Number.isFinite(v) ? Math.min(100, Math.max(0, v)) : 60;
  },
  set volume(v) { write(KEYS.volume, Math.round(v)); },
  get speed() { return read(KEYS.speed, 'normal') === 'fast' ? 'fast' : 'normal'; },
  set speed(s) { write(KEYS.speed, s === 'fast' ? 'fast' : 'normal'); },
  /** The current speed's pace (SPEEDS). */
  pace() { return SPEEDS[this.speed]; },
};

/** The settings' controls; `changed(what)` is called after each change. */
export function settingsControls(changed) {
  const volume = h('input', {
    type: 'range', id: 'volume', min: 0, max: 100, step: 5, value: settings.volume,
    'aria-label': 'Volume', disabled: !settings.sound,
    oninput: () => { settings.volume = Number(volume.value); changed('volume'); },
  });
  const sound = h('button', {
    type: 'button', class: 'btn small', id: 'sound', 'aria-pressed': String(settings.sound),
    onclick: () => {
      settings.sound = !settings.sound;
      sound.setAttribute('aria-pressed', String(settings.sound));
      sound.textContent = settings.sound ? 'Sound on' : 'Sound off';
      volume.disabled = !settings.sound;
      changed('sound');
    },
  }, settings.sound ? 'Sound on' : 'Sound off');
  const speed = h('select', {
    id: 'speed', 'aria-label': "Dealer's pace",
    onchange: () => { settings.speed = speed.value; changed('speed'); },
  },
  h('option', { value: 'normal', selected: settings.speed === 'normal' }, 'Normal pace'),
  h('option', { value: 'fast', selected: settings.speed === 'fast' }, 'Fast pace'));
  return h('div', { class: 'settings row', role: 'group', 'aria-label': 'Table settings' }, sound, volume, speed);
}
