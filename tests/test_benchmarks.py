"""Benchmark declarations: each benchmark is declared once, in leaderboard/benchmarks/,
and the registry, data loader, `data pull` and site layout read the declaration."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import leaderboard.benchmarks as benchmarks
from leaderboard.benchmarks import registry
from leaderboard.benchmarks import Benchmark, benchmark_of
from leaderboard.benchmarks.declaration import GuideRow
from leaderboard.publish.site.mkdocs_config import mkdocs_config
from leaderboard.publish.site.render import task_sources
from leaderboard.core.tasks import DataSource, Task
from leaderboard.benchmarks.views import Page, Section, View, column
from leaderboard.core.data import _reader
from leaderboard.core.data.layout_files import pi_indic_file
from leaderboard.app.datapull import pull

PACKAGE = Path(__file__).resolve().parents[1] / "leaderboard"
# Comparing a task's benchmark with a literal id: a dispatch that belongs in a declaration.
DISPATCH = re.compile(r"""\bbenchmark\s*(==|!=|not in|in)\s*[("'\[]""")
# Synthetic site fixtures pick sample tasks of named benchmarks (no dispatch on them).
NOT_DISPATCH = {PACKAGE / "publish" / "site" / "synthetic.py"}


def test_every_task_belongs_to_its_benchmark_declaration():
    tasks = list(registry.all_tasks().values())
    assert {t.benchmark for t in tasks} == {b.id for b in benchmarks.BENCHMARKS}
    for b in benchmarks.BENCHMARKS:
        assert list(b.tasks) == [t for t in tasks if t.benchmark == b.id]
        assert registry.tasks_of(b.id) == list(b.tasks)


def test_a_declaration_building_a_task_of_another_benchmark_is_an_error():
    wrong = Benchmark(id="x", title="X",
                      build_tasks=lambda: list(benchmark_of("followir").tasks))
    with pytest.raises(ValueError, match="benchmark 'x' builds task 'followir/robust04'"):
        wrong.tasks


def test_no_module_outside_the_declarations_dispatches_on_a_benchmark_id():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "benchmarks") in path.parents or path in NOT_DISPATCH:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if DISPATCH.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}")
    assert offenders == []


def test_reader_follows_the_task_layout():
    task = registry.get_task("followtable/wqt")
    assert _reader(task).__name__ == "leaderboard.core.data.followtable"
    relaid = dataclasses.replace(task, layout="pi-indic")
    assert _reader(relaid).__name__ == "leaderboard.core.data.pi_indic"
    unknown = dataclasses.replace(task, layout="nope")
    with pytest.raises(ValueError, match="task 'followtable/wqt': unknown data layout 'nope'"):
        _reader(unknown)


@pytest.fixture
def toy_benchmark(monkeypatch: pytest.MonkeyPatch):
    """One more benchmark, declared in one place and nowhere else."""
    task = Task(id="toy/one", benchmark="toy", title="Toy one",
                source=DataSource(host="github", repo="someone/toy", revision="abc123",
                                  local_dir="toy", files=("data/a.csv",)), layout="pi-indic",
                query_language="hin", doc_language="hin",
                roles=("run",), pairing="none", candidates="corpus",
                standard_metrics=("R@1",), primary_metric="R@1", headline_metric="R@1")
    view = View(id="toy/one", label="One", title="Toy one",
                columns=(column(("toy/one",), "R@1", "R@1"),))
    page = Page(path="toy.md", title="Toy", intro="",
                sections=(Section(id="toy", title="Toy", intro="", views=(view,)),))
    second = Page(path="toy/more.md", title="Toy more", intro="", nav=("Toys", "More"),
                  sections=(Section(id="toy-more", title="More", intro="", views=()),))
    toy = Benchmark(id="toy", title="Toy", build_tasks=lambda: [task],
                    pull_aliases=("toy-bench",), pages=lambda: (page, second),
                    guide=(GuideRow(title="Toy", pull="toy", task_prefixes=("toy/",),
                                    queries="toy queries", corpus="toy corpus",
                                    depth="every toy"),))
    monkeypatch.setattr(benchmarks, "BENCHMARKS", (*benchmarks.BENCHMARKS, toy))
    registry.all_tasks.cache_clear()
    benchmarks.site_pages.cache_clear()
    yield task
    monkeypatch.undo()
    registry.all_tasks.cache_clear()
    benchmarks.site_pages.cache_clear()


def test_adding_a_benchmark_is_one_declaration(toy_benchmark: Task, tmp_path: Path):
    assert registry.get_task("toy/one") is toy_benchmark
    assert registry.tasks_of("toy") == [toy_benchmark]
    assert [s.source.repo for s in pull.select_sources(["toy-bench"])] == ["someone/toy"]
    assert [s.source.repo for s in pull.select_sources(["toy"])] == ["someone/toy"]
    [toy_source] = pull.select_sources(["toy"])
    assert pull.source_missing_files(toy_source, tmp_path) == [
        tmp_path / "toy" / pi_indic_file("hin")]  # what its layout's reader reads
    assert _reader(toy_benchmark).__name__ == "leaderboard.core.data.pi_indic"
    assert [p.path for p in benchmarks.site_pages()[-2:]] == ["toy.md", "toy/more.md"]
    assert "toy/one" in benchmarks.all_views()
    # The site reads the declaration: its navigation groups pages as they say, and the
    # How-to-submit table has its row with its pinned source.
    nav = mkdocs_config(tmp_path / "docs", tmp_path / "site")["nav"]
    assert {"Toy": "toy.md"} in nav and {"Toys": [{"More": "toy/more.md"}]} in nav
    assert task_sources()[-1] == {
        "benchmark": "Toy", "pull": "toy",
        "sources": [("someone/toy@abc123", "https://github.com/someone/toy/tree/abc123")],
        "queries": "toy queries", "corpus": "toy corpus", "depth": "every toy"}


def test_task_declarations_refuse_values_outside_their_choices():
    """The schema is plain dataclasses (no pydantic on `eval`'s path); a declaration with a
    role, pairing, candidates mode or host outside its allowed set still fails at once,
    naming the task and the field."""
    good = registry.get_task("followtable/wtr")
    for field, value in (("pairing", "sideways"), ("candidates", "web"),
                         ("roles", ("original", "edited")), ("roles", "original")):
        with pytest.raises(ValueError, match=f"task 'followtable/wtr': .*{field[:-1]}"):
            dataclasses.replace(good, **{field: value})
    # A language is a code the site can mark text with (core/languages.py): a typo, or
    # a language with no BCP 47 tag and script direction there, fails here.
    with pytest.raises(ValueError, match="task 'followtable/wtr': doc_language must be an "
                                         "ISO 639-3 code .* not 'en'"):
        dataclasses.replace(good, doc_language="en")
    with pytest.raises(ValueError, match="host must be one of"):
        dataclasses.replace(good.source, host="gitlab")
    with pytest.raises(TypeError):
        Task(id="x")  # required fields are required, by keyword only
    # Lists are accepted and stored as tuples, as pydantic stored them.
    relisted = dataclasses.replace(good, standard_metrics=["nDCG@10"])
    assert relisted.standard_metrics == ("nDCG@10",)


def test_get_task_finds_every_registered_task_as_the_registry_holds_it() -> None:
    # get_task looks in the task's own benchmark first; it must give the very task the
    # whole registry (which refuses an id declared twice) holds under that id.
    from leaderboard.benchmarks.registry import all_tasks, get_task

    tasks = all_tasks()
    assert len(tasks) > 300
    for task_id, task in tasks.items():
        assert get_task(task_id) is task
