// The game page's script: draws the cards of one step from the page's JSON data and moves between steps.
// Every state was computed in Python by the rules reference; this script only draws it, and writes
// text with textContent (never as markup).
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const steps = data.steps;
  const suits = { "\u2663": "clubs", "\u2666": "diamonds", "\u2665": "hearts", "\u2660": "spades" };
  const decisionSteps = Object.keys(data.decisions).map(Number).sort((a, b) => a - b);
  let current = 0;
  // "belief": the seat to move's hand alone; "all": every hand; "seat": a record's seat's hand alone, the only
  // hand its data holds (the other hands are sizes).
  let view = data.view;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // One card face: "10♥" -> rank "10", suit "♥"; "★" is the joker.
  function card(text) {
    const node = el("span", "card");
    node.dataset.card = text;
    if (text === "\u2605") {
      node.classList.add("joker");
      node.append(el("span", "rank", "\u2605"));
      return node;
    }
    const suit = text.slice(-1);
    node.classList.add(suits[suit]);
    node.append(el("span", "rank", text.slice(0, -1)), el("span", "suit", suit));
    return node;
  }

  function back() {
    return el("span", "card back");
  }

  function cards(text) {
    const row = el("span", "cards");
    for (const t of text.split(" ").filter(Boolean)) row.append(card(t));
    return row;
  }

  function drawHands(step) {
    const hands = document.getElementById("hands");
    hands.replaceChildren();
    step.hands.forEach((hand, seat) => {
      const size = step.sizes ? step.sizes[seat] : hand.split(" ").filter(Boolean).length;
      const shown = view === "all" || seat === (view === "seat" ? data.seat : step.to_move);
      const box = el("div", "seat seat-" + seat);
      box.id = "hand-" + seat;
      box.dataset.seat = seat;
      box.dataset.shown = shown ? "yes" : "no";
      if (seat === step.to_move) box.classList.add("to-move");
      const name = data.strategies[seat] ? " (" + data.strategies[seat] + ")" : "";
      const head = el("div", "seat-head", "Seat " + seat + name + ", " + size +
        (size === 1 ? " card" : " cards") + (step.opened[seat] ? ", opened" : ""));
      box.append(head);
      if (shown) {
        box.append(cards(hand));
        for (const decision of data.decisions[current] || []) markDiscard(box, decision, seat);
      } else {
        const row = el("span", "cards");
        for (let i = 0; i < size; i++) row.append(back());
        box.append(row);
      }
      hands.append(box);
    });
  }

  // At an analysed discard, the card thrown and the best card to throw are outlined in the hand.
  function markDiscard(box, decision, seat) {
    if (decision.kind !== "discard" || decision.seat !== seat) return;
    for (const [choice, cls] of [[decision.best, "best-card"], [decision.played, "played-card"]]) {
      const found = Array.from(box.querySelectorAll(".card")).find((c) => c.dataset.card === choice);
      if (found) found.classList.add(cls);
    }
  }

  function drawTable(step) {
    const melds = document.getElementById("melds");
    melds.replaceChildren();
    if (!step.table.length) melds.append(el("span", "empty", "no meld laid"));
    for (const [id, text] of step.table) {
      const meld = el("span", "meld");
      meld.dataset.meld = id;
      meld.append(el("span", "meld-id", String(id)), cards(text));
      melds.append(meld);
    }
    document.getElementById("stock-size").textContent = step.stock + " cards";
    const top = document.getElementById("pile-top");
    top.replaceChildren(step.pile ? card(step.pile) : el("span", "empty", "empty"));
    document.getElementById("pile-size").textContent = step.pile_size ? "(" + step.pile_size + " cards)" : "";
    document.getElementById("totals").textContent = step.totals.join(" / ");
  }

  function drawDecision(stepIndex) {
    const here = (data.decisions[stepIndex] || []).map((d) => d.index);
    for (const panel of document.querySelectorAll("article.decision")) {
      panel.hidden = !here.includes(Number(panel.dataset.decision));
    }
    const none = document.getElementById("no-decision");
    if (none) none.hidden = here.length > 0;
    for (const point of document.querySelectorAll("circle.point")) {
      point.classList.toggle("current", Number(point.dataset.step) === stepIndex);
    }
    const cursor = document.getElementById("cursor");
    if (cursor) {
      const svg = cursor.ownerSVGElement;
      const margin = Number(svg.dataset.margin);
      const x = margin + (svg.viewBox.baseVal.width - 2 * margin) * stepIndex / Math.max(steps.length - 1, 1);
      cursor.setAttribute("x1", x);
      cursor.setAttribute("x2", x);
    }
  }

  function show(index) {
    current = Math.max(0, Math.min(steps.length - 1, index));
    const step = steps[current];
    document.body.dataset.step = current;
    document.getElementById("step-index").textContent = current;
    document.getElementById("round").textContent = step.round === null ? "" : ", round " + (step.round + 1);
    document.getElementById("caption").textContent = step.caption;
    drawTable(step);
    drawHands(step);
    drawDecision(current);
    const toggle = document.getElementById("view-toggle");
    if (toggle) {
      toggle.textContent = view === "all" ? "Show the seat to move's view (V)" : "Show every hand (V)";
      toggle.setAttribute("aria-pressed", view === "all" ? "true" : "false");
    }
    document.body.dataset.view = view;
    try {
      history.replaceState(null, "", "#" + current); // a reload comes back to this step
    } catch (e) {
      // some browsers refuse to touch the address of a local file: the page works without it
    }
  }

  function nextDecision(direction) {
    const later = direction > 0 ? decisionSteps.find((s) => s > current)
      : decisionSteps.slice().reverse().find((s) => s < current);
    if (later !== undefined) show(later);
  }

  function toggleView() {
    if (view === "seat") return; // a record's page has no other hand to show
    view = view === "all" ? "belief" : "all";
    show(current);
  }

  const buttons = {
    first: () => show(0), prev: () => show(current - 1), next: () => show(current + 1),
    last: () => show(steps.length - 1), "prev-decision": () => nextDecision(-1),
    "next-decision": () => nextDecision(1), "view-toggle": toggleView,
  };
  for (const [id, action] of Object.entries(buttons)) {
    const button = document.getElementById(id);
    if (button) button.addEventListener("click", action);
  }
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const keys = { ArrowLeft: buttons.prev, ArrowRight: buttons.next, Home: buttons.first, End: buttons.last,
      v: toggleView, V: toggleView };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });
  for (const point of document.querySelectorAll("circle.point")) {
    point.addEventListener("click", () => show(Number(point.dataset.step)));
  }
  const asked = Number(location.hash.slice(1));
  show(Number.isInteger(asked) && asked > 0 ? asked : 0);
})();
