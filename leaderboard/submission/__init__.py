"""The one owner of a submission folder ``submissions/<id>/``: its layout and what a pull
request may carry (``layout``, ``pull_request``), its metadata (``metadata``), the
manifest of its run files (``manifest``), finding its files in the folder or the run store
(``folder``, ``files``), its results and per-query scores (``results``), the query
explorer's files (``explain_files``), and validating and scoring it as a whole
(``pipeline``). It builds on the core, the benchmark declarations and the store.
"""
