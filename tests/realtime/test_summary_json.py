"""summary.json of a real-time run is strict JSON: a statistic of an empty run (NaN) is written
as null, never as NaN."""
import json
import math

from rtmbs.realtime.stats import save_summary
from rtmbs.model.strict_json import dumps, json_safe


def test_summary_of_an_empty_run_is_strict_json(tmp_path):
    """A run of 0 steps: every timing statistic is NaN in memory, null in summary.json."""
    import numpy as np

    from rtmbs.realtime.stats import timing_summary

    summary = {"model": "m", "solver": "li-euler", "h": 1e-3, "policy": "paced", "steps": 0,
               **timing_summary(np.array([]), "turnaround_us"),
               **timing_summary(np.array([]), "lateness_us"), "realtime_factor": math.inf}
    assert math.isnan(summary["turnaround_us_p50"])
    paths = save_summary(summary, tmp_path)
    text = paths["json"].read_text()
    assert "NaN" not in text and "Infinity" not in text
    back = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert back["turnaround_us_p50"] is None and back["lateness_us_max"] is None
    assert back["realtime_factor"] is None and back["steps"] == 0


def test_numpy_values_become_plain_json():
    import numpy as np

    out = json_safe({"a": np.float64(math.nan), "b": np.arange(3.0), "c": np.int64(4)})
    assert out == {"a": None, "b": [0.0, 1.0, 2.0], "c": 4}
    assert dumps({"x": np.array([np.nan, 1.0])}) == '{"x": [null, 1.0]}'
