"""Reference models: real retrieval models run over the benchmarks as baseline submissions.

A reference model produces a submission folder exactly like a participant's
(``metadata.yaml`` + ``runs/<task>/<role>.trec.gz``); the engine then validates and scores
it like anyone else's. Models are declared in ``models.yaml`` (Hugging Face id, pinned
revision, prompt templates, pooling, maximum lengths, dtype policy) and run by one of the
runners: BM25 (``bm25s``), bi-encoders, cross-encoders, and pointwise generative rerankers
scored from true/false token logits.

A model nobody declared runs from its folder or its Hugging Face Hub id:
:func:`reference_models.model_source.resolve_model` reads its own files into a spec.

Entry points: :func:`reference_models.spec.load_model_specs`,
:func:`reference_models.model_source.resolve_model`,
:func:`reference_models.baseline_run.run_reference_model`, and the CLI
``leaderboard baselines run MODEL``.
"""

from __future__ import annotations

__version__ = "0.1.0"
