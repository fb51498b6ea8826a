// The table page: the table's WebSocket (docs/protocol.md), drawn from each `view`
// the server sends, at the dealer's pace (pacing.js). The page holds no game logic:
// the legal decisions, amounts, totals and settlements are the server's (a total
// rising card by card while a step is paced is counted from the cards shown); the
// page only keeps the bets being placed (until sent), the player's last bets (for
// Rebet) and the last round's results until the next deal.

import { h, fill, announce, notice } from './dom.js';
import { toCents, plain, fmt, show, chipValues, chipFace, chipColor } from './money.js';
import { cardEl, backEl, cardsText } from './cards.js';
import { api } from './api.js';
import { rulesPanel, panelOpen } from './panels.js';
import { Pacer } from './pacing.js';
import { settings, settingsControls } from './settings.js';
import { play } from './sound.js';
import { sentence, signed, badgeWord, doubled, bigMoment, celebrate } from './results.js';
import { tableSentence } from './words.js';
import { Layout, chipStack } from './betting.js';
import { Session, limitsText } from './session.js';
import { CardSpeech } from './speech.js';
import { watchSession } from './reality.js';
import { Feed, seatName, timerWords } from './feed.js';
import { TopUp, shortOf } from './topup.js';
import { Hints } from './hint.js';
import { confirmLeave, guardLobbyLinks, inRound } from './leaving.js';

/** Chips on the layout are sent as the bet this long before the betting window closes. */
const AUTO_BET_MS = 1500;
/** The warning before a timer runs out. */
const WARN_MS = 5000;

/** Keys of the decisions (a decision's word -> its key). */
const KEYS = {
  hit: 'H', stand: 'S', double: 'D', split: 'P', surrender: 'R',
  insurance: 'I', 'even-money': 'E', decline: 'N',
};

const LABELS = {
  hit: 'Hit', stand: 'Stand', double: 'Double', split: 'Split', surrender: 'Surrender',
  insurance: 'Insurance', 'even-money': 'Even money', decline: 'No, thanks',
};

/** A pointing hand under the hand in play (seed 000's pointer). */
function pointer() {
  const svg = h('svg:svg', { viewBox: '0 0 24 24', class: 'pointer', 'aria-hidden': 'true', focusable: 'false' });
  svg.append(h('svg:path', {
    d: 'M10 2a2 2 0 0 1 2 2v7h1V9a2 2 0 0 1 4 0v2h.5a2 2 0 0 1 2 2v1a2 2 0 0 1 1.5 2v2c0 2.8-2.2 5-5 5h-4c-2 0-3.6-1-4.4-2.7L5 17a2 2 0 0 1 3.3-2.2L8 14.4V4a2 2 0 0 1 2-2z',
  }));
  return svg;
}

export class Table {
  constructor(main, name, app) {
    this.main = main;
    this.name = name;
    this.app = app;
    this.view = null;
    this.seq = null;
    // The welcome's seq: views up to it answer the (re)connection (shown at once).
    this.caughtUp = null;
    this.ws = null;
    this.gone = false;
    this.retry = 0;
    this.layout = new Layout();
    // The round whose betting window the chips on the layout were laid in.
    this.layoutRound = null;
    this.session = new Session(name);
    // The session's net is the log-in session's, as the session bar shows it.
    this.sessionNet = null;
    this.unwatch = watchSession((d) => {
      this.sessionNet = d.net;
      this.drawNet();
    });
    this.speech = new CardSpeech((text) => announce(text));
    this.sent = null;
    this.acted = new Set();
    this.seen = new Set();
    this.seenRound = null;
    this.announced = new Set();
    this.meters = {};
    this.deadline = null;
    this.timerFor = null;
    this.counter = 0;
    this.sideNames = {};
    this.gameName = name;
    this.lastBets = this.loadLast();
    this.chip = null;
    // Who sat at each seat while a round was in play (round id -> {seat: player}):
    // a round's cards and results belong to them, not to whoever sits there now.
    this.rosters = new Map();
    // The last finished round's results, kept on the felt until the next deal.
    this.kept = null;
    this.celebrating = null;
    this.latestMeters = null;
    this.failedOpens = 0;
    this.pacer = new Pacer((v, final) => this.show(v, final), () => settings.pace());
    this.build();
    this.roster = (id, seat) => this.playerOf(id, seat);
    this.feed = new Feed(this.main.querySelector('#feed'));
    this.topup = new TopUp(this.main.querySelector('#topup'), name, app);
    // A player the operator launched here (its link loads the page at this table)
    // is seated by the page, once: after leaving, they sit again by "Take a seat".
    this.autoSit = Boolean(app.me?.operator_wallet) && app.takeLaunch?.(name);
    this.hints = new Hints(this.main.querySelector('#hint-slot'), name);
    this.unguard = guardLobbyLinks(() => this.mySeat() !== null, () => this.leave(true));
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.tick = setInterval(() => this.countdown(), 250);
    this.loadNames();
    this.connect();
  }

  /** Whether the player has a hand in play here (a reality check waits for its end). */
  busy() {
    const phase = this.view?.round?.phase;
    return Boolean(this.view?.in_play && phase && phase !== 'betting' && phase !== 'done');
  }

  destroy() {
    this.gone = true;
    this.unwatch();
    clearInterval(this.tick);
    clearInterval(this.ping);
    clearTimeout(this.retryTimer);
    this.pacer.stop();
    this.unguard();
    if (this.celebrating) this.celebrating();
    document.removeEventListener('keydown', this.onKey);
    document.body.classList.remove('at-table');
    if (this.ws) this.ws.close();
    document.getElementById('banner').hidden = true;
  }

  loadLast() {
    try {
      return JSON.parse(localStorage.getItem(`felt.last.${this.name}`) || 'null');
    } catch (e) {
      return null;
    }
  }

  async loadNames() {
    const lobby = await api('GET', '/api/tables');
    const t = lobby.ok ? (lobby.data.tables || []).find((x) => x.name === this.name) : null;
    if (t) {
      this.gameName = t.game_name;
      this.title.textContent = this.gameName;
      this.printName.textContent = this.gameName;
      document.title = `${this.gameName}: felt`;
    }
    const r = await api('GET', `/api/tables/${encodeURIComponent(this.name)}/rules`);
    if (!r.ok) return;
    this.gameName = r.data.name || this.name;
    for (const p of r.data.pay_tables || []) this.sideNames[p.id] = p.name;
    this.title.textContent = this.gameName;
    document.title = `${this.gameName}: felt`;
    if (this.view) this.render();
  }

  sideName(id) {
    if (id === 'main') return 'Main bet';
    if (id === 'insurance') return 'Insurance';
    return this.sideNames[id] || String(id).replace(/-/g, ' ').replace(/\b[a-z]/g, (c) => c.toUpperCase());
  }

  // ---- the page's frame -------------------------------------------------------

  build() {
    this.title = h('h1', { id: 'table-title' }, this.name);
    this.limits = h('span', { class: 'limits', id: 'limits' });
    this.meterBox = h('div', { class: 'meters', id: 'meters' });
    this.clock = h('span', { id: 'session-clock', class: 'session-clock' });
    this.net = h('span', { id: 'session-net', class: 'session-net' });
    this.sessionLine = h('span', { class: 'session', id: 'session', hidden: true },
      h('span', { class: 'muted' }, 'At the table '), this.clock, h('span', { class: 'muted' }, ' · Net since log-in '), this.net);
    this.status = h('p', { class: 'phase', id: 'phase' });
    this.shoeText = h('span', { id: 'shoe', class: 'shoe muted' });
    this.timerText = h('span', { id: 'countdown', class: 'countdown' });
    this.timerBar = h('progress', { id: 'countdown-bar', max: 100, value: 0, 'aria-hidden': 'true' });
    this.timerBox = h('span', { class: 'timer', id: 'timer' }, this.timerText, this.timerBar);
    this.dealer = h('div', { class: 'dealer', id: 'dealer', role: 'group', 'aria-label': 'Dealer' });
    this.seats = h('div', { class: 'seats', id: 'seats' });
    this.controls = h('div', { class: 'controls', id: 'controls' });
    this.results = h('div', { class: 'results', id: 'results' });
    this.balance = h('strong', { id: 'balance' });
    const settingsBox = settingsControls((what) => { if (what === 'sound') play('chip'); });
    settingsBox.id = 'settings';
    const toggle = h('button', {
      type: 'button', class: 'btn small settings-toggle', id: 'settings-toggle', 'aria-expanded': 'false', 'aria-controls': 'settings',
      onclick: () => {
        const open = toggle.getAttribute('aria-expanded') !== 'true';
        toggle.setAttribute('aria-expanded', String(open));
        settingsBox.classList.toggle('open', open);
      },
      'aria-label': 'Sound and pace settings',
    }, 'Sound');
    const head = h('div', { class: 'table-head' },
      h('div', { class: 'title-box' }, this.title, h('p', { class: 'head-sub' }, this.limits, this.sessionLine)),
      this.meterBox,
      h('div', { class: 'row head-tools' },
        toggle, settingsBox,
        h('button', { type: 'button', class: 'btn small', id: 'open-rules', onclick: () => rulesPanel(this.name) }, 'Rules'),
        h('button', { type: 'button', class: 'btn small', id: 'leave', 'aria-label': 'Leave table', onclick: () => this.leave() },
          'Leave', h('span', { class: 'wide-only' }, ' table'))));
    // The dock at the bottom: the status and countdown, the balance, the chip tray or
    // the decisions, and places kept for a feed line of the others' play (#feed), an
    // offer of play money (#topup) and a strategy hint (#hint-slot).
    this.dock = h('div', { class: 'dock', id: 'dock', tabindex: '-1', role: 'region', 'aria-label': 'Your bets and decisions' },
      h('div', { class: 'status-line' }, this.status,
        h('p', { class: 'balance-line' }, h('span', { class: 'muted' }, 'Balance '), this.balance),
        this.shoeText, this.timerBox),
      h('div', { class: 'feed', id: 'feed', hidden: true }),
      h('div', { class: 'topup', id: 'topup', hidden: true }),
      h('div', { class: 'action-bar', id: 'action-bar' },
        this.controls,
        h('div', { class: 'hint-slot', id: 'hint-slot' })),
      h('p', { class: 'keys muted', id: 'keys' },
        'Keys: H hit, S stand, D double, P split, R surrender, I insurance, E even money, N no; ',
        'betting: 1 to 6 chip, U undo, D double, R rebet, C clear, B place.'));
    fill(this.main,
      h('section', { class: 'table-page', 'aria-labelledby': 'table-title' },
        head,
        this.felt = h('div', { class: 'felt' },
          // The felt's print: the game's name and its limits, as a casino's layout.
          h('div', { class: 'felt-print', 'aria-hidden': 'true' },
            this.printName = h('p', { class: 'print-name' }, this.name),
            this.printLimits = h('p', { class: 'print-limits' })),
          this.dealer,
          this.seats,
          h('section', { class: 'results-box', 'aria-labelledby': 'results-title', tabindex: '0' },
            h('h2', { id: 'results-title', class: 'sr-only' }, 'Results'), this.results)),
        this.dock));
    document.body.classList.add('at-table');
  }

  // ---- the socket -------------------------------------------------------------

  connect() {
    if (this.gone) return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    const ws = new WebSocket(url);
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.failedOpens = 0;
      const hello = { type: 'hello', version: this.version || 2, table: this.name };
      // A reconnection asks for what it missed; a fresh page for a fresh view.
      if (this.view && this.seq !== null) hello.last_seq = this.seq;
      ws.send(JSON.stringify(hello));
      // Keeps the connection alive through idle proxies.
      clearInterval(this.ping);
      this.ping = setInterval(() => {
        if (ws.readyState === WebSocket.OPEN) ws.send('{"type":"ping"}');
      }, 25000);
    };
    ws.onmessage = (m) => {
      let msg;
      try {
        msg = JSON.parse(m.data);
      } catch (e) {
        return;
      }
      this.frame(msg);
    };
    ws.onclose = () => {
      if (this.ws === ws) clearInterval(this.ping);
      if (this.gone || this.ws !== ws) return;
      // An upgrade refused (429 too-many-sockets) closes before it opens; the page
      // cannot read the status, so a few in a row say what may be the cause.
      if (!opened) this.failedOpens += 1;
      // A socket closed with its session (log-out elsewhere, expiry): to the log-in page.
      api('GET', '/api/me').then((r) => {
        if (r.status === 401 && !this.gone) {
          this.gone = true;
          this.app.sessionEnded(tableSentence({ code: 'session-ended' }));
        }
      });
      this.banner(this.failedOpens >= 2
        ? 'Cannot join the table: if many felt tables are open in this browser, close some (8 at most). Retrying...'
        : 'Connection lost: reconnecting...');
      this.retry = Math.min(this.retry + 1, 6);
      this.retryTimer = setTimeout(() => this.connect(), 300 * this.retry);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    notice('Not connected: your action was not sent. Wait for the table to reconnect and try again.', 'error');
    this.offline = true;
    return false;
  }

  banner(text) {
    const b = document.getElementById('banner');
    b.textContent = text || '';
    b.hidden = !text;
  }

  frame(msg) {
    // The last of the stream seen (for a reconnection's last_seq). Not the welcome's:
    // it is the stream's last, and the frames missed before it are still to come.
    if (typeof msg.seq === 'number' && msg.seq > 0 && msg.type !== 'welcome') this.seq = msg.seq;
    switch (msg.type) {
      case 'welcome':
        this.retry = 0;
        this.banner('');
        this.player = msg.player;
        if (this.offline) notice('');
        this.offline = false;
        // What answers a (re)connection is the past, shown at once (no replay at the
        // dealer's pace): the fresh view (the welcome's seq) or the frames missed
        // (up to it). Frames after it are the table's live play, paced, however soon
        // they come.
        this.caughtUp = typeof msg.seq === 'number' ? msg.seq : null;
        // What does not change at the table (its game, limits, hints) comes once,
        // here; each view is read with it.
        this.fixed = { game: msg.game, limits: msg.limits, hints: msg.hints };
        break;
      case 'view':
        // (A version 1 server's views carry them themselves.)
        for (const [k, v] of Object.entries(this.fixed || {})) if (msg[k] === undefined) msg[k] = v;
        // The casino answered the stake (the view no longer shows it pending): its
        // "a moment" notice goes.
        if (this.stakePending && !(msg.seats || []).some((s) => s.player === msg.you?.player && s.bet_pending)) {
          this.stakePending = false;
          notice('');
        }
        msg.at = performance.now();
        if (!this.view || this.caughtUp === null || msg.seq <= this.caughtUp) this.pacer.skip(msg);
        else this.pacer.push(msg);
        break;
      case 'pending':
        // With the operator's wallet: the stake waits for the casino's answer.
        notice(`The casino is taking your stake of ${show(msg.amount)}: a moment.`);
        this.stakePending = true;
        break;
      case 'accepted':
        notice('Your answer is in: waiting for the other spots.');
        this.waiting = true;
        break;
      case 'error':
        this.stakePending = false;
        if (msg.code === 'version' && (this.version || 2) > 1) {
          // A server not yet upgraded (in a rolling upgrade): speak version 1 to it.
          this.version = 1;
          this.ws?.close();
          break;
        }
        if (msg.code === 'away') {
          this.banner(tableSentence(msg));
          break;
        }
        if (msg.code === 'session-ended') {
          this.gone = true;
          this.app.sessionEnded(tableSentence(msg));
          break;
        }
        if (msg.code === 'reality-check') this.app.sessionChanged?.();
        notice(tableSentence(msg), 'error');
        if (msg.id && this.sent && msg.id === this.sent.id) this.sent = null;
        if (msg.id && msg.id.startsWith('a-')) this.acted.clear();
        if (this.view) this.render();
        break;
      case 'meters':
        // A meter moved (this table, another, or another server's); held while cards
        // are still landing or a jackpot is celebrated (the award shows after it).
        this.latestMeters = msg.meters || [];
        if (!this.pacer.busy && !this.celebrating) this.drawMeters(this.latestMeters);
        break;
      case 'away':
        // The table stopped here (its server went away, or it moves): the socket
        // closes and the page reconnects; the table resumes from the books.
        this.banner('The table is interrupted: reconnecting...');
        break;
      case 'closed':
        this.banner(`The table is closed: ${msg.reason}`);
        this.gone = true;
        break;
      default:
        break;
    }
  }

  // ---- helpers on the view ----------------------------------------------------

  mySeat() {
    return this.view?.you?.seat ?? null;
  }

  betting() {
    const v = this.view;
    return Boolean(v?.in_play && v.you?.may_bet && v.round?.phase === 'betting' && !this.sent);
  }

  limitOf(wager) {
    const l = this.view?.limits;
    if (wager === 'main') return l?.main;
    return (l?.side_bets || []).find((s) => s.id === wager);
  }

  // ---- rendering --------------------------------------------------------------

  /** Draws a state the pacer releases: a card landing, or (final) a whole frame. */
  show(v, final) {
    const before = this.view;
    this.view = v;
    this.noteRoster(v);
    const turned = (v.events || []).find((e) => e.event === 'hole-card-turned');
    if (turned) this.hole = { round: v.round_id, card: turned.card };
    if (!final) {
      this.render();
      if (v.landed) play('card');
      return;
    }
    // Each view is the server's word on what is asked now.
    this.acted.clear();
    this.feed.note(v, this.mySeat(), this.roster);
    if (this.waiting && !(v.you?.decisions || []).some((d) => d.offer && d.answered)) {
      this.waiting = false;
      notice('');
    }
    const moment = this.moment(v);
    if (moment) this.celebrating = () => {};
    this.render();
    const turn = (v.you?.decisions || []).filter((d) => !d.answered).map((d) => `${d.spot}-${d.hand}`).join();
    const was = (before?.you?.decisions || []).filter((d) => !d.answered).map((d) => `${d.spot}-${d.hand}`).join();
    if (turn && turn !== was) {
      play('turn');
      // Told in words, and the focus goes to the action bar.
      for (const g of this.controls.querySelectorAll('.decisions')) announce(g.dataset.say);
      const t = document.activeElement;
      if (!t || !['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName)) this.focusDock();
    }
    if (moment) this.celebrate(moment);
    else if (this.wonNow) play('win');
    this.wonNow = false;
  }

  /** Who plays each seat of a round in play; the player's own seat kept for a reload. */
  noteRoster(v) {
    const r = v.round;
    if (!v.in_play || !r || r.phase === 'betting' || v.round_id == null) return;
    if (!this.rosters.has(v.round_id)) {
      const roster = {};
      for (const s of v.seats || []) if (s.player && s.in_round !== false) roster[s.seat] = s.player;
      this.rosters.set(v.round_id, roster);
      while (this.rosters.size > 8) this.rosters.delete(this.rosters.keys().next().value);
    }
    const me = this.mySeat();
    if (me !== null && (r.spots || []).some((sp) => sp.seat === me)) {
      sessionStorage.setItem(`felt.played.${this.name}`, `${v.round_id}:${me}:${v.you?.player}`);
    }
  }

  /** The player of `seat` in round `id` (null if this page does not know). */
  playerOf(id, seat) {
    const known = this.rosters.get(id)?.[seat];
    if (known) return known;
    const [round, at, who] = (sessionStorage.getItem(`felt.played.${this.name}`) || '').split(':');
    return Number(round) === id && Number(at) === seat ? who : null;
  }

  render() {
    const v = this.view;
    if (!v) return;
    if (this.autoSit) {
      this.autoSit = false;
      if (v.you?.seat == null) this.send({ type: 'sit' });
    }
    const focusKey = document.activeElement?.dataset?.key;
    const hadFocus = this.main.contains(document.activeElement) && document.activeElement !== this.main;
    const round = v.round;
    if (round?.number !== this.seenRound) {
      this.seen = new Set();
      this.seenRound = round?.number;
    }
    if (this.sent && v.you?.may_bet === false) {
      // The bet is in: it becomes the last bets (Rebet places them again).
      const mine = (round?.spots || []).some((s) => s.seat === this.mySeat());
      if (mine) {
        this.lastBets = this.sent.spots;
        localStorage.setItem(`felt.last.${this.name}`, JSON.stringify(this.lastBets));
      }
      this.sent = null;
      this.layout.reset();
    }
    this.windowClosed(v);
    // The session runs while the player holds a seat here.
    if (this.mySeat() !== null) this.session.start(Date.now());
    else if (this.session.since !== null) this.session.end();
    if (!this.celebrating) this.drawMeters(v.meters || []);
    this.drawTimer(v.timer);
    this.drawStatus(v);
    this.drawDealer(round);
    this.drawSeats(v);
    this.drawControls(v);
    this.topup.draw(v);
    this.hints.draw(v);
    this.drawResults(v);
    this.drawSession(v);
    const bal = v.you?.balance;
    this.balance.textContent = bal ? show(bal) : '';
    this.balance.dataset.value = bal || '';
    if (bal) this.app.setBalance(bal);
    if (v.in_play) this.speech.tell(v, this.mySeat());
    if (focusKey) {
      const again = this.main.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
    }
    // The control that had the focus is gone (a seat taken, an answer sent): the focus
    // goes to the action bar, never to the page's body.
    if (hadFocus && (!document.activeElement || document.activeElement === document.body)) this.focusDock();
  }

  /** The focus to the first control of the action bar (or the dock itself). */
  focusDock() {
    const first = this.controls.querySelector('.decision:not([disabled]), .chip:not([disabled]), button:not([disabled])');
    (first || this.dock).focus({ preventScroll: true });
  }

  /**
   * Chips left on the layout when the betting window closed without them (the page
   * sends them before it closes; a page asleep may miss it): cleared, and said.
   */
  windowClosed(v) {
    if (this.layout.empty() || this.sent) return;
    if (this.betting() && v.round_id === this.layoutRound) return;
    this.layout.reset();
    // The seat ended (the casino blocked the player, a break, a time limit): the
    // chips go quietly, and the notice keeps the reason, said already.
    if (!this.mySeat()) return;
    notice('The betting closed before your chips were placed: they were not bet, and the layout is cleared.', 'error');
  }

  /** The table's limits, the time at the table and the session's net. */
  drawSession(v) {
    this.limits.textContent = limitsText(v.limits, (id) => this.sideName(id));
    this.printName.textContent = this.gameName;
    this.printLimits.textContent = this.limits.textContent;
    const seated = this.mySeat() !== null;
    this.sessionLine.hidden = !seated;
    if (!seated) return;
    this.drawNet();
    this.clock.textContent = this.session.clock(Date.now());
  }

  /** The net since log-in (GET /api/session, read at each round's end). */
  drawNet() {
    if (!this.net || this.sessionNet === null) return;
    const cents = toCents(this.sessionNet) ?? 0;
    this.net.textContent = signed(cents);
    this.net.className = `session-net ${cents > 0 ? 'won' : cents < 0 ? 'lost' : ''}`;
    this.net.dataset.value = plain(cents);
  }

  /** A card new on the felt slides in (the pacer lands one at a time). */
  placeCard(el, key) {
    if (!this.seen.has(key)) {
      this.seen.add(key);
      el.classList.add('deal');
    }
    return el;
  }

  drawMeters(meters) {
    // A reading older than the one shown (a push read before the view's commit) or
    // the same one changes nothing.
    this.meterSeen = this.meterSeen || {};
    let changed = this.meterBox.childElementCount !== meters.length;
    for (const m of meters) {
      const had = this.meterSeen[m.id];
      if (!had || m.version > had.version) {
        this.meterSeen[m.id] = m;
        changed = true;
      }
    }
    if (!changed) return;
    const items = meters.map((reading) => {
      const m = this.meterSeen[reading.id];
      const cents = toCents(m.amount) ?? 0;
      const el = h('p', { class: 'meter', dataset: { meter: m.id, value: m.amount } },
        h('span', {}, `${this.sideName(m.id)} progressive `),
        h('strong', { class: 'meter-amount' }, fmt(this.meters[m.id] ?? cents)));
      const shown = this.meters[m.id];
      if (shown === undefined || cents <= shown) {
        // First sight, or a winner's award / reset: the committed value at once.
        this.meters[m.id] = cents;
        el.querySelector('strong').textContent = fmt(cents);
      } else {
        this.animateMeter(m.id, shown, cents);
      }
      return el;
    });
    fill(this.meterBox, items);
  }

  animateMeter(id, from, to) {
    const start = performance.now();
    const span = 900;
    this.meters[id] = to;
    const step = (now) => {
      const el = this.meterBox.querySelector(`[data-meter="${CSS.escape(id)}"] strong`);
      if (!el || this.meters[id] !== to) return;
      const t = Math.min(1, (now - start) / span);
      el.textContent = fmt(Math.round(from + (to - from) * t));
      if (t < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  drawTimer(timer) {
    if (timer && typeof timer.ms === 'number') {
      // From the frame's arrival: a frame shown after its cards keeps its deadline.
      this.deadline = (this.view?.at ?? performance.now()) + timer.ms;
      this.timerTotal = Math.max(timer.ms, 1);
      this.timerFor = timer.for;
    } else {
      this.deadline = null;
      this.timerFor = null;
    }
    this.countdown();
  }

  countdown() {
    if (this.session.since !== null) this.clock.textContent = this.session.clock(Date.now());
    if (!this.deadline) {
      this.timerText.textContent = '';
      this.timerBar.hidden = true;
      this.timerBox.classList.remove('low');
      return;
    }
    const left = Math.max(0, this.deadline - performance.now());
    const s = Math.ceil(left / 1000);
    const what = timerWords(this.view, this.timerFor, Boolean(this.timerMine()), this.roster);
    this.timerText.textContent = `${what} ${s} s`;
    this.timerBar.hidden = false;
    this.timerBar.value = Math.round((left / this.timerTotal) * 100);
    const mine = this.timerMine();
    this.timerBox.classList.toggle('low', Boolean(mine) && left <= WARN_MS);
    // A warning at 5 s left on a timer that waits for this player (once per timer).
    if (mine && left <= WARN_MS && left > 0 && this.warned !== mine) {
      this.warned = mine;
      announce(`${Math.min(5, s)} seconds left to ${{ betting: 'place your bets', offer: 'answer', decision: 'decide' }[this.timerFor]}.`);
    }
    // Chips left on the layout are bet as the window closes.
    if (this.timerFor === 'betting' && left <= AUTO_BET_MS && this.betting() && !this.layout.empty()
      && this.autoBet !== this.view.round_id) {
      this.autoBet = this.view.round_id;
      this.placeBets(true);
    }
  }

  /** The timer running, if it waits for this player: a key naming it, else null. */
  timerMine() {
    const v = this.view;
    if (!v) return null;
    if (this.timerFor === 'betting') return this.betting() ? `${v.round_id}:betting` : null;
    if (this.timerFor === 'offer' || this.timerFor === 'decision') {
      const open = (v.you?.decisions || []).filter((d) => !d.answered && !this.acted.has(`${d.spot}-${d.hand}`));
      return open.length ? `${v.round_id}:${this.timerFor}:${open.map((d) => `${d.spot}-${d.hand}`).join()}` : null;
    }
    return null;
  }

  drawStatus(v) {
    const r = v.round;
    const me = this.mySeat();
    let text;
    if (v.closed) text = `Closed: ${v.closed}`;
    else if (!me) text = 'Take a seat to play.';
    else if (v.pacing) text = ['dealer', 'settlement', 'done'].includes(r?.phase) ? "Dealer's turn." : 'Dealing.';
    else if (!v.in_play) text = 'Round over.';
    else if (r?.phase === 'betting' && shortOf(v)) text = 'Balance below the minimum bet.';
    else if (r?.phase === 'betting') text = v.you?.may_bet ? 'Place your bets.' : 'Waiting for the other bets.';
    else if (v.you?.decisions?.some((d) => d.offer && !d.answered)) text = 'Insurance?';
    else if (v.you?.decisions?.length) text = 'Your turn.';
    else if (r?.turn?.seat) text = `${seatName(v, r.turn.seat, this.roster)} decides.`;
    else if (r?.phase === 'dealer') text = "Dealer's turn.";
    else text = r?.phase ? `${r.phase.replace(/-/g, ' ')}.` : '';
    this.status.textContent = text;
    const shoe = r?.shoe;
    this.shoeText.textContent = shoe
      ? `Shoe: ${shoe.remaining} cards${shoe.cut_card_out ? ', cut card out: a new shoe next round' : ''}`
      : '';
  }

  drawDealer(round) {
    const d = round?.dealer;
    const cards = [];
    const occ = {};
    // The turned hole card lies where it lay face down: second, after the up card
    // (the server lists the dealer's cards in the order dealt).
    const list = [...(d?.cards || [])];
    const hole = this.hole?.round === this.view?.round_id && d?.hole === 'turned' ? list.indexOf(this.hole.card) : -1;
    if (hole >= 0 && list.length > 1) list.splice(1, 0, ...list.splice(hole, 1));
    list.forEach((c, i) => {
      occ[c] = (occ[c] || 0) + 1;
      const key = `d-${c}-${occ[c]}`;
      if (i === 1 && this.seen.has('d-hole') && !this.seen.has(key)) {
        // The hole card turns over where it lies.
        this.seen.add(key);
        const el = cardEl(c);
        el.classList.add('flip');
        cards.push(el);
      } else {
        cards.push(this.placeCard(cardEl(c), key));
      }
      if (i === 0 && d.hole === 'face-down') cards.push(this.placeCard(backEl(), 'd-hole'));
    });
    if (!d?.cards?.length && d?.hole === 'face-down') cards.push(this.placeCard(backEl(), 'd-hole'));
    let words = null;
    if (d?.cards?.length) {
      if (d.cards.length === 2 && d.total === 21) words = 'Dealer: Blackjack';
      else if (d.total > 21) words = `Dealer busts with ${d.total}`;
      else words = `Dealer ${d.soft ? 'soft ' : ''}${d.total}`;
    }
    const total = words ? h('p', { class: 'total', id: 'dealer-total', dataset: { total: d.total } }, words) : null;
    fill(this.dealer, h('div', { class: 'cards', id: 'dealer-cards' }, cards), total);
  }

  /** Whether a round has a card on the felt. */
  static dealt(round) {
    return Boolean(round?.dealer?.cards?.length || round?.dealer?.hole === 'face-down'
      || (round?.spots || []).some((sp) => (sp.hands || []).some((hd) => hd.cards?.length)));
  }

  /**
   * The results the page shows: the round's own while it is dealt or over, else the
   * last round's kept until the next deal. {id, round, lines, done, kept}.
   */
  resultsOf(v) {
    const current = {
      id: v.round_id, round: v.round, lines: v.settlements || [], kept: false,
      done: Boolean(v.round) && !v.pacing && (!v.in_play || v.round.phase === 'done'),
    };
    if (this.kept && this.kept.id !== v.round_id && !Table.dealt(v.round)) return { ...this.kept, done: false, kept: true };
    return current;
  }

  drawSeats(v) {
    const me = this.mySeat();
    const res = this.resultsOf(v);
    const live = v.in_play && !res.kept;
    const boxes = (v.seats || []).map((s) => {
      const mine = me !== null && s.seat === me;
      const label = s.player ? `Seat ${s.seat}: ${s.player}${mine ? ' (you)' : ''}` : `Seat ${s.seat}: free`;
      const head = h('h3', { class: 'seat-name' }, s.player ? `${s.player}${mine ? ' (you)' : ''}` : `Seat ${s.seat}`);
      const body = [];
      if (!s.player) {
        if (me === null && !v.closed) {
          body.push(h('button', { type: 'button', class: 'btn small', dataset: { key: `sit-${s.seat}` }, onclick: () => this.send({ type: 'sit', seat: s.seat }), 'aria-label': `Sit at seat ${s.seat}` }, 'Sit here'));
        } else {
          body.push(h('p', { class: 'muted free-word' }, 'Free'));
        }
      } else if (s.connected === false) {
        body.push(h('p', { class: 'muted away' }, 'away'));
      }
      // A finished round's cards and results are drawn only under the player who
      // played them (a newcomer at that seat never sees them as theirs).
      const theirs = s.player && (live || this.playerOf(res.id, s.seat) === s.player);
      const past = theirs ? (res.round?.spots || []).filter((x) => x.seat === s.seat) : [];
      if (res.kept && past.length) {
        body.push(h('div', { class: 'last-round', role: 'group', 'aria-label': 'Last round' },
          h('p', { class: 'spot-name' }, 'Last round'), past.map((sp) => this.spotEl(sp, { ...res, kept: true }, v))));
      }
      if (mine && this.betting()) {
        body.push(this.betSpots(v));
      } else {
        const now = res.kept ? (v.round?.spots || []).filter((x) => x.seat === s.seat) : past;
        for (const sp of now) body.push(this.spotEl(sp, res.kept ? { lines: [] } : res, v));
      }
      return h('section', { class: `seat${mine ? ' mine' : ''}${s.player ? '' : ' free'}`, dataset: { seat: s.seat }, 'aria-label': label }, head, body);
    });
    // The player's own seat large across the felt; the others in a compact row above.
    const mineBox = boxes.find((b) => b.classList.contains('mine'));
    fill(this.seats,
      h('div', { class: 'others', id: 'others' }, boxes.filter((b) => b !== mineBox)),
      mineBox ? h('div', { class: 'my-seat', id: 'my-seat' }, mineBox) : null);
  }

  /** A wager's circle: its name, its stake, and once settled what it paid or lost. */
  circle(kind, wager, name, amount, net) {
    const paid = net === undefined ? null
      : h('span', { class: `circle-net ${net > 0 ? 'won' : net < 0 ? 'lost' : 'push'}` }, signed(net));
    return h('div', {
      class: `circle ${kind}${net > 0 ? ' paid' : net < 0 ? ' taken' : ''}`,
      dataset: { wager, amount },
      title: name,
      'aria-label': `${name} ${show(amount)}${net === undefined ? '' : `, ${signed(net)}`}`,
    }, toCents(amount) > 0 ? chipStack(toCents(amount), chipValues(this.view?.limits)) : null,
    h('span', { class: 'circle-name' }, name), h('span', { class: 'circle-amount' }, show(amount)), paid);
  }

  /** A spot as the round has it: its wagers, its hands with cards, their results. */
  spotEl(sp, res, v) {
    const turn = v.round?.turn;
    const lines = (res.lines || []).filter((x) => x.seat === sp.seat && x.spot === sp.spot);
    const netOf = (wager) => {
      const ls = lines.filter((x) => x.wager === wager);
      return ls.length ? ls.reduce((a, x) => a + (toCents(x.net) ?? 0), 0) : undefined;
    };
    // The main circle holds every hand's stake: a double or a split shows in it.
    const staked = (sp.hands || []).reduce((a, hd) => a + (toCents(hd.stake) ?? 0), 0);
    const main = staked > (toCents(sp.main) ?? 0) && (sp.hands || []).some((hd) => hd.cards?.length) ? plain(staked) : sp.main;
    const anyDoubled = (sp.hands || []).some((hd) => doubled(sp, hd));
    const circles = [
      this.circle('main', 'main', anyDoubled ? 'Main ×2' : 'Main', main, netOf('main')),
      ...(sp.side_bets || []).map((b) => this.circle('side', b.id, this.sideName(b.id), b.amount, netOf(b.id))),
    ];
    if (toCents(sp.insurance) > 0) circles.push(this.circle('ins', 'insurance', 'Insurance', sp.insurance, netOf('insurance')));
    // A hand is drawn once it has a card: no empty hand before the deal.
    const hands = (sp.hands || []).filter((hd) => hd.cards?.length).map((hd) => {
      const target = `${sp.seat}-${sp.spot}-${hd.hand}`;
      const inPlay = turn && turn.seat === sp.seat && turn.spot === sp.spot && turn.hand === hd.hand;
      const occ = {};
      const cards = (hd.cards || []).map((c) => {
        occ[c] = (occ[c] || 0) + 1;
        // A kept round's cards lie still: they landed in their own round.
        return res.kept ? cardEl(c) : this.placeCard(cardEl(c), `${target}-${c}-${occ[c]}`);
      });
      const settled = lines.find((x) => x.wager === 'main' && x.hand === hd.hand);
      const total = hd.status === 'natural' ? 'Blackjack' : `${hd.soft ? 'soft ' : ''}${hd.total}`;
      const status = hd.status === 'busted' ? 'bust' : hd.status === 'surrendered' ? 'surrendered' : '';
      const dbl = doubled(sp, hd);
      const badge = settled ? badgeWord(settled.outcome) : null;
      return h('div', {
        class: `hand${inPlay ? ' in-play' : ''}${dbl ? ' doubled' : ''}`,
        dataset: { hand: hd.hand, stake: hd.stake, outcome: settled?.outcome },
        'aria-current': inPlay ? 'true' : null,
        'aria-label': `Hand ${hd.hand}: ${cardsText(hd.cards)}, ${hd.status === 'natural' ? 'blackjack' : `total ${hd.total}${hd.soft ? ' soft' : ''}`}${dbl ? ', doubled' : ''}${status ? `, ${status}` : ''}${badge ? `, ${badge.toLowerCase()}` : ''}${inPlay ? ', in play' : ''}`,
      },
      h('div', { class: 'cards' }, cards),
      h('p', { class: 'hand-info' },
        h('span', { class: 'hand-total' }, total),
        h('span', { class: 'hand-stake' }, ` · ${show(hd.stake)}`),
        dbl ? h('span', { class: 'hand-doubled' }, ' doubled') : null,
        status && !badge ? h('span', { class: `hand-status ${hd.status}` }, ` ${status}`) : null),
      badge ? h('p', { class: `badge ${settled.outcome}` }, badge) : null,
      inPlay ? pointer() : null);
    });
    return h('div', { class: 'spot', dataset: { spot: sp.spot } },
      h('p', { class: 'spot-name' }, `Spot ${sp.spot}`),
      h('div', { class: 'circles' }, circles),
      h('div', { class: 'hands' }, hands));
  }

  /** My spots while betting: circles to click chips onto, each with its stack. */
  betSpots(v) {
    const n = v.limits?.spots || 1;
    const sides = v.limits?.side_bets || [];
    const values = chipValues(v.limits);
    const out = [];
    for (let spot = 1; spot <= n; spot += 1) {
      const circle = (wager, name) => {
        const cents = this.layout.on(spot, wager);
        return h('button', {
          type: 'button',
          class: `circle ${wager === 'main' ? 'main' : 'side'} bet${cents ? ' has' : ''}`,
          title: wager === 'main' ? 'Main' : name,
          dataset: { key: `bet-${spot}-${wager}`, spot, wager, amount: plain(cents), min: this.limitOf(wager)?.min ?? '' },
          'aria-label': `Spot ${spot}, ${name}: ${fmt(cents)}. Add a ${fmt(this.chip ?? 0)} chip`,
          onclick: () => this.addChip(spot, wager),
        },
        cents ? chipStack(cents, values) : null,
        h('span', { class: 'circle-name' }, wager === 'main' ? 'Main' : name),
        h('span', { class: 'circle-amount' }, cents ? fmt(cents) : ''));
      };
      out.push(h('div', { class: 'spot betting', dataset: { spot } },
        h('p', { class: 'spot-name' }, `Spot ${spot}`),
        h('div', { class: 'circles' },
          circle('main', 'main bet'),
          sides.map((s) => circle(s.id, this.sideName(s.id))))));
    }
    return out;
  }

  balanceCents() {
    return toCents(this.view?.you?.balance) ?? 0;
  }

  maxOf(wager) {
    return toCents(this.limitOf(wager)?.max) ?? Infinity;
  }

  addChip(spot, wager) {
    if (!this.betting() || !this.chip) return;
    const why = this.layout.add(spot, wager, this.chip, this.maxOf(wager), this.balanceCents());
    if (why === 'balance') {
      notice(`Your balance (${show(this.view.you.balance)}) does not cover another ${fmt(this.chip)}: choose a smaller chip.`, 'error');
      return;
    }
    if (why === 'max') {
      notice(`The most on ${wager === 'main' ? 'the main bet' : this.sideName(wager)} is ${show(this.limitOf(wager)?.max)}.`, 'error');
      return;
    }
    this.layoutRound = this.view.round_id;
    notice('');
    play('chip');
    this.render();
  }

  undoChip() {
    if (!this.betting() || !this.layout.undo()) return;
    notice('');
    this.render();
  }

  doubleBets() {
    if (!this.betting()) return;
    const why = this.layout.double((w) => this.maxOf(w), this.balanceCents());
    if (why === 'balance') {
      notice(`Your balance (${show(this.view.you.balance)}) does not cover ${fmt(this.layout.total() * 2)}: the bets stay as they are.`, 'error');
      return;
    }
    if (why) return;
    notice('');
    play('chip');
    this.render();
  }

  clearBets() {
    this.layout.clear();
    this.render();
  }

  rebet() {
    if (!this.betting() || !this.lastBets) return;
    const { asked, laid } = this.layout.rebet(this.lastBets, this.balanceCents(), (w) => this.limitOf(w));
    this.layoutRound = this.view.round_id;
    if (laid < asked) {
      notice(laid
        ? `Your balance (${show(this.view.you.balance)}) does not cover your last bets (${fmt(asked)}): ${fmt(laid)} is laid instead. Place it, or change it.`
        : `Your balance (${show(this.view.you.balance)}) does not cover your last bets (${fmt(asked)}) nor the minimum bet: nothing is laid.`, 'error');
    } else {
      notice('');
    }
    this.render();
  }

  /** Sends the chips on the layout as the round's bet (`auto`: the window is closing). */
  placeBets(auto = false) {
    if (!this.betting()) return;
    const m = this.layout.message(toCents(this.view.limits?.main?.min) ?? 0);
    if (m.error) {
      if (auto) {
        this.layout.reset();
        notice(`The betting closed and your chips were not bet: ${m.error.replace(/^./, (c) => c.toLowerCase())} The layout is cleared.`, 'error');
        announce('The betting closed: your chips were not bet.');
        this.render();
      } else {
        notice(m.error, 'error');
      }
      return;
    }
    const spots = m.spots.map((x) => {
      const side = {};
      for (const [id, c] of Object.entries(x.side)) side[id] = plain(c);
      return { spot: x.spot, main: plain(x.main), side };
    });
    const round = this.view.round_id;
    const msg = { type: 'bet', round, id: `b-${round}-${Date.now() % 1e9}`, spots };
    if (this.send(msg)) {
      this.sent = msg;
      if (auto) {
        const text = `The betting closes: your chips on the layout (${fmt(this.layout.total())}) are bet.`;
        notice(text);
        announce(text);
      } else {
        notice('');
      }
      this.render();
    }
  }

  act(d, choice, amount) {
    const id = `a-${this.view.round_id}-${(this.counter += 1)}-${Math.floor(Math.random() * 1e6)}`;
    const msg = { type: 'act', round: this.view.round_id, spot: d.spot, hand: d.hand, decision: choice.decision, id };
    if (amount) msg.amount = amount;
    if (this.send(msg)) {
      this.acted.add(`${d.spot}-${d.hand}`);
      this.render();
    }
  }

  drawControls(v) {
    const me = this.mySeat();
    const parts = [];
    if (me === null) {
      if (!v.closed) {
        parts.push(h('button', { type: 'button', class: 'btn primary', id: 'sit', dataset: { key: 'sit' }, onclick: () => this.send({ type: 'sit' }) }, 'Take a seat'));
      }
      fill(this.controls, parts);
      return;
    }
    if (this.betting()) {
      const values = chipValues(v.limits);
      const total = this.layout.total();
      // A chip the balance cannot cover (with the chips already laid) is greyed out.
      const free = this.balanceCents() - total;
      const affordable = values.filter((c) => c <= free);
      if (!values.includes(this.chip) || (this.chip > free && affordable.length)) {
        const min = toCents(v.limits?.main?.min) ?? values[0];
        this.chip = affordable.filter((x) => x <= Math.max(min, affordable[0] ?? 0)).pop() ?? affordable[0] ?? values[0];
      }
      parts.push(h('div', { class: 'chips', role: 'group', 'aria-label': 'Chips' },
        values.map((c, i) => h('button', {
          type: 'button',
          class: `chip ${chipColor(c)}`,
          'aria-pressed': String(c === this.chip),
          'aria-label': `Chip ${fmt(c)}${c > free ? ', more than your balance' : ''} (key ${i + 1})`,
          disabled: c > free,
          dataset: { key: `chip-${c}`, chip: plain(c) },
          onclick: () => { this.chip = c; this.render(); },
        }, chipFace(c)))));
      const kbd = (k) => h('kbd', {}, k);
      parts.push(h('div', { class: 'row bet-actions' },
        h('button', { type: 'button', class: 'btn', id: 'undo', dataset: { key: 'undo' }, disabled: !this.layout.history.length, onclick: () => this.undoChip() }, 'Undo', kbd('U')),
        h('button', { type: 'button', class: 'btn', id: 'double-bet', dataset: { key: 'double-bet' }, disabled: total === 0 || total * 2 > this.balanceCents(), onclick: () => this.doubleBets() }, 'Double', kbd('D')),
        h('button', { type: 'button', class: 'btn', id: 'rebet', dataset: { key: 'rebet' }, disabled: !this.lastBets, onclick: () => this.rebet() }, 'Rebet', kbd('R')),
        h('button', { type: 'button', class: 'btn', id: 'clear', dataset: { key: 'clear' }, disabled: total === 0, onclick: () => this.clearBets() }, 'Clear', kbd('C')),
        h('button', { type: 'button', class: 'btn primary', id: 'place-bets', dataset: { key: 'place' }, disabled: total === 0, onclick: () => this.placeBets() }, `Place bets ${fmt(total)}`, kbd('B'))));
    }
    for (const d of v.you?.decisions || []) {
      if (d.answered || this.acted.has(`${d.spot}-${d.hand}`)) continue;
      const sp = (v.round?.spots || []).find((s) => s.seat === me && s.spot === d.spot);
      const hd = sp?.hands?.find((x) => x.hand === d.hand);
      const buttons = [];
      for (const c of d.choices || []) {
        const key = KEYS[c.decision];
        let label = LABELS[c.decision] || c.decision;
        if (c.decision === 'double' && c.amount) label = `Double ${show(c.amount.full)}`;
        if (c.decision === 'insurance' && c.amount) label = `Insurance ${show(c.amount.full)}`;
        if (c.decision === 'split' && hd) label = `Split ${show(hd.stake)}`;
        if (c.decision === 'surrender' && hd) label = `Surrender (get ${fmt(Math.floor((toCents(hd.stake) ?? 0) / 2))} back)`;
        if (c.decision === 'even-money' && sp) label = `Even money +${show(sp.main)}`;
        buttons.push(h('button', {
          type: 'button',
          class: `btn decision ${c.decision}`,
          dataset: { key: `act-${d.spot}-${d.hand}-${c.decision}`, decision: c.decision },
          'aria-keyshortcuts': key,
          onclick: () => this.act(d, c, c.amount ? c.amount.full : undefined),
        }, label, key ? h('kbd', {}, key) : null));
        if ((c.decision === 'double' || c.decision === 'insurance') && c.amount && toCents(c.amount.min) < toCents(c.amount.full)) {
          const input = h('input', {
            type: 'number', class: 'less', min: c.amount.min, max: c.amount.max, step: c.amount.step,
            value: c.amount.min, 'aria-label': `${LABELS[c.decision]} amount, ${show(c.amount.min)} to ${show(c.amount.max)}`,
            dataset: { key: `less-${d.spot}-${d.hand}-${c.decision}` },
          });
          buttons.push(h('span', { class: 'less-box' }, input,
            h('button', {
              type: 'button', class: 'btn decision', dataset: { key: `act-less-${d.spot}-${d.hand}-${c.decision}`, decision: `${c.decision}-less` },
              onclick: () => {
                const cents = toCents(input.value);
                if (cents === null) { notice('Write an amount such as 5.00', 'error'); return; }
                this.act(d, c, plain(cents));
              },
            }, c.decision === 'double' ? 'Double for less' : 'Insure for less')));
        }
      }
      const what = d.offer
        ? `Spot ${d.spot}:`
        : `Spot ${d.spot}${(sp?.hands?.length || 0) > 1 ? `, hand ${d.hand}` : ''}: ${hd ? `${hd.soft ? 'soft ' : ''}${hd.total}` : ''}`;
      // What a screen reader is told when this is asked: the question and the choices.
      const choices = buttons.filter((b) => b.dataset?.decision).map((b) => b.firstChild.textContent);
      const offer = (d.choices || []).some((c) => c.decision === 'even-money') ? 'Even money?' : 'Insurance?';
      const say = d.offer
        ? `${offer} The dealer shows an ace. Spot ${d.spot}: ${choices.join(', or ')}.`
        : `Your turn. ${what} against the dealer's ${v.round?.dealer?.total ?? ''}: ${choices.join(', ')}.`;
      parts.push(h('div', { class: 'decisions', role: 'group', 'aria-label': what, dataset: { spot: d.spot, hand: d.hand, say } },
        h('p', { class: 'decision-what' }, what), buttons));
    }
    fill(this.controls, parts);
  }

  /** The player's own lines of results `res`, and everyone's as the page lists them. */
  lines(v, res) {
    const me = this.mySeat();
    const live = v.in_play && !res.kept;
    const who = (seat) => (live ? (v.seats || []).find((x) => x.seat === seat)?.player : this.playerOf(res.id, seat));
    const mine = [];
    const others = [];
    for (const s of res.lines) {
      const player = who(s.seat);
      if (player && player === v.you?.player && (me !== null || res.kept || !v.in_play)) mine.push(s);
      // Someone else's result at the seat the player took since is not theirs to see as theirs.
      else if (player || s.seat !== me) others.push({ s, player: player || `Seat ${s.seat}` });
    }
    return { mine, others };
  }

  drawResults(v) {
    const res = this.resultsOf(v);
    const { mine, others } = this.lines(v, res);
    const words = (s) => sentence(s, res.round, (id) => this.sideName(id));
    let won = 0;
    let lost = 0;
    for (const s of mine) {
      const net = toCents(s.net) ?? 0;
      if (net > 0) won += net;
      else lost -= net;
    }
    const item = (s, mineToo, player) => {
      const net = toCents(s.net) ?? 0;
      return h('li', {
        class: `settlement ${net > 0 ? 'won' : net < 0 ? 'lost' : 'push'}${mineToo ? ' mine' : ''}`,
        dataset: { seat: s.seat, spot: s.spot, hand: s.hand, wager: s.wager, net: s.net, stake: s.stake, returned: s.returned, outcome: s.outcome },
      }, mineToo ? '' : `${player}: `, words(s));
    };
    const items = [...mine.map((s) => item(s, true)), ...others.map((o) => item(o.s, false, o.player))];
    const totals = mine.length
      ? h('p', { class: 'totals', id: 'totals' },
        h('span', { class: 'won', dataset: { value: plain(won) } }, `Won ${fmt(won)}`), ' · ',
        h('span', { class: 'lost', dataset: { value: plain(lost) } }, `Lost ${fmt(lost)}`))
      : null;
    const title = res.kept ? h('p', { class: 'muted results-when' }, `Round ${res.id}, until the next deal:`) : null;
    fill(this.results, title,
      items.length ? h('ul', { class: 'settlements', id: 'settlements' }, items) : h('p', { class: 'muted' }, 'The results appear here after the dealer\'s turn.'),
      totals);
    this.results.dataset.round = res.id ?? '';
    this.results.dataset.done = String(res.done);
    this.results.dataset.kept = String(res.kept);
    if (res.done && res.lines.length) this.kept = { id: res.id, round: res.round, lines: res.lines };
    const key = `${res.id}`;
    if (res.done && mine.length && !this.announced.has(key)) {
      this.announced.add(key);
      // The round is over: the session's figures are read again, and the reality
      // check due meanwhile interrupts now.
      this.app.roundSettled?.(res.id);
      this.wonNow = won > 0;
      announce(`${mine.map(words).join('. ')}. Round won ${fmt(won)}, lost ${fmt(lost)}.`);
    }
  }

  /** A big win of the player new in a frame just shown (each once), or null. */
  moment(v) {
    const res = this.resultsOf(v);
    if (res.kept) return null;
    const { mine } = this.lines(v, res);
    this.celebrated = this.celebrated || new Set();
    let best = null;
    for (const s of mine) {
      const key = `${res.id}-${s.spot}-${s.hand}-${s.wager}`;
      const m = bigMoment(s);
      if (m && !this.celebrated.has(key) && (!best || m.kind === 'jackpot' || m.cents > best.cents)) {
        this.celebrated.add(key);
        best = { ...m, title: sentence(s, res.round, (id) => this.sideName(id)).replace(/: [+-][\d,.]+$/, '') };
      }
    }
    return best;
  }

  /** The banner of a big win; a progressive's meter shows its reset after it. */
  celebrate(m) {
    play(m.kind === 'jackpot' ? 'jackpot' : 'big-win');
    this.celebrating = celebrate(this.felt, m, m.title, settings.pace().banner, () => {
      this.celebrating = null;
      if (this.gone) return;
      this.drawMeters(this.view?.meters || []);
      if (this.latestMeters) this.drawMeters(this.latestMeters);
    });
  }

  /** Leaves the seat and goes to the lobby, asking first during a round (or, from the
   * top bar's Lobby link, `always`). */
  async leave(always = false) {
    if (this.mySeat() !== null && (always || inRound(this.view))) {
      const question = inRound(this.view)
        ? 'Leave the table during the round? Your hands still in play stand at once.'
        : `Leave your seat at ${this.gameName}?`;
      if (!(await confirmLeave(question, 'Leave the seat', 'Stay'))) return;
    }
    if (this.mySeat() !== null) this.send({ type: 'leave' });
    this.session.end();
    location.hash = '#/lobby';
  }

  // ---- keys -------------------------------------------------------------------

  key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || panelOpen()) return;
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
    const k = e.key.length === 1 ? e.key.toUpperCase() : e.key;
    const v = this.view;
    if (!v) return;
    if (this.betting()) {
      const values = chipValues(v.limits);
      if (/^[1-9]$/.test(k) && values[Number(k) - 1]) {
        this.chip = values[Number(k) - 1];
        this.render();
      } else if (k === 'R') this.rebet();
      else if (k === 'U') this.undoChip();
      else if (k === 'D') this.doubleBets();
      else if (k === 'C') this.clearBets();
      else if (k === 'B') this.placeBets();
      else return;
      e.preventDefault();
      return;
    }
    if (k === '?' && Hints.question(v)) {
      e.preventDefault();
      this.main.querySelector('#hint-button')?.click();
      return;
    }
    const word = Object.keys(KEYS).find((w) => KEYS[w] === k);
    if (!word) return;
    for (const d of v.you?.decisions || []) {
      if (d.answered || this.acted.has(`${d.spot}-${d.hand}`)) continue;
      const c = (d.choices || []).find((x) => x.decision === word);
      if (c) {
        e.preventDefault();
        this.act(d, c, c.amount ? c.amount.full : undefined);
        return;
      }
    }
  }
}
