"""Game analysis: every decision of a traced game valued by rollouts, and the game page that shows it.

:mod:`sim.analysis.decisions` holds the values (:class:`Analysis`,
:class:`Decision`, :class:`Candidate`) and the marks; :mod:`sim.analysis.analyse` makes them
(:func:`analyse`: every decision of a trace valued by rollouts; :func:`walk`:
every decision with the choice the trace played there); :mod:`sim.analysis.page`
writes the game page (:func:`to_html`, :func:`write_html`) of an analysis or
of a plain trace, and of a game record's review (:func:`review_html`,
:func:`write_review_html`).
"""

from sim.analysis.analyse import analyse, walk
from sim.analysis.decisions import MARK_THRESHOLDS, MARKS, Analysis, Candidate, Decision, mark
from sim.analysis.page import review_html, to_html, write_html, write_review_html

__all__ = ["Analysis", "Candidate", "Decision", "MARKS", "MARK_THRESHOLDS", "analyse", "mark", "review_html", "to_html",
           "walk", "write_html", "write_review_html"]
