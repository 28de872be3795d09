"""Who may import whom: the engine stands on its own, and the rest builds on it.

Each module's imports are read from its source with :mod:`ast` (imports
inside functions included, relative ones made absolute), so a line crossed
anywhere in a file fails here, naming the file and the import. Imports made
by a string at run time (``importlib.import_module``) are not seen.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (folder, what no module in it may import, why)
LINES = [
    ("sim/engine", "strategies", "strategies/ builds on the engine, not the reverse"),
    ("sim/engine", "experiments", "the engine never imports the experiments"),
    ("sim/engine", "sim.api", "the engine never imports the API"),
    ("sim/engine", "sim.cli", "the engine never imports the command line"),
    ("sim/rules", "sim.engine", "the rules reference is the independent ground truth the engine is checked against"),
]

# Crossings allowed by name, each with its reason (none today: the batch
# best opening, a compiled search, is offered by the API, sim.best_openings).
ALLOWED: dict[str, str] = {}


def module_name(path: Path, root: Path = ROOT) -> str:
    """``sim/engine/play.py`` -> ``sim.engine.play`` (a package's ``__init__.py`` is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, as absolute dotted names.

    ``from a.b import c`` counts as importing ``a.b`` and ``a.b.c`` (``c``
    may be a module); a relative import is resolved against the file's package.
    """
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names if alias.name != "*")
    return found


def crossings(folder: str, forbidden: str, root: Path = ROOT) -> list[str]:
    """``"module imports name"`` for every module under ``folder`` that imports ``forbidden`` or a part of it."""
    out = []
    for path in sorted((root / folder).rglob("*.py")):
        hits = {m for m in imports_of(path, root) if m == forbidden or m.startswith(forbidden + ".")}
        # "from strategies.policies import a, b" is one crossing, not three.
        for imported in sorted(m for m in hits if not any(m.startswith(h + ".") for h in hits)):
            out.append(f"{module_name(path, root)} imports {imported}")
    return out


@pytest.mark.parametrize("folder, forbidden, why", LINES, ids=[f"{f} -/-> {x}" for f, x, _ in LINES])
def test_no_module_crosses_a_line(folder, forbidden, why):
    assert (ROOT / folder).is_dir()
    found = [c for c in crossings(folder, forbidden) if c not in ALLOWED]
    assert not found, f"{why}; but: " + "; ".join(found)


def test_each_allowed_crossing_is_still_made():
    # An allowance that no longer matches an import would silently excuse
    # nothing today and hide a different crossing tomorrow: keep the list exact.
    made = {c for folder, forbidden, _ in LINES for c in crossings(folder, forbidden)}
    assert set(ALLOWED) <= made, f"stale allowances: {sorted(set(ALLOWED) - made)}"


def test_the_engine_modules_are_all_read():
    # The line above is only as good as the files it reads: every engine
    # module, including the compiled policies and the Python callback.
    names = {module_name(p) for p in (ROOT / "sim" / "engine").rglob("*.py")}
    assert {"sim.engine", "sim.engine.play", "sim.engine.policies", "sim.engine.callbacks",
            "sim.engine.position", "sim.engine.warm", "sim.engine.turn", "sim.engine.round", "sim.engine.game"} <= names


# ------------------------------------------------------- the table of rooms

ARCHITECTURE = ROOT / "docs" / "architecture.md"
PATH_WORD = re.compile(r"`([A-Za-z0-9_*./-]+(?:\.py|\.toml|/))`")


def rooms_table(text: str) -> list[tuple[str, str]]:
    """``(room, what it owns)`` of every line of the table under "## The rooms" in docs/architecture.md's ``text``."""
    section = text.split("## The rooms", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| room |"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows.append((cells[0], cells[1]))
    return rows


def room_folder(room: str, root: Path = ROOT) -> Path:
    """The folder or file a room's cell names: ``sim/rules/``, ``sim/cards.py``; the ``sim`` API is ``sim/``'s own modules."""
    named = re.fullmatch(r"`([^`]+)`( API)?", room)
    assert named, f"a room is a path in backquotes: {room!r}"
    return root / named.group(1)


def room_problems(text: str, root: Path = ROOT) -> list[str]:
    """What the table of rooms gets wrong: a room or a file it names that does not exist, a module of the
    package in no room."""
    problems = []
    rows = rooms_table(text)
    folders = {}
    for room, owns in rows:
        where = room_folder(room, root)
        if not where.exists():
            problems.append(f"room {room}: {where.relative_to(root)} does not exist")
            continue
        folders[room] = where
        for word in PATH_WORD.findall(owns):
            if "/" in word.rstrip("/"):  # a path from the room or from the top: presets/*.toml, sim/intervals.py
                if not any(root.glob(word.rstrip("/"))) and not (where.is_dir() and any(where.glob(word.rstrip("/")))):
                    problems.append(f"room {room} names {word}, which does not exist")
            elif where.is_dir() and not any(where.rglob(word.rstrip("/"))):
                problems.append(f"room {room} names {word}, which is nowhere under {where.relative_to(root)}")
    api = next((owns for room, owns in rows if room.endswith(" API")), "")
    for path in sorted(p for folder in ("sim", "strategies", "experiments") for p in (root / folder).rglob("*.py")):
        homes = [w for room, w in folders.items() if not room.endswith(" API")
                 and (path == w or (w.is_dir() and w in path.parents))]
        if homes:
            continue
        # A module of sim/ outside the rooms of their own is the API's: its file, or its package, named there.
        top = path.relative_to(root / "sim").parts if (root / "sim") in path.parents else ()
        named = f"`{top[0]}`" if len(top) == 1 else f"`{top[0]}/`" if top else None
        if named is None or named not in api:
            problems.append(f"{path.relative_to(root)} is in no room of the table")
    return problems


def test_every_line_of_the_table_of_rooms_is_true():
    # Every room's path exists, every file a room names is in it, and every module of the package is in a room.
    problems = room_problems(ARCHITECTURE.read_text(encoding="utf-8"))
    assert problems == [], "docs/architecture.md's table of rooms: " + "; ".join(problems)


def test_a_wrong_line_of_the_table_of_rooms_is_found(tmp_path):
    for path in ("sim/__init__.py", "sim/api.py", "sim/lost.py", "sim/engine/play.py", "strategies/__init__.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    (tmp_path / "experiments").mkdir()
    text = ("## The rooms\n\n| room | owns | may import |\n|---|---|---|\n"
            "| `sim/engine/` | `play.py`, `gone.py` | |\n| `strategies/` | | |\n| `nowhere/` | | |\n"
            "| `sim` API | `__init__.py`, `api.py` | |\n\n## Lines\n")
    assert room_problems(text, tmp_path) == [
        "room `sim/engine/` names gone.py, which is nowhere under sim/engine",
        "room `nowhere/`: nowhere does not exist",
        "sim/lost.py is in no room of the table",
    ]


def engine_table_problems(text: str, root: Path = ROOT) -> list[str]:
    """What the table "Inside the engine" of docs/architecture.md's ``text`` gets wrong: a module it names that
    ``sim/engine/`` does not hold, a module of ``sim/engine/`` (but its ``__init__.py``) it does not name."""
    section = text.split("### Inside the engine", 1)[1].split("\n#", 1)[0]
    named = {word for line in section.splitlines() if line.startswith("| `")
             for word in re.findall(r"`([a-z_]+\.py)`", line.split(" | ")[0])}
    held = {p.name for p in (root / "sim" / "engine").glob("*.py") if p.name != "__init__.py"}
    return ([f"names {name}, which sim/engine/ does not hold" for name in sorted(named - held)]
            + [f"sim/engine/{name} is in no row" for name in sorted(held - named)])


def test_every_engine_module_is_in_the_table_inside_the_engine():
    # A newcomer finds a fact's module there: a module split, renamed or added changes its row.
    problems = engine_table_problems(ARCHITECTURE.read_text(encoding="utf-8"))
    assert problems == [], "docs/architecture.md, Inside the engine: " + "; ".join(problems)


def test_a_wrong_row_inside_the_engine_is_found(tmp_path):
    (tmp_path / "sim" / "engine").mkdir(parents=True)
    for name in ("__init__.py", "play.py", "bits.py"):
        (tmp_path / "sim" / "engine" / name).write_text("")
    text = ("### Inside the engine\n\n| module | owns |\n|---|---|\n| `play.py`, `gone.py` | the `bits.py` words |\n"
            "\n## Lines\n")
    assert engine_table_problems(text, tmp_path) == ["names gone.py, which sim/engine/ does not hold",
                                                     "sim/engine/bits.py is in no row"]


def test_an_import_in_a_function_or_a_relative_one_is_found(tmp_path):
    engine = tmp_path / "sim" / "engine"
    engine.mkdir(parents=True)
    (engine / "__init__.py").write_text("")
    (engine / "lazy.py").write_text("def ask():\n    from strategies import user\n    return user\n")
    (engine / "near.py").write_text("from . import lazy\nfrom ..api import simulate\n")
    (engine / "clean.py").write_text("import numpy as np\nfrom sim.engine.jit import kernel\n")
    assert imports_of(engine / "near.py", tmp_path) == {"sim.engine", "sim.engine.lazy", "sim.api",
                                                        "sim.api.simulate"}
    assert crossings("sim/engine", "strategies", tmp_path) == ["sim.engine.lazy imports strategies"]
    assert crossings("sim/engine", "sim.api", tmp_path) == ["sim.engine.near imports sim.api"]
    assert crossings("sim", "sim.engine.lazy", tmp_path) == ["sim.engine.near imports sim.engine.lazy"]
    assert crossings("sim/engine", "experiments", tmp_path) == []


# ------------------------------------------------------- public calls only


def private_names(path: Path) -> set[str]:
    """Underscore names ``path`` reaches into: ``obj._name`` (but ``self._name``) and ``from m import _name``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(f"{ast.unparse(node.value)}.{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            found.update(f"{node.module}.{a.name}" for a in node.names
                         if a.name.startswith("_") and not a.name.startswith("__"))
    return found


# Private names a test may reach, and why.
ALLOWED_IN_TESTS = {
    # The turn's bit-test shortcuts are checked against the public kernels
    # they stand in for; the shortcuts themselves are the policies' own parts.
    # The ends a table meld takes are checked against the rules reference's
    # own table meld, which the replay checker keeps to itself.
    "test_engine_bits.py": {"policies._highest_penalty", "sim.rules.replay._Meld"},
    # The contract's bit tests must give exactly the contract search's own
    # first answer, which its inner steps compute; the least melds they list
    # must fit the scratch the contract test lays them out in.
    "test_engine.py": {"contract_search._contract_melds", "contract_search._holds_disjoint", "contract_search._suits",
                       "contract_search._least_melds"},
    # The compile patches give numba's own answers: its replaced markup is the oracle.
    "test_jit.py": {"jit._numba_markup", "scheme._markup"},
}


def own_names(path: Path) -> set[str]:
    """Names ``path`` defines itself: its functions, classes, arguments and the names and attributes it assigns.

    ``other._st`` in a module that sets ``self._st`` reads its own class's
    state on another instance, which is no crossing.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def crossing_private_names(path: Path) -> set[str]:
    """The underscore names ``path`` reaches (:func:`private_names`) that another module defines."""
    own = own_names(path)
    return {name for name in private_names(path) if name.rsplit(".", 1)[1] not in own}


# Underscore names that are public by their owners' documentation.
PUBLIC_BY_DESIGN = {
    "job._replace",  # NamedTuple._replace, the documented way to copy a named tuple with a field changed
    "os._exit",  # leaving at once after a second Ctrl-C, without running cleanup that could hang
    # numba keeps a compile's set options in TargetConfig._values and has no public name for them;
    # sim/engine/jit.py builds numba's own values from them at once (numba is held to one release).
    "config._values",
    # numba's codegen keeps its target machine as _tm, with no public name; the pass builder of an entry
    # that only relinks its module (sim/engine/jit.py, _EntryLibrary) is made for it, as numba's own are.
    "self._codegen._tm",
    # numba's CPUCodeLibrary.finalize takes these steps, with no public names for them; a library optimised
    # apart from its callees (sim/engine/jit.py, _LinkedLibrary.finalize) takes the same ones in another order.
    "self._codegen._check_llvm_bugs",
    "callee._reload_init",
    "callee._get_module_for_linking",
}

PACKAGE_FILES = sorted(p for folder in ("sim", "strategies", "experiments") for p in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_uses_another_modules_private_names(path):
    found = crossing_private_names(path) - PUBLIC_BY_DESIGN
    assert not found, f"{path.relative_to(ROOT)} reaches private names of other modules: {', '.join(sorted(found))}"


def test_sim_does_not_import_experiments():
    # The simulator is what the experiments build on; only the command line,
    # which offers every room of the lab as one `rami` command, may call them
    # (a study file runs from Python as experiments.report.run_study).
    found = [c for c in crossings("sim", "experiments") if not c.startswith("sim.cli")]
    assert not found, "sim does not import experiments; but: " + "; ".join(found)


def test_a_crossing_private_name_is_told_from_an_own_one(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import engine as E\n"
                     "class Position:\n    def __init__(self):\n        self._st = 0\n"
                     "    def same(self, other):\n        return other._st, E._flip()\n")
    assert crossing_private_names(probe) == {"E._flip"}


def test_advice_uses_public_calls_only():
    # advise stands on sim.Position's public calls (and the engine's public
    # kernels it explains the strategies with), never on a position's insides.
    assert private_names(ROOT / "sim" / "advice.py") == set()


@pytest.mark.parametrize("path", sorted((ROOT / "tests").glob("test_*.py")), ids=lambda p: p.name)
def test_tests_use_public_calls_only(path):
    found = private_names(path) - ALLOWED_IN_TESTS.get(path.name, set())
    assert not found, f"{path.name} reaches private names: {', '.join(sorted(found))}"


def test_a_private_call_is_found(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from sim.engine.play import _take_card\n"
                     "def f(position):\n    return position._st, self._own\n")
    assert private_names(probe) == {"sim.engine.play._take_card", "position._st"}


# The card codes have one owner, sim.cards (N_NATURAL naturals, then the
# joker's code, N_CODES codes in all): a bare 52 or 53 elsewhere in the
# package is a second copy that a change of the codes would miss.
CARD_CODE_LITERALS = {52, 53}
CARD_CODE_OWNER = ROOT / "sim" / "cards.py"


def card_code_literals(path: Path) -> list[str]:
    """``file:line`` of every integer literal 52 or 53 in ``path``'s code (docstrings and comments are not code)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value in CARD_CODE_LITERALS]


def test_no_card_code_literal_outside_its_owner():
    found = [hit for path in sorted((ROOT / "sim").rglob("*.py")) if path != CARD_CODE_OWNER
             for hit in card_code_literals(path)]
    assert found == [], f"card codes written out instead of imported from sim.cards: {found}"


def test_a_card_code_literal_is_found(tmp_path, monkeypatch):
    probe = ROOT / "sim" / "engine" / "bits.py"
    assert card_code_literals(probe) == []
    fake = tmp_path / "probe.py"
    fake.write_text('"""52 in a docstring is prose."""\nJOKER = 52  # the joker\nx = range(53)\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert card_code_literals(fake) == ["probe.py:2", "probe.py:3"]


# ------------------------------------------------------------ no import cycle


def run_time_imports(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """The modules of ``modules`` that ``path`` imports when it runs, anywhere in the file, lazy imports included.

    ``from a import b`` is an import of ``a.b`` when that is a module, else of
    ``a``; a parent package that Python imports on the way is not counted
    (it is every package's, not a choice of the module). An import under
    ``if TYPE_CHECKING:`` only names a type and never runs, so it is not one.
    """
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    typing_only = {id(inner) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for child in node.body for inner in ast.walk(child)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.update(f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names)
    return {m for m in found if m in modules and m != name}


def import_cycles(root: Path = ROOT, folders: tuple[str, ...] = ("sim", "strategies", "experiments"),
                  allowed: frozenset[tuple[str, str]] = frozenset()) -> list[list[str]]:
    """Every group of modules under ``folders`` that import each other round in a circle (sorted), the
    ``allowed`` edges ``(importer, imported)`` left out."""
    paths = {module_name(p, root): p for folder in folders for p in sorted((root / folder).rglob("*.py"))}
    graph = {m: sorted(run_time_imports(p, set(paths), root) - {i for e, i in allowed if e == m})
             for m, p in paths.items()}
    # Tarjan's strongly connected components, iteratively (the graph is a few hundred modules).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


# Imports that close a circle, allowed by name with the reason; each must still be made.
ALLOWED_CYCLE_EDGES: dict[tuple[str, str], str] = {
    # A strategy file's strategy is built on the presets of strategies/__init__.py, which reads the
    # files by name: the presets and the file format are to be parted into modules of their own.
    ("strategies.files", "strategies"): "a strategy file is built on the presets",
}


def test_no_import_cycle():
    # A module that imports another which imports it back, even lazily inside a function, has no
    # layer of its own: whichever is imported first sees the other half-made, and neither can be
    # understood or tested alone. The call goes one way; the other side is handed what it needs.
    cycles = import_cycles(allowed=frozenset(ALLOWED_CYCLE_EDGES))
    assert cycles == [], "modules that import each other round in a circle: " + "; ".join(
        " -> ".join(group) for group in cycles)


def test_each_allowed_cycle_edge_is_still_made():
    paths = {module_name(p): p for folder in ("sim", "strategies", "experiments") for p in (ROOT / folder).rglob("*.py")}
    stale = [edge for edge in ALLOWED_CYCLE_EDGES if edge[1] not in run_time_imports(paths[edge[0]], set(paths))]
    assert stale == [], f"stale allowances: {stale}"


def test_a_lazy_cycle_is_found_and_a_typing_import_is_not(tmp_path):
    package = tmp_path / "sim"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def later():\n    from sim import high\n    return high\n")
    (package / "high.py").write_text("from sim.low import later\n")
    (package / "named.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from sim import high\n")
    (package / "side.py").write_text("import sim.named\n")
    assert import_cycles(tmp_path, ("sim",)) == [["sim.high", "sim.low"]]
    assert import_cycles(tmp_path, ("sim",), frozenset({("sim.low", "sim.high")})) == []


# ------------------------------------------------------ words with one owner

# A word the code compares or passes as a value, with the one module that may write it; every other
# module imports the owner's name for it, so that a renamed or added value cannot miss a copy.
OWNED_WORDS = {
    "belief": "sim/modes.py",
    "clairvoyant": "sim/modes.py",
}


def measure_names(path: Path = ROOT / "experiments" / "metrics.py") -> list[str]:
    """The measure names that ``experiments/metrics.py`` owns: the values of the names its ``MEASURE_NAMES`` lists."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    values = {t.id: node.value.value for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
              for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
              if isinstance(t, ast.Name) and isinstance(node.value, ast.Constant)}
    listed = next(node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                  and isinstance(node.target, ast.Name) and node.target.id == "MEASURE_NAMES")
    return [values[e.id] for e in listed.elts]


# The measures' names ("points per round"), which the findings, the tables and the figures are keyed by.
OWNED_WORDS.update({name: "experiments/metrics.py" for name in measure_names()})


def owned_words(path: Path) -> list[str]:
    """``file:line word`` of every string constant of :data:`OWNED_WORDS` in ``path``'s code.

    Docstrings, comments and the names listed in ``__all__`` (``strategies.clairvoyant`` is a
    function) are prose, not values; a message that quotes a word inside a longer string is too.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for stmt in body if isinstance(body, list) else []:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                prose.add(id(stmt.value))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            prose.update(id(inner) for inner in ast.walk(node.value))
    return [f"{path.relative_to(ROOT)}:{node.lineno} {node.value}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in OWNED_WORDS
            and id(node) not in prose and path != ROOT / OWNED_WORDS[node.value]]


def test_no_owned_word_outside_its_owner():
    found = [hit for path in PACKAGE_FILES for hit in owned_words(path)]
    assert found == [], f"written out instead of imported from their owners ({OWNED_WORDS}): {found}"


def whole_number_idioms(path: Path) -> list[str]:
    """``file:line`` of every ``isinstance(x, bool)`` joined by ``or``/``and`` to an integer ``isinstance`` of the
    same ``x``: the whole-number check written out again instead of :func:`sim.checks.is_whole` (a check for
    any number, ``(int, float)``, is another question)."""
    def is_check(node: ast.AST, kinds: str) -> str | None:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            node = node.operand
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                and len(node.args) == 2 and any(k in ast.unparse(node.args[1]) for k in kinds.split())
                and "float" not in ast.unparse(node.args[1])):
            return ast.unparse(node.args[0])
        return None

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree) if isinstance(node, ast.BoolOp)
            if {is_check(v, "bool") for v in node.values} & {is_check(v, "int Integral") for v in node.values} - {None}]


# The whole number's owner, and the rooms below it that import nothing of ours (the rules reference is the
# independent ground truth; the card codes stand alone; the engine is compiled).
WHOLE_NUMBER_OWNERS = ("sim/checks.py", "sim/cards.py", "sim/rules/", "sim/engine/")


# Copies left by name, with how many and why; each count must stay exact.
WHOLE_NUMBER_ALLOWED = {
    # The condition language's integer literals: an AST constant that is an int and not a bool is a literal of the
    # language, not a count to check.
    "sim/conditions.py": 2,
}


def test_the_whole_number_check_has_one_owner():
    found = {str(path.relative_to(ROOT)): whole_number_idioms(path) for path in PACKAGE_FILES
             if not str(path.relative_to(ROOT)).startswith(WHOLE_NUMBER_OWNERS)}
    left = [hit for name, hits in found.items() if len(hits) != WHOLE_NUMBER_ALLOWED.get(name, 0) for hit in hits]
    assert left == [], f"a whole number checked by hand instead of sim.checks.is_whole/check_whole: {left}"
    stale = [name for name, count in WHOLE_NUMBER_ALLOWED.items() if len(found[name]) != count]
    assert stale == [], f"allowances that no longer match: {stale}"


def test_a_whole_number_idiom_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "probe.py"
    fake.write_text("def f(n, k):\n    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:\n"
                    "        pass\n    return isinstance(k, int) and not isinstance(k, bool), isinstance(n, bool) or k\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert whole_number_idioms(fake) == ["probe.py:2", "probe.py:4"]


def test_the_measure_names_are_owned():
    assert "points per round" in measure_names() and "share of games won" in measure_names()
    assert len(set(measure_names())) == len(measure_names())


def test_an_owned_word_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "probe.py"
    fake.write_text('"""mode "belief" in a docstring is prose."""\n__all__ = ["clairvoyant"]\n'
                    'def f(mode="belief"):\n    return mode == "clairvoyant" or f"--mode clairvoyant: {mode}"\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert owned_words(fake) == ["probe.py:3 belief", "probe.py:4 clairvoyant"]


# ------------------------------------------------------ readable module names

# A module imported under one letter (``from sim.engine import play as E``) or two capitals (``RK``) reads as a
# riddle wherever it is used: the name must say what the module is. Tests may keep theirs.


def cryptic_module_aliases(path: Path, root: Path = ROOT) -> set[str]:
    """The aliases in ``path`` of one letter or two capitals that name a module: every ``import x as A``, and
    ``from a import b as A`` when ``a.b`` is a module of the lab (a file or a package under ``root``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        for alias in node.names:
            name = alias.asname
            if name is None or not (len(name) == 1 or (len(name) == 2 and name.isupper())):
                continue
            if isinstance(node, ast.Import):
                found.add(name)
                continue
            module = Path(*f"{node.module or ''}.{alias.name}".strip(".").split("."))
            if (root / module).with_suffix(".py").is_file() or (root / module / "__init__.py").is_file():
                found.add(name)
    return found


def test_no_module_is_imported_under_a_cryptic_name():
    found = {str(p.relative_to(ROOT)): sorted(aliases) for p in PACKAGE_FILES if (aliases := cryptic_module_aliases(p))}
    assert found == {}, f"modules imported under one letter or two capitals: {found}"


def test_a_cryptic_module_alias_is_found(tmp_path):
    (tmp_path / "sim" / "engine").mkdir(parents=True)
    (tmp_path / "sim" / "engine" / "play.py").write_text("")
    probe = tmp_path / "probe.py"
    probe.write_text("import numpy as np\nimport polars as P\nfrom sim.engine import play as RK\n"
                     "from sim.engine.play import MAX_SEATS as M\nfrom sim.engine import play as engine_play\n")
    assert cryptic_module_aliases(probe, tmp_path) == {"P", "RK"}
