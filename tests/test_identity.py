"""One model, one identity (issue 17 §5) and protocols never sharing a column (§3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.publish.models import (
    MODELS_FILE,
    ModelRegistryError,
    canonical_system,
    check_identities,
    fact_clashes,
    load_registry,
    registry_differences,
    resolve_model,
)
from leaderboard.benchmarks.protocols import mteb_swaps_qrels, relabel
from leaderboard.submission.results import ModelInfo, Source, SystemResult, read_results
from leaderboard.publish.standings import load_rows
from leaderboard.publish.standings.statistic import column_value
from leaderboard.benchmarks import site_pages

ROOT = Path(__file__).resolve().parent.parent


def _all_systems(root: Path = ROOT) -> list[SystemResult]:
    """Every row of the repository at ``root``: its reported files' and its submissions'."""
    systems = [s for p in sorted((root / "results" / "reported").glob("*.json"))
               for s in read_results(p).systems]
    systems += [read_results(p).systems[0]
                for p in sorted((root / "submissions").glob("*/results.json"))]
    return systems


def test_every_model_has_one_identity_across_sources() -> None:
    conflicts = check_identities(_all_systems())
    assert not conflicts, "\n".join(c.describe() for c in conflicts[:10])


def test_every_model_has_one_type_on_every_page() -> None:
    rows, _ = load_rows(ROOT)
    types: dict[str, set[str]] = {}
    for page in site_pages():
        for view in page.views:
            for row in rows:
                if any(column_value(row.system, c).value is not None for c in view.columns):
                    types.setdefault(resolve_model(row.system).id, set()).add(
                        row.system.model.type)
    mixed = {k: v for k, v in types.items() if len(v) > 1}
    assert not mixed, mixed


def _verified(sub_id: str, name: str, **facts: object) -> SystemResult:
    return SystemResult(system_id=sub_id, provenance="verified", source=Source(kind="scored"),
                        tasks={}, model=ModelInfo(name=name, **facts))


@pytest.mark.parametrize("facts", [
    {"type": "bi-encoder", "parameters": 22_700_000, "instruction_trained": False},
    {"type": "bi-encoder"},
    {"type": "cross-encoder", "parameters": 7_000_000_000, "instruction_trained": True},
])
def test_a_verified_row_of_a_registry_model_gives_it_no_second_identity(facts) -> None:
    """A rerun named all-MiniLM-L6-v2 that rounded its size to 22700000, or left out the
    optional parameters and instruction_trained, passed validate and pr-check, and once
    merged turned main's identity test red ("rows disagree on parameters"), while the
    board showed the registry's facts for it (canonical_system): a listed model's verified
    rows are not compared, its reported rows are, with the record."""
    rerun = _verified("minilm-rerun", "all-MiniLM-L6-v2", **facts)
    assert check_identities([*_all_systems(), rerun]) == []
    assert canonical_system(rerun).model.parameters == 22_713_216
    # A reported row of a listed model is held to its record: the importers write them
    # with the record's facts, so one that differs is a registry edit not imported again.
    reported = [s for s in _all_systems() if s.provenance == "reported"
                and resolve_model(s).id == "sentence-transformers/all-minilm-l6-v2"]
    stale = reported[0].model_copy(update={"model": reported[0].model.model_copy(
        update={"parameters": 22_700_000})})
    (conflict,) = check_identities([stale])
    assert conflict.field == "parameters" and conflict.values["(registry)"] == "22713216"


def test_rows_of_a_model_the_registry_does_not_list_must_state_one_identity() -> None:
    """A model the registry does not list shows one row's facts, so its rows must agree,
    verified or reported; rows join it by name as the derived id folds them."""
    paper = SystemResult(system_id="paper/x", provenance="reported",
                         source=Source(kind="paper", citation="c"), tasks={},
                         model=ModelInfo(name="Tiny Shoe Encoder", type="bi-encoder"))
    same = _verified("shoe", "Tiny-Shoe-Encoder", type="bi-encoder")
    other = _verified("shoe2", "tiny shoe encoder", type="sparse", parameters=5)
    assert check_identities([paper, same]) == [] and fact_clashes(same, [paper]) == []
    conflicts = check_identities([paper, same, other])
    assert [c.field for c in conflicts] == ["type", "parameters"]
    clashes = fact_clashes(other, [paper, same, _verified("x", "Another Encoder")])
    assert [(row.system_id, d.field, d.own, d.other) for row, d in clashes] == [
        ("paper/x", "type", "sparse", "bi-encoder"), ("paper/x", "parameters", 5, None),
        ("shoe", "type", "sparse", "bi-encoder"), ("shoe", "parameters", 5, None)]
    # A listed model has no clashes: its rows show the record's facts.
    assert fact_clashes(_verified("m", "all-MiniLM-L6-v2", type="sparse"),
                        [_verified("n", "all-MiniLM-L6-v2")]) == []
    record, differences = registry_differences(
        _verified("m", "my MiniLM run", type="bi-encoder", parameters=22_700_000,
                  links=["https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"]))
    assert record.id == "sentence-transformers/all-minilm-l6-v2"
    assert [(d.field, d.own, d.other) for d in differences] == [
        ("parameters", 22_700_000, 22_713_216), ("instruction_trained", None, False)]
    assert registry_differences(same) is None
    # A submission whose id is a reported row's system id is a row of its own.
    namesake = _verified("paper/x", "Tiny Shoe Encoder", type="sparse")
    assert [c.values for c in check_identities([paper, namesake])] == [
        {"paper/x": "bi-encoder", "paper/x~2": "sparse"}]


# (results file, name the source prints) groups that are one model.
KNOWN_DUPLICATES = [
    [("followir-paper", "FollowIR-7B"), ("mfollowir-paper", "FollowIR-7B"),
     ("followtable-paper", "FollowIR (7B)"), ("followtable-paper", "FollowIR"),
     ("mteb-results", "jhu-clsp/FollowIR-7B")],
    [("followir-paper", "GritLM-7B"), ("mfollowir-paper", "GritLM-7B"),
     ("followtable-paper", "GritLM (7B)"), ("mteb-results", "GritLM/GritLM-7B")],
    [("followir-paper", "E5-mistral"), ("mfollowir-paper", "E5-Mistral-Instruct-7B"),
     ("followtable-paper", "E5-Mistral (7B)"),
     ("mteb-results", "intfloat/e5-mistral-7b-instruct")],
    [("followir-paper", "OpenAI v3 Large"), ("followtable-paper", "OpenAI v3 Large"),
     ("mteb-results", "openai/text-embedding-3-large")],
    [("followtable-paper", "Qwen3-Emb (0.6B)"), ("followtable-paper", "Qwen3-Emb-0.6B"),
     ("mteb-results", "Qwen/Qwen3-Embedding-0.6B")],
    [("pi-indic-paper", "BGE-M3"), ("pi-indic-results", "bge-m3"),
     ("mteb-results", "BAAI/bge-m3")],
    [("pi-indic-paper", "multilingual-e5-large-instruct"), ("pi-indic-paper", "E5-Large-Instr."),
     ("pi-indic-results", "intfloat/multilingual-e5-large-instruct"),
     ("mteb-results", "intfloat/multilingual-e5-large-instruct")],
    [("pi-indic-paper", "DistilUSE"), ("pi-indic-paper", "DistilUSE-Multi"),
     ("pi-indic-results", "sentence-transformers/distiluse-base-multilingual-cased-v2")],
    [("followir-paper", "Mistral-7B-instruct"), ("mfollowir-paper", "Mistral-7B-Instruct")],
    [("followir-paper", "E5-large-v2"), ("followtable-paper", "E5-Large-v2"),
     ("mteb-results", "intfloat/e5-large-v2")],
    [("followir-paper", "BM25"), ("followtable-paper", "BM25")],
    # Issue 35, finding 5: the FollowIR paper's rows and the FollowIR authors' MTEB files.
    [("followir-paper", "Google Gecko"), ("mteb-results", "google/text-embedding-004")],
    [("followir-paper", "BGE-base"), ("mteb-results", "BAAI/bge-base-en")],
    [("followir-paper", "BGE-large"), ("mteb-results", "BAAI/bge-large-en")],
]


def test_known_duplicates_resolve_to_one_id() -> None:
    by_name: dict[tuple[str, str], list[SystemResult]] = {}
    for path in sorted((ROOT / "results" / "reported").glob("*.json")):
        for s in read_results(path).systems:
            by_name.setdefault((path.stem, s.model.name), []).append(s)
    for group in KNOWN_DUPLICATES:
        ids = set()
        for key in group:
            assert key in by_name, key  # the source really prints this name
            ids |= {resolve_model(s).id for s in by_name[key]}
        assert len(ids) == 1, (group, ids)
    followir7b = resolve_model(by_name[("mfollowir-paper", "FollowIR-7B")][0])
    assert followir7b.type == "llm-reranker" and not followir7b.derived
    # Each row keeps its own source and printed name: only the identity is shared.
    rows = [s for key in KNOWN_DUPLICATES[0] for s in by_name[key]]
    assert len({s.source.citation for s in rows}) >= 4
    assert {s.model.type for s in rows} == {"llm-reranker"}


def test_verified_submission_resolves_by_its_links() -> None:
    verified = SystemResult(
        system_id="x", provenance="verified", source=Source(kind="scored"), tasks={},
        model=ModelInfo(name="my MiniLM run", type="bi-encoder", parameters=22713216,
                        instruction_trained=False,
                        links=["https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/"]))
    assert resolve_model(verified).id == "sentence-transformers/all-minilm-l6-v2"
    # A reported row is matched by name only: a link alone does not merge it.
    reported = verified.model_copy(update={"provenance": "reported"})
    assert resolve_model(reported).derived
    # Names the registry does not know are their own record, with the row's own facts.
    other = reported.model_copy(update={"model": ModelInfo(name="Some  New Model",
                                                           type="sparse")})
    rec = resolve_model(other)
    assert rec.derived and rec.id == "some-new-model" and rec.type == "sparse"


def test_names_in_other_scripts_keep_their_own_identity() -> None:
    """A derived id kept only a-z, 0-9 and '._/-': "東京 Embed" and "大阪 Embed" both became
    "embed", so the board folded two submissions into one line and the second vanished
    from every table, download and export."""
    def record(name: str, sub: str = "x") -> str:
        return resolve_model(SystemResult(
            system_id=sub, provenance="verified", source=Source(kind="scored"), tasks={},
            model=ModelInfo(name=name, type="bi-encoder"))).id

    assert record("東京 Embed") == "東京-embed" != record("大阪 Embed")
    assert record("Modèle «Ünï» v2") == "modèle-ünï-v2"
    assert record("नमस्ते मॉडल") == "नमस्ते-मॉडल"  # its vowel signs are kept
    # One name written two ways (composed or not, full-width) is one model.
    assert record("Mode\u0301le") == record("Modéle") and record("ＡＢＣ") == "abc"
    # Names the registry does not know keep the ids they had.
    assert record("Some  New Model") == "some-new-model"
    assert record("BM25 (bm25s, Lucene variant, k1=0.9 b=0.4)") == \
        "bm25-bm25s-lucene-variant-k1-0.9-b-0.4"
    assert record("★ ✓") == "model"


def test_registry_errors_name_the_file_and_record(tmp_path: Path) -> None:
    text = MODELS_FILE.read_text(encoding="utf-8")
    dup = tmp_path / "dup.yaml"
    dup.write_text(text.replace("aliases: [GritLM-7B,", "aliases: [FollowIR-7B, GritLM-7B,"),
                   encoding="utf-8")
    with pytest.raises(ModelRegistryError, match=r"dup\.yaml: records\.\d+ \(gritlm/gritlm-7b\)"
                                                 r": name 'FollowIR-7B' already belongs"):
        load_registry(dup)
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("type: llm-reranker", "type: reranker", 1), encoding="utf-8")
    with pytest.raises(ModelRegistryError, match=r"bad\.yaml: records\.0\.type"):
        load_registry(bad)
    broken = tmp_path / "broken.yaml"
    broken.write_text("records: [\n  {id: x,\n", encoding="utf-8")
    with pytest.raises(ModelRegistryError, match=r"broken\.yaml:\d+: invalid YAML"):
        load_registry(broken)


# --------------------------------------------------------------------------- protocols

def _actual_protocol(system: SystemResult) -> str:
    """Which qrels a row's standard metrics were really computed against, from its source
    alone (not from the key it is stored under): mteb 1.x files and the FollowIR paper's
    Table 2 (produced with mteb 1.x) scored each run against the other run's qrels."""
    src = system.source
    if src.kind == "mteb-results" and src.mteb_version and mteb_swaps_qrels(src.mteb_version):
        return "swapped"
    if src.kind == "paper" and system.system_id.startswith("followir-paper/"):
        return "swapped"
    return "as-labelled"


def _key_protocol(metric: str) -> str | None:
    """Which qrels a key says its figure was computed against, by the prefixes a source's
    labels are filed under (``protocols.relabel``): "as-labelled" (``original/``,
    ``altered/``), "swapped", or None for a key of no instruction run (p-MRR)."""
    qualifier = metric.rpartition("/")[0]
    for swapped, named in ((False, "as-labelled"), (True, "swapped")):
        if qualifier in {relabel(role, "", swapped)[:-1] for role in ("original", "altered")}:
            return named
    return None


def test_no_sortable_column_mixes_qrels_protocols() -> None:
    rows, _ = load_rows(ROOT)
    checked = 0
    for page in site_pages():
        for view in page.views:
            for column in view.columns:
                protocols = {_key_protocol(metric) for _, metric in column.parts}
                protocols.discard(None)
                if not protocols:
                    continue  # p-MRR, IRS, PI-Indic: no instruction-run qrels
                assert len(protocols) == 1, (view.id, column.id)
                named = protocols.pop()
                found = {_actual_protocol(r.system) for r in rows
                         if column_value(r.system, column).value is not None}
                assert found <= {named}, (view.id, column.label, found)
                checked += 1
    assert checked >= 10


def test_followir_keeps_both_protocols_in_separate_columns() -> None:
    rows, _ = load_rows(ROOT)
    view = next(v for p in site_pages() for v in p.views if v.id == "followir/core17")
    by_label = {c.label: c for c in view.columns}
    right = [column_value(r.system, by_label["MAP@1000"]).value for r in rows]
    swapped = [column_value(r.system, by_label["MAP@1000 (vs changed qrels)"]).value for r in rows]
    assert sum(v is not None for v in right) >= 33
    assert sum(v is not None for v in swapped) >= 158
    assert not any(a is not None and b is not None for a, b in zip(right, swapped))
    for row in rows:  # every imported MTEB row keeps its mteb version
        if row.system.source.kind == "mteb-results":
            assert row.system.source.mteb_version


def test_site_shows_the_record_type_whatever_a_submission_declares(tmp_path: Path) -> None:
    from leaderboard.submission.results import ResultsFile, TaskScores, write_results

    folder = tmp_path / "submissions" / "followir-7b-rerun"
    system = SystemResult(
        system_id="followir-7b-rerun", provenance="verified", source=Source(kind="scored"),
        model=ModelInfo(name="FollowIR-7B", type="cross-encoder", parameters=7_241_732_096,
                        links=["https://github.com/example/rerun"]),
        tasks={"followir/core17": TaskScores(metrics={"p-MRR": 0.1})})
    write_results(folder / "results.json", ResultsFile(kind="submission", systems=[system]))
    rows, _ = load_rows(tmp_path)
    model = rows[0].system.model
    assert (model.type, model.parameters, model.instruction_trained) == (
        "llm-reranker", 7_000_000_000, True)
    assert model.name == "FollowIR-7B"
    assert model.links[0] == "https://github.com/example/rerun"  # its own links first
    assert "https://huggingface.co/jhu-clsp/FollowIR-7B" in model.links


def test_mteb_version_decides_the_qrels_and_a_bad_one_names_the_file(tmp_path: Path) -> None:
    import json

    from leaderboard.publish.reported.mteb import MtebImportError, import_mteb

    assert mteb_swaps_qrels("1.12.75") and mteb_swaps_qrels("1.36.10")
    assert not mteb_swaps_qrels("2.0.0") and not mteb_swaps_qrels("2.26.24")
    path = tmp_path / "results" / "org__m" / "rev" / "Core17InstructionRetrieval.json"
    path.parent.mkdir(parents=True)
    entry = {"hf_subset": "default", "main_score": 0.1,
             "og": {"map_at_1000": 0.3, "ndcg_at_10": 0.3}}
    path.write_text(json.dumps({"task_name": "Core17InstructionRetrieval",
                                "mteb_version": "dev", "scores": {"test": [entry]}}))
    with pytest.raises(MtebImportError, match=r"Core17InstructionRetrieval\.json: "
                                              r"mteb_version 'dev'"):
        import_mteb(tmp_path)
