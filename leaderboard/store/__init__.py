"""The run store: a submission's large files kept outside git, named by content.

Git keeps, for each submission, ``metadata.yaml``, ``manifest.txt`` (every run file by
path, size and SHA-256: :mod:`leaderboard.submission.manifest`) and ``results.json`` (every
score but the per-query ones, which sit in ``per-query.json.gz``, named in results.json by
the SHA-256 of its content). The files themselves live in the submission's folder, in the
configured run store, or, in a pull request, in the submitter's own Hugging Face dataset
at a commit named by the manifest's ``source:`` line.

* :mod:`leaderboard.store.locations`: the one setting that chooses the store (a folder,
  a Hugging Face dataset repository, or a read-only HTTPS location) and the ``hf://``
  sources a manifest may name;
* :mod:`leaderboard.store.http`: the one HTTP reader, bounded in time and size;
* :mod:`leaderboard.store.cache`: fetched files kept on disk under their SHA-256;
* :mod:`leaderboard.store.files`: files named by size and SHA-256, verified before
  anything parses them, fetched into the cache.

The store knows files, not submissions: which places hold a submission's file is
:mod:`leaderboard.submission.files`'s business, and ``leaderboard runs pull | push |
verify | add`` is :mod:`leaderboard.app.transfer`'s. It imports only
:mod:`leaderboard.core`.
"""
