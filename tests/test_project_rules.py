"""Rules of the project's shape, checked on every run so they hold themselves.

- `README.md` stays an overview: at most 300 lines (the detail lives in `docs/`).
- Imports run one way, from the top layer down:

      cli (bot.cli, bot.entry)
      app (bot.app)
      adapters (bot.slack, bot.telegram, bot.api)
      core (bot.core)
      service (bot.turn, bot.service, bot.turn_store, bot.stoppable, bot.telemetry)
      graph
      storage
      ground (textkit, and the leaves bot.settings, bot.sample and the bot package)

  A module may import from its own layer or any below it, never from above; an
  adapter never imports storage and never another adapter. Where the shared low
  modules sit is what makes the rule true of the code: `bot.settings` imports
  nothing of ragbot (a leaf every layer may read, so it sits on the ground floor
  with textkit); `bot.telemetry` imports graph and storage and is imported by the
  turn, the core and the app, so it sits with the turn (service).
- One list of settings: `.env.example` names every `Settings` field's environment
  name and nothing else, and `docs/settings.md` is what `scripts/settings_doc.py`
  generates from it.
- The docs carry no work-tracking numbers ("issue 29", "stop 46"): a reader cannot
  resolve them; dates and commit ids say when.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from pydantic import AliasChoices

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "graph", "storage", "textkit")

# (layer name, the module prefixes in it), from the ground up
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground", ("textkit", "bot.settings", "bot.sample")),
    ("storage", ("storage",)),
    ("graph", ("graph",)),
    ("service", ("bot.turn", "bot.service", "bot.turn_store", "bot.stoppable", "bot.telemetry")),
    ("core", ("bot.core",)),
    ("adapters", ("bot.slack", "bot.telegram", "bot.api")),
    ("app", ("bot.app",)),
    ("cli", ("bot.cli", "bot.entry")),
)
ADAPTERS = ("bot.slack", "bot.telegram", "bot.api")


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> int | None:
    """The rank of the layer a ragbot module belongs to (0: ground); None: not ragbot's."""
    if module == "bot":
        return 0  # the package itself: a docstring
    for rank, (_name, prefixes) in enumerate(LAYERS):
        if any(_within(module, prefix) for prefix in prefixes):
            return rank
    return None


def adapter_of(module: str) -> str | None:
    """The adapter package a module belongs to, if any."""
    return next((a for a in ADAPTERS if _within(module, a)), None)


def module_name(path: Path) -> str:
    """The dotted name of a source file under the repository root."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every ragbot module a file imports, anywhere in it (functions, TYPE_CHECKING too).

    `from a.b import c` counts as importing `a.b.c` (c may be a module) and `a.b`;
    relative imports are resolved against the file's package.
    """
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def _source_files() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_readme_is_an_overview() -> None:
    """README.md stays at most 300 lines; the detail lives in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines (at most 300)"


def test_every_module_has_a_layer() -> None:
    """A new top-level module is placed in a layer before the import rule can hold."""
    unplaced = [module_name(p) for p in _source_files() if layer_of(module_name(p)) is None]
    assert not unplaced, f"modules in no layer (add them to LAYERS): {unplaced}"


def upward_imports() -> list[str]:
    """Every import that breaks the one-way rule, as 'importer -> imported (why)'."""
    problems: list[str] = []
    for path in _source_files():
        importer = module_name(path)
        rank = layer_of(importer)
        assert rank is not None
        for imported in sorted(imports_of(path)):
            target = layer_of(imported)
            if target is None:
                continue
            if target > rank:
                problems.append(
                    f"{importer} -> {imported} "
                    f"({LAYERS[rank][0]} imports the higher layer {LAYERS[target][0]})"
                )
            own, other = adapter_of(importer), adapter_of(imported)
            if own and _within(imported, "storage"):
                problems.append(f"{importer} -> {imported} (an adapter imports storage)")
            if own and other and own != other:
                problems.append(f"{importer} -> {imported} (an adapter imports another adapter)")
    return problems


def test_imports_run_one_way() -> None:
    """No module imports from a higher layer; adapters import neither storage nor each other."""
    problems = upward_imports()
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


WORK_TRACKING = re.compile(r"\b[Ii]ssues? #?\d+|\b[Ss]tops? \d+")


def test_docs_carry_no_work_tracking_numbers() -> None:
    """README.md and docs/*.md speak of the project, not of how its work was tracked."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in WORK_TRACKING.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert not found, "work-tracking references in the docs:\n" + "\n".join(found)


# Environment variables ragbot reads outside `Settings`: they configure the tests and
# the benchmarks, not a deployment, so `.env.example` does not list them (it may not
# name them either without this list saying why).
READ_ELSEWHERE: dict[str, str] = {
    "RAGBOT_TEST_DATA_DIR": "tests/conftest.py: where the test suite's embedded Postgres lives",
    "RAGBOT_TEST_DATABASE_URL": "tests/conftest.py: a Postgres server for the test suite",
    "RAGBOT_BENCH_DATA_DIR": "bench/common.py: the benchmarks' data directory",
    "RAGBOT_EVAL_DIR": "bench/common.py: the benchmarks' evaluation sets",
}


def _settings_doc() -> ModuleType:
    spec = importlib.util.spec_from_file_location("settings_doc", ROOT / "scripts/settings_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _env_names(field_name: str) -> list[str]:
    alias = Settings.model_fields[field_name].validation_alias
    if isinstance(alias, str):
        return [alias]
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    raise AssertionError(f"Settings.{field_name} has no environment name (validation_alias)")


def test_env_example_lists_every_setting_and_no_other() -> None:
    """Every Settings field's environment name is in .env.example, and nothing else is.

    A field with several names (LANGFUSE_BASE_URL, or the older LANGFUSE_HOST) is
    listed under its first; the others may be mentioned in its comment.
    """
    listed = _settings_doc().names((ROOT / ".env.example").read_text(encoding="utf-8"))
    duplicates = sorted({name for name in listed if listed.count(name) > 1})
    assert not duplicates, f".env.example names these twice: {duplicates}"
    known = {name for field in Settings.model_fields for name in _env_names(field)}
    missing = [
        _env_names(field)[0]
        for field in Settings.model_fields
        if _env_names(field)[0] not in listed
    ]
    assert not missing, f"settings missing from .env.example: {missing}"
    unknown = [name for name in listed if name not in known and name not in READ_ELSEWHERE]
    assert not unknown, f".env.example names settings Settings does not have: {unknown}"


def test_settings_doc_is_generated() -> None:
    """docs/settings.md is exactly what scripts/settings_doc.py makes of .env.example."""
    doc = _settings_doc()
    expected = doc.render((ROOT / ".env.example").read_text(encoding="utf-8"))
    current = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert current == expected, (
        "docs/settings.md differs from .env.example: edit .env.example, then run "
        "python scripts/settings_doc.py"
    )
