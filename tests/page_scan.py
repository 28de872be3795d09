"""What a reader of a page must never see: a value of the program's insides (``nan``, ``inf``, ``None``, a
Python repr) in its text, and a page's embedded data that a browser's ``JSON.parse`` refuses.

:func:`internal_values` reads a page's visible text (HTML: outside tags, scripts and styles; Markdown: outside
code blocks, which hold commands to copy) and returns each such token with a little of its context.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

# Words a person never writes on a page: a float that is not a number, Python's None and a repr of an object.
_TOKENS = re.compile(r"(?<![\w.-])(?:nan|NaN|-?inf|-?Infinity|None)(?![\w-])"
                     r"|<[\w.]+ object at 0x|\bnp\.\w+\(|\bnumpy\.\w+\(|\bDecimal\(|\bPosixPath\(|\bdict_\w+\(")


def visible_text(text: str, is_html: bool) -> str:
    """The text of a page a reader sees."""
    if is_html:
        text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S | re.I)
        text = re.sub(r"<[^>]*>", " ", text)
        return html.unescape(text)
    return re.sub(r"^(`{3,}).*?^\1", " ", text, flags=re.S | re.M)


def internal_values(path: Path) -> list[str]:
    """Each internal token on the page at ``path`` (an ``.html`` or ``.md`` file), with its context."""
    text = path.read_text(encoding="utf-8")
    found = [f"{path.name}: ...{m.string[max(0, m.start() - 40):m.end() + 20]}..."
             for m in _TOKENS.finditer(visible_text(text, path.suffix == ".html"))]
    for data in re.findall(r"<script type=\"application/json\"[^>]*>(.*?)</script>", text, flags=re.S):
        def refuse(constant: str) -> None:
            raise ValueError(constant)
        try:
            json.loads(data, parse_constant=refuse)
        except ValueError as exc:
            found.append(f"{path.name}: the page's data is not JSON a browser reads ({exc})")
    return found


def scan(folder: Path) -> list[str]:
    """Every internal token of every page under ``folder``."""
    return [hit for path in sorted(folder.rglob("*")) if path.suffix in (".html", ".md")
            for hit in internal_values(path)]
