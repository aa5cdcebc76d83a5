"""Panel models of the rate on the study's covariates: coefficients, the tests between models, and the
models' own notes (covariates named by their labels)."""
from __future__ import annotations

from ..blocks import Block
from ..labels import relabel_covariates


def build(res, page) -> None:
    L, lang = page.L, page.lang
    fit, covs = res.models, res.models_covariates
    coefficients = fit.coefficients  # a property that builds the table anew: once (it was built 9 times)
    page.add_table("model_coefficients", coefficients, L("t_coefficients"), "models",
                   columns=[c for c in ("model", "term", "estimate", "se", "statistic", "p_value", "lower", "upper")
                            if c in coefficients.columns])
    country = getattr(res.panel, "country", None)
    if fit.tests is not None and len(fit.tests):
        tests = fit.tests
        if "note" in tests:  # prose: the covariates by their labels (the term column keeps the names)
            tests = tests.assign(note=[relabel_covariates(n, covs, lang, country) if isinstance(n, str) else n
                                       for n in tests["note"]])
        page.add_table("model_tests", tests, L("t_tests"), "models")
    # the model notes repeat the panel's caveats (shown in the data section): keep the models' own
    heads = {str(n)[:30] for n in res.panel.notes}
    notes = [relabel_covariates(str(n), covs, lang, country) for n in getattr(fit, "notes", [])
             if str(n)[:30] not in heads]
    if notes:
        page.section("models").add(Block("list", items=list(dict.fromkeys(notes))))
