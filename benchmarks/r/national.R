# The national Chilean analyses of benchmarks/r/national.toml done with the R stack, whole process
# (issue 19's bar: brecha as one command at least 100x faster than this). Used by
# benchmarks/bench_against_r.py; run as
#   Rscript national.R PANEL.csv OUT_FOLDER REFERENCE_UNIT
# PANEL.csv has unit, year, births, deaths and the covariates poverty, health_spending_pc, schooling, sapu (written by the benchmark from brecha's embedded Chilean panel); REFERENCE_UNIT is the reference
# commune brecha chose ("best" rule). What it computes, as the study asks brecha to:
# - rates per 1,000 live births with exact Poisson (Garwood) intervals, per commune and year, per commune
#   pooled over 2000-2015, per region and year, and national per year and pooled (vectorised base R, as
#   epitools::pois.exact does);
# - disparity against the reference commune: RR (Wald on the log scale), AR, AR% per commune and year and
#   pooled; the country's PAR and PAR% per year and pooled (vectorised base R);
# - trends: Prais-Winsten regression of log10(rate) on year for every commune and for the country
#   (prais::prais_winsten, one call per commune as users write it; zero deaths counted as 0.5), the annual
#   percent change with its 95 % CI and the class at p < 0.05;
# - inequality per year between the communes: WHO's summary measures with healthequal (the non-ordered ones
#   on every commune; the ordered ones, ACI, RCI, SII, RII, with the communes ordered by poverty);
# - panel models of the rate on the four covariates: pooled, within and random effects with clustered SEs,
#   Hausman, F for unit effects and Breusch-Pagan (plm, sandwich, lmtest).
# Each result is written as a CSV file in OUT_FOLDER, and the seconds each part took in timings.csv.
suppressPackageStartupMessages({
  library(prais)
  library(plm)
  library(lmtest)
  library(sandwich)
})
# healthequal, or (where it cannot be installed: it imports srvyr, which it never calls) its R files, unmodified,
# from the folder HEALTHEQUAL_R, with the packages they use attached
if (!suppressWarnings(suppressPackageStartupMessages(require(healthequal, quietly = TRUE)))) {
  folder <- Sys.getenv("HEALTHEQUAL_R")
  if (folder == "") stop("healthequal is not installed; set HEALTHEQUAL_R to the folder of its R files")
  suppressPackageStartupMessages({
    library(dplyr)
    library(emmeans)
    library(survey)
    library(marginaleffects)
    library(rlang)
  })
  for (file in list.files(folder, pattern = "[.]R$", full.names = TRUE)) sys.source(file, envir = globalenv())
}
started <- 0  # proc.time()'s elapsed time counts from the start of R
timings <- data.frame(part = character(), seconds = numeric())
took <- function(part) {  # each part's seconds, written to OUT_FOLDER/timings.csv at the end
  now <- proc.time()[["elapsed"]]
  timings[nrow(timings) + 1, ] <<- list(part, now - started)
  started <<- now
}
took("R and the packages loaded")
args <- commandArgs(trailingOnly = TRUE)
out <- args[2]
reference <- args[3]
dir.create(out, showWarnings = FALSE)
write <- function(table, name) write.csv(table, file.path(out, paste0(name, ".csv")), row.names = FALSE)

data <- read.csv(args[1], colClasses = c(unit = "character"))
data <- data[!is.na(data$births) & !is.na(data$deaths), ]
data$region <- substr(data$unit, 1, 2)  # a Chilean commune code's first two digits
z <- qnorm(0.975)

# rates ---------------------------------------------------------------------------------------------------
exact <- function(deaths, births) {
  data.frame(rate = deaths / births * 1000,
             lower = ifelse(deaths == 0, 0, qchisq(0.025, 2 * deaths) / 2) / births * 1000,
             upper = qchisq(0.975, 2 * (deaths + 1)) / 2 / births * 1000)
}
pooled <- function(by) {
  sums <- aggregate(cbind(deaths, births) ~ ., data = data[, c(by, "deaths", "births")], FUN = sum)
  cbind(sums, exact(sums$deaths, sums$births))
}
with_births <- data[data$births > 0, ]
write(cbind(with_births[, c("unit", "year", "deaths", "births")], exact(with_births$deaths, with_births$births)),
      "rates_units_year")
write(pooled("unit"), "rates_units_pooled")
write(pooled(c("region", "year")), "rates_regions")
national <- pooled("year")
write(national, "rates_national")
total <- data.frame(deaths = sum(data$deaths), births = sum(data$births))
write(cbind(total, exact(total$deaths, total$births)), "rates_national_pooled")

took("rates")

# disparity against the reference commune ------------------------------------------------------------------
compare <- function(a, n1, c, n0) {
  r1 <- a / n1
  r0 <- c / n0
  rr <- r1 / r0
  se_log <- sqrt(1 / a + 1 / c)
  ar <- (r1 - r0) * 1000
  se_ar <- sqrt(a / n1^2 + c / n0^2) * 1000
  data.frame(rr = rr, rr_lower = exp(log(rr) - z * se_log), rr_upper = exp(log(rr) + z * se_log),
             ar = ar, ar_lower = ar - z * se_ar, ar_upper = ar + z * se_ar,
             ar_percent = (rr - 1) / rr * 100)
}
ref_year <- with_births[with_births$unit == reference, c("year", "deaths", "births")]
names(ref_year) <- c("year", "ref_deaths", "ref_births")
by_year <- merge(with_births[, c("unit", "year", "deaths", "births")], ref_year, by = "year")
write(cbind(by_year, compare(by_year$deaths, by_year$births, by_year$ref_deaths, by_year$ref_births)),
      "disparity_units_year")
units <- pooled("unit")
ref <- units[units$unit == reference, ]
write(cbind(units[, c("unit", "deaths", "births")], compare(units$deaths, units$births, ref$deaths, ref$births)),
      "disparity_units_pooled")
par_table <- function(d, n, c, n0) {
  d <- as.numeric(d)
  n <- as.numeric(n)
  c <- as.numeric(c)
  n0 <- as.numeric(n0)
  # PAR = total rate - reference rate; PAR% = PAR / total rate; CIs by Walter (1978) on the fraction scale
  total_rate <- d / n
  ref_rate <- c / n0
  par <- (total_rate - ref_rate) * 1000
  se_par <- sqrt(d / n^2 + c / n0^2) * 1000
  paf <- (total_rate - ref_rate) / total_rate
  a <- d - c
  b <- n - d - (n0 - c)
  dd <- n0 - c
  big_n <- n
  var_paf <- c * big_n * (a * dd * (big_n - c) + b * c^2) / ((a + c)^3 * (c + dd)^3)
  data.frame(par = par, par_lower = par - z * se_par, par_upper = par + z * se_par, par_percent = paf * 100,
             par_percent_lower = (paf - z * sqrt(var_paf)) * 100,
             par_percent_upper = (paf + z * sqrt(var_paf)) * 100)
}
national_ref <- merge(national, ref_year, by = "year")
write(cbind(national_ref[, "year", drop = FALSE],
            par_table(national_ref$deaths, national_ref$births, national_ref$ref_deaths, national_ref$ref_births)),
      "disparity_total_year")
write(par_table(total$deaths, total$births, ref$deaths, ref$births), "disparity_total_pooled")

took("disparity")

# trends: Prais-Winsten per commune --------------------------------------------------------------------------
trend <- function(rows) {
  rows$log_rate <- log10(pmax(rows$deaths, 0.5) / rows$births * 1000)  # log10, as Antunes & Cardoso (2015)
  fit <- prais_winsten(log_rate ~ year, data = rows, index = "year")
  table <- summary(fit)$coefficients
  b <- table["year", 1]
  se <- table["year", 2]
  t <- qt(0.975, df = nrow(rows) - 2)
  p <- table["year", 4]
  data.frame(n_years = nrow(rows), slope = b, se = se, p_value = p, rho = fit$rho[nrow(fit$rho), 1],
             apc = 100 * (10^b - 1), apc_lower = 100 * (10^(b - t * se) - 1),
             apc_upper = 100 * (10^(b + t * se) - 1),
             class = ifelse(p >= 0.05, "stationary", ifelse(b > 0, "increasing", "decreasing")))
}
trends <- list()
for (u in sort(unique(with_births$unit))) {
  rows <- with_births[with_births$unit == u, ]
  if (nrow(rows) >= 4) {
    result <- tryCatch(trend(rows), error = function(e) NULL)
    if (!is.null(result)) trends[[u]] <- cbind(unit = u, result)
  }
}
write(do.call(rbind, trends), "trends_units")
write(trend(national), "trends_national")

took("trends (prais)")

# inequality per year: WHO's summary measures (healthequal) ---------------------------------------------------
poverty_rank <- aggregate(poverty ~ unit, data = data, FUN = mean)
poverty_rank$order <- rank(-poverty_rank$poverty, ties.method = "first")  # 1 = poorest (most disadvantaged)
measures <- list()
for (y in sort(unique(with_births$year))) {
  rows <- with_births[with_births$year == y, ]
  rows$est <- rows$deaths / rows$births * 1000
  rows$se <- sqrt(pmax(rows$deaths, 0.5)) / rows$births * 1000
  average <- sum(rows$deaths) / sum(rows$births) * 1000
  ref <- as.integer(rows$unit == reference)
  nonordered <- with(rows, list(
    d = d(est = est, se = se, favourable_indicator = 0, ordered_dimension = 0, reference_subgroup = ref),
    r = r(est = est, se = se, favourable_indicator = 0, ordered_dimension = 0, reference_subgroup = ref),
    bgv = bgv(pop = births, est = est, se = se),
    bgsd = bgsd(pop = births, est = est, se = se, scaleval = 1000),
    covar = covar(pop = births, est = est, se = se, scaleval = 1000),
    idisu = idisu(pop = births, est = est, se = se, scaleval = 1000),  # (with setting_average too: a healthequal error)
    idisw = idisw(pop = births, est = est, se = se, scaleval = 1000),
    mdbu = mdbu(est = est, se = se, favourable_indicator = 0, scaleval = 1000),
    mdbw = mdbw(pop = births, est = est, se = se, favourable_indicator = 0, scaleval = 1000),
    mdmu = mdmu(pop = births, est = est, se = se, scaleval = 1000),
    mdmw = mdmw(pop = births, est = est, se = se, scaleval = 1000),
    mdru = mdru(est = est, se = se, scaleval = 1000, reference_subgroup = ref),
    mdrw = mdrw(pop = births, est = est, se = se, scaleval = 1000, reference_subgroup = ref),
    ti = ti(pop = births, est = est, se = se),
    mld = mld(pop = births, est = est, se = se),
    paf = paf(pop = births, est = est, ordered_dimension = 0, setting_average = average,
              favourable_indicator = 0, scaleval = 1000),
    parisk = parisk(pop = births, est = est, ordered_dimension = 0, setting_average = average,
                    favourable_indicator = 0, scaleval = 1000)))
  ordered_rows <- merge(rows, poverty_rank[, c("unit", "order")], by = "unit")
  ordered <- with(ordered_rows, list(
    aci = aci(est = est, subgroup_order = order, pop = births),
    rci = rci(est = est, subgroup_order = order, pop = births, scaleval = 1000),
    sii = sii(est = est, subgroup_order = order, pop = births, scaleval = 1000),
    rii = rii(est = est, subgroup_order = order, pop = births, scaleval = 1000)))
  pick <- function(value, column) if (length(value[[column]])) value[[column]][1] else NA
  for (name in names(c(nonordered, ordered))) {
    value <- c(nonordered, ordered)[[name]]
    measures[[paste(y, name)]] <- data.frame(year = y, measure = name, estimate = pick(value, "estimate"),
                                             se = pick(value, "se"), lower = pick(value, "lowerci"),
                                             upper = pick(value, "upperci"))
  }
}
write(do.call(rbind, measures), "inequality_year")

took("inequality (healthequal)")

# panel models ------------------------------------------------------------------------------------------------
covariates <- c("poverty", "health_spending_pc", "schooling", "sapu")
model_data <- with_births
model_data$rate <- model_data$deaths / model_data$births * 1000
model_data <- model_data[complete.cases(model_data[, covariates]), ]
panel <- pdata.frame(model_data, index = c("unit", "year"))
formula <- as.formula(paste("rate ~", paste(covariates, collapse = " + ")))
rows <- list()
fits <- list()
for (model in c("pooling", "within", "random")) {
  fit <- plm(formula, data = panel, model = model)
  fits[[model]] <- fit
  table <- coeftest(fit, vcov. = vcovHC(fit, method = "arellano", type = "HC1", cluster = "group"))
  rows[[model]] <- data.frame(model = model, term = rownames(table), estimate = table[, 1], se = table[, 2],
                              p_value = table[, 4])
}
hausman <- phtest(fits$within, fits$random)
f_test <- pFtest(fits$within, fits$pooling)
bp <- plmtest(fits$pooling, type = "bp")
write(do.call(rbind, rows), "model_coefficients")
write(data.frame(test = c("hausman", "f_unit_effects", "breusch_pagan"),
                 statistic = c(hausman$statistic, f_test$statistic, bp$statistic),
                 p_value = c(hausman$p.value, f_test$p.value, bp$p.value)), "model_tests")
took("panel models (plm)")
write(timings, "timings")
