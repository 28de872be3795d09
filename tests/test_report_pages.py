"""Experiment pages: the "Puis-je ?" arms, the time to open's median, a level that did not vary, the templates."""

from __future__ import annotations

from experiments import may_i, time_to_open
from experiments.findings import Finding
from experiments.stats import Estimate


def test_every_puis_je_habit_plays_against_the_same_table():
    arms = may_i.arms(may_i.Config())
    assert [a.name for a in arms] == [may_i.NEVER, may_i.BEFORE, may_i.NAIVE, may_i.NEAR]
    assert [a.strategies[0] for a in arms] == ["greedy:may_i=0", "greedy:may_i=3", "greedy:may_i=1", "greedy:may_i=2"]
    assert len({a.strategies[1:] for a in arms}) == 1 and all(a.duplicate for a in arms)
    # Every habit is compared with never asking, and stopping at the contract with the naive habit.
    assert {b for _, b in may_i.COMPARISONS} == {may_i.NEVER, may_i.NAIVE}


def test_a_level_the_same_in_every_game_says_so_with_its_bound():
    zero = Finding("share of games won", (may_i.NEAR,), Estimate(0.0, 0.0, 0.0, 0.0, 0.0, 6000), 6000, 42000)
    assert may_i.constant_sentence(zero) == ("0% in every one of the 6,000 games (95% bound: at most 0.050%)")
    naive = Finding("share of games won", (may_i.NAIVE,), Estimate(0.25, 0.25, 0.25, 0.25, 0.25, 6000), 6000, 42000)
    assert "1/players" in may_i.constant_sentence(naive)


def _median(turn: float) -> Finding:
    return Finding(time_to_open.MEDIAN, ("threshold 51, 4 players",), Estimate(turn, turn, turn, turn, turn, 100),
                   100, 1000)


def test_the_median_turn_is_given_only_where_the_shares_do_not_say_it():
    turns = (1, 2, 3, 5, 10)
    assert not time_to_open.median_says_something(_median(1.0), turns)  # the share by turn 1 is at least a half
    assert not time_to_open.median_says_something(_median(3.0), turns)  # between the shares by turns 2 and 3
    assert time_to_open.median_says_something(_median(5.0), turns)  # turn 4 is not in the table
    assert time_to_open.median_says_something(_median(12.0), turns)
    assert not time_to_open.median_says_something(_median(float("nan")), turns)


def test_a_page_from_its_templates_escapes_html_in_both_outputs(tmp_path):
    """The pages come from Jinja2 templates through sim.markup: text is escaped in the HTML (a `code` span
    kept as code) and in the Markdown (HTML and Markdown's own markup escaped, `code` kept), a table cell's
    bar escaped there, and a code block fenced past any backquotes it holds."""
    from experiments import report

    blocks = [("h1", "A <b>bold</b> & `rami report` title"), ("p", "Seat's \"hand\": 9♠ ★"),
              ("ul", ["<script>alert(1)</script>"]), ("table", ["arm", "points"], [["a|b", 1.5]]),
              ("pre", "rami report --quick > out\n```")]
    page = report.write_document(tmp_path, "<i>title</i>", blocks)
    html = page.read_text(encoding="utf-8")
    assert "<title>&lt;i&gt;title&lt;/i&gt;</title>" in html
    assert "<h1>A &lt;b&gt;bold&lt;/b&gt; &amp; <code>rami report</code> title</h1>" in html
    assert "<script>" not in html and "<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>" in html
    assert "<tr><td>a|b</td><td>1.5</td></tr>" in html and "<pre>rami report --quick &gt; out\n```</pre>" in html
    md = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert md == ("# A \\<b\\>bold\\</b\\> \\& `rami report` title\n\nSeat's \"hand\": 9♠ ★\n\n"
                  "- \\<script\\>alert(1)\\</script\\>\n\n| arm | points |\n|---|---|\n| a\\|b | 1.5 |\n\n"
                  "````sh\nrami report --quick > out\n```\n````\n")


def test_links_keep_only_relative_and_web_targets():
    from sim import markup

    for target in ["games/a.html#3", "../index.html", "https://example.org/x?y=1", "http://a.b", "//host/p"]:
        assert markup.safe_link(target) == target
    for target in ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "java\tscript:x", "vbscript:x",
                   "javascript&#58;alert(1)", "a b", "", "mailto:x@y", " javascript:x", "x\\y", "file:///etc"]:
        assert markup.safe_link(target) is None, target
    assert str(markup.inline_html("[a](javascript:alert(1)) [b](games/x.html#2)")) == \
        "[a](javascript:alert(1)) <a href='games/x.html#2'>b</a>"
    assert markup.inline_md("[a](javascript:alert(1)) [b](games/x.html#2)") == \
        "\\[a\\](javascript:alert(1)) [b](games/x.html#2)"
    title = "x](javascript:alert(1))[y"
    assert str(markup.inline_html(f"[{markup.escape_md(title)}](s/index.html)")) == \
        "<a href='s/index.html'>x](javascript:alert(1))[y</a>"
