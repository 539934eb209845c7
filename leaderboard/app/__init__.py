"""The programs: the command line (``cli``, one module per command in ``commands``), the
pull-request pipeline's steps (``ci``), moving a submission's files to and from the run
store (``transfer``), fetching benchmark data from upstream (``datapull``) and working out
who a submitter is (``submitter``). The only layer that may import every other.
"""
