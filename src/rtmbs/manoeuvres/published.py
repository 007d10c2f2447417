"""Published ranges of the handling metrics of mid-size passenger cars, to set an event's
measured numbers beside (``rtmbs event`` prints them; docs/models/sedan.md tabulates them).

Each range names its source by the keys of docs/references.md and says how the numbers follow
from it. Two are taken as published (the understeer gradient and the yaw-rate response time);
the others follow from the understeer range through the linear single-track model of the car
being tested (its own wheelbase and steering ratio), so they answer "what would a car of this
wheelbase and steering ratio with a published understeer gradient give":

* characteristic speed v_ch = sqrt(g L / K) (Gillespie 1992, eq. 6-16), the speed of the largest
  yaw-rate gain of an understeering car;
* steady-state yaw-rate gain per handwheel angle r/δ_H = v / ((L + K v²) i_s) (Gillespie 1992,
  eq. 6-17, with K in rad per m/s² and i_s the steering ratio).

A higher understeer gradient gives a lower gain and a lower characteristic speed, so the ends of
those ranges are the understeer range's ends swapped."""
from __future__ import annotations

import math
from dataclasses import dataclass

G = 9.81
#: understeer gradient of mid-size passenger cars, deg/g (ISO 4138 constant radius)
UNDERSTEER_DEG_PER_G = (1.5, 3.0)
UNDERSTEER_SOURCE = "Gillespie 1992, ch. 6; Milliken & Milliken 1995, ch. 5; Heißing & Ersoy 2011, ch. 2"
#: ISO 7401 yaw-rate response time (50 % of the steering step to 90 % of the steady yaw rate), s
RESPONSE_TIME_S = (0.10, 0.30)
RESPONSE_TIME_SOURCE = "Heißing & Ersoy 2011, ch. 2"


@dataclass(frozen=True)
class Range:
    """A published range beside a measured metric (``key``: the metric's name in the event's
    metrics, whose suffix gives the unit)."""

    key: str
    label: str
    low: float
    high: float
    unit: str
    source: str
    basis: str

    def verdict(self, value: float) -> str:
        """'within', 'below' or 'above' the range ('-' for a value that is not finite)."""
        if value is None or not math.isfinite(value):
            return "-"
        return "below" if value < self.low else "above" if value > self.high else "within"


def _K_rad_per_m_s2(K_deg_per_g: float) -> float:
    return math.radians(K_deg_per_g) / G


def understeer_range() -> Range:
    lo, hi = UNDERSTEER_DEG_PER_G
    return Range("understeer_gradient_deg_per_g", "understeer gradient (ISO 4138)", lo, hi,
                 "deg/g", UNDERSTEER_SOURCE, "published gradients of mid-size passenger cars")


def characteristic_speed_kmh(K_deg_per_g: float, wheelbase: float) -> float:
    """v_ch = sqrt(g L / K) in km/h (Gillespie 1992, eq. 6-16); inf for K <= 0."""
    K = _K_rad_per_m_s2(K_deg_per_g)
    return 3.6 * math.sqrt(wheelbase / K) if K > 0 else math.inf


def characteristic_speed_range(wheelbase: float) -> Range:
    lo, hi = UNDERSTEER_DEG_PER_G
    return Range("characteristic_speed_kmh", "characteristic speed",
                 characteristic_speed_kmh(hi, wheelbase), characteristic_speed_kmh(lo, wheelbase),
                 "km/h", "Gillespie 1992, eq. 6-16",
                 f"sqrt(g L / K) over the understeer range, L = {wheelbase:.3f} m")


def yaw_rate_gain(K_deg_per_g: float, speed: float, wheelbase: float, ratio: float) -> float:
    """Steady-state yaw rate per handwheel angle, (deg/s)/deg, of the single-track model at
    ``speed`` (m/s): v / ((L + K v²) i_s) (Gillespie 1992, eq. 6-17)."""
    return speed / ((wheelbase + _K_rad_per_m_s2(K_deg_per_g) * speed * speed) * ratio)


def yaw_rate_gain_range(speed: float, wheelbase: float, ratio: float) -> Range:
    lo, hi = UNDERSTEER_DEG_PER_G
    return Range("yaw_rate_gain_deg_s_per_deg", f"yaw-rate gain at {3.6 * speed:.0f} km/h",
                 yaw_rate_gain(hi, speed, wheelbase, ratio),
                 yaw_rate_gain(lo, speed, wheelbase, ratio), "(deg/s)/deg",
                 "Gillespie 1992, eq. 6-17",
                 f"v / ((L + K v²) i_s) over the understeer range, L = {wheelbase:.3f} m, "
                 f"i_s = {ratio:.2f}")


def response_time_range() -> Range:
    lo, hi = RESPONSE_TIME_S
    return Range("response_time_s", "yaw-rate response time (ISO 7401, 90 %)", lo, hi, "s",
                 RESPONSE_TIME_SOURCE, "measured step steers of passenger cars")


def beside(event: str, metrics: dict, wheelbase: float, ratio: float) -> list[dict]:
    """The rows of an event's report that set a measured metric beside its published range:
    dicts with the metric's ``key``, ``label``, ``value``, ``low``, ``high``, ``unit``,
    ``verdict``, ``source`` and ``basis``. Adds ``characteristic_speed_kmh`` to ``metrics`` of
    a constant-radius run. Events without a published range give no rows."""
    rows = []
    if event == "constant-radius":
        K = metrics.get("understeer_gradient_deg_per_g")
        if K is not None and math.isfinite(K):
            metrics["characteristic_speed_kmh"] = characteristic_speed_kmh(K, wheelbase)
        ranges = (understeer_range(), characteristic_speed_range(wheelbase))
    elif event == "step-steer":
        v = metrics["speed_kmh"] / 3.6
        ranges = (yaw_rate_gain_range(v, wheelbase, ratio), response_time_range())
    else:
        return rows
    for r in ranges:
        value = metrics.get(r.key, math.nan)
        rows.append({"key": r.key, "label": r.label, "value": value, "low": r.low,
                     "high": r.high, "unit": r.unit, "verdict": r.verdict(value),
                     "source": r.source, "basis": r.basis})
    return rows


def markdown(rows: list[dict]) -> list[str]:
    """The rows as a Markdown table (lines)."""
    if not rows:
        return []
    out = ["## Beside published ranges (mid-size passenger cars)", "",
           "| metric | measured | published range | unit | | source | how |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['label']} | {r['value']:.4g} | {r['low']:.3g}-{r['high']:.3g} | "
                   f"{r['unit']} | {r['verdict']} | {r['source']} | {r['basis']} |")
    return out + [""]


def lines(rows: list[dict]) -> list[str]:
    """The rows as terminal lines: measured value, range, verdict."""
    return [f"  {r['label']}: {r['value']:.3g} {r['unit']} (published {r['low']:.3g}-"
            f"{r['high']:.3g}, {r['verdict']}; {r['source']})" for r in rows]
