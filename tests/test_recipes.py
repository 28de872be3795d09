"""The recipes of docs/architecture.md against the code: every place they name, and none they leave out.

Each recipe (a rule knob, a strategy parameter, an experiment, a command) is
read from the page: its numbered steps, the files each step names, and
whether the step says it is tested. :data:`PLACES` tells, for each file a
recipe may name, the check that the file holds every existing item (every
knob, parameter, reported experiment or command), or ``None`` where the step
reaches a file only when the change needs it. The tests hold the two
together: a file a recipe names that the table does not know, or a checked
file the recipe leaves out, fails; a step that says it is tested names a
checked file, and one that says it is not names none; every check holds
every item; and a file of the repository that names nearly every item is a
place the recipe names. The rule knob's recipe is walked on a throw-away
knob in a copy of the files: each checked place flags the new knob until its
step is done, in the recipe's order.

Everything is read as text or with :mod:`ast`, so that a copy of the files can
be checked as the repository is.
"""

from __future__ import annotations

import ast
import re
import shutil
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"

RECIPES = {
    "knob": "Add a rule knob",
    "parameter": "Add a strategy parameter",
    "experiment": "Add an experiment",
    "command": "Add a command",
}

# --------------------------------------------------------------- the recipes' text

FILE_WORD = re.compile(r"`([A-Za-z0-9_*./-]+\.(?:py|md|toml|html))`")


@dataclass(frozen=True)
class Step:
    number: int
    files: tuple[str, ...]
    """The files the step names, in its order (before what it says of its test)."""
    tested: bool


def recipe_steps(text: str, title: str) -> list[Step]:
    """The numbered steps of the recipe headed ``### title`` in docs/architecture.md's ``text``."""
    assert f"### {title}\n" in text, f"docs/architecture.md has no recipe '{title}'"
    section = re.split(r"\n#{2,3} ", text.split(f"### {title}\n", 1)[1], maxsplit=1)[0]
    steps = []
    for match in re.finditer(r"^(\d+)\. (.*?)(?=^\d+\. |^\S|\Z)", section, re.M | re.S):
        body = match.group(2)
        said = re.search(r"\*(Tested|Not tested):\*", body)
        assert said, f"step {match.group(1)} of '{title}' says neither *Tested:* nor *Not tested:*"
        files = tuple(dict.fromkeys(FILE_WORD.findall(body[: said.start()])))
        steps.append(Step(int(match.group(1)), files, said.group(1) == "Tested"))
    assert [s.number for s in steps] == list(range(1, len(steps) + 1)), f"'{title}' is not numbered 1, 2, ..."
    return steps


# --------------------------------------------------------------- reading the code


@cache
def parsed(source: str) -> ast.Module:
    """``source`` read by :mod:`ast`, once per text (the checks read the same files for every item)."""
    return ast.parse(source)


@cache
def attributes(source: str) -> frozenset[str]:
    """Every ``x`` that ``source`` reads as ``something.x``."""
    return frozenset(n.attr for n in ast.walk(parsed(source)) if isinstance(n, ast.Attribute))


@cache
def _file_attributes(path: Path, stamp: tuple[int, int]) -> frozenset[str]:
    return attributes(path.read_text(encoding="utf-8"))


def file_attributes(path: Path) -> frozenset[str]:
    """:func:`attributes` of the file at ``path``, read again only when it changes."""
    info = path.stat()
    return _file_attributes(path, (info.st_mtime_ns, info.st_size))


def tree(root: Path, path: str) -> ast.Module:
    return parsed((root / path).read_text(encoding="utf-8"))


def assigned(module: ast.Module, name: str) -> ast.expr:
    """The value assigned to ``name`` at the top of ``module``."""
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node.value
    raise AssertionError(f"nothing is assigned to {name}")


def class_fields(module: ast.Module, name: str) -> list[str]:
    """The annotated fields of class ``name``, in order."""
    cls = next(n for n in module.body if isinstance(n, ast.ClassDef) and n.name == name)
    return [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]


def knobs(root: Path) -> list[str]:
    return class_fields(tree(root, "sim/rules/ruleset.py"), "Ruleset")


def parameters(root: Path) -> list[str]:
    return [k.value for k in assigned(tree(root, "strategies/parameters.py"), "PARAMETERS").keys]


def slot(root: Path, parameter: str) -> str:
    """The ``P_*`` name of ``parameter``'s slot, as strategies/parameters.py gives it."""
    table = assigned(tree(root, "strategies/parameters.py"), "PARAMETERS")
    spec = next(v for k, v in zip(table.keys, table.values) if k.value == parameter)
    return spec.elts[0].id


def reported(root: Path) -> list[str]:
    return [e.value for e in assigned(tree(root, "experiments/__init__.py"), "REPORTED").elts]


COMMAND = re.compile(r'^@main\.(?:command|group)\("([\w-]+)"\)', re.M)


def commands(root: Path) -> dict[str, str]:
    """Every command of the ``rami`` group: its name and the module of sim/cli that adds it."""
    found = {}
    for path in sorted((root / "sim" / "cli").glob("*.py")):
        for name in COMMAND.findall(path.read_text(encoding="utf-8")):
            found[name] = path.stem
    return found


def kernel_fields(root: Path) -> list[str]:
    return class_fields(tree(root, "sim/engine/params.py"), "KernelRules")


# --------------------------------------------------------------- the checks


@dataclass(frozen=True)
class Check:
    """What "holds every item" means for one place (or a group of files that hold them between them)."""

    items: Callable[[Path], list[str]]
    holds: Callable[[Path, str], bool]
    exempt: dict[str, str]
    """Items the place need not hold, each with the reason."""


def _ruleset(root: Path, knob: str) -> bool:
    module = tree(root, "sim/rules/ruleset.py")
    table = ast.get_docstring(module) or ""
    return knob in class_fields(module, "Ruleset") and re.search(rf"^``{knob}``\s", table, re.M) is not None


@cache
def toml_keys(text: str) -> frozenset[str]:
    return frozenset(tomllib.loads(text))


def _presets(root: Path, knob: str) -> bool:
    files = sorted((root / "sim" / "rules" / "presets").glob("*.toml"))
    return len(files) == 5 and all(knob in toml_keys(p.read_text(encoding="utf-8")) for p in files)


def _rulesets_doc(root: Path, knob: str) -> bool:
    blocks = re.findall(r"```toml\n(.*?)```", (root / "docs" / "rulesets.md").read_text(encoding="utf-8"), re.S)
    return knob in toml_keys(blocks[-1])


def _rule_book(root: Path, knob: str) -> bool:
    return re.search(rf"`{knob}(?:`| ?=)", (root / "docs" / "rules.md").read_text(encoding="utf-8")) is not None


@cache
def _kernel_reads(params: str, ruleset: str) -> frozenset[str]:
    """The knobs ``kernel_rules`` reads: as ``r.knob``, or through what Ruleset derives from them
    (``r.n_jokers``, ``r.hand_size(0)``)."""
    cls = next(n for n in parsed(ruleset).body if isinstance(n, ast.ClassDef) and n.name == "Ruleset")
    derived = {f.name: {a.attr for a in ast.walk(f) if isinstance(a, ast.Attribute)
                        and isinstance(a.value, ast.Name) and a.value.id == "self"}
               for f in cls.body if isinstance(f, ast.FunctionDef)}
    function = next(n for n in parsed(params).body if isinstance(n, ast.FunctionDef) and n.name == "kernel_rules")
    read = {n.attr for n in ast.walk(function) if isinstance(n, ast.Attribute)}
    return frozenset(read.union(*(derived.get(a, set()) for a in read)))


def _kernel_rules(root: Path, knob: str) -> bool:
    return knob in _kernel_reads((root / "sim/engine/params.py").read_text(encoding="utf-8"),
                                 (root / "sim/rules/ruleset.py").read_text(encoding="utf-8"))


def _engine_reads(root: Path, field: str) -> bool:
    return any(field in file_attributes(p) for p in sorted((root / "sim" / "engine").glob("*.py"))
               if p.name != "params.py")


def _reference_reads(root: Path, knob: str) -> bool:
    return any(knob in file_attributes(p) for p in sorted((root / "sim" / "rules").glob("*.py"))
               if p.name not in ("ruleset.py", "__init__.py"))


def _ruleset_tests(root: Path, knob: str) -> bool:
    return re.search(rf"\b{knob}\b", (root / "tests" / "test_ruleset.py").read_text(encoding="utf-8")) is not None


def _policies(root: Path, parameter: str) -> bool:
    name = slot(root, parameter)
    module = tree(root, "sim/engine/policies.py")
    defined = any(isinstance(n, ast.Assign) and any(name in {e.id for e in ast.walk(t) if isinstance(e, ast.Name)}
                                                     for t in n.targets) for n in module.body)
    row = re.search(rf"^``{name}``\s", ast.get_docstring(module) or "", re.M) is not None
    read = any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "params"
               and isinstance(n.slice, ast.Name) and n.slice.id == name for n in ast.walk(module))
    return defined and row and read


def _dict_keys(root: Path, path: str, name: str) -> set[str]:
    return {k.value for k in assigned(tree(root, path), name).keys}


def _greedy(root: Path, parameter: str) -> bool:
    return parameter in _dict_keys(root, "strategies/__init__.py", "_GREEDY")


def _strategies_doc(root: Path, parameter: str) -> bool:
    return f"| `{parameter}` |" in (root / "docs" / "strategies.md").read_text(encoding="utf-8")


def _documented_index(root: Path, parameter: str) -> bool:
    return parameter in _dict_keys(root, "tests/test_strategies.py", "DOCUMENTED_INDEX")


def _experiment_module(root: Path, name: str) -> bool:
    path = root / "experiments" / f"{name}.py"
    if not path.exists():
        return False
    try:
        assigned(parsed(path.read_text(encoding="utf-8")), "EXPERIMENT")
    except AssertionError:
        return False
    return True


def _experiments_doc(root: Path, name: str) -> bool:
    return f"| `{name}` |" in (root / "docs" / "experiments.md").read_text(encoding="utf-8")


NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
           "seventeen eighteen nineteen twenty").split()


def _readme_count(root: Path, name: str) -> bool:
    # Every "N experiments" of the README says how many the report holds.
    count = len(reported(root))
    said = [w for w in re.findall(r"\b(\w+) experiments\b", (root / "README.md").read_text(encoding="utf-8"))
            if w in NUMBERS or w.isdigit()]
    return bool(said) and all(w in (NUMBERS[count] if count < len(NUMBERS) else "", str(count)) for w in said)


def _report_pages(root: Path, name: str) -> bool:
    reports = root / "reports"
    return ((reports / name / "index.md").exists() and (reports / name / "index.html").exists()
            and f"({name}/index.md)" in (reports / "index.md").read_text(encoding="utf-8")
            and f"'{name}/index.html'" in (reports / "index.html").read_text(encoding="utf-8"))


def _cli_init(root: Path, name: str) -> bool:
    module = commands(root)[name]
    imported = {a.name for n in ast.walk(tree(root, "sim/cli/__init__.py")) if isinstance(n, ast.ImportFrom)
                and n.module == "sim.cli" for a in n.names}
    return module in imported or module == "common"


def _cli_doc(root: Path, name: str) -> bool:
    text = (root / "docs" / "cli.md").read_text(encoding="utf-8")
    opening = text.split("\n\n", 2)[1]  # the paragraph under the title
    return f"`{name}`" in opening


def _readme_command(root: Path, name: str) -> bool:
    return re.search(rf"\brami {name}\b", (root / "README.md").read_text(encoding="utf-8")) is not None


def _cli_contract(root: Path, name: str) -> bool:
    return any(f'(["{name}"' in (root / "tests" / f).read_text(encoding="utf-8")
               for f in ("test_cli_contract.py", "test_cli_contract_tournament.py"))


def _source(items: Callable[[Path], list[str]]) -> Callable[[Path, str], bool]:
    return lambda root, item: item in items(root)


CHECKS: dict[str, Check] = {
    # a rule knob
    "Ruleset field and knob table": Check(knobs, _ruleset, {}),
    "a line of every preset": Check(knobs, _presets, {}),
    "the complete ruleset file": Check(knobs, _rulesets_doc, {}),
    "named in the rule book": Check(knobs, _rule_book, {}),
    "read by kernel_rules": Check(knobs, _kernel_rules, {
        "jokers_per_meld": "one value is played (validation allows 1), which the engine's meld search holds by "
                           "construction"}),
    "a KernelRules field read by the engine": Check(kernel_fields, _engine_reads, {}),
    "read by the rules reference": Check(knobs, _reference_reads, {}),
    "named in tests/test_ruleset.py": Check(knobs, _ruleset_tests, {}),
    # a strategy parameter
    "a slot of the policies": Check(parameters, _policies, {}),
    "PARAMETERS": Check(parameters, _source(parameters), {}),
    "a value of _GREEDY": Check(parameters, _greedy, {}),
    "a row of the parameter table": Check(parameters, _strategies_doc, {}),
    "DOCUMENTED_INDEX": Check(parameters, _documented_index, {}),
    # an experiment
    "its module's EXPERIMENT": Check(reported, _experiment_module, {}),
    "REPORTED": Check(reported, _source(reported), {}),
    "a row of the table of experiments": Check(reported, _experiments_doc, {}),
    "the README's count": Check(reported, _readme_count, {}),
    "its page and the index's link": Check(reported, _report_pages, {}),
    # a command
    "a command of the rami group": Check(lambda root: list(commands(root)), _source(lambda root: list(commands(root))),
                                         {}),
    "imported by sim/cli/__init__.py": Check(lambda root: list(commands(root)), _cli_init, {}),
    "the list of commands of docs/cli.md": Check(lambda root: list(commands(root)), _cli_doc, {}),
    "a rami line of the README": Check(lambda root: list(commands(root)), _readme_command, {}),
    "a case of the command-line contract": Check(lambda root: list(commands(root)), _cli_contract, {}),
}

# Every file a recipe may name: the check it holds every item by, or None where the step reaches it only when the
# change needs it (the recipe says which). A file named in a recipe and missing here, or checked here and named in
# no recipe, fails.
PLACES: dict[str, dict[str, str | None]] = {
    "knob": {
        "sim/rules/ruleset.py": "Ruleset field and knob table",
        "sim/rules/presets/*.toml": "a line of every preset",
        "docs/rulesets.md": "the complete ruleset file",
        "docs/rules.md": "named in the rule book",
        "sim/engine/params.py": "read by kernel_rules",
        **dict.fromkeys(["sim/engine/turn.py", "sim/engine/actions.py", "sim/engine/table.py", "sim/engine/hand.py",
                         "sim/engine/state.py", "sim/engine/round.py", "sim/engine/game.py",
                         "sim/engine/policies.py"], "a KernelRules field read by the engine"),
        **dict.fromkeys(["sim/rules/replay.py", "sim/rules/melds.py", "sim/rules/hands.py", "sim/rules/scoring.py",
                         "sim/rules/deck.py"], "read by the rules reference"),
        "sim/game_record.py": None,
        "sim/seat_view.py": None,
        "sim/position.py": None,
        "sim/rules/__init__.py": None,
        "tests/test_ruleset.py": "named in tests/test_ruleset.py",
        "tests/test_rule_book.py": None,
        "tests/test_replay.py": None,
        "tests/test_replay_contrat.py": None,
        "tests/test_engine.py": None,
        "tests/test_contrat.py": None,
        "tests/test_basic.py": None,
        "tests/test_fuzz.py": None,
        "benchmarks/result_hashes.py": None,
    },
    "parameter": {
        "sim/engine/policies.py": "a slot of the policies",
        "sim/engine/game_value.py": None,
        "strategies/parameters.py": "PARAMETERS",
        "strategies/__init__.py": "a value of _GREEDY",
        "docs/strategies.md": "a row of the parameter table",
        "tests/test_strategies.py": "DOCUMENTED_INDEX",
        "tests/test_engine_bits.py": None,
        "experiments/tuning.py": None,
        "benchmarks/result_hashes.py": None,
    },
    "experiment": {
        "experiments/NAME.py": "its module's EXPERIMENT",
        "experiments/waiting_to_open.py": None,  # the example to start from
        "experiments/__init__.py": "REPORTED",
        "docs/experiments.md": "a row of the table of experiments",
        "README.md": "the README's count",
        "tests/test_NAME.py": None,
        "tests/test_experiments.py": None,
        "benchmarks/check_headlines.py": None,
        "reports/NAME/index.md": "its page and the index's link",
        "reports/index.md": "its page and the index's link",
        "reports/index.html": "its page and the index's link",
    },
    "command": {
        "sim/cli/NAME.py": "a command of the rami group",
        "sim/cli/common.py": "a command of the rami group",
        "docs/cli.md": "the list of commands of docs/cli.md",
        "sim/cli/cluster.py": None,
        "sim/cli/__init__.py": "imported by sim/cli/__init__.py",
        "README.md": "a rami line of the README",
        "tests/test_cli_contract.py": "a case of the command-line contract",
        "tests/test_cli_contract_tournament.py": "a case of the command-line contract",
        "docs/ladder.md": None,
        "docs/play.md": None,
        "tests/test_ladder.py": None,
        "tests/test_fuzz.py": None,
    },
}

# How a file of the repository shows an item, to find the files that name nearly every one (DISCOVERY).
MENTION: dict[str, Callable[[str], str]] = {
    "knob": lambda knob: rf"\b{knob}\b",
    "parameter": lambda parameter: rf"`{parameter}`|\b{parameter}\s*=|[\"']{parameter}[\"']",
    "experiment": lambda name: rf"\b{name}\b",
    "command": lambda name: rf"\brami {name}\b|`{name}`",
}
ITEMS: dict[str, Callable[[Path], list[str]]] = {
    "knob": knobs, "parameter": parameters, "experiment": reported, "command": lambda root: list(commands(root)),
}
DISCOVERY = 0.9
"""A file that names this share of a recipe's items or more is a place of that recipe."""


def recipe_problems(recipe: str, text: str, root: Path = ROOT) -> list[str]:
    """What the recipe's list in ``text`` gets wrong against the code under ``root`` (empty when it is true)."""
    steps = recipe_steps(text, RECIPES[recipe])
    places = PLACES[recipe]
    problems = []
    named = {f for s in steps for f in s.files}
    for path in sorted(named):
        if not any(root.glob(path.replace("NAME", "*"))):
            problems.append(f"it names {path}, which does not exist")
    problems += [f"it names {p}, which tests/test_recipes.py does not know" for p in sorted(named - set(places))]
    problems += [f"it leaves out {p}" for p in sorted(set(places) - named)]
    for s in steps:
        checked = [f for f in s.files if places.get(f)]
        if s.tested and not checked:
            problems.append(f"step {s.number} says it is tested but names no checked place")
        if not s.tested and checked:
            problems.append(f"step {s.number} says it is not tested but {checked[0]} is")
    for name in dict.fromkeys(c for c in places.values() if c):
        check = CHECKS[name]
        missing = [i for i in check.items(root) if i not in check.exempt and not check.holds(root, i)]
        problems += [f"{name}: {i} is missing" for i in missing]
        stale = [i for i in check.exempt if i in check.items(root) and check.holds(root, i)]
        problems += [f"{name}: {i} is excused but there (drop the excuse)" for i in stale]
    return problems


@cache
def repository_files(root: Path) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """The files a place can be (the package's, the tests', the docs', the benchmarks' and the report's index),
    each as its path, its text and the set of its words."""
    found = [root / "README.md", root / "reports" / "index.md", root / "reports" / "index.html"]
    for folder in ("sim", "strategies", "experiments", "tests", "docs", "benchmarks"):
        found += [p for p in (root / folder).rglob("*") if p.suffix in (".py", ".md", ".toml")]
    files = []
    for path in sorted(p for p in found if p.is_file()):
        text = path.read_text(encoding="utf-8")
        files.append((path.relative_to(root).as_posix(), text, frozenset(re.findall(r"\w+", text))))
    return tuple(files)


def places_found(recipe: str, root: Path = ROOT) -> list[str]:
    """The files that name at least :data:`DISCOVERY` of the recipe's items."""
    items = ITEMS[recipe](root)
    patterns = [re.compile(MENTION[recipe](i)) for i in items]
    least = DISCOVERY * len(items)
    return [path for path, text, words in repository_files(root)
            if sum(1 for i in items if i in words) >= least  # the words first: most files name few items
            and sum(1 for p in patterns if p.search(text)) >= least]


def checked_files(recipe: str, root: Path = ROOT) -> set[str]:
    """The files the recipe's checked places stand for (a pattern given as every file it matches)."""
    return {p.relative_to(root).as_posix() for place, check in PLACES[recipe].items() if check
            for p in root.glob(place.replace("NAME", "*"))}


# --------------------------------------------------------------- the tests

TEXT = ARCHITECTURE.read_text(encoding="utf-8")


@pytest.mark.parametrize("recipe", list(RECIPES))
def test_each_recipe_names_every_place_and_each_place_holds_every_item(recipe):
    problems = recipe_problems(recipe, TEXT)
    assert problems == [], f"docs/architecture.md, '{RECIPES[recipe]}': " + "; ".join(problems)


@pytest.mark.parametrize("recipe", list(RECIPES))
def test_a_file_that_names_nearly_every_item_is_a_place_of_the_recipe(recipe):
    # A table, a list or a test that gathers every knob (parameter, experiment, command) is a place a new one
    # must reach: the recipe names it, and a check holds it.
    unnamed = sorted(set(places_found(recipe)) - checked_files(recipe))
    assert unnamed == [], f"files naming nearly every {recipe} that '{RECIPES[recipe]}' does not check: {unnamed}"


def test_the_items_are_those_the_code_serves():
    # The lists read here with ast are the ones the package serves.
    import experiments
    import strategies
    from sim import rules
    from sim.cli import main
    from sim.engine.params import KernelRules

    assert knobs(ROOT) == list(rules.KNOBS)
    assert kernel_fields(ROOT) == list(KernelRules.__annotations__)
    assert parameters(ROOT) == list(strategies.PARAMETERS)
    assert reported(ROOT) == list(experiments.REPORTED)
    assert set(commands(ROOT)) == set(main.commands)


def test_every_kernel_field_is_named_as_its_knob():
    # The kernels read a knob under its own name (a choice knob as its code): a field renamed on its way into
    # the engine would be a second name for one fact. The few fields that are no knob are listed, with what
    # they hold, in DERIVED_FIELDS.
    from sim.engine.params import DERIVED_FIELDS

    fields, names = kernel_fields(ROOT), knobs(ROOT)
    assert [f for f in fields if f not in names and f not in DERIVED_FIELDS] == []
    assert sorted(DERIVED_FIELDS) == sorted(f for f in fields if f not in names)  # none listed that is a knob


def test_a_wrong_recipe_is_found():
    text = TEXT.replace("`docs/rulesets.md`: its line", "`docs/ruleset.md`: its line")
    problems = recipe_problems("knob", text)
    assert "it leaves out docs/rulesets.md" in problems
    assert "it names docs/ruleset.md, which does not exist" in problems
    untested = TEXT.replace("`tests/test_ruleset.py` (the values it refuses", "`tests/test_x.py` (the values")
    assert "it leaves out tests/test_ruleset.py" in recipe_problems("knob", untested)
    steps = recipe_steps(TEXT, RECIPES["knob"])
    assert steps[0].files == ("sim/rules/ruleset.py",) and steps[0].tested
    assert steps[7].files[0] == "sim/game_record.py" and not steps[7].tested


# The walk of the rule knob's recipe, in a copy of the files it names.
KNOB = "throwaway_knob"


def _insert(path: Path, anchor: str, line: str, after: bool = True) -> None:
    text = path.read_text(encoding="utf-8")
    assert anchor in text, f"{path.name} has no {anchor!r} to write the walk's knob beside"
    at = text.index(anchor) + (len(anchor) if after else 0)
    path.write_text(text[:at] + line + text[at:], encoding="utf-8")


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _last_table_border(path: Path) -> str:
    """The line that closes the knob table of ruleset.py's docstring."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return [line for line in docstring.splitlines() if line.startswith("====")][-1] + "\n\"\"\""


def _preset_lines(root: Path) -> None:
    for path in (root / "sim" / "rules" / "presets").glob("*.toml"):
        _append(path, f"{KNOB} = false\n")


def _rulesets_line(root: Path) -> None:
    path = root / "docs" / "rulesets.md"
    text = path.read_text(encoding="utf-8")
    at = text.rindex("```toml\n") + len("```toml\n")
    path.write_text(text[:at] + f"{KNOB} = false\n" + text[at:], encoding="utf-8")


def _kernel_field(root: Path) -> None:
    path = root / "sim" / "engine" / "params.py"
    fields = kernel_fields(root)
    _insert(path, f"    {fields[-1]}: int\n", f"    {KNOB}: int\n")
    _insert(path, "    return KernelRules(\n", f"        {KNOB}=int(r.{KNOB}),\n")


WALK: dict[str, Callable[[Path], None]] = {
    # What each checked place of the recipe gets, as its step says (a stand-in for the real rule).
    "Ruleset field and knob table": lambda root: _insert(
        root / "sim/rules/ruleset.py", _last_table_border(root / "sim/rules/ruleset.py"),
        f"``{KNOB}``                 the walk's knob\n", after=False),
    "a line of every preset": _preset_lines,
    "the complete ruleset file": _rulesets_line,
    "named in the rule book": lambda root: _append(root / "docs/rules.md", f"\nKnob `{KNOB}`: the walk's.\n"),
    "read by kernel_rules": _kernel_field,
    "a KernelRules field read by the engine": lambda root: _append(
        root / "sim/engine/turn.py", f"\n\ndef walk(rules):\n    return rules.{KNOB}\n"),
    "read by the rules reference": lambda root: _append(
        root / "sim/rules/replay.py", f"\n\ndef walk(r):\n    return r.{KNOB}\n"),
    "named in tests/test_ruleset.py": lambda root: _append(root / "tests/test_ruleset.py", f"\n# {KNOB}\n"),
}


def flagged(root: Path) -> set[str]:
    """The knob recipe's checks that find a knob missing (or an excuse stale) under ``root``."""
    return {problem.split(":")[0] for problem in recipe_problems("knob", TEXT, root)}


def test_the_knob_recipe_walked_on_a_throw_away_knob(tmp_path):
    for folder in ("sim/rules", "sim/engine"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in {f for f in PLACES["knob"] if "*" not in f and not f.startswith(("sim/rules/", "sim/engine/"))}:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    assert flagged(tmp_path) == set()

    # The knob is made: the field of Ruleset, with its default.
    _insert(tmp_path / "sim/rules/ruleset.py", f"    {knobs(ROOT)[-1]}: ", f"    {KNOB}: bool = False\n", after=False)
    assert KNOB in knobs(tmp_path)
    first = flagged(tmp_path)
    checks = {c for c in PLACES["knob"].values() if c}
    # Every checked place flags it but the engine's, which reads the kernels' fields: that one flags it once
    # KernelRules holds it (step 5).
    assert first == checks - {"a KernelRules field read by the engine"}, first

    done: list[str] = []
    for step in recipe_steps(TEXT, RECIPES["knob"]):
        # A place is written at the first step that names it (a later step may name it again).
        for name in dict.fromkeys(PLACES["knob"][f] for f in step.files if PLACES["knob"][f] not in (None, *done)):
            assert name in WALK, f"the walk knows nothing to write for {name!r}"
            assert name in flagged(tmp_path), f"step {step.number}: {name} did not flag the new knob"
            WALK[name](tmp_path)
            done.append(name)
            assert name not in flagged(tmp_path), f"step {step.number}: {name} still flags the knob once written"
        assert flagged(tmp_path) <= checks - set(done), (step.number, flagged(tmp_path))
    assert flagged(tmp_path) == set()
    assert done == list(dict.fromkeys(done)) and set(done) == checks
