// The forecast's page (OUT/forecast.html), in the run report's style (report/page.h): the forecast with its
// interval, the target, the law and its errors, the warnings, CORE, the ladder's runs, and one chart: val_bpb against
// log10 of the training tokens, the ladder's measured runs per size (series "N=<n> measured"), the law's curve for
// each size and for the target's N ("law at N=<n>"), and the forecast as a vertical bar from the interval's low to
// its high end through the central value (series "forecast").
//
//   std::string html = forecast_page_html(result);
//
// Keys a test reads (data-key / data-value, exact): forecast.val_bpb, forecast.low, forecast.high, forecast.params,
// forecast.tokens, law.rms, law.loo_rms, ladder.<id>.val_bpb.
#pragma once

#include <string>

#include "forecast/forecast_run.h"

namespace nanotrn::forecast {

std::string forecast_page_html(const ForecastResult& r);

}  // namespace nanotrn::forecast
