"""`leaderboard explain`: the per-query list of a task's runs, and one query's card."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from leaderboard.app.commands import (SCALE_NOTE, add_data_dir, add_role_files, figure_text,
                                      new_command, task_and_files)
from leaderboard.core.display import fixed, score_text
from leaderboard.core.errors import UsageError


def label(key: str) -> str:
    """What the list and the card call a per-query metric: its key, or the measure's
    per-query name where its own would mislead (the measure catalogue says which)."""
    from leaderboard.core.measures import query_name

    return query_name(key)


def notes(keys: list[str]) -> list[str]:
    """What those renamed per-query metrics are, a line each."""
    from leaderboard.core.measures import query_help, query_name

    return [f"{query_name(k)}: {query_help(k)}" for k in keys if query_name(k) != k]


# What `explain --json` prints, named in it: a later shape gets another number.
EXPLAIN_FORMAT = "followboard-explain/1"


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "explain", "show why runs follow an instruction or not, query by query",
        "Validate and score the runs of one task as `eval` does, then list every query "
        "with its own scores (worst first on the task's primary metric), or, with --query, "
        "show that query's card: the documents whose judgment the instruction changed and "
        "the instruction-compliant ones, with their ranks in the original and the altered "
        "run and what each adds to the query's p-MRR and IRS, and the top 10 of each run "
        "with its judgments. The figures are the engine's, as results.json stores them.",
        "  leaderboard explain followtable/wtr --original topic.trec --altered instr.trec\n"
        "  leaderboard explain followtable/wtr --original topic.trec --altered instr.trec "
        "--query 12_0")
    p.add_argument("task", metavar="TASK")
    add_role_files(p)
    p.add_argument("--query", metavar="ID", help="show this query's card (a pair id for "
                   "FollowTable, the altered query id for FollowIR and mFollowIR, a persona for "
                   "PI-Indic T4)")
    p.add_argument("--sort", metavar="METRIC", default=None,
                   help="order the list by this per-query metric, lowest first "
                        "(default: the task's primary metric)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="list only the first N queries")
    p.add_argument("--json", action="store_true",
                   help='print {"format", "task", "queries", "card"} as JSON (format '
                        f'{EXPLAIN_FORMAT}; fractions; "card" null without --query)')
    add_data_dir(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    task, given = task_and_files(args)
    if args.limit is not None and args.limit <= 0:
        raise UsageError("--limit must be positive")

    from leaderboard.core.data import resolve_data_dir
    from leaderboard.core.explain import explain_task
    from leaderboard.core.evaluate import check_task_files, score_inputs

    report, inputs = check_task_files(task, resolve_data_dir(args.data_dir), given)
    for line in report.lines():
        print(line, file=sys.stderr)
    if inputs is None:
        return 1
    sheet = score_inputs(inputs)
    explanation = explain_task(task, inputs.data, sheet, inputs.runs, inputs.predictions)
    sort_key = task.primary_metric if args.sort is None else args.sort
    known = sorted({k for row in explanation.rows for k in row.metrics})
    if sort_key not in known:
        raise UsageError(f"--sort {sort_key!r} is not a per-query metric of {task.id}; "
                         f"choose from {', '.join(known)}")
    card = None if args.query is None else explanation.card(args.query)
    rows = sorted(explanation.rows,
                  key=lambda r: (r.metrics.get(sort_key, float("inf")), r.query))
    if args.limit is not None:
        rows = rows[:args.limit]
    if args.json:
        # One set of keys whatever was asked: "card" is null without --query.
        out = {"format": EXPLAIN_FORMAT, "task": task.id, "queries": [vars(r) for r in rows],
               "card": None if card is None else card.to_json()}
        # Texts as they are where the output is UTF-8 (a terminal, a file, a pipe on Linux);
        # escaped elsewhere (a Windows console's code page cannot write every script).
        utf8 = (sys.stdout.encoding or "").lower().replace("-", "").replace("_", "") == "utf8"
        print(json.dumps(out, sort_keys=True, ensure_ascii=not utf8))
        return 0
    if card is not None:
        print(card_text(card))
    else:
        print(list_text(task.id, rows, known, sort_key, len(explanation.rows)))
    return 0


def shown(fraction: float | None) -> str:
    """A p-MRR term, its share, or an IRS gain (or S) x100, two decimals, signed: each is
    a difference, on the card's one scale, by the leaderboard's display rule."""
    return "-" if fraction is None else score_text(fraction, signed=True, digits=2)


def gain(value: float) -> str:
    """An IRS gain (or S) x100, two decimals: the card's one scale, as p-MRR's terms."""
    return shown(value)


def list_text(task_id: str, rows, keys: list[str], sort_key: str, total: int) -> str:  # noqa: ANN001
    head = [f"{task_id}: {total} queries, lowest {label(sort_key)} first "
            f"({SCALE_NOTE}); --query ID shows one"]
    head += notes(keys)
    has_topic = any(r.original_query for r in rows)
    has_group = any(r.group for r in rows)
    width = max([len(r.query) for r in rows] + [5])
    cols = ["query".ljust(width)]
    if has_topic:
        cols.append("original".ljust(max([len(r.original_query or "") for r in rows] + [8])))
    if has_group:
        cols.append("type")
    cols += [label(k).rjust(max(len(label(k)), 7)) for k in keys]
    head.append("  ".join(cols))
    for r in rows:
        cells = [r.query.ljust(width)]
        if has_topic:
            cells.append((r.original_query or "").ljust(len(cols[1])))
        if has_group:
            cells.append((r.group or "").ljust(4))
        cells += [figure_text(k, r.metrics.get(k)).rjust(max(len(label(k)), 7))
                  for k in keys]
        head.append("  ".join(cells))
    return "\n".join(head)


def _rank(rank: int | None, used: int | None = None) -> str:
    if rank is not None:
        return str(rank)
    return f"- ({used})" if used else "-"


def _move(before: int, after: int) -> str:
    if after < before:
        return f"up {before - after}"
    if after > before:
        return f"down {after - before}"
    return "same"


def _wrap(label: str, text: str) -> list[str]:
    lines = textwrap.wrap(text, width=100, initial_indent=f"{label:16}",
                          subsequent_indent=" " * 16) or [f"{label:16}(no text)"]
    return lines


def _mark(query: int | None, instruction: int | None, pair_role: str | None) -> str:
    """Q/I: relevant to the query / under the instruction; q/i: judged not relevant;
    T-/T+: a changed / an instruction-compliant document of the pair."""
    marks = {"changed": "T- ", "positive": "T+ "}.get(pair_role or "", "")
    if query is not None:
        marks += "Q" if query > 0 else "q"
    if instruction is not None:
        marks += "I" if instruction > 0 else "i"
    return marks or "."


def card_text(card) -> str:  # noqa: ANN001 - a leaderboard.core.explain.QueryCard
    what = f"{card.task}, query {card.query}"
    if card.original_query:
        what += f" (original query {card.original_query}"
        what += f", constraint {card.group})" if card.group else ")"
    out = [f"{what}; {SCALE_NOTE}"]
    out.append("  " + "   ".join(f"{label(k)} {figure_text(k, v)}"
                                 for k, v in sorted(card.metrics.items())))
    out += [f"  {line}" for line in notes(sorted(card.metrics))]
    for role, text in card.texts.items():
        out += _wrap(f"{role} text:", text)
    if card.pairs:
        out.append("")
        out.append(f"persona {card.query}'s pairs, the most probable first (a prediction is "
                   "'compatible' at a probability of 0.5 or more):")
        out.append(f"  {'pair':18} {'gold label':>12} {'probability':>12} {'predicted':>12}")
        for pair in card.pairs:
            gold = "compatible" if pair["label"] else "incompatible"
            predicted = "compatible" if pair["probability"] >= 0.5 else "incompatible"
            mark = "" if (pair["probability"] >= 0.5) == bool(pair["label"]) else "  wrong"
            out.append(f"  {pair['pair']:18} {gold:>12} {pair['probability']:>12.6g} "
                       f"{predicted:>12}{mark}")
        return "\n".join(out)
    if card.original_query is None:
        out.append("")
        out.append("relevant documents and their rank in the run ('-': not ranked):")
        for move in card.changed:
            out.append(f"  {move.doc:24} {_rank(move.rank_altered):>8}")
        out += _top_text(card)
        return "\n".join(out)
    n = len(card.changed)
    out.append("")
    out.append(f"documents the instruction made non-relevant (p-MRR's changed documents, "
               f"FollowTable's T-): {n}")
    out.append("  a good run moves them down; p-MRR is the mean of their terms, share = "
               "term / " + str(max(n, 1)))
    out.append("  ranks '-' = not ranked, with the rank p-MRR uses in brackets")
    header = f"  {'document':24} {'original':>10} {'altered':>10} {'move':>10} " \
             f"{'p-MRR term':>10} {'share':>8}"
    with_irs = any(m.irs_gain is not None for m in card.changed + card.positive)
    if with_irs:
        header += f" {'IRS gain':>9}"
    out.append(header)
    for m in card.changed:
        line = (f"  {m.doc:24} {_rank(m.rank_original, m.p_mrr_rank_original):>10} "
                f"{_rank(m.rank_altered, m.p_mrr_rank_altered):>10} "
                f"{_move(m.p_mrr_rank_original, m.p_mrr_rank_altered):>10} "
                f"{shown(m.p_mrr):>10} {shown((m.p_mrr or 0) / n):>8}")
        if with_irs:
            line += f" {gain(m.irs_gain):>9}"
        out.append(line)
    if with_irs:
        out.append("")
        out.append(f"instruction-compliant documents (FollowTable's T+): {len(card.positive)}; "
                   "a good run moves them up")
        out.append(f"  {'document':24} {'original':>10} {'altered':>10} {'IRS gain':>9}")
        for m in card.positive:
            out.append(f"  {m.doc:24} {_rank(m.rank_original):>10} {_rank(m.rank_altered):>10} "
                       f"{gain(m.irs_gain):>9}")
        parts = card.irs_parts
        out.append(f"  IRS: S = {gain(parts['S'])} (sum of the gains; unranked = rank N+1), "
                   f"S(ideal) = {gain(parts['S_ideal'])}, S(worst) = {gain(parts['S_worst'])}; "
                   + (f"IRS = S / {fixed(parts['scale'], 4)}, within [-100, 100]"
                      if parts["scale"] else "IRS is fixed (no ranking to normalise by)"))
    out += _top_text(card)
    return "\n".join(out)


def _top_text(card) -> list[str]:  # noqa: ANN001
    roles = list(card.top)
    out = ["", "top of each run (Q/I: relevant to the query / under the instruction, "
               "q/i: judged not relevant, '.': not judged; T-/T+: changed / "
               "instruction-compliant):"]
    out.append("  rank  " + "".join(f"{r + ' (' + str(card.run_lengths[r]) + ' ranked)':34}"
                                    for r in roles))
    depth = max((len(card.top[r]) for r in roles), default=0)
    for i in range(depth):
        cells = []
        for r in roles:
            docs = card.top[r]
            if i < len(docs):
                doc = docs[i]
                mark = _mark(doc.judged_query, doc.judged_instruction, doc.pair_role)
                cells.append(f"{doc.doc} [{mark}]")
            else:
                cells.append("")
        out.append(f"  {i + 1:>4}  " + "".join(f"{c:34}" for c in cells))
    if not depth:
        out.append("  (no run ranks this query)")
    return out
