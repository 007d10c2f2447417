"""The published ranges an event's metrics are set beside (rtmbs.manoeuvres.published): the
ranges derived through the single-track model checked at points where the model has a closed
answer, and the report's rows."""
import math

import pytest

from rtmbs.manoeuvres import published

L, RATIO = 2.776, 18.0


def test_at_the_characteristic_speed_the_yaw_rate_gain_is_half_the_neutral_cars():
    """Gillespie 1992, eqs. 6-16, 6-17: at v_ch = sqrt(L/K), K v² = L, so
    r/δ = v / (2 L i_s), half the neutral car's v / (L i_s) at that speed."""
    for K in (1.5, 3.0):
        v = published.characteristic_speed_kmh(K, L) / 3.6
        assert published.yaw_rate_gain(K, v, L, RATIO) == pytest.approx(v / (2 * L * RATIO), rel=1e-12)
        assert published.yaw_rate_gain(0.0, v, L, RATIO) == pytest.approx(v / (L * RATIO), rel=1e-12)
    # 1.5 deg/g on a 2.776 m wheelbase: sqrt(9.81 * 2.776 / radians(1.5)) = 32.25 m/s = 116.1 km/h
    assert published.characteristic_speed_kmh(1.5, L) == pytest.approx(116.1, abs=0.05)
    assert published.characteristic_speed_kmh(-0.5, L) == math.inf


def test_derived_ranges_swap_the_understeer_ranges_ends():
    lo, hi = published.UNDERSTEER_DEG_PER_G
    g = published.yaw_rate_gain_range(80 / 3.6, L, RATIO)
    assert (g.low, g.high) == (published.yaw_rate_gain(hi, 80 / 3.6, L, RATIO),
                               published.yaw_rate_gain(lo, 80 / 3.6, L, RATIO))
    assert g.low < g.high and g.label == "yaw-rate gain at 80 km/h"
    v = published.characteristic_speed_range(L)
    assert v.low == published.characteristic_speed_kmh(hi, L) < v.high


def test_rows_beside_the_metrics_name_the_verdict_and_the_source():
    m = {"understeer_gradient_deg_per_g": 1.2}
    rows = published.beside("constant-radius", m, L, RATIO)
    assert [r["key"] for r in rows] == ["understeer_gradient_deg_per_g", "characteristic_speed_kmh"]
    assert rows[0]["verdict"] == "below" and rows[1]["verdict"] == "above"
    assert m["characteristic_speed_kmh"] == published.characteristic_speed_kmh(1.2, L)
    assert rows[0]["source"].startswith("Gillespie 1992, ch. 6")
    steps = published.beside("step-steer", {"speed_kmh": 100.0, "yaw_rate_gain_deg_s_per_deg": 0.3,
                                            "response_time_s": 0.5}, L, RATIO)
    assert [r["verdict"] for r in steps] == ["within", "above"]
    assert published.markdown(steps)[4].startswith("| yaw-rate gain at 100 km/h | 0.3 | 0.224-0.319 |")
    assert published.lines(steps)[0] == ("  yaw-rate gain at 100 km/h: 0.3 (deg/s)/deg (published "
                                         "0.224-0.319, within; Gillespie 1992, eq. 6-17)")
    assert published.beside("lane-change", {}, L, RATIO) == []
