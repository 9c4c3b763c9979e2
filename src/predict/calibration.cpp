// Calibrations. See calibration.h.
#include "predict/calibration.h"

#include "base/error.h"
#include "base/format.h"
#include "predict/step_model.h"
#include "recipe/budget.h"

namespace nanotrn::predict {

double fit_eager_dispatch(const recipe::Recipe& r, const hw::Device& device, double measured_step_s) {
  check(r.launch.stack == recipe::Stack::eager,
        "fit_eager_dispatch: recipe '" + r.name + "' does not launch the eager stack (launch.stack)");
  check(measured_step_s > 0.0, "fit_eager_dispatch: the measured step must be positive");
  hw::Device d = device;
  d.numbers["eager_op_dispatch_s"].value = 1e-6;  // any positive value: only the device side is used below
  StepModel m(r, d);
  const recipe::NextStep first = recipe::next_step(r, {});
  const StepTime& s = m.step(first.accum, first.mtp_heads);
  const double launch = d.value("kernel_launch_s");
  const double device_side = s.step_s - s.host_s;
  check(measured_step_s > device_side, "fit_eager_dispatch: the measured " + format_number("%.4f s", measured_step_s) +
                                           " is faster than the modelled device alone (" +
                                           format_number("%.4f s", device_side) + "); no host dispatch time fits");
  double lo = 0.0, hi = measured_step_s;  // a dispatch longer than the whole step cannot fit
  for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
    const double mid = 0.5 * (lo + hi);
    (device_side + eager_host_idle(s, mid, launch) < measured_step_s ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace nanotrn::predict
