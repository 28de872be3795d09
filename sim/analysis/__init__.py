"""Game analysis: every decision of a traced game valued by rollouts, and the game page that shows it.

:mod:`sim.analysis.decisions` holds the values (:class:`Analysis`,
:class:`Decision`, :class:`Candidate`) and the marks; :mod:`sim.analysis.page`
writes the game page (:func:`to_html`, :func:`write_html`) of an analysis or
of a plain trace.
"""

from sim.analysis.decisions import MARK_THRESHOLDS, MARKS, Analysis, Candidate, Decision, mark
from sim.analysis.page import to_html, write_html

__all__ = ["Analysis", "Candidate", "Decision", "MARKS", "MARK_THRESHOLDS", "mark", "to_html", "write_html"]
