"""``rami play``: a game against the lab through its JSON API (docs/play.md), without a browser.

Whole games of all three games are played through a real local server with
random legal choices, and each game's record replays through the rules
reference; the game's trace kept by the server passes the replay checker.
Bad requests get a JSON error and leave the game as it was; bad options
exit 2 with one line before anything is started. Two deals that differ only
in cards the seat cannot see give identical answers until one of those cards
leaves the stock.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sim
from sim import cards as cardlib
from sim import rules
from sim.game_record import parse_record
from sim.play.game import TableGame, game_result, say
from sim.play.server import PlayServer, run_in_thread
from sim.position import Position
from sim.rules.replay import check_trace

ROOT = Path(__file__).resolve().parents[1]


class Client:
    """The API as a script sees it: JSON in, JSON out, the status of a refusal kept."""

    def __init__(self, address: str) -> None:
        self.address = address

    def call(self, method: str, path: str, body: Any = None, raw: bytes | None = None,
             kind: str = "application/json") -> tuple[int, Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.address + path.lstrip("/"), data=data, method=method,
                                         headers={"Content-Type": kind} if data is not None else {})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read().decode()
                status = response.status
                is_json = response.headers.get_content_type() == "application/json"
        except urllib.error.HTTPError as exc:
            text = exc.read().decode()
            status = exc.code
            is_json = exc.headers.get_content_type() == "application/json"
        return status, (json.loads(text) if is_json else text)

    def state(self, since: int | None = None) -> dict[str, Any]:
        status, data = self.call("GET", "api/state" + ("" if since is None else f"?since={since}"))
        assert status == 200, data
        return data

    def choose(self, decision: int, choice: Any) -> dict[str, Any]:
        status, data = self.call("POST", "api/choice", {"decision": decision, "choice": choice})
        assert status == 200, data
        return data


def _server(r: rules.Ruleset, opponents: list[str], seat: int = 0, seed: int = 3, **options: Any) -> PlayServer:
    return PlayServer(lambda game: TableGame(r, opponents, seat=seat, seed=seed, game=game, **options))


@pytest.fixture
def served(request) -> Iterator[tuple[Client, PlayServer]]:
    r, opponents, options = request.param
    server = _server(r, opponents, **options)
    address, stop = run_in_thread(server)
    try:
        yield Client(address), server
    finally:
        stop()


# ------------------------------------------------------------------ the game


def test_a_round_of_a_game_stands_where_the_simulated_game_deals_it():
    names = ["greedy", "expert", "expert"]
    for preset in ("rami51", "contrat"):
        events = sim.play_traced(preset, names, seed=5, game=2)
        deals = [i for i, e in enumerate(events) if e["type"] == "deal"][:2]
        for k, d in enumerate(deals):
            totals = next((e["totals"] for e in reversed(events[:d]) if e["type"] == "round_end"), [0, 0, 0])
            p = Position.game_round(preset, names, seed=5, game=2, round=k, totals=totals)
            assert p.totals == tuple(totals)
            while p.decision != "over":
                _, p = p.step()
            end = next(i for i in range(d, len(events)) if events[i]["type"] == "round_end")
            assert p.events + list(p.play_out().events) == events[d:end]


def test_the_game_ends_as_the_rules_say():
    r51 = rules.preset("rami51").replace(players=3)
    assert game_result(r51, 3, [120, 480, 90]) == (False, None)
    assert game_result(r51, 3, [520, 480, 90]) == (True, 2)
    assert game_result(r51, 3, [520, 90, 90]) == (False, None)  # a shared lowest total plays on
    basic = rules.preset("basic").replace(players=3)
    assert game_result(basic, 2, [10, 0, 0]) == (False, None)
    assert game_result(basic, 3, [10, 40, 0]) == (True, 1)
    assert game_result(basic, 3, [40, 40, 0]) == (True, None)


def test_a_record_line_is_said_in_words():
    # The page's log words a record's line as every page words an event (sim.event_words), the person as "you".
    assert say("2 drew", 1) == "Seat 2 draws from the stock"
    assert say("1 drew 9♦", 1) == "You draw 9♦ from the stock"
    assert say("0 asks 7♣", 1) == "Seat 0 says \"Puis-je ?\" and takes 7♣ and a penalty card"
    assert say("1 asks 7♣ penalty 2♦", 1) == "You say \"Puis-je ?\" and take 7♣ with the penalty card 2♦"
    assert say("1 threw 9♦", 1) == "You throw 9♦" and say("0 took Q♣", 1) == "Seat 0 takes Q♣ from the discard pile"
    assert say("0 add 7♣ to 2 high", 1) == "Seat 0 adds 7♣ to meld 2 at its high end"
    assert say("blocked stock", 1) == "The round is blocked: the stock is used up"
    assert say("round 3 deal 4", 1) == "Round 4 (deal 4) is dealt"


def _random_game(client: Client, rng: random.Random, check_refusals: bool = False) -> dict[str, Any]:
    state = client.state()
    seen = state["frame_count"]
    refused_at_round_end = False
    while state["phase"] != "game_over":
        choices = state["to_decide"]["choices"]
        if check_refusals and state["phase"] == "round_over" and not refused_at_round_end:
            # A play choice at a round's end is no choice of this decision.
            before = client.state()
            status, error = client.call("POST", "api/choice", {"decision": state["decision"], "choice": "stock"})
            assert status == 422 and "not a legal choice" in error["error"]
            assert client.state() == before
            refused_at_round_end = True
        pick = rng.randrange(len(choices))
        state = client.choose(state["decision"], pick if rng.random() < 0.5 else choices[pick]["text"])
        assert [f["index"] for f in state["frames"]] == list(range(seen, state["frame_count"]))
        seen = state["frame_count"]
    return state


GAMES = [
    (rules.preset("rami51").replace(players=3), ["greedy", "expert"], {"seat": 1}),
    (rules.preset("contrat").replace(players=3), ["expert", "greedy"], {"seat": 2}),
    (rules.preset("basic").replace(players=3), ["expert", "expert"], {"seat": 0}),
]


@pytest.mark.parametrize("served", [(r, o, {**opts, "review_trials": 8}) for r, o, opts in GAMES], indirect=True,
                         ids=[g[0].game for g in GAMES])
def test_whole_games_through_the_api_replay_through_the_rules_reference(served, tmp_path):
    client, server = served
    server.game.records = tmp_path
    rng = random.Random(7)
    state = _random_game(client, rng, check_refusals=True)
    game = server.game
    check_trace(game.events)  # the server's trace of the game, every card, obeys the rules
    status, record = client.call("GET", "api/record")
    assert status == 200
    parsed = parse_record(record)  # the seat's record, read back through the rules reference
    assert parsed.seat == game.seat and len(parsed.rounds) == len(state["rounds"])
    assert [r["points"] for r in state["rounds"]][-1] == [int(x) for x in record.rstrip().splitlines()[-1].split()[1:]]
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == record
    assert state["over"]["totals"] == state["totals"]
    # A second game is the next game of the seed.
    status, fresh = client.call("POST", "api/new", {})
    assert status == 200 and fresh["phase"] == "play" and server.game.game == game.game + 1


@pytest.mark.parametrize("served", [(GAMES[2][0].replace(game_rounds=1), ["expert", "expert"],
                                     {"review_trials": 12})], indirect=True, ids=["basic"])
def test_a_game_ends_with_its_review(served):
    client, server = served
    _random_game(client, random.Random(2))
    deadline = time.time() + 60
    while (state := client.state())["review"]["status"] in ("waiting", "running") and time.time() < deadline:
        time.sleep(0.2)
    review = state["review"]
    assert review["status"] == "ready", review
    assert review["decisions"] >= review["choices"] > 0 and sum(review["marks"].values()) >= 0
    assert review["error_rate"] == pytest.approx(review["loss"] / review["decisions"])
    assert all(d["loss"] > 0 for d in review["costliest"])
    status, page = client.call("GET", "review")
    assert status == 200 and "<html" in page and "review" in page


@pytest.mark.parametrize("served", [(GAMES[1][0], ["expert", "expert"], {})], indirect=True, ids=["contrat"])
def test_the_hint_is_rami_advise_on_the_seats_view(served):
    client, _ = served
    state = client.state()
    while len(state["to_decide"]["choices"]) < 2:
        state = client.choose(state["decision"], 0)
    status, hint = client.call("GET", f"api/hint?decision={state['decision']}")
    assert status == 200
    assert hint["position"] == state["position"]
    same = sim.advise(state["position"]).to_dict()["rollout"]  # rami advise --position, its defaults
    assert [{k: v for k, v in c.items() if k != "id"} for c in hint["rollout"]["choices"]] == json.loads(
        json.dumps(same["choices"]))
    ids = {c["text"]: c["id"] for c in state["to_decide"]["choices"]}
    assert {c["choice"]: c["id"] for c in hint["rollout"]["choices"]} == ids
    # Asking changed nothing; a hint for an old decision is refused.
    assert client.state()["decision"] == state["decision"]
    state = client.choose(state["decision"], 0)
    status, error = client.call("GET", f"api/hint?decision={state['decision'] - 1}")
    assert status == 409 and "not the current one" in error["error"]


@pytest.mark.parametrize("served", [(GAMES[0][0], ["expert", "expert"], {})], indirect=True, ids=["rami51"])
def test_bad_requests_get_a_json_error_and_change_nothing(served):
    client, server = served
    state = client.state()
    d = state["decision"]
    n = len(state["to_decide"]["choices"])
    bad = [
        (("POST", "api/choice"), {"raw": b"{not json"}, 400, "not JSON"),
        (("POST", "api/choice"), {"raw": b"[1, 2]"}, 400, "JSON object"),
        (("POST", "api/choice"), {"raw": "\u00e9".encode("latin-1")}, 400, "not JSON"),
        (("POST", "api/choice"), {"body": {"choice": 0}}, 400, "lacks 'decision'"),
        (("POST", "api/choice"), {"body": {"decision": d}}, 400, "lacks 'choice'"),
        (("POST", "api/choice"), {"body": {"decision": d, "choice": 0, "card": "7♣"}}, 400, "unknown keys"),
        (("POST", "api/choice"), {"body": {"decision": str(d), "choice": 0}}, 400, "decision counter"),
        (("POST", "api/choice"), {"body": {"decision": d, "choice": 1.5}}, 400, "choice's id"),
        (("POST", "api/choice"), {"body": {"decision": d, "choice": True}}, 400, "choice's id"),
        (("POST", "api/choice"), {"body": {"decision": d, "choice": n}}, 422, "not one of this decision's ids"),
        (("POST", "api/choice"), {"body": {"decision": d, "choice": -1}}, 422, "not one of this decision's ids"),
        (("POST", "api/choice"), {"body": {"decision": d, "choice": "throw the table"}}, 422, "not a legal choice"),
        (("POST", "api/choice"), {"body": {"decision": d + 1, "choice": 0}}, 409, "not the current one"),
        (("POST", "api/choice"), {"raw": b"decision=0", "kind": "application/x-www-form-urlencoded"}, 415, "JSON"),
        (("POST", "api/new"), {"body": {"seed": 4}}, 400, "no settings"),
        (("GET", "api/state?since=x"), {}, 400, "whole number"),
        (("GET", "api/state?since=-1"), {}, 400, "0 or more"),
        (("GET", "api/hint?decision=zz"), {}, 400, "whole number"),
        (("GET", f"api/hint?decision={d + 3}"), {}, 409, "not the current one"),
        (("GET", "api/record"), {}, 409, "game's end"),
        (("GET", "review"), {}, 409, "game's end"),
        (("GET", "api/nothing"), {}, 404, "nothing at"),
        (("DELETE", "api/state"), {}, 405, ""),
    ]
    for (method, path), how, status, words in bad:
        got, error = client.call(method, path, **how)
        assert got == status and isinstance(error, dict), (path, how, got, error)
        assert error["status"] == status and words in error["error"], (path, how, error)
        assert "Traceback" not in json.dumps(error)
        assert client.state() == state, (path, how)
    # The game is unharmed: the choice goes through, once; the same decision again is stale.
    after = client.choose(d, 0)
    assert after["decision"] == d + 1
    status, error = client.call("POST", "api/choice", {"decision": d, "choice": 0})
    assert status == 409 and client.state()["decision"] == d + 1


def test_a_request_to_another_host_name_is_refused():
    server = _server(rules.preset("basic").replace(players=2), ["greedy"])
    address, stop = run_in_thread(server)
    try:
        request = urllib.request.Request(address + "api/state", headers={"Host": "example.com"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=30)
        assert caught.value.code == 403
    finally:
        stop()


def test_the_page_is_the_packages_own_and_writes_text_only():
    from importlib import resources

    folder = resources.files("sim.play").joinpath("templates")
    page = folder.joinpath("play.html").read_text(encoding="utf-8")
    script = folder.joinpath("play.js").read_text(encoding="utf-8")
    for text in (page, script, folder.joinpath("play.css").read_text(encoding="utf-8")):
        assert not re.search(r"https?://", text), "the page fetches nothing from the network"
    assert re.findall(r'(?:src|href)="([^"]+)"', page) == ["/static/play.css", "/static/play.js"]
    for unsafe in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert unsafe not in script


# ------------------------------------------------------------------ nothing leaks


def _two_deals(r: rules.Ruleset, kept: int, seed: int = 11) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two scripted first rounds: the same hands, pile and top ``kept`` stock cards, the rest of the stock in
    another order."""
    deck = [c.text() for c in cardlib.deck(r.decks, r.n_jokers)]
    random.Random(seed).shuffle(deck)
    hands = []
    for s in range(r.players):
        size = r.hand_size(0) + (1 if s == 0 and r.first_player_extra_card else 0)
        hands.append(" ".join(deck[:size]))
        deck = deck[size:]
    pile, stock = deck[0], deck[1:]
    other = stock[:kept] + list(reversed(stock[kept:]))
    assert other != stock
    return ({"hands": hands, "pile": pile, "stock": " ".join(stock)},
            {"hands": hands, "pile": pile, "stock": " ".join(other)})


@pytest.mark.parametrize("preset", ["rami51", "contrat"])
def test_deals_that_differ_in_unseen_cards_answer_alike_until_one_is_seen(preset):
    r = rules.preset(preset).replace(players=3)
    kept = 14
    deals = _two_deals(r, kept)
    opponents = ["expert", "search:trials=16"]
    servers = [PlayServer(lambda game, d=d: TableGame(r, opponents, seat=1, seed=5, game=game, deal=d))
               for d in deals]
    running = [run_in_thread(s) for s in servers]
    clients = [Client(address) for address, _ in running]
    try:
        first_stock = servers[0].game.frames[0].view["stock"]

        def drawn(state: dict[str, Any]) -> int:
            return first_stock - state["view"]["stock"]

        states = [c.state(0) for c in clients]
        compared = hinted = 0
        while drawn(states[0]) <= kept and drawn(states[1]) <= kept and states[0]["phase"] == "play":
            assert states[0] == states[1]
            compared += 1
            if hinted < 2 and len(states[0]["to_decide"]["choices"]) > 1:
                hints = [c.call("GET", f"api/hint?decision={states[0]['decision']}") for c in clients]
                assert hints[0] == hints[1] and hints[0][0] == 200
                hinted += 1
            choices = [c["text"] for c in states[0]["to_decide"]["choices"]]
            pick = "stock" if "stock" in choices else ("pass" if "pass" in choices else choices[-1])
            states = [c.choose(s["decision"], pick) for c, s in zip(clients, states)]
        assert compared >= 5 and hinted == 2
        for c in clients:
            assert c.call("GET", "api/record")[0] == 409  # the record, which names the seed, waits for the end
    finally:
        for _, stop in running:
            stop()


def test_every_answer_is_the_seats_view_and_its_record():
    # What the server sends of the play is the seat's view (the seat view notation, which holds no card the
    # seat did not see: tests/test_seat_view.py) and the seat's record lines (tests/test_game_record.py), and
    # nothing else: no other hand, not even at a round's end, no stock, no seed.
    from dataclasses import fields

    from sim.seat_view import SeatView

    r = rules.preset("contrat").replace(players=3, game_rounds=2)
    game = TableGame(r, ["expert", "expert"], seat=0, seed=8)
    rng = random.Random(1)
    while game.phase != "game_over":
        game.choose(game.counter, rng.randrange(len(game.choices())))
    record = [line for line in game.record_text.splitlines()[4:] if line]
    assert [line for f in game.frames for line in f.lines] == record
    names = {f.name for f in fields(SeatView)}
    assert all(set(f.view) == names and f.view["seat"] == 0 for f in game.frames)
    text = json.dumps(game.state(0), ensure_ascii=False)
    for end in (e for e in game.events if e["type"] == "round_end"):
        for hand in end["hands"][1:]:
            if len(hand.split()) >= 3:
                assert hand not in text
    assert '"seed"' not in text and "game_start" not in text and '"hands"' not in text


# ------------------------------------------------------------------ the command


def _rami(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", "play", "--no-browser", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env={**os.environ, "RAMI_NO_WARM_UP": "1"})


@pytest.mark.parametrize("args, words", [
    (["--port", "70000"], "--port"),
    (["--port", "-1"], "--port"),
    (["--strategies", "nosuch"], "--strategies"),
    (["--strategies", "greedy,,greedy"], "--strategies"),
    (["--strategies", "ceiling"], "ceiling"),
    (["--rules", "nosuch"], "--rules"),
    (["--set", "players=9"], "--set"),
    (["--seat", "3", "--strategies", "greedy,greedy"], "--seat 3"),
    (["--set", "players=4", "--strategies", "greedy,greedy"], "--set players=4"),
    (["--records", ""], "--records"),
    (["--seed", "-2"], "--seed"),
])
def test_bad_options_exit_2_with_one_line_and_start_nothing(args, words, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sim.cli import main

    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["play", "--no-browser", *args])
    assert done.exit_code == 2, done.output
    assert isinstance(done.exception, SystemExit)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0], done.stderr
    assert done.stdout == "" and list(tmp_path.iterdir()) == []


def test_a_port_in_use_exits_2_and_starts_nothing():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _rami("--port", str(port), "--rules", "basic", "--strategies", "greedy")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"Error: --port {port}: the port is in use on 127.0.0.1; choose "
                                                "another, or --port 0 for any free one"]
    assert done.stdout == ""


def test_rami_play_serves_the_game_until_ctrl_c(tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "sim", "play", "--no-browser", "--port", "0", "--rules", "basic",
                                "--strategies", "greedy", "--seat", "1", "--seed", "4", "--records",
                                str(tmp_path / "records")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=ROOT, env={**os.environ, "RAMI_NO_WARM_UP": "1"})
    try:
        line = process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert found, line + process.stderr.read()
        client = Client(found.group(1))
        state = client.state()
        assert state["game"]["seat"] == 1 and state["game"]["strategies"] == ["greedy", "you", "greedy", "greedy"]
        status, page = client.call("GET", "")
        assert status == 200 and "/static/play.js" in page
        assert client.choose(state["decision"], 0)["decision"] == state["decision"] + 1
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "stopped" in out
    assert (tmp_path / "records").is_dir()
