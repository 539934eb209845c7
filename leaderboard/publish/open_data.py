"""Records as Parquet: the one writer of the site's ``results.parquet`` and the exported
dataset's tables (:mod:`leaderboard.publish.export`).

A column's type is the one its table declares (so a release where no record has a value
there types it as the next one does), else it follows its values: all booleans -> bool,
all integers -> int64, numbers -> float64 (exact: the downloads' fractions), text ->
string; lists and mappings (a cell's ``others``, a run's list of tasks) are kept as
compact JSON text, which every Parquet reader reads. Files are zstd-compressed with dictionary encoding (the long form
repeats a line's fields on every column) and written atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def _kind(values: Iterable[object]) -> pa.DataType:
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return pa.string()
    if kinds == {bool}:
        return pa.bool_()
    if kinds == {int}:
        return pa.int64()
    if kinds <= {int, float}:
        return pa.float64()
    return pa.string()


def _cell(value: object, kind: pa.DataType) -> object:
    if value is None:
        return None
    if kind == pa.string() and not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True,
                          allow_nan=False)
    if kind == pa.float64():
        return float(value)  # type: ignore[arg-type]
    return value


def records_table(records: Sequence[dict[str, object]],
                  columns: Sequence[str] | None = None,
                  types: Mapping[str, pa.DataType] | None = None) -> pa.Table:
    """A table of ``records``: its columns in ``columns`` order, else in the order keys
    first appear; a key a record lacks is null there. A column ``types`` names has that
    type, whatever values this set of records happens to hold (a column of counts that
    every record leaves empty is still a column of integers); any other follows its
    values."""
    names = list(columns) if columns is not None else list(
        dict.fromkeys(k for rec in records for k in rec))
    declared = types or {}
    arrays = []
    for name in names:
        values = [rec.get(name) for rec in records]
        kind = declared.get(name) or _kind(values)
        arrays.append(pa.array([_cell(v, kind) for v in values], type=kind))
    return pa.Table.from_arrays(arrays, names=names)


def write_parquet(table: pa.Table, path: Path, *, row_group_size: int | None = None) -> int:
    """Write ``table`` to ``path`` atomically; returns the file's size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=True,
                       row_group_size=row_group_size, write_statistics=True)
        os.chmod(tmp, 0o644)  # a published file: mkstemp makes it the owner's alone
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path.stat().st_size
