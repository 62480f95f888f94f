// The table socket: reconnects with backoff, tracks seq, asks for a resync on a gap, and keeps an
// outbox so that no tap is lost while the socket is down (issue #41).
//
// Every message the player makes goes through ``post``: it gets an ``id`` (unique per page load)
// and waits in the outbox until the server acknowledges it (``{"type": "ack", "id"}``, after the
// update it caused) or refuses it (an ``error`` frame with the same ``id``). An outbox entry is
//   queued  - made while the socket is not open, or before the fresh ``state`` of a new socket came;
//   sent    - written to the open socket, not yet acknowledged;
//   done    - acknowledged (or, from a server that sends no acks, its update came): removed;
//   failed  - refused by the server, judged moot by its ``check`` against the fresh state, or given
//             up after GIVE_UP_MS: removed, and the page says why (``onOutbox``'s ``failed``).
// A socket that closes puts its sent entries back in the queue (``maybeSent``: the server may have
// had them): on the next socket they go again, after that socket's fresh ``state``, with the same
// ``id`` and, for an ``act``, the same ``seq`` - the server's seq check (and its duplicate check on
// the id) let a move through at most once. Each entry's ``check(state, seq)`` (main.js) first says
// whether it still means anything on the fresh state: "send", "done", {drop: reason} or
// {restamp: true} (an act whose view changed only by seats going offline and back: see main.js).
// A ``rate_limited`` refusal changed nothing: that entry waits the server's ``retry_after`` and goes
// again. A socket closed with a refusing code (REFUSED) ends retrying, and every entry fails.

/** Close codes: the server refused this page for good (no retry), or asks to try again later. */
export const REFUSED = { 4401: "signin", 4403: "forbidden", 4404: "gone", 4429: "too_many" };
const BUSY = 4503;
const GIVE_UP_MS = 180000;   // an entry that could not go out for 3 minutes is given up, and said so
const ACK_WAIT_MS = 8000;    // a sent entry with no ack for this long: the socket is dead, reconnect
const NO_ACK_DONE_MS = 3000; // a server that sends no acks: a sent entry no error came for is done
const ASLEEP_MS = 20000;     // a page hidden this long (a locked phone) may hold a dead socket ...
const PROBE_MS = 5000;       // ... so it asks for a fresh state, and reconnects if none comes in time
// The heartbeat: a socket that heard nothing for PING_IDLE_MS sends a ping; no answer (a pong, or
// anything) within PING_WAIT_MS and it is dead (a lost TCP connection can look open for minutes).
// While the player has something to do (his turn, an option to answer: ``urgent``) or a tap waits
// for its ack, it pings sooner, so a network lost without a word from the device (a phone in a
// lift: no "offline" event) shows as lost within 2 s (issue #46): URGENT_IDLE_MS + URGENT_WAIT_MS
// + two ticks. The rest of the time it pings rarely, to keep the server's load low.
const PING_IDLE_MS = 4000;
const PING_WAIT_MS = 1500;
const URGENT_IDLE_MS = 600;
const URGENT_WAIT_MS = 900;
const TICK_MS = 250;

export class TableSocket {
  constructor(path, { onState, onError, onStatus, onOutbox, onPhrase }) {
    this.path = path;
    this.onPhrase = onPhrase || (() => {});  // a seat's 快捷语 (phrases.js): outside the seq numbering
    this.onState = onState;
    this.onError = onError;
    this.onStatus = onStatus;
    this.onOutbox = onOutbox || (() => {});
    this.seq = 0;
    this.retry = 0;
    this.nextId = 1;
    this.outbox = [];       // entries, in the order they were made
    this.recent = new Map(); // id -> entry resolved lately (a late error still finds its entry)
    this.acks = false;      // this server acknowledges messages (one ack was seen)
    this.live = false;      // the socket is open and its fresh state has come
    this.everLive = false;
    this.busy = false;      // the last close was 4503: the server is busy
    this.refused = null;    // the close code that ended retrying for good
    this.timer = null;
    this.lastState = null;
    this.hiddenAt = 0;      // when the page was hidden (0: shown)
    this.probeAt = 0;       // when a fresh state was asked to test the socket (0: no test running)
    this.heardAt = 0;       // when the socket last heard anything
    this.pingAt = 0;        // when the heartbeat's ping went (0: none waiting)
    this.urgent = false;    // the player has something to do now (``setUrgent``): a faster heartbeat
    addEventListener("offline", () => this.drop());
    addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => this.visibility());
    setInterval(() => this.tick(), TICK_MS);
    this.connect();
  }

  // --- the connection ---------------------------------------------------------------------------

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.refused) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}${this.path}`);
    this.ws = ws;
    this.live = false;
    this.probeAt = 0;
    this.pingAt = 0;
    this.status();
    ws.onmessage = (ev) => { if (this.ws === ws) this.receive(JSON.parse(ev.data)); };
    ws.onclose = (ev) => { if (this.ws === ws) this.closed(ev.code); };
  }

  /** The connection state for the page: "connecting" (first time), "reconnecting", "busy" (the
   * server said 4503), "offline" (the device has no network), "open", or "refused" (with code). */
  status() {
    let s;
    if (this.refused) s = "refused";
    else if (this.live) s = "open";
    else if (navigator.onLine === false) s = "offline";
    else if (this.busy) s = "busy";
    else s = this.everLive || this.everClosed ? "reconnecting" : "connecting";
    this.onStatus(s, this.refused);
    this.changed();
  }

  closed(code) {
    this.ws = null;
    this.everClosed = true;
    this.live = false;
    this.requeue();
    if (REFUSED[code]) {
      this.refused = code;
      for (const e of [...this.outbox]) this.fail(e, { refused: code });
      this.status();
      return;
    }
    this.busy = code === BUSY;
    const base = this.busy ? 1000 : 500;
    const delay = Math.min(10000, base * 2 ** this.retry++) * (0.75 + Math.random() * 0.5);
    this.timer = setTimeout(() => this.connect(), delay);
    this.status();
  }

  /** The device went offline (or a sent message was never acknowledged): the socket is dead even
   * if the browser has not noticed. Let it go now, so the page says so and the entries wait. */
  drop() {
    const ws = this.ws;
    if (!ws) { this.status(); return; }
    ws.onclose = null;
    ws.onmessage = null;
    try { ws.close(); } catch { /* already closing */ }
    this.closed(1006);
  }

  /** The network is back or the page is shown again: try at once rather than at the next backoff. */
  reconnectNow() {
    if (this.refused) return;
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) return;
    this.retry = 0;
    this.connect();
  }

  /** Back from a locked screen: a socket that looks open may be dead (the phone's network changed
   * meanwhile and no close came): ask for a fresh state and drop the socket if none comes. */
  visibility() {
    if (document.hidden) { this.hiddenAt = Date.now(); return; }
    const slept = this.hiddenAt && Date.now() - this.hiddenAt > ASLEEP_MS;
    this.hiddenAt = 0;
    if (this.live && slept) {
      this.probeAt = Date.now();
      this.send({ type: "resync" });
    }
    this.reconnectNow();
  }

  // --- server -> client -------------------------------------------------------------------------

  receive(msg) {
    this.probeAt = 0;  // (anything heard: the socket lives)
    this.pingAt = 0;
    this.heardAt = Date.now();
    if (msg.type === "pong") return;
    if (msg.type === "phrase") { this.onPhrase(msg); return; }
    if (msg.type === "state") {
      this.seq = msg.seq;
      const fresh = !this.live;
      this.live = true;
      this.everLive = true;
      this.busy = false;
      this.retry = 0;
      this.lastState = msg.state;
      this.onState(msg.state, [], { fresh });
      this.settleByUpdate(msg.seq);
      if (fresh) this.status();
      this.flush();
    } else if (msg.type === "update") {
      if (msg.from_seq > this.seq + 1) {
        this.send({ type: "resync" });  // missed a message: the group send is at-most-once
        return;
      }
      if (msg.seq <= this.seq) return;
      this.seq = msg.seq;
      this.lastState = msg.state;
      this.onState(msg.state, msg.events || []);
      this.settleByUpdate(msg.seq);
    } else if (msg.type === "ack") {
      this.acks = true;
      const e = this.find(msg.id);
      if (e) this.done(e);
    } else if (msg.type === "error") {
      if (msg.code === "stale_seq") this.send({ type: "resync" });
      let e = msg.id ? (this.find(msg.id) || this.recent.get(msg.id)) : null;
      // A server that knows no ids answers a socket's messages in order: the oldest one sent.
      if (!e && !msg.id && !this.acks) e = this.outbox.find((x) => x.state === "sent");
      if (e && msg.code === "rate_limited" && e.state === "sent") {
        // Nothing happened: the same message goes again once the server's limit lets it.
        e.state = "queued";
        e.notBefore = Date.now() + Math.max(300, Number(msg.retry_after || 1) * 1000);
        this.changed();
      } else if (e) {
        this.fail(e, { code: msg.code, message: msg.message });
      } else {
        this.onError(msg, null);
      }
    }
  }

  find(id) { return this.outbox.find((e) => e.id === id); }

  // --- client -> server -------------------------------------------------------------------------

  /** A message that is not the player's (a resync): only over an open socket, never queued. */
  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** A player's message: into the outbox, out at once when the socket is live. ``opts``: ``kind``
   * (a new entry of the same kind replaces one still queued), ``mark`` (what the page marks as
   * pending), ``check(state, seq)`` (whether it still means anything on a fresh state). */
  post(message, opts = {}) {
    if (this.refused) {
      const e = { id: this.nextId++, message, ...opts };
      this.onOutbox(this.outbox, { entry: e, refused: this.refused });
      return null;
    }
    const kind = opts.kind || message.type;
    for (const old of this.outbox.filter((x) => x.kind === kind && x.state === "queued" && !x.maybeSent)) {
      this.outbox.splice(this.outbox.indexOf(old), 1);  // the player changed his mind before it went
    }
    const e = { id: this.nextId++, message: { ...message }, kind, mark: opts.mark || null, check: opts.check || null,
      state: "queued", made: Date.now(), sentAt: 0, sentSeq: 0, maybeSent: false, notBefore: 0 };
    e.message.id = e.id;
    this.outbox.push(e);
    if (this.live) this.transmit(e);
    this.changed();
    return e;
  }

  act(action, opts = {}) {
    return this.post({ type: "act", seq: this.seq, action }, { kind: "act", ...opts });
  }

  /** Whether an act is on its way (sent, not yet answered): a second one would only be refused. */
  actInFlight() { return this.outbox.some((e) => e.kind === "act" && e.state === "sent"); }

  transmit(e) {
    this.ws.send(JSON.stringify(e.message));
    e.state = "sent";
    e.sentAt = Date.now();
    e.sentSeq = this.seq;
  }

  /** After a socket's fresh state: each queued entry is checked against it, then sent in order. */
  flush() {
    for (const e of [...this.outbox]) {
      if (e.state !== "queued" || !this.live || (e.notBefore && e.notBefore > Date.now())) continue;
      const verdict = e.check ? e.check(this.lastState, this.seq, e) : "send";
      if (verdict === "done") { this.done(e); continue; }
      if (verdict && verdict.drop) { this.fail(e, { drop: verdict.drop }); continue; }
      if (verdict && verdict.restamp && e.message.type === "act") e.message.seq = this.seq;
      this.transmit(e);
    }
    this.changed();
  }

  /** A socket closed: what it sent and heard no answer to may or may not have reached the server. */
  requeue() {
    for (const e of this.outbox) {
      if (e.state === "sent") { e.state = "queued"; e.maybeSent = true; }
    }
  }

  /** A server that sends no acks: an update after a message was sent is taken as its effect. */
  settleByUpdate(seq) {
    if (this.acks) return;
    for (const e of [...this.outbox]) if (e.state === "sent" && seq > e.sentSeq) this.done(e);
  }

  done(e) { this.resolve(e); this.onOutbox(this.outbox, { entry: e, ok: true }); }

  fail(e, why) { this.resolve(e); this.onOutbox(this.outbox, { entry: e, ...why }); }

  resolve(e) {
    const i = this.outbox.indexOf(e);
    if (i >= 0) this.outbox.splice(i, 1);
    e.state = "resolved";
    this.recent.set(e.id, e);
    if (this.recent.size > 50) this.recent.delete(this.recent.keys().next().value);
  }

  changed() { this.onOutbox(this.outbox, null); }

  /** The page says whether the player has something to do now (his turn, a claim to answer). */
  setUrgent(urgent) { this.urgent = Boolean(urgent); }

  /** Every TICK_MS: give up what waited too long, settle what a server without acks left
   * unanswered, and let go of a socket that swallows messages without answering. */
  tick() {
    const now = Date.now();
    if (this.probeAt && now - this.probeAt > PROBE_MS) {
      this.probeAt = 0;
      this.drop();
      return;
    }
    const hurry = this.urgent || this.outbox.some((e) => e.state === "sent");
    if (this.pingAt && now - this.pingAt > (hurry ? URGENT_WAIT_MS : PING_WAIT_MS)) {
      this.pingAt = 0;
      this.drop();
      return;
    }
    const idle = hurry ? URGENT_IDLE_MS : PING_IDLE_MS;
    if (this.live && !this.pingAt && now - this.heardAt > idle && !document.hidden) {
      this.pingAt = now;
      this.send({ type: "ping" });
    }
    for (const e of [...this.outbox]) {
      if (e.state === "queued" && now - e.made > GIVE_UP_MS) this.fail(e, { drop: "gaveUp" });
      else if (e.state === "sent" && !this.acks && now - e.sentAt > NO_ACK_DONE_MS) this.done(e);
    }
    if (this.acks && this.live && this.outbox.some((e) => e.state === "sent" && now - e.sentAt > ACK_WAIT_MS)) {
      this.drop();
      return;
    }
    if (this.live && this.outbox.some((e) => e.state === "queued" && e.notBefore && e.notBefore <= now)) this.flush();
    if (this.outbox.length) this.changed();  // the page's "still not sent" line depends on the age
  }
}
