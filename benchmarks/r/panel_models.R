# The panel models of `brecha models` done with R's plm (the R stack's package for them), whole process:
# pooled OLS, fixed effects (within), random effects (Swamy-Arora), each with clustered-by-unit standard
# errors (Arellano, HC1 small-sample factor), then the Hausman test, the F test for unit effects and the
# Breusch-Pagan LM test. Used by benchmarks/bench_against_r.py; run as
#   Rscript panel_models.R PANEL.csv OUT.csv COVARIATE [COVARIATE ...]
# The panel file has unit, year, births, deaths and the covariates; the outcome is the rate per 1,000 live
# births, and unit-years with zero births or a missing covariate are left out, as brecha does.
suppressPackageStartupMessages({
  library(plm)
  library(lmtest)
  library(sandwich)
})
args <- commandArgs(trailingOnly = TRUE)
covariates <- args[-(1:2)]
data <- read.csv(args[1], colClasses = c(unit = "character"))
data <- data[data$births > 0 & !is.na(data$deaths), ]
data$rate <- data$deaths / data$births * 1000
data <- data[complete.cases(data[, covariates, drop = FALSE]), ]
panel <- pdata.frame(data, index = c("unit", "year"))
formula <- as.formula(paste("rate ~", paste(covariates, collapse = " + ")))

rows <- list()
for (model in c("pooling", "within", "random")) {
  fit <- plm(formula, data = panel, model = model)
  clustered <- vcovHC(fit, method = "arellano", type = "HC1", cluster = "group")
  table <- coeftest(fit, vcov. = clustered)
  rows[[model]] <- data.frame(model = model, term = rownames(table), estimate = table[, 1],
                              se = table[, 2], p_value = table[, 4])
}
fe <- plm(formula, data = panel, model = "within")
re <- plm(formula, data = panel, model = "random")
pooled <- plm(formula, data = panel, model = "pooling")
hausman <- phtest(fe, re)
f_test <- pFtest(fe, pooled)
bp <- plmtest(pooled, type = "bp")
tests <- data.frame(model = "test", term = c("hausman", "f_unit_effects", "breusch_pagan"),
                    estimate = c(hausman$statistic, f_test$statistic, bp$statistic), se = NA,
                    p_value = c(hausman$p.value, f_test$p.value, bp$p.value))
write.csv(rbind(do.call(rbind, rows), tests), args[2], row.names = FALSE)
