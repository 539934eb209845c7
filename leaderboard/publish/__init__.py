"""What the leaderboard publishes from the scored submissions and the reported figures:
model identities (``models``), the papers' and MTEB's reported rows (``reported``),
significance tests (``stats``), what every surface ranks and shows (``standings``) and the
static site (``site``).
"""
