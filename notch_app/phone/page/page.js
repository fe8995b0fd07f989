"use strict";
// The phone page: pairs once (a key made here, never leaving this phone), then shows the
// cards waiting in Notch and signs each answer with that key. Text from cards is only
// ever set as textContent: nothing an agent sends can become markup or script here.
const ARMING_MS = 600; // as on the desktop: a card that just appeared or changed waits
const $ = (id) => document.getElementById(id);
const state = { version: -1, device: null, key: null, shown: new Map() };

function status(text) { $("status").textContent = text || ""; }
function show(section) {
  for (const id of ["pairing", "unpaired", "cards"]) $(id).hidden = id !== section;
}
function b64(buffer) {
  let s = ""; for (const byte of new Uint8Array(buffer)) s += String.fromCharCode(byte);
  return btoa(s);
}

function store() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open("notch-phone", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("keys");
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}
async function keyGet() {
  const db = await store();
  return new Promise((resolve) => {
    const req = db.transaction("keys").objectStore("keys").get("device");
    req.onsuccess = () => resolve(req.result || null);
    req.onerror = () => resolve(null);
  });
}
async function keyPut(value) {
  const db = await store();
  return new Promise((resolve, reject) => {
    const tx = db.transaction("keys", "readwrite");
    tx.objectStore("keys").put(value, "device");
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}
async function sign(privateKey, text) {
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" }, privateKey, new TextEncoder().encode(text));
  return b64(signature);
}
async function api(path, body) {
  const init = { credentials: "same-origin", headers: { "X-Notch": "1" } };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  return { ok: response.ok, code: response.status, data };
}

// --- pairing ------------------------------------------------------------------------
function pairingFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const code = params.get("pair");
  return code ? { code, fp: params.get("fp") || "" } : null;
}
function guessName() {
  const ua = navigator.userAgent;
  const model = /Android [^;]+; ([^;)]+)/.exec(ua);
  if (model && model[1] && !/^K$|wv/.test(model[1])) return model[1].trim().slice(0, 40);
  if (/iPhone/.test(ua)) return "iPhone";
  if (/iPad/.test(ua)) return "iPad";
  return "Phone";
}
async function pair(invite) {
  const button = $("pair-button");
  button.disabled = true;
  status("Pairing…");
  try {
    const pairKey = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
    const publicKey = b64(await crypto.subtle.exportKey("spki", pairKey.publicKey));
    const proof = await sign(pairKey.privateKey, "notch-pair-v1:" + invite.code);
    const name = $("pair-name").value.trim() || guessName();
    const answer = await api("/api/pair", { code: invite.code, name, publicKey, proof });
    if (!answer.ok) { status(answer.data.error || "Pairing failed."); button.disabled = false; return; }
    await keyPut({ privateKey: pairKey.privateKey, deviceId: answer.data.device.id });
    history.replaceState(null, "", location.pathname); // the code is used up: forget it
    status("Paired as " + answer.data.device.name + ".");
    start();
  } catch (error) {
    status("Pairing failed: " + error);
    button.disabled = false;
  }
}

// --- cards ------------------------------------------------------------------------------
function render(cards) {
  const list = $("list");
  const open = new Set(cards.map((c) => c.callId));
  for (const [id, entry] of state.shown) {
    if (!open.has(id)) { entry.node.remove(); state.shown.delete(id); }
  }
  for (const card of cards) {
    const known = state.shown.get(card.callId);
    if (known && known.card.digest === card.digest && known.card.nonce === card.nonce) continue;
    const node = build(card);
    if (known) known.node.replaceWith(node); else list.appendChild(node);
    state.shown.set(card.callId, { card, node });
  }
  $("empty").hidden = cards.length > 0;
}
function build(card) {
  const node = $("card-template").content.firstElementChild.cloneNode(true);
  node.dataset.callId = card.callId;
  const q = (s) => node.querySelector(s);
  q(".asker").textContent = card.asker + " → " + card.integration + (card.batch ? " · " + card.batch : "");
  q(".headline").textContent = card.headline;
  if (card.note) { q(".note").hidden = false; q(".note").textContent = card.note; }
  for (const [label, value] of card.facts) {
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.textContent = value;
    q(".facts").append(dt, dd);
  }
  q(".read-back").textContent = card.readBack || card.headline;
  const approve = q(".approve");
  approve.disabled = true;
  if (card.approvable) setTimeout(() => { approve.disabled = false; node.dataset.armed = "1"; }, ARMING_MS);
  else { q(".secret").hidden = false; approve.hidden = true; }
  approve.addEventListener("click", () => answer(card, node, "approve", ""));
  q(".decline").addEventListener("click", () => answer(card, node, "decline", ""));
  q(".send-words").addEventListener("click", () => {
    const words = q(".words").value.trim();
    if (words) answer(card, node, "words", words);
  });
  return node;
}
async function answer(card, node, decision, words) {
  for (const b of node.querySelectorAll("button")) b.disabled = true;
  const payload = JSON.stringify({
    v: 1, device: state.device.id, callId: card.callId, digest: card.digest,
    decision, words, nonce: card.nonce,
  });
  const said = node.querySelector(".said");
  try {
    const signature = await sign(state.key.privateKey, payload);
    const reply = await api("/api/answer", { payload, signature });
    said.textContent = reply.ok
      ? (reply.data.outcome === "approved" ? "Approved ✓" : "Sent: " + reply.data.outcome)
      : (reply.data.error || "Not sent.");
    node.dataset.answered = reply.ok ? reply.data.outcome : "refused";
  } catch (error) {
    said.textContent = "Not sent: " + error;
    node.dataset.answered = "refused";
  }
}

async function poll() {
  for (;;) {
    let reply;
    try { reply = await api("/api/cards?since=" + state.version); }
    catch (error) { status("Notch is not reachable; trying again…"); await new Promise((r) => setTimeout(r, 2000)); continue; }
    if (reply.code === 401) { show("unpaired"); status(""); document.body.dataset.state = "unpaired"; return; }
    if (!reply.ok) { status(reply.data.error || "Notch refused."); await new Promise((r) => setTimeout(r, 2000)); continue; }
    status("");
    state.version = reply.data.version;
    state.device = reply.data.device;
    $("who").textContent = state.device.name;
    show("cards");
    document.body.dataset.state = "cards";
    render(reply.data.cards);
  }
}

async function start() {
  const invite = pairingFromHash();
  if (invite) {
    show("pairing");
    document.body.dataset.state = "pairing";
    if (invite.fp) $("pair-check").textContent =
      "Your browser's certificate for this page should begin " + invite.fp.slice(0, 16).toUpperCase().replace(/(..)(?=.)/g, "$1:");
    $("pair-name").value = guessName();
    $("pair-button").onclick = () => pair(invite);
    return;
  }
  state.key = await keyGet();
  if (!state.key) { show("unpaired"); document.body.dataset.state = "unpaired"; return; }
  poll();
}
if (!window.isSecureContext || !crypto.subtle) {
  show("unpaired"); status("Open this page over https, as the code in Notch says.");
} else {
  start();
}
