"""Metrics: ranking measures with trec_eval semantics, p-MRR and IRS, and T4 classification."""
