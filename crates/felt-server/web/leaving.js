// Leaving a seat asks first during a round (the hands in play stand at once when the
// player goes), and the top bar's Lobby link leaves the seat the same way: asking,
// then leaving, so the player is free to sit at another table.

import { h } from './dom.js';

/** Asks `question` in a modal dialog; resolves true when the player confirms. */
export function confirmLeave(question, yes, no) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', id: 'confirm-leave', 'aria-labelledby': 'confirm-text' });
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.append(
      h('p', { id: 'confirm-text' }, question),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'btn primary', id: 'confirm-yes', onclick: () => done(true) }, yes),
        h('button', { type: 'button', class: 'btn', id: 'confirm-no', onclick: () => done(false) }, no)));
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector('#confirm-no').focus();
  });
}

/** Whether the player of view `v` has a part in the round being dealt. */
export function inRound(v) {
  const me = v?.you?.seat;
  if (me == null || !v.in_play) return false;
  return Boolean((v.seats || []).find((x) => x.seat === me)?.has_bet);
}

/**
 * Sends every click on a link to the lobby through `leave(true)` while `seated()`
 * (the table leaves the seat, asking first); returns what undoes it.
 */
export function guardLobbyLinks(seated, leave) {
  const onClick = (e) => {
    const a = e.target.closest?.('a[href="#/lobby"]');
    if (!a || !seated()) return;
    e.preventDefault();
    leave(true);
  };
  document.addEventListener('click', onClick, true);
  return () => document.removeEventListener('click', onClick, true);
}
