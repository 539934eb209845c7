"""A view's download records in long form: one record per (view, model line, column).

The records are the JSON downloads' own (:func:`leaderboard.publish.standings.downloads.view_records`),
reshaped, never recomputed: whatever a download record carries reaches the long form.
A record's keys are of three kinds, told apart by the view's column ids:

* ``<column id>``: the cell's value (``value``);
* ``<column id> <field>``: a field of that cell (``from``, and a tested column's ``tier``,
  ``p_value``, ``p_adjusted``, ... whatever the downloads add), kept under ``<field>``;
* anything else: a field of the model line (``rank``, ``model``, ``source``, ...), repeated
  on each of the line's records; JSON's ``others`` (the other rows' figures for a cell)
  becomes the cell's ``others``.

So a record of column ``p-MRR`` holds the line's fields, ``column``, ``value``, ``from``
(the row the figure comes from when it is not the line's ``system_id``) and, when the
column is tested, the line's test against the best verified row on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# Key names of the long form that a download record's own fields may not take.
VIEW, COLUMN, VALUE, OTHERS = "view", "column", "value", "others"


def split_key(key: str, column_ids: Sequence[str]) -> tuple[str | None, str | None]:
    """(column id, field) of a download record's key: (id, None) for a cell's value,
    (id, field) for a cell's field, (None, None) for a field of the line. The longest
    column id that the key starts with wins (ids never contain a space)."""
    if key in column_ids:
        return key, None
    best = None
    for cid in column_ids:
        if key.startswith(cid + " ") and (best is None or len(cid) > len(best)):
            best = cid
    if best is None:
        return None, None
    return best, key[len(best) + 1:]


def long_records(view_id: str, column_ids: Sequence[str],
                 records: Iterable[dict[str, object]]) -> list[dict[str, object]]:
    """A view's records in long form, in the downloads' order (line by line, each line's
    columns in the view's order)."""
    out: list[dict[str, object]] = []
    for rec in records:
        line: dict[str, object] = {}
        cells: dict[str, dict[str, object]] = {cid: {} for cid in column_ids}
        for key, value in rec.items():
            if key == OTHERS:
                continue
            cid, field = split_key(key, column_ids)
            if cid is None:
                line[key] = value
            else:
                cells[cid][VALUE if field is None else field] = value
        others = rec.get(OTHERS) or {}
        for cid in column_ids:
            entry = {VIEW: view_id, **line, COLUMN: cid, **cells[cid]}
            if isinstance(others, dict) and cid in others:
                entry[OTHERS] = others[cid]
            out.append(entry)
    return out
