// The play page's script: it draws the seat's view the server sends and posts the person's choices
// (docs/play.md). It computes nothing about the game, and it writes every text with textContent.
"use strict";

const query = new URLSearchParams(location.search);
// Milliseconds between two moves of the other seats (?pace=0 shows them at once).
const PACE = query.has("pace") ? Math.max(0, Number(query.get("pace")) || 0) : 700;

let state = null;      // the last state the server sent
let shown = 0;         // frames drawn so far
let busy = false;      // a request or an animation under way
let hintFor = null;    // the decision the hint panel shows
let reviewPoll = null;

const $ = (id) => document.getElementById(id);
const SUITS = { "♣": "clubs", "♦": "diamonds", "♥": "hearts", "♠": "spades" };
const CARD = /^(10|[2-9AJQK])([♣♦♥♠])$/;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function cardEl(token, extra) {
  const node = el("span", "card" + (extra ? " " + extra : ""));
  node.dataset.card = token;
  if (token === "★") {
    node.classList.add("joker");
    node.appendChild(el("span", "rank", "★"));
    return node;
  }
  const m = CARD.exec(token);
  if (!m) { node.textContent = token; return node; }
  node.classList.add(SUITS[m[2]]);
  node.appendChild(el("span", "rank", m[1]));
  node.appendChild(el("span", "suit", m[2]));
  return node;
}

function backs(n) {
  const box = el("span", "cards");
  for (let i = 0; i < Math.min(n, 14); i++) box.appendChild(el("span", "card back"));
  box.appendChild(el("span", "count", " " + n + (n === 1 ? " card" : " cards")));
  return box;
}

// Text with its cards coloured: "open 7♣ 8♣ 9♣ + ★=8♥ ..." as spans.
function cardText(text) {
  const frag = document.createDocumentFragment();
  String(text).split(/(\s+)/).forEach((word) => {
    const bare = word.replace(/[,.;:()"]/g, "");
    const m = CARD.exec(bare);
    if (m) frag.appendChild(el("span", "card-text " + SUITS[m[2]], word));
    else if (bare.startsWith("★")) frag.appendChild(el("span", "card-text joker", word));
    else frag.appendChild(document.createTextNode(word));
  });
  return frag;
}

function setStatus(text, error) {
  const s = $("status");
  s.textContent = text || "";
  s.className = error ? "error" : "";
}

function ready(flag) {
  busy = !flag;
  document.body.dataset.ready = flag ? "1" : "0";
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: "the server's answer is not JSON" }; }
  if (!response.ok) throw new Error((data && data.error) || ("HTTP " + response.status));
  return data;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ------------------------------------------------------------------ drawing

function seatName(s) {
  const me = state.game.seat;
  return s === me ? "You" : "Seat " + s + " (" + state.game.strategies[s] + ")";
}

function lastMoves() {
  const last = {};
  Array.from($("log-list").children).forEach((li) => {
    if (li.dataset.seat !== "") last[li.dataset.seat] = li.textContent;
  });
  return last;
}

function drawView(view, moving) {
  const me = state.game.seat;
  const n = view.players;
  const opened = new Set(view.opened);
  const last = lastMoves();
  const seats = clear($("seats"));
  for (let k = 1; k < n; k++) {
    const s = (me + k) % n;
    const box = el("div", "seat" + (s === moving ? " to-move" : ""));
    box.id = "seat-" + s;
    box.dataset.size = view.hand_sizes[s];
    const head = el("div", "seat-head", seatName(s));
    head.appendChild(el("span", "small", " · total " + currentTotals()[s]));
    if (opened.has(s)) head.appendChild(el("span", "badge", "opened"));
    box.appendChild(head);
    box.appendChild(backs(view.hand_sizes[s]));
    box.appendChild(el("div", "last", last[String(s)] || ""));
    seats.appendChild(box);
  }
  $("stock-size").textContent = view.stock + (view.restocks ? " (rebuilt " + view.restocks + "×)" : "");
  const pile = view.pile ? view.pile.split(" ") : [];
  const top = clear($("pile-top"));
  if (pile.length) top.appendChild(cardEl(pile[pile.length - 1]));
  else top.appendChild(el("span", "empty", "empty"));
  $("pile-size").textContent = (pile.length + view.pile_unseen) + " in the pile";
  let round = "Round " + (view.round + 1) + ", turn " + (view.turn + 1);
  if (state.contract) round += " · contract: " + contractText(state.contract);
  if (view.threshold) round += " · an opening needs " + view.threshold;
  $("round-label").textContent = round;
  const melds = clear($("melds"));
  if (!view.table.length) melds.appendChild(el("span", "empty", "none yet"));
  view.table.forEach((m, i) => {
    const box = el("span", "meld");
    box.dataset.meld = i;
    box.appendChild(el("span", "meld-id", "#" + i + " " + (m.owner === me ? "you" : "seat " + m.owner)));
    m.cards.split(" ").forEach((c) => {
      const card = cardEl(c, "mini");
      if (c === "★" && m.stands_for) {
        card.appendChild(el("span", "stands", "=" + m.stands_for));
        card.title = "the joker stands for " + m.stands_for;
      }
      box.appendChild(card);
    });
    melds.appendChild(box);
  });
  const head = clear($("me-head"));
  head.appendChild(document.createTextNode("You, seat " + me + " · total " + currentTotals()[me]));
  if (opened.has(me)) head.appendChild(el("span", "badge", "opened"));
  $("me").classList.toggle("to-move", moving === me);
  const hand = clear($("hand"));
  (view.hand ? view.hand.split(" ") : []).forEach((c, i) => {
    const card = cardEl(c);
    card.dataset.index = i;
    hand.appendChild(card);
  });
}

function contractText(c) {
  const parts = [];
  if (c.sets) parts.push(c.sets + (c.sets > 1 ? " sets" : " set"));
  if (c.runs) parts.push(c.runs + (c.runs > 1 ? " runs" : " run"));
  return parts.join(" and ") + " (deal " + c.deal + ")";
}

function currentTotals() {
  return state.totals;
}

function addLog(seat, text) {
  const li = el("li", null, null);
  li.dataset.seat = seat === null || seat === undefined ? "" : String(seat);
  li.appendChild(cardText(text));
  $("log-list").appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

function drawLog() {
  clear($("log-list"));
  state.log.forEach((item) => addLog(item.seat, item.text));
}

function choiceLabel(kind, text, view) {
  if (kind === "draw") {
    if (text === "stock") return "Draw from the stock";
    return "Take " + text.slice(5) + " from the pile";
  }
  if (kind === "lay" && text === "stop") return "Stop laying";
  if (kind === "may_i") {
    if (text === "pass") return "Pass";
    const card = text.split(" ")[2];
    return "Puis-je ? Take " + card + " (and a penalty card from the stock)";
  }
  if (kind === "discard") return "Throw " + text;
  if (kind === "next_round") return "Next round";
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function prompt(kind, view) {
  if (kind === "draw") return "Your turn: draw";
  if (kind === "lay") return "Lay cards, or stop";
  if (kind === "discard") return "Throw a card";
  if (kind === "may_i") return "Seat " + view.mover + " drew from the stock: \"Puis-je ?\"";
  if (kind === "next_round") return "The round is over";
  return "";
}

function keyOf(i) {
  return i < 9 ? String(i + 1) : i === 9 ? "0" : "";
}

function drawDecision() {
  const list = clear($("choices"));
  const decide = state.to_decide;
  for (const id of ["stock", "pile"]) {
    $(id).classList.remove("clickable");
    $(id).onclick = null;
  }
  $("decide").hidden = !decide;
  if (!decide) return;
  $("prompt").textContent = prompt(decide.kind, state.view);
  decide.choices.forEach((c, i) => {
    const li = el("li");
    const button = el("button");
    button.type = "button";
    button.dataset.choiceId = c.id;
    button.dataset.choice = c.text;
    button.appendChild(el("span", "key", keyOf(i)));
    button.appendChild(cardText(choiceLabel(decide.kind, c.text, state.view)));
    button.addEventListener("click", () => choose(c.id));
    li.appendChild(button);
    list.appendChild(li);
    if (decide.kind === "draw") {
      const target = c.text === "stock" ? $("stock") : $("pile");
      target.classList.add("clickable");
      target.dataset.choiceId = c.id;
      target.onclick = () => choose(c.id);
    }
  });
  if (decide.kind === "discard") {
    const byCard = {};
    decide.choices.forEach((c) => { byCard[c.text] = c.id; });
    Array.from($("hand").children).forEach((card) => {
      const id = byCard[card.dataset.card];
      if (id === undefined) return;
      card.classList.add("legal");
      card.dataset.choiceId = id;
      card.title = "throw " + card.dataset.card;
      card.addEventListener("click", () => choose(id));
    });
  }
}

function drawScores() {
  const table = clear($("score-table"));
  const n = state.game.players;
  const head = el("tr");
  head.appendChild(el("th", null, "round"));
  for (let s = 0; s < n; s++) head.appendChild(el("th", null, s === state.game.seat ? "you" : "seat " + s));
  table.appendChild(head);
  state.rounds.forEach((r) => {
    const row = el("tr");
    row.appendChild(el("td", null, r.round + 1));
    r.points.forEach((p) => row.appendChild(el("td", "num", p)));
    table.appendChild(row);
  });
  const total = el("tr");
  total.appendChild(el("th", null, "total"));
  state.totals.forEach((t) => total.appendChild(el("th", "num", t)));
  table.appendChild(total);
  const better = state.game.lower_is_better ? "fewer points are better" : "more points are better";
  $("title").textContent = "Rami lab: " + state.game.rules + " for " + n + " — you are seat " + state.game.seat +
    " (" + better + ")";
}

function drawRoundOver() {
  const box = $("round-over");
  if (state.phase !== "round_over" || !state.rounds.length) { box.hidden = true; return; }
  const r = state.rounds[state.rounds.length - 1];
  let title = "Round " + (r.round + 1) + ": ";
  if (r.winner === null) title += "blocked (" + r.blocked + ")";
  else title += (r.winner === state.game.seat ? "you went out" : "seat " + r.winner + " went out") +
    (r.rami_sec ? " (rami sec)" : "");
  $("round-over-title").textContent = title;
  const table = clear($("round-table"));
  const head = el("tr");
  ["", "points", "total"].forEach((t) => head.appendChild(el("th", null, t)));
  table.appendChild(head);
  r.points.forEach((p, s) => {
    const row = el("tr");
    row.appendChild(el("td", null, s === state.game.seat ? "you" : "seat " + s));
    row.appendChild(el("td", "num", p));
    row.appendChild(el("td", "num", r.totals[s]));
    table.appendChild(row);
  });
  box.hidden = false;
  $("next-round").focus();
}

function drawGameOver() {
  const panel = $("game-over");
  if (state.phase !== "game_over") { panel.hidden = true; return; }
  panel.hidden = false;
  const o = state.over;
  let result = o.truncated ? "Stopped at the round cap. " : "";
  if (o.winner === null) result += "The best total is shared.";
  else result += (o.winner === state.game.seat ? "You win" : "Seat " + o.winner + " wins") + ".";
  result += " Totals: " + o.totals.map((t, s) => (s === state.game.seat ? "you " : "seat " + s + " ") + t).join(", ");
  $("result").textContent = result;
  const links = clear($("record-links"));
  const a = el("a", null, "Download the record");
  a.id = "record-link";
  a.href = "/api/record?download=1";
  links.appendChild(a);
  if (state.record && state.record.saved) links.appendChild(el("span", "small", " (saved as " + state.record.saved + ")"));
  drawReview(state.review || { status: "waiting" });
}

function fixed(x, d) {
  return x === null || x === undefined ? "—" : Number(x).toFixed(d);
}

function drawReview(review) {
  const box = clear($("review"));
  box.dataset.status = review.status;
  if (review.status !== "ready") {
    box.appendChild(el("p", null, review.status === "failed" ? "The review failed: " + review.reason :
      "Reviewing your decisions by rollouts…"));
    if (!reviewPoll && review.status !== "failed") reviewPoll = setTimeout(pollReview, 1500);
    return;
  }
  box.appendChild(el("h3", null, "Your review"));
  const marks = review.marks;
  box.appendChild(el("p", null, review.decisions + " decisions, " + review.choices + " with a choice; points given up " +
    fixed(review.loss, 1) + " (error rate " + fixed(review.error_rate, 2) + " a decision); marks: " +
    marks.doubtful + " doubtful ?!, " + marks.bad + " bad ?, " + marks["very bad"] + " very bad ??"));
  if (review.costliest.length) {
    box.appendChild(el("p", "small", "The costliest decisions (loss against the best choice, round points, 95% interval):"));
    const table = el("table", "grid");
    table.id = "costliest";
    const head = el("tr");
    ["round", "decision", "played", "best", "loss", "mark"].forEach((t) => head.appendChild(el("th", null, t)));
    table.appendChild(head);
    review.costliest.forEach((d) => {
      const row = el("tr");
      row.appendChild(el("td", null, d.round + 1));
      row.appendChild(el("td", null, d.kind));
      const played = el("td"); played.appendChild(cardText(d.played)); row.appendChild(played);
      const best = el("td"); best.appendChild(cardText(d.best)); row.appendChild(best);
      row.appendChild(el("td", "num", fixed(d.loss, 1) + " [" + fixed(d.loss_ci[0], 1) + ", " + fixed(d.loss_ci[1], 1) + "]"));
      const mark = el("td");
      if (d.mark) mark.appendChild(el("span", "mark mark-" + d.mark.replace(" ", "-"), d.mark));
      row.appendChild(mark);
      table.appendChild(row);
    });
    box.appendChild(table);
  }
  const p = el("p");
  const a = el("a", null, "Open the review's game page");
  a.id = "review-link";
  a.href = review.url;
  a.target = "_blank";
  p.appendChild(a);
  box.appendChild(p);
}

async function pollReview() {
  reviewPoll = null;
  try {
    const fresh = await api("GET", "/api/state");
    if (fresh.phase !== "game_over") return;
    state = fresh;
    drawReview(state.review);
  } catch (e) {
    reviewPoll = setTimeout(pollReview, 3000);
  }
}

function drawAll() {
  drawScores();
  drawView(state.view, state.phase === "play" ? (state.to_decide && state.to_decide.kind === "may_i" ?
    state.game.seat : state.view.mover) : null);
  drawDecision();
  drawRoundOver();
  drawGameOver();
  if (hintFor !== state.decision) { $("hint").hidden = true; hintFor = null; }
  document.body.dataset.decision = state.decision;
  document.body.dataset.phase = state.phase;
  document.body.dataset.kind = state.to_decide ? state.to_decide.kind : "";
}

// ------------------------------------------------------------------ playing

// Show the other seats' moves one by one, then the state they lead to.
async function play(frames) {
  for (const f of frames) {
    f.text.forEach((t) => addLog(f.seat, t));
    if (f.seat !== null && f.seat !== state.game.seat && PACE > 0 && f.text.length) {
      drawView(f.view, f.seat);
      await sleep(PACE);
    }
  }
  shown = state.frame_count;
  drawAll();
}

async function choose(id) {
  if (busy || !state || !state.to_decide) return;
  ready(false);
  setStatus("");
  const dealing = state.phase === "round_over";
  try {
    const fresh = await api("POST", "/api/choice", { decision: state.decision, choice: id });
    state = fresh;
    if (dealing) clear($("log-list"));
    $("round-over").hidden = true;
    const mine = (fresh.frames.length && fresh.frames[0].seat === fresh.game.seat) ? [fresh.frames[0]] : [];
    if (mine.length) drawView(mine[0].view, null);
    await play(fresh.frames);
  } catch (e) {
    setStatus(e.message, true);
    await load();
  }
  ready(true);
}

async function load() {
  try {
    state = await api("GET", "/api/state");
    shown = state.frame_count;
    drawLog();
    drawAll();
  } catch (e) {
    setStatus("cannot reach the server: " + e.message, true);
  }
}

async function newGame() {
  if (busy) return;
  if (state && state.phase !== "game_over" && !window.confirm("Leave this game and deal a new one?")) return;
  ready(false);
  try {
    state = await api("POST", "/api/new", {});
    clear($("log-list"));
    await play(state.frames);
    setStatus("a new game is dealt");
  } catch (e) {
    setStatus(e.message, true);
  }
  ready(true);
}

async function hint() {
  if (!state || state.phase !== "play" || busy) return;
  const panel = $("hint");
  panel.hidden = false;
  hintFor = state.decision;
  const table = clear($("hint-table"));
  $("hint-status").textContent = "rolling every choice out…";
  const started = performance.now();
  try {
    const h = await api("GET", "/api/hint?decision=" + state.decision);
    if (h.decision !== state.decision) return;
    const r = h.rollout;
    const better = r.lower_is_better ? "fewer is better" : "more is better";
    $("hint-status").textContent = r.trials + " trials a choice, " + h.strategies[0] + " playing the futures; mean round points (" +
      better + ") with 95% intervals (" + ((performance.now() - started) / 1000).toFixed(1) + " s)";
    const head = el("tr");
    ["#", "choice", "points", "against the best", "goes out"].forEach((t) => head.appendChild(el("th", null, t)));
    table.appendChild(head);
    document.querySelectorAll(".hinted").forEach((n) => n.classList.remove("hinted"));
    r.choices.forEach((c, i) => {
      const row = el("tr", c.best ? "best" : "");
      row.dataset.choice = c.choice;
      row.appendChild(el("td", null, c.id === null ? "" : keyOf(state.to_decide.choices.findIndex((x) => x.id === c.id))));
      const label = el("td");
      label.appendChild(cardText(choiceLabel(state.to_decide.kind, c.choice, state.view)));
      row.appendChild(label);
      row.appendChild(el("td", "num", fixed(c.points, 2) + " [" + fixed(c.points_ci[0], 2) + ", " + fixed(c.points_ci[1], 2) + "]"));
      row.appendChild(el("td", "num", c.best ? "best" : fixed(c.diff, 2) + " [" + fixed(c.diff_ci[0], 2) + ", " + fixed(c.diff_ci[1], 2) + "]"));
      row.appendChild(el("td", "num", fixed(100 * c.p_out, 0) + "%"));
      table.appendChild(row);
      if (i === 0 && c.id !== null) {
        const button = document.querySelector('#choices button[data-choice-id="' + c.id + '"]');
        if (button) button.classList.add("hinted");
        if (state.to_decide.kind === "discard") {
          const card = document.querySelector('#hand .card[data-card="' + CSS.escape(c.choice) + '"]');
          if (card) card.classList.add("hinted");
        }
      }
    });
  } catch (e) {
    $("hint-status").textContent = "no hint: " + e.message;
  }
}

async function toggleRules() {
  const box = $("rules");
  if (!box.hidden) { box.hidden = true; return; }
  try {
    const r = await api("GET", "/api/rules");
    $("rules-title").textContent = "The rules in force: " + r.rules +
      (Object.keys(r.overrides).length ? " with " + Object.entries(r.overrides).map(([k, v]) => k + "=" + v).join(", ") : "");
    const table = clear($("rules-table"));
    const head = el("tr");
    ["knob", "value", "meaning"].forEach((t) => head.appendChild(el("th", null, t)));
    table.appendChild(head);
    r.knobs.forEach((k) => {
      const row = el("tr");
      row.appendChild(el("td", null, k.knob));
      row.appendChild(el("td", null, String(k.value)));
      row.appendChild(el("td", null, k.meaning));
      table.appendChild(row);
    });
    box.hidden = false;
  } catch (e) {
    setStatus(e.message, true);
  }
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (key === "Escape") { $("rules").hidden = true; $("hint").hidden = true; return; }
  if (key === "r") { toggleRules(); return; }
  if (key === "h") { hint(); return; }
  if (key === "n") { newGame(); return; }
  if (!state || !state.to_decide) return;
  const choices = state.to_decide.choices;
  if (key === "Enter" && (state.phase === "round_over" || choices.length === 1)) {
    event.preventDefault();
    choose(choices[0].id);
    return;
  }
  if (/^[0-9]$/.test(key)) {
    const i = key === "0" ? 9 : Number(key) - 1;
    if (i < choices.length) choose(choices[i].id);
  }
});

$("hint-button").addEventListener("click", hint);
$("rules-button").addEventListener("click", toggleRules);
$("rules-close").addEventListener("click", () => { $("rules").hidden = true; });
$("new-button").addEventListener("click", newGame);
$("next-round").addEventListener("click", () => { if (state && state.to_decide) choose(state.to_decide.choices[0].id); });

load().then(() => ready(true));
