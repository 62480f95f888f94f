// The table socket: reconnects with backoff, tracks seq, asks for a resync on a gap.
export class TableSocket {
  constructor(path, { onState, onError, onStatus }) {
    this.path = path;
    this.onState = onState;
    this.onError = onError;
    this.onStatus = onStatus;
    this.seq = 0;
    this.retry = 0;
    this.connect();
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    this.ws = new WebSocket(`${proto}://${location.host}${this.path}`);
    this.onStatus("connecting");
    this.ws.onopen = () => { this.retry = 0; this.onStatus("open"); };
    this.ws.onclose = (ev) => {
      this.onStatus(ev.code === 4403 || ev.code === 4404 ? "forbidden" : "closed");
      if (ev.code === 4403 || ev.code === 4404) return;
      const delay = Math.min(8000, 500 * 2 ** this.retry++);
      setTimeout(() => this.connect(), delay);
    };
    this.ws.onmessage = (ev) => this.receive(JSON.parse(ev.data));
  }

  receive(msg) {
    if (msg.type === "state") {
      this.seq = msg.seq;
      this.onState(msg.state, []);
    } else if (msg.type === "update") {
      if (msg.from_seq > this.seq + 1) {
        this.send({ type: "resync" });  // missed a message: the group send is at-most-once
        return;
      }
      if (msg.seq <= this.seq) return;
      this.seq = msg.seq;
      this.onState(msg.state, msg.events || []);
    } else if (msg.type === "error") {
      if (msg.code === "stale_seq") this.send({ type: "resync" });
      this.onError(msg);
    }
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  act(action) {
    this.send({ type: "act", seq: this.seq, action });
  }
}
