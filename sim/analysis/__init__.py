"""Game analysis: every decision of a traced game valued by rollouts, and the game page that shows it.

:mod:`sim.analysis.decisions` holds the values (:class:`Analysis`,
:class:`Decision`, :class:`Candidate`) and the marks.
"""

from sim.analysis.decisions import MARK_THRESHOLDS, MARKS, Analysis, Candidate, Decision, mark

__all__ = ["Analysis", "Candidate", "Decision", "MARKS", "MARK_THRESHOLDS", "mark"]
