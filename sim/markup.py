"""The one owner of markup in the pages the lab writes: every text that came from a file or a person is
written as text, never as markup.

Study files, rulesets, strategy names, traces and game records are shared: a
study's ``title`` is typed by whoever wrote the file, and the person who
opens its page did not. So every page the lab writes (the reports, a
study's page, a tournament's, the game page, the review page) goes through
this module:

- :func:`html_templates` and :func:`markdown_templates` are the Jinja2
  environments of every page template: HTML autoescaped, Markdown with every
  value made safe Markdown (:func:`inline_md`) as it is written.
- A page's text may hold the lab's own small markup: a `code` span in
  backquotes, a ``[label](target)`` link, a backslash before a punctuation
  mark to write that mark as it is. :func:`inline_html` and
  :func:`inline_md` read it the same way; anything else is text (HTML
  escaped in both outputs).
- :func:`safe_link` keeps a link's target only when it is relative or
  ``http``/``https``; any other link (``javascript:``, ``data:``, a target
  a browser would read as one) is written as the text it was.
- :func:`escape_md` writes a text so that none of its characters is markup
  of either kind: for a person's text placed inside the lab's markup (a
  study's title as a link's label).

The play page (``sim/play/templates``) is static: its script writes every
text with ``textContent``, and the server sends only JSON.
"""

from __future__ import annotations

import html
import re
import string
from dataclasses import dataclass

import jinja2
from markupsafe import Markup

__all__ = ["escape_md", "fence", "html_templates", "inline_html", "inline_md", "markdown_templates", "md_target", "safe_link",
           "text_html"]

_PUNCTUATION = frozenset(string.punctuation)
"""What a backslash escapes (CommonMark's ASCII punctuation)."""

# A link target: no space, no control character, nothing a Markdown reader decodes into another character
# (an entity's '&', a backslash), nothing that ends an attribute or a tag. Every link the lab writes fits.
_TARGET = re.compile(r"[A-Za-z0-9\-._~/?#:@!$*+,;=%']+")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


def safe_link(target: str) -> str | None:
    """``target`` when a link may point there: relative (``games/x.html#3``, ``../index.html``,
    ``//host/path``) or ``http``/``https``; ``None`` for any other (``javascript:``, ``data:``,
    ``mailto:``, a target with a space, a control character, a backslash or an ``&``)."""
    if not isinstance(target, str) or not target or _TARGET.fullmatch(target) is None:
        return None
    scheme = _SCHEME.match(target)
    if scheme is not None and scheme.group(1).lower() not in ("http", "https"):
        return None
    # A colon before the first '/', '?' or '#' would be read as a scheme by a browser.
    head = re.split(r"[/?#]", target, maxsplit=1)[0]
    if scheme is None and ":" in head:
        return None
    return target


def escape_md(text: str) -> str:
    """``text`` with every character the lab's markup or Markdown could read written as itself: a backslash
    before each ASCII punctuation mark, and lines joined. Rendered by :func:`inline_html` or
    :func:`inline_md` (or any Markdown reader), it reads as ``text``."""
    joined = " ".join(str(text).split())
    return "".join("\\" + c if c in _PUNCTUATION else c for c in joined)


@dataclass(frozen=True)
class _Piece:
    kind: str  # "text", "code" or "link"
    text: str
    target: str = ""
    label: tuple["_Piece", ...] = ()


def _pieces(text: str, links: bool = True) -> list[_Piece]:
    """The lab's markup of ``text``: text, `code` spans, and ``[label](target)`` links with a safe target."""
    out: list[_Piece] = []
    buffer: list[str] = []

    def flush() -> None:
        if buffer:
            out.append(_Piece("text", "".join(buffer)))
            buffer.clear()

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in _PUNCTUATION:
            buffer.append(text[i + 1])
            i += 2
            continue
        if c == "`":
            end = text.find("`", i + 1)
            if end > i + 1:
                flush()
                out.append(_Piece("code", text[i + 1:end]))
                i = end + 1
                continue
            buffer.append(c)
            i += 1
            continue
        if c == "[" and links:
            link = _link_at(text, i)
            if link is not None:
                label, target, end = link
                flush()
                out.append(_Piece("link", "", target, tuple(_pieces(label, links=False))))
                i = end
                continue
        buffer.append(c)
        i += 1
    flush()
    return out


def _link_at(text: str, start: int) -> tuple[str, str, int] | None:
    """``(label, target, end)`` of a ``[label](target)`` at ``start`` whose target :func:`safe_link` keeps."""
    i = start + 1
    while i < len(text) and text[i] != "]":
        i += 2 if text[i] == "\\" else 1
    if i >= len(text) or not text.startswith("](", i):
        return None
    close = text.find(")", i + 2)
    if close < 0:
        return None
    label, target = text[start + 1:i], text[i + 2:close]
    if not label.strip() or safe_link(target) is None:
        return None
    return label, target, close + 1


def inline_html(text: object, links: bool = True) -> Markup:
    """The lab's markup of ``text`` as HTML: escaped text, ``<code>`` spans and, with ``links``, anchors to
    safe targets (any other link stays text)."""
    def render(pieces: list[_Piece] | tuple[_Piece, ...]) -> str:
        parts = []
        for p in pieces:
            if p.kind == "code":
                parts.append(f"<code>{html.escape(p.text)}</code>")
            elif p.kind == "link":
                parts.append(f"<a href='{html.escape(p.target)}'>{render(p.label)}</a>")
            else:
                parts.append(html.escape(p.text))
        return "".join(parts)

    return Markup(render(_pieces(str(text), links)))


def text_html(text: object) -> Markup:
    """``text`` escaped for HTML, quotes too (as in an attribute): no markup read at all."""
    return Markup(html.escape(str(text)))


def _md_text(text: str) -> str:
    # Markdown reads raw HTML, entities, links, emphasis and escapes: each such character is escaped.
    return "".join("\\" + c if c in "\\`*_[]<>&!|#" else c for c in text)


def inline_md(text: object) -> str:
    """The lab's markup of ``text`` as one line of safe Markdown: `code` spans and links to safe targets kept,
    every other character that Markdown would read as markup (HTML included) escaped, lines joined."""
    def render(pieces: list[_Piece] | tuple[_Piece, ...]) -> str:
        parts = []
        for p in pieces:
            if p.kind == "code":
                # A code span is read as it is: only a backquote could end it, and it holds none.
                parts.append(f"`{p.text}`" if p.text.strip() else _md_text(f"`{p.text}`"))
            elif p.kind == "link":
                parts.append(f"[{render(p.label)}]({p.target})")
            else:
                parts.append(_md_text(p.text))
        return "".join(parts)

    return render(_pieces(" ".join(str(text).split())))


def fence(text: str) -> str:
    """The backquotes that open and close a Markdown code block holding ``text``: longer than any run of
    backquotes inside it, so the text cannot end the block."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _finalize_md(value: object) -> object:
    """Every value a Markdown template writes, made safe Markdown (a :class:`MarkdownSafe` as it is)."""
    if isinstance(value, MarkdownSafe):
        return str(value)
    return inline_md(value)


class MarkdownSafe(str):
    """Text a Markdown template writes as it is: made by this module (a code block's fence, a table's
    separator line, a figure's file name), never a person's."""


def md_target(target: str) -> MarkdownSafe:
    """A link target a Markdown template writes: ``target`` when :func:`safe_link` keeps it, else ``#``."""
    return MarkdownSafe(safe_link(str(target)) or "#")


def _common(environment: jinja2.Environment) -> jinja2.Environment:
    environment.filters.update(inline=inline_html, text=text_html, md_safe=MarkdownSafe, fence=fence,
                               md_target=md_target)
    return environment


def html_templates(package: str, folder: str = "templates") -> jinja2.Environment:
    """The Jinja2 environment of a package's HTML templates: autoescaped, strict about undefined names, with
    the filters ``inline`` (:func:`inline_html`) and ``text`` (:func:`text_html`)."""
    return _common(jinja2.Environment(loader=jinja2.PackageLoader(package, folder), autoescape=True,
                                      undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True))


def markdown_templates(package: str, folder: str = "templates") -> jinja2.Environment:
    """The Jinja2 environment of a package's Markdown templates: every value written goes through
    :func:`inline_md` unless marked ``| md_safe`` (the lab's own fixed text only)."""
    return _common(jinja2.Environment(loader=jinja2.PackageLoader(package, folder), autoescape=False,
                                      finalize=_finalize_md, undefined=jinja2.StrictUndefined, trim_blocks=True,
                                      lstrip_blocks=True))
