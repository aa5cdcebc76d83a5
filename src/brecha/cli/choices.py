"""The values some options accept, named here so that building the command line (``brecha --help``, an
argument error) imports neither numpy nor the analyses (issue 19: start-up).

Each tuple is the analysis module's own list, copied; ``tests/cli/test_startup.py`` checks that every copy
equals the analysis module's (``brecha.intervals.CI_METHODS``, ``brecha.trends.RHO_METHODS``,
``brecha.trends.ZERO_RULES``), so a method added there and not here fails a test instead of being refused.
"""
CI_METHODS = ("exact", "byar", "byar-epitools", "phe", "wilson", "clopper-pearson")
RHO_METHODS = ("regress", "freg", "tscorr", "dw", "theil", "nagar")
ZERO_RULES = ("add-half", "pool-years", "skip")
