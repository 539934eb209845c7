"""A parsed run as columns: the one shape reading, validation, ordering and metrics share.

Query and document ids are dictionary-encoded into integer codes over their sorted
distinct values, so code order is string order and everything downstream works on
integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

# Ids longer than this are kept as Python strings rather than fixed-width numpy strings,
# whose size is (number of ids) x (longest id).
MAX_FIXED_WIDTH = 256


def id_array(values: "list[str] | np.ndarray") -> np.ndarray:
    """Ids as a numpy array: fixed-width unicode when all are short, else Python strings."""
    arr = np.asarray(values, dtype=object)
    if arr.size and max(map(len, arr)) > MAX_FIXED_WIDTH:
        return arr
    return arr.astype(str) if arr.size else np.empty(0, dtype=str)


def ascii_as_unicode(values: np.ndarray) -> np.ndarray:
    """A 1-d array of ASCII byte strings (numpy ``S``) as unicode strings (``U``) of the
    same width: each byte widened to a four-byte code point, one vectorised cast.

    Not ``values.astype("U")``, which decodes the strings one by one: 3.6 ms for 46,800
    eight-byte ids (a FollowIR corpus), against 0.04. Only for ASCII bytes, which are
    their own code points (the caller knows them to be ASCII)."""
    width = values.dtype.itemsize
    if values.shape[0] == 0 or width == 0:
        return values.astype(f"U{max(width, 1)}")
    as_bytes = np.ascontiguousarray(values).view(np.uint8)
    return as_bytes.astype(np.uint32).view(f"<U{width}").reshape(values.shape[0])


def sorted_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of a 1-d array: its sorted distinct
    values and, per element, the index of its value among them.

    Not np.unique itself: on its first call numpy imports numpy.ma (20-30 ms of a one-task
    `leaderboard eval`) only to ask whether the array is masked, which ours never are.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.ones(ordered.shape[0], dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(ordered.shape[0], dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _factorize_sorted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, names): names sorted ascending (code point order, as strcmp on UTF-8)."""
    import pandas as pd  # here, not at the top: a valid run's parse never needs it

    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    names = id_array(list(uniques))
    return _sort_names(codes.astype(np.int32), names)


def _sort_names(codes: np.ndarray, names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(names, kind="stable")
    if np.array_equal(order, np.arange(order.size)):
        return codes, names
    return recoded(codes, order), names[order]


def recoded(codes: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``codes`` into names put in ``order`` (``order[k]`` is the old code of new code
    ``k``), as int32."""
    new_code = np.empty(order.size, dtype=np.int32)
    new_code[order] = np.arange(order.size, dtype=np.int32)
    return new_code[codes]


def lookup(names: np.ndarray, wanted: "np.ndarray | list[str]") -> np.ndarray:
    """Index of each wanted id in the sorted ``names``, -1 where absent.

    Both sides are compared as numpy strings (fast, exact); Python strings are used only
    when ids are too long for fixed width.
    """
    if not isinstance(wanted, np.ndarray) or wanted.dtype.kind not in "UO":
        wanted = id_array(list(wanted))
    elif wanted.dtype.kind == "O":
        wanted = id_array(wanted)
    if not names.size or not wanted.size:
        return np.full(wanted.shape[0], -1, dtype=np.int64)
    if names.dtype.kind != wanted.dtype.kind:  # one side has over-long ids
        names_cmp, wanted = names.astype(object), wanted.astype(object)
    else:
        names_cmp = names
    pos = np.minimum(np.searchsorted(names_cmp, wanted), names.size - 1)
    found = names_cmp[pos] == wanted
    return np.where(found, pos, -1).astype(np.int64)


@dataclass(eq=False)
class ParsedRun:
    """A run as columns, in file order.

    Query and document ids are codes into their sorted distinct values (``q_names``,
    ``d_names``), so code order is string order. ``line`` is each row's 1-based line
    number; ``rank`` the submitted rank column (used only for warnings). The ``qid`` and
    ``docid`` string columns are built on first use.
    """

    q_codes: np.ndarray   # int32, index into q_names
    q_names: np.ndarray   # sorted distinct query ids
    d_codes: np.ndarray   # int32, index into d_names
    d_names: np.ndarray   # sorted distinct document ids
    score: np.ndarray     # float64
    line: np.ndarray      # int64
    rank: np.ndarray      # float64
    # Computed once and kept: grouped_order() and whether it is the file order itself,
    # and order_run() (the same with the queries in id order).
    _grouped: np.ndarray | None = field(default=None, repr=False)
    _grouped_is_identity: bool = field(default=False, repr=False)
    _order: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.q_codes.shape[0])

    @cached_property
    def qid(self) -> np.ndarray:
        return self.q_names[self.q_codes]

    @cached_property
    def docid(self) -> np.ndarray:
        return self.d_names[self.d_codes]

    @classmethod
    def from_strings(cls, qid: "np.ndarray | list[str]", docid: "np.ndarray | list[str]",
                     score: np.ndarray, line: np.ndarray | None = None,
                     rank: np.ndarray | None = None) -> "ParsedRun":
        """Build a run from string columns (ids are factorised here)."""
        n = len(qid)
        q_codes, q_names = _factorize_sorted(np.asarray(qid, dtype=object))
        d_codes, d_names = _factorize_sorted(np.asarray(docid, dtype=object))
        return cls(q_codes, q_names, d_codes, d_names, np.asarray(score, dtype=np.float64),
                   np.arange(1, n + 1, dtype=np.int64) if line is None else np.asarray(line),
                   np.zeros(n) if rank is None else np.asarray(rank, dtype=np.float64))

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str, float]]) -> "ParsedRun":
        """Build a run from (qid, docid, score) rows, e.g. for reference models or tests."""
        return cls.from_strings([r[0] for r in rows], [r[1] for r in rows],
                                np.asarray([r[2] for r in rows], dtype=np.float64))
