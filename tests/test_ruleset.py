"""Rulesets, presets and their validation (docs/rules.md sections 6, 7 and 8)."""

import dataclasses

import pytest

from sim import rules
from sim.rules import KNOBS, PRESETS, Ruleset, RulesetError, load, preset
from sim.rules.ruleset import as_ruleset

RAMI51_PRESETS = ("rami51", "rami51-ducale", "rami51-classic")


def test_the_five_presets_exist_and_load():
    # docs/rules.md section 8: each preset is a complete, named ruleset.
    assert set(PRESETS) == {"rami51", "rami51-ducale", "rami51-classic", "contrat", "basic"}
    for name in PRESETS:
        r = preset(name)
        assert isinstance(r, Ruleset)
        # complete: every knob is set in the preset file, none left to a default
        assert set(r.to_dict()) == set(KNOBS)


def test_default_preset_is_rami51():
    # docs/rules.md section 8.1: `rami51` (default) follows Règles du Rami.
    assert preset() == preset("rami51")
    assert Ruleset() == preset("rami51")


# ------------------------------------------------------------- section 8 table
# Every row of docs/rules.md section 8.2, the Rami 51 knobs in the three presets.
TABLE = {
    # knob: (rami51, rami51-ducale, rami51-classic)
    "jokers": (4, 4, 4),
    "open_threshold": (51, 51, 51),
    "open_needs_natural_run": (False, True, True),
    "open_threshold_rises": (False, False, False),
    "lay_all_ignores_opening": (False, False, True),
    "discard_take": ("must_use", "must_use", "must_use"),
    "discard_playable": ("allowed", "allowed", "allowed"),
    "last_card_no_discard_take": (False, False, True),
    "joker_recovery_from_set": ("missing_suit", "unambiguous_only", "unambiguous_only"),
    "go_out": ("lay_or_discard", "lay_or_discard", "discard_only"),
    "stock_exhausted": ("reshuffle", "turn_once_then_block", "reshuffle"),
    "joker_penalty": (20, 20, 25),
    "unopened_penalty": (100, 100, 100),
    "rami_sec": ("double", "flat_200", "flat_200"),
    "game_target": (500, 500, 1000),
}


@pytest.mark.parametrize("knob", sorted(TABLE))
@pytest.mark.parametrize("i, name", list(enumerate(RAMI51_PRESETS)))
def test_section_8_table_row(knob, i, name):
    assert getattr(preset(name), knob) == TABLE[knob][i]


@pytest.mark.parametrize("name", RAMI51_PRESETS)
def test_section_8_deal_row(name):
    # docs/rules.md section 8.2, row `deal`: 13 each, 13 each, 14 each and 15 to the dealer;
    # the variant: 14 to the first player.
    r = preset(name)
    if name == "rami51-classic":
        # Le jeu de Rami: "distribue 14 cartes à chaque joueur et 15 à lui-même"
        assert r.hand_size(0) == 14
        assert r.first_player_extra_card is True
    else:
        assert r.hand_size(0) == 13
        assert r.first_player_extra_card is False
    # the alternative "14 to the first player" is a valid override
    alt = preset(name, deal=13, first_player_extra_card=True)
    assert alt.hand_size(0) == 13 and alt.first_player_extra_card


@pytest.mark.parametrize("name", RAMI51_PRESETS)
def test_section_8_players_row(name):
    # docs/rules.md section 8.2, row `players`: 2-5 in each preset
    for players in (2, 3, 4, 5):
        assert preset(name, players=players).players == players
    for players in (1, 6):
        with pytest.raises(RulesetError, match="players"):
            preset(name, players=players)


@pytest.mark.parametrize("name", RAMI51_PRESETS)
def test_section_8_rami51_common_values(name):
    # Section 1: "two 52-card decks ... Jokers are added per ruleset (4 for Rami 51)";
    # section 2: min_run 3, ace_high true (Rami 51), one joker a meld;
    # section 5: ace 11 in hand.
    r = preset(name)
    assert r.game == "rami51"
    assert r.decks == 2
    assert r.n_jokers == 4
    assert r.deck_size == 108
    assert r.min_run == 3
    assert r.ace_high is True
    assert r.jokers_per_meld == 1
    assert r.ace_penalty == 11


@pytest.mark.parametrize(
    "knob, values",
    [
        # the "alternatives" column of the section 8 table
        ("jokers", [2, 0]),
        ("open_threshold", [30, 0, 61, 81]),
        ("open_threshold_rises", [True]),
        ("discard_take", ["free", "only_after_opening"]),
        ("discard_playable", ["forbidden"]),
        ("unopened_penalty", ["count_cards"]),
        ("rami_sec", ["none"]),
        ("game_target", [250]),
    ],
)
@pytest.mark.parametrize("name", RAMI51_PRESETS)
def test_section_8_alternatives_are_accepted(name, knob, values):
    for value in values:
        r = preset(name, **{knob: value})
        assert getattr(r, knob) == value
        # nothing else moved
        base = preset(name).to_dict()
        changed = {k for k, v in r.to_dict().items() if base[k] != v}
        assert changed == {knob}


# ------------------------------------------- contrat (docs/rules.md section 6)
def test_contrat_preset_values():
    r = preset("contrat")
    assert r.game == "contrat"
    assert r.decks == 2
    assert r.jokers == "players-1"
    # section 6: runs of at least 4 cards
    assert r.min_run == 4
    assert r.ace_high is True
    # section 6.6: ace 15, joker 15
    assert (r.ace_penalty, r.joker_penalty) == (15, 15)
    # section 6.2: seven deals
    assert r.game_rounds == 7
    # section 6.4: "Puis-je ?" on, at most three cards leave the discard by it
    assert r.may_i is True and r.may_i_limit == 3
    # section 6.5: going out by discarding the last card, except deal 7
    assert r.go_out == "discard_only"
    # section 3.1: discard_take free in contrat; section 6.7: the online
    # contrat turns the stock once (turn_once_then_block) and counts hands
    assert r.discard_take == "free"
    assert r.stock_exhausted == "turn_once_then_block"
    assert r.blocked_scoring == "hands"


def test_contrat_deals_and_contracts():
    # The table of docs/rules.md section 6.2; Règles du Rami contrat: « On distribue 10
    # cartes pour les trois premières donnes, 12 cartes pour les quatre suivantes. »
    expected = [
        (1, (2, 0), 10),
        (2, (1, 1), 10),
        (3, (0, 2), 10),
        (4, (3, 0), 12),
        (5, (2, 1), 12),
        (6, (1, 2), 12),
        (7, (0, 3), 12),
    ]
    r = preset("contrat")
    for deal, contract, dealt in expected:
        assert r.contract(deal) == contract
        assert r.hand_size(deal - 1) == dealt
    for bad in (0, 8):
        with pytest.raises(RulesetError):
            r.contract(bad)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_contrat_jokers_are_players_minus_one(players):
    # Règles du Rami: "un joker de moins qu'il n'y a de joueurs : 2 jokers à trois,
    # 3 à quatre, 4 à cinq"
    r = preset("contrat", players=players)
    assert r.n_jokers == players - 1
    assert r.deck_size == 104 + players - 1


@pytest.mark.parametrize("players", [2, 6])
def test_contrat_player_count_refused(players):
    # docs/rules.md section 6.1: 3 to 5 players
    with pytest.raises(RulesetError) as info:
        preset("contrat", players=players)
    assert "players" in str(info.value)


# --------------------------------------------- basic (docs/rules.md section 7)
def test_basic_preset_values():
    r = preset("basic")
    assert r.game == "basic"
    # one 52-card deck, no joker
    assert r.decks == 1 and r.n_jokers == 0 and r.deck_size == 52
    # ace low only
    assert r.ace_high is False
    # no opening minimum: melds and additions to any table meld from the first turn
    assert r.open_threshold == 0
    assert r.open_needs_natural_run is False
    assert r.add_before_opening is True
    assert r.discard_take == "free"
    # laying the last card goes out, no final discard needed
    assert r.go_out == "lay_or_discard"
    assert r.stock_exhausted == "flip_no_shuffle"
    # ace 1, faces 10; a "rami" doubles; three rounds
    assert r.ace_penalty == 1
    assert r.rami_sec == "double"
    assert r.game_rounds == 3


@pytest.mark.parametrize("players, dealt", [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_basic_hand_size_by_player_count(players, dealt):
    # docs/rules.md section 7: 10 cards each at two players, 7 at three or four, 6 at five
    # or six; Bicycle basic rummy: « dix cartes
    # chacun à deux ; sept à trois ou quatre ; six à cinq ou six »
    assert preset("basic", players=players).hand_size(0) == dealt


def test_basic_with_7_players_refused():
    # docs/rules.md section 7: 2 to 6 players
    with pytest.raises(RulesetError) as info:
        preset("basic", players=7)
    assert "players" in str(info.value)


def test_the_player_range_is_the_rules_and_fits_the_engines_seats():
    # sim.rules owns who may sit at each game; every bound elsewhere (the study file, the experiments, the
    # command line's options, a seat view's and a record's head) imports it, and the engine's arrays hold
    # exactly the most seats any game has.
    from sim.engine.state import MAX_SEATS

    assert (rules.MIN_PLAYERS, rules.MAX_PLAYERS) == (2, 6) and rules.MAX_PLAYERS == MAX_SEATS
    for game, (low, high) in rules.PLAYERS.items():
        name = next(n for n in PRESETS if preset(n).game == game)
        for players in (low, high):
            assert preset(name, players=players).players == players
        for players in (low - 1, high + 1):
            with pytest.raises(RulesetError, match=f"{game} is played by {low} to {high} players"):
                preset(name, players=players)


# ------------------------------------------------------------ stock and deck
def test_stock_after_the_deal_at_two_players_is_81():
    # Règles du Rami: "après la donne, il reste 81 cartes à piocher (108 moins les 26
    # distribuées et la première carte de la défausse)"
    r = preset("rami51", players=2)
    stock = r.deck_size - r.players * r.hand_size(0) - 1
    assert r.deck_size == 108
    assert stock == 108 - 26 - 1 == 81


# ----------------------------------------------------------------- overrides
def test_overrides_and_replace():
    r = preset("rami51", open_threshold=30, players=3)
    assert (r.open_threshold, r.players) == (30, 3)
    r2 = r.replace(rami_sec="none")
    assert r2.rami_sec == "none" and r.rami_sec == "double"
    assert r2.open_threshold == 30
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 5
    # replace validates like construction
    with pytest.raises(RulesetError, match="open_threshold"):
        r.replace(open_threshold=-1)
    with pytest.raises(RulesetError, match="no_such_knob"):
        r.replace(no_such_knob=1)


def test_as_ruleset_accepts_a_name_or_a_ruleset():
    r = preset("basic")
    assert as_ruleset(r) is r
    assert as_ruleset("contrat") == preset("contrat")


# -------------------------------------------------------------------- errors
def test_unknown_preset_is_named():
    with pytest.raises(RulesetError) as info:
        preset("rami52")
    assert "rami52" in str(info.value)


def test_unknown_knob_is_named():
    with pytest.raises(RulesetError) as info:
        preset("rami51", open_treshold=30)
    assert "open_treshold" in str(info.value)


def test_ruleset_error_is_a_value_error():
    assert issubclass(RulesetError, ValueError)


def _message(**kw):
    base = kw.pop("preset_name", "rami51")
    with pytest.raises(RulesetError) as info:
        preset(base, **kw)
    return str(info.value)


def test_contrat_with_2_players_names_players():
    assert "players" in _message(preset_name="contrat", players=2)


def test_negative_threshold_names_open_threshold():
    # docs/rules.md section 8.5: a negative opening threshold
    assert "open_threshold" in _message(open_threshold=-1)


def test_five_jokers_with_two_decks_names_jokers():
    # "more jokers than the rules allow"
    assert "jokers" in _message(jokers=5)
    assert "jokers" in _message(preset_name="basic", jokers=3)


def test_bad_choice_names_knob_and_allowed_values():
    # "refused with an error that names the knob and the allowed values"
    msg = _message(discard_take="sometimes")
    assert "discard_take" in msg
    for allowed in ("must_use", "free", "only_after_opening"):
        assert allowed in msg
    msg = _message(rami_sec="triple")
    assert "rami_sec" in msg
    for allowed in ("double", "flat_200", "none"):
        assert allowed in msg


@pytest.mark.parametrize(
    "knob, value",
    [
        ("players", "four"),
        ("players", True),
        ("open_threshold", 51.0),
        ("ace_high", "yes"),
        ("jokers", "many"),
        ("deal", "thirteen"),
        ("unopened_penalty", "lots"),
    ],
)
def test_wrong_type_names_the_knob(knob, value):
    assert knob in _message(**{knob: value})


# ---------------------------------------------------------------- TOML files
def test_load_file_without_preset_starts_from_rami51(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("open_threshold = 61\nplayers = 2\n", encoding="utf-8")
    r = load(path)
    assert r == preset("rami51", open_threshold=61, players=2)


def test_load_file_with_a_preset_base(tmp_path):
    path = tmp_path / "ducale30.toml"
    path.write_text('preset = "rami51-ducale"\nopen_threshold = 30\n', encoding="utf-8")
    r = load(path)
    assert r.open_threshold == 30
    assert r.open_needs_natural_run is True  # kept from the base
    assert r.rami_sec == "flat_200"
    assert r == preset("rami51-ducale", open_threshold=30)
    # overrides given to load win over the file
    assert load(path, open_threshold=0).open_threshold == 0
    # a .toml path is accepted wherever a ruleset is
    assert as_ruleset(str(path)) == r


def test_load_contrat_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('preset = "contrat"\nplayers = 5\n', encoding="utf-8")
    r = load(path)
    assert r.n_jokers == 4


def test_load_malformed_toml(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("open_threshold = \n[[[\n", encoding="utf-8")
    with pytest.raises(RulesetError):
        load(path)


def test_load_file_with_unknown_knob_names_it(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text("jokerz = 2\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load(path)
    assert "jokerz" in str(info.value)


def test_load_file_with_unknown_preset_names_it(tmp_path):
    path = tmp_path / "base.toml"
    path.write_text('preset = "rami99"\n', encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load(path)
    assert "rami99" in str(info.value)


def test_load_file_with_a_non_text_preset_is_refused(tmp_path):
    # The preset key must name a preset; a number names none. Like any other bad
    # value in a ruleset file it is refused with a RulesetError ("refused with an
    # error that names the knob and the allowed values"), not a crash.
    path = tmp_path / "num.toml"
    path.write_text("preset = 3\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load(path)
    assert "preset" in str(info.value)


def test_load_file_with_wrong_type_names_the_knob(tmp_path):
    path = tmp_path / "type.toml"
    path.write_text('players = "four"\n', encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load(path)
    assert "players" in str(info.value)


def test_more_than_one_joker_a_meld_refused():
    # docs/rules.md section 2.3: at most one joker in a meld (jokers_per_meld = 1).
    assert "jokers_per_meld" in _message(jokers_per_meld=2)


def test_load_file_with_contradiction_names_the_knob(tmp_path):
    path = tmp_path / "c2.toml"
    path.write_text('preset = "contrat"\nplayers = 2\n', encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load(path)
    assert "players" in str(info.value)


def test_the_facts_of_the_games_match_the_engine_and_the_scoring():
    # The engine writes a blocked round's reason as a code: the names are
    # the rules' facts, read in this order by the trace and the result frame.
    from sim.engine import round as R

    codes = [R.BLOCK_NONE, R.BLOCK_STOCK, R.BLOCK_TURN_CAP, R.BLOCK_CYCLE, R.BLOCK_TABLE_CLOSED]
    assert [rules.BLOCKED_REASONS[c] for c in codes] == ["none", "stock", "turn_cap", "cycle", "table_closed"]
    assert rules.blocked_reasons("contrat")[-1] == "table_closed"
    assert "table_closed" not in rules.blocked_reasons("rami51") + rules.blocked_reasons("basic")
    assert {g: rules.better_points(g) for g in rules.GAMES} == {"rami51": "lower", "contrat": "lower",
                                                                "basic": "higher"}
    with pytest.raises(ValueError, match="unknown game 'gin'"):
        rules.better_points("gin")


def test_the_rule_book_writes_the_rules_contract_table():
    # docs/rules.md section 6.2 writes the contract table out for people; sim.rules.CONTRACTS is its one
    # owner, which the engine compiles in (below): the page must say the same sets, runs and cards dealt.
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("### 6.2 The seven contracts", 1)[1].split("\n\n", 2)[1]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()[2:]]

    def count(kind: str, words: str) -> int:
        found = re.search(rf"(\d+) {kind}s?\b", words)
        return int(found.group(1)) if found else 0

    written = [(count("set", contract), count("run", contract), int(dealt)) for _, contract, dealt in rows]
    assert [int(deal) for deal, _, _ in rows] == list(range(1, len(rules.CONTRACTS) + 1))
    assert written == list(rules.CONTRACTS)
    assert "without a final discard" in rows[rules.WHOLE_HAND_DEAL - 1][1]


def test_the_engine_plays_the_rules_contract_table():
    # docs/rules.md section 6.2: the rules own Rami contrat's contract table;
    # the engine compiles in the same sets, runs, cards dealt and whole-hand
    # deal, read off that table, and the results frame names the same deal.
    from sim.engine import actions as A
    from sim.engine import params as P

    r = preset("contrat")
    assert P.CONTRACT_DEALS == len(rules.CONTRACTS) == 7
    for deal in range(1, 8):
        slot = deal - 1  # the engine's slot: round index % 7
        assert (P.CONTRACT_SETS[slot], P.CONTRACT_RUNS[slot]) == r.contract(deal)
        assert P.CONTRACT_DEALT[slot] == r.hand_size(slot) == r.hand_size(slot + 7)
        assert (slot == P.CONTRACT_WHOLE_HAND) == (deal == rules.WHOLE_HAND_DEAL == 7)
        assert rules.contract_deal(slot) == deal
    # the laying kernels read the very tuples of params, not copies of their own
    assert (A.CONTRACT_SETS, A.CONTRACT_RUNS) == (P.CONTRACT_SETS, P.CONTRACT_RUNS)
    assert A.CONTRACT_SETS is P.CONTRACT_SETS and A.CONTRACT_RUNS is P.CONTRACT_RUNS
