"""BM25 over a task's corpus with ``bm25s`` (sparse matrix of precomputed term scores)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from reference_models.spec import BM25Settings
from reference_models.text import Bm25Tokenizer


def tokenizer_for(settings: BM25Settings, language: str) -> Bm25Tokenizer:
    return Bm25Tokenizer(stemmer=settings.stemmer.get(language),
                         stopwords=settings.stopwords.get(language))


class Bm25Index:
    """An index of one corpus; :meth:`scores` gives a query's score for every document."""

    def __init__(self, settings: BM25Settings, documents: Sequence[str], language: str,
                 progress: bool = False) -> None:
        import bm25s

        self.settings = settings
        self.size = len(documents)
        tokenize = tokenizer_for(settings, language)
        corpus_tokens = [tokenize(text) for text in documents]
        # Tokens indexed (after stemming and stop words): what the efficiency meter counts.
        self.tokens = sum(len(tokens) for tokens in corpus_tokens)
        self._retriever = bm25s.BM25(k1=settings.k1, b=settings.b, method=settings.method)
        self._retriever.index(corpus_tokens, show_progress=progress)
        self._vocab: dict[str, int] = self._retriever.vocab_dict

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25 score of every document (float32, corpus order); zeros when no query term
        occurs in the corpus."""
        known = [t for t in query_tokens if t in self._vocab]
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(known), dtype=np.float32)
