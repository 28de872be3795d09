"""The local server of ``rami play``: the game page and the JSON API it plays through (``docs/play.md``).

Built on tornado, a well-kept asynchronous web library: the lab's Dask
cluster support already stands on it (``dask.distributed`` is a tornado
application), and the package now names it among its own dependencies.
One process holds one game (:class:`sim.play.game.TableGame`) in memory, so
a reloaded page finds the game where it was; the engine's work (the other
seats' decisions, a hint) runs on one worker thread beside the event loop,
and the review at the game's end on a thread of its own, so the page stays
answered meanwhile.

The server listens on 127.0.0.1 only, answers only requests addressed to
that host (a page of another site cannot reach it through a name that
points here), and takes a choice only as a JSON body. Every refusal is a
JSON object ``{"error": reason, "status": code}``, never a traceback.

The page is the project's own files (``templates/``: ``play.html``,
``play.css``, ``play.js``, package data): it fetches nothing else, so it
works offline; its script writes every text with ``textContent``.
"""

from __future__ import annotations

import asyncio
import json
import math
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

import tornado.httpserver
import tornado.netutil
import tornado.web

from sim.play.game import PlayError, TableGame

__all__ = ["PlayServer", "bind", "make_app", "run_in_thread"]

_FILES = {"play.js": "application/javascript; charset=utf-8", "play.css": "text/css; charset=utf-8"}


def _template(name: str) -> str:
    return resources.files("sim.play").joinpath("templates", name).read_text(encoding="utf-8")


def _clean(value: Any) -> Any:
    """``value`` with every number that is not one (a forced decision's lone choice) as ``None``: JSON has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class PlayServer:
    """The server's one game and how a new one is made: ``make_game(index)`` deals game ``index``."""

    def __init__(self, make_game: Callable[[int], TableGame], first: int = 0) -> None:
        self.make_game = make_game
        self.game = make_game(first)
        # The engine's work, one piece at a time: a game's moves and the hints.
        self.engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rami-play")
        self.lock = threading.Lock()
        self.review_if_over(self.game)  # a game the other seats ended before the person's first decision

    def new_game(self) -> TableGame:
        """Deal the next game of the simulation (the game index after the current one)."""
        game = self.make_game(self.game.game + 1)
        with self.lock:
            self.game = game
        return game

    def review_if_over(self, game: TableGame) -> None:
        """Start the review of a finished game on a thread of its own (once)."""
        with self.lock:
            if game.over is None or game.review.get("status") != "waiting":
                return
            game.review = {"status": "running"}
        threading.Thread(target=game.run_review, name="rami-review", daemon=True).start()


class _Handler(tornado.web.RequestHandler):
    """What every handler shares: the host check, JSON answers and JSON errors."""

    def initialize(self, server: PlayServer) -> None:
        self.server = server

    def prepare(self) -> None:
        host = self.request.host.rsplit(":", 1)[0].strip("[]")
        if host not in ("127.0.0.1", "localhost"):
            raise tornado.web.HTTPError(403, reason=f"this server answers 127.0.0.1 and localhost only, not {host!r}")

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")

    def answer(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(_clean(data), ensure_ascii=False, allow_nan=False))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        reason = self._reason
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, tornado.web.HTTPError) and exc.reason:
            reason = exc.reason
        elif exc is not None and not isinstance(exc, tornado.web.HTTPError):
            reason = f"the server failed: {type(exc).__name__}: {exc}"
        self.set_status(status_code)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": reason, "status": status_code}, ensure_ascii=False))

    def refuse(self, status: int, reason: str) -> None:
        self.answer({"error": reason, "status": status}, status)

    def body(self) -> dict[str, Any]:
        """The request's JSON object (an empty body is ``{}``); a :class:`PlayError` for anything else."""
        kind = self.request.headers.get("Content-Type", "")
        raw = self.request.body or b""
        if raw.strip() and not kind.split(";")[0].strip().lower() == "application/json":
            raise PlayError(415, "send the body as JSON (Content-Type: application/json)")
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PlayError(400, f"the body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise PlayError(400, f"the body must be a JSON object, got {type(data).__name__}")
        return data

    def number(self, name: str) -> int | None:
        """A whole-number query argument, or ``None`` when absent."""
        text = self.get_query_argument(name, None)
        if text is None:
            return None
        try:
            value = int(text)
        except ValueError:
            raise PlayError(400, f"{name}={text!r}: a whole number is expected") from None
        if value < 0:
            raise PlayError(400, f"{name}={value}: must be 0 or more")
        return value

    async def on_engine(self, work: Callable[[], Any]) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.server.engine, work)


class PageHandler(_Handler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(_template("play.html"))


class FileHandler(_Handler):
    def get(self, name: str) -> None:
        if name not in _FILES:
            raise tornado.web.HTTPError(404, reason=f"no file {name!r}")
        self.set_header("Content-Type", _FILES[name])
        self.finish(_template(name))


class StateHandler(_Handler):
    async def get(self) -> None:
        try:
            since = self.number("since")
        except PlayError as exc:
            return self.refuse(exc.status, exc.reason)
        game = self.server.game
        self.answer(await self.on_engine(lambda: game.state(since)))


class ChoiceHandler(_Handler):
    async def post(self) -> None:
        try:
            data = self.body()
            unknown = sorted(set(data) - {"decision", "choice"})
            if unknown:
                raise PlayError(400, f"unknown keys {', '.join(map(repr, unknown))}: send 'decision' and 'choice'")
            for key in ("decision", "choice"):
                if key not in data:
                    raise PlayError(400, f"the body lacks {key!r}: send {{\"decision\": N, \"choice\": ID}}")
        except PlayError as exc:
            return self.refuse(exc.status, exc.reason)
        game = self.server.game
        since = len(game.frames)

        def play() -> dict[str, Any]:
            game.choose(data["decision"], data["choice"])
            return game.state(since)

        try:
            state = await self.on_engine(play)
        except PlayError as exc:
            return self.refuse(exc.status, exc.reason)
        self.server.review_if_over(game)
        self.answer(state)


class NewGameHandler(_Handler):
    async def post(self) -> None:
        try:
            data = self.body()
            if data:
                raise PlayError(400, f"a new game takes no settings (got {', '.join(map(repr, sorted(data)))}); "
                                     "the table is the command's")
        except PlayError as exc:
            return self.refuse(exc.status, exc.reason)

        def deal() -> dict[str, Any]:
            game = self.server.new_game()
            return game.state(0)

        state = await self.on_engine(deal)
        self.server.review_if_over(self.server.game)  # a game the other seats ended before the person's first decision
        self.answer(state)


class HintHandler(_Handler):
    async def get(self) -> None:
        try:
            decision = self.number("decision")
            game = self.server.game
            game.hint_view(decision)
        except PlayError as exc:
            return self.refuse(exc.status, exc.reason)
        try:
            hint = await self.on_engine(lambda: game.hint(decision))
        except PlayError as exc:
            return self.refuse(exc.status, exc.reason)
        self.answer(hint)


class RulesHandler(_Handler):
    def get(self) -> None:
        self.answer(self.server.game.rules_text())


class RecordHandler(_Handler):
    def get(self) -> None:
        game = self.server.game
        if game.record_text is None:
            return self.refuse(409, "the record is given at the game's end")
        name = f"{game.preset}-seed{game.seed}-game{game.game}-seat{game.seat}.txt"
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        if self.get_query_argument("download", None) is not None:
            self.set_header("Content-Disposition", f'attachment; filename="{name}"')
        self.finish(game.record_text)


class ReviewHandler(_Handler):
    def get(self) -> None:
        game = self.server.game
        if game.review_page is None:
            status = game.review.get("status", "waiting")
            why = {"waiting": "the review is made at the game's end", "running": "the review is being made",
                   "failed": f"the review failed: {game.review.get('reason', '')}"}.get(status, status)
            return self.refuse(409, why)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(game.review_page)


class IconHandler(_Handler):
    def get(self) -> None:
        # The page has no icon: an empty answer keeps a browser from logging a missing one.
        self.set_status(204)
        self.finish()


class MissingHandler(_Handler):
    def prepare(self) -> None:
        super().prepare()
        raise tornado.web.HTTPError(404, reason=f"nothing at {self.request.path!r}: see docs/play.md")


def make_app(server: PlayServer) -> tornado.web.Application:
    """The tornado application of ``server``: the page, its files and the API (``docs/play.md``)."""
    args = {"server": server}
    return tornado.web.Application([
        (r"/", PageHandler, args),
        (r"/static/([\w.]+)", FileHandler, args),
        (r"/api/state", StateHandler, args),
        (r"/api/choice", ChoiceHandler, args),
        (r"/api/new", NewGameHandler, args),
        (r"/api/hint", HintHandler, args),
        (r"/api/rules", RulesHandler, args),
        (r"/api/record", RecordHandler, args),
        (r"/review", ReviewHandler, args),
        (r"/favicon.ico", IconHandler, args),
        (r"/.*", MissingHandler, args),
    ], default_handler_class=MissingHandler, default_handler_args=args)


def bind(port: int) -> list[socket.socket]:
    """Listening sockets on 127.0.0.1 at ``port`` (0: a free port the system picks); ``OSError`` when it is taken."""
    return tornado.netutil.bind_sockets(port, "127.0.0.1", family=socket.AF_INET)


def run_in_thread(server: PlayServer, port: int = 0) -> tuple[str, Callable[[], None]]:
    """Serve ``server`` from a thread of its own: ``(address, stop)``. For tests and notebooks; ``rami play`` runs
    the event loop on its main thread."""
    sockets = bind(port)
    address = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/"
    ready = threading.Event()
    holder: dict[str, Any] = {}

    def main() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        http = tornado.httpserver.HTTPServer(make_app(server))
        http.add_sockets(sockets)
        holder["loop"], holder["http"] = loop, http
        ready.set()
        loop.run_forever()
        http.stop()
        loop.close()

    thread = threading.Thread(target=main, name="rami-play-server", daemon=True)
    thread.start()
    ready.wait()

    def stop() -> None:
        holder["loop"].call_soon_threadsafe(holder["loop"].stop)
        thread.join(timeout=10)

    return address, stop
