// The lovelet page: a full-window xterm.js terminal joined to the server's Textual app by a
// WebSocket (server/web/). Output arrives as binary frames of the terminal stream; keys go
// back as binary frames, the terminal's size as a JSON text frame {"cols": C, "rows": R}.
"use strict";

const KEYS = {
  esc: "\x1b", tab: "\t", enter: "\r",
  up: "\x1b[A", down: "\x1b[B", right: "\x1b[C", left: "\x1b[D",
};
const NAME_KEY = "lovelet.name";
const FONT_SIZE = 15;
const MIN_SIZE = { cols: 80, rows: 24 }; // the app's smallest screen
const MIN_FONT_SIZE = 5;
const TABLE_PATH = /^\/t\/([A-Za-z0-9]{1,16})$/;

const lovelet = { term: null, socket: null, closed: null };
window.lovelet = lovelet;

function tableCode() {
  const match = TABLE_PATH.exec(window.location.pathname);
  return match ? match[1].toUpperCase() : "";
}

function socketUrl(name, term) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ name, cols: term.cols, rows: term.rows });
  const code = tableCode();
  if (code) query.set("code", code);
  return `${scheme}//${window.location.host}/ws?${query}`;
}

function makeTerminal() {
  const term = new Terminal({
    cursorBlink: false,
    scrollback: 0,
    fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
    fontSize: FONT_SIZE,
    theme: { background: "#000000" },
  });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(document.getElementById("terminal"));
  fitScreen(term, fit);
  window.addEventListener("resize", () => fitScreen(term, fit));
  return term;
}

// Fill the window; on a small screen (a phone) with a smaller font, so that the app's
// smallest screen still fits.
function fitScreen(term, fit) {
  term.options.fontSize = FONT_SIZE;
  const size = fit.proposeDimensions();
  if (size) {
    const scale = Math.min(1, size.cols / MIN_SIZE.cols, size.rows / MIN_SIZE.rows);
    term.options.fontSize = Math.max(MIN_FONT_SIZE, Math.floor(FONT_SIZE * scale));
  }
  fit.fit(); // one resize, to the size at the font chosen
}

function connect(name, term) {
  const encoder = new TextEncoder();
  const socket = new WebSocket(socketUrl(name, term));
  socket.binaryType = "arraybuffer";
  lovelet.socket = socket;
  lovelet.closed = null;
  socket.addEventListener("message", (event) => {
    if (event.data instanceof ArrayBuffer) term.write(new Uint8Array(event.data));
  });
  socket.addEventListener("close", (event) => {
    lovelet.closed = { code: event.code, reason: event.reason };
    const why = event.reason ? `: ${event.reason}` : "";
    term.write(`\r\n\x1b[0m[disconnected${why}] Press Enter to connect again.\r\n`);
  });
  const send = (text) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(text));
  };
  return { socket, send };
}

function play(name) {
  document.getElementById("join").hidden = true;
  document.getElementById("terminal").hidden = false;
  const keys = document.getElementById("keys");
  keys.hidden = !window.matchMedia("(pointer: coarse)").matches; // a touch screen
  const term = makeTerminal();
  lovelet.term = term;
  let link = connect(name, term);
  term.onData((data) => {
    if (link.socket.readyState === WebSocket.OPEN) link.send(data);
    else if (data === "\r" && link.socket.readyState === WebSocket.CLOSED) link = connect(name, term);
  });
  term.onResize(({ cols, rows }) => {
    if (link.socket.readyState === WebSocket.OPEN) link.socket.send(JSON.stringify({ cols, rows }));
  });
  keys.addEventListener("click", (event) => {
    const key = event.target.dataset && event.target.dataset.key;
    if (key) link.send(KEYS[key] || key);
    term.focus();
  });
  term.focus();
}

// A browser signed in with a key (`ssh HOST web-login`) plays as that player at once; any
// other chooses a name and plays as a guest.
async function start() {
  const me = await fetch("/me", { cache: "no-store" }).then((answer) => answer.json(), () => ({}));
  if (me.name) {
    play(me.name);
    return;
  }
  const form = document.getElementById("join");
  const input = document.getElementById("name");
  const code = tableCode();
  if (code) {
    document.getElementById("invited-code").textContent = code;
    document.getElementById("invited").hidden = false;
  }
  input.value = window.localStorage.getItem(NAME_KEY) || "";
  form.hidden = false;
  input.focus();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    window.localStorage.setItem(NAME_KEY, name);
    play(name);
  });
}

start();
