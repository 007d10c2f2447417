"""``rtmbs run``: the output rate (``--output-rate HZ``, default min(1/h, 1 kHz)), the result
formats (``--format``) and the size said before a large run."""
import numpy as np
import pytest

from rtmbs.cli import main
from rtmbs.result import Result


def test_output_rate_keeps_every_kth_step(tmp_path, capsys):
    assert main(["run", "double-pendulum", "--t-end", "0.1", "--h", "1e-3", "--output-rate", "100",
                 "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    assert main(["run", "double-pendulum", "--t-end", "0.1", "--h", "1e-3",
                 "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    a, b = Result.load(tmp_path / "a"), Result.load(tmp_path / "b")
    np.testing.assert_allclose(a.t, np.arange(11) * 0.01, atol=1e-12)
    np.testing.assert_array_equal(a.q, b.q[::10])


@pytest.mark.parametrize("rate", ["300", "2000"])
def test_a_rate_that_is_not_a_whole_number_of_steps_is_refused(rate, capsys, tmp_path):
    code = main(["run", "double-pendulum", "--t-end", "0.1", "--h", "1e-3", "--output-rate", rate,
                 "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 1
    assert (f"--output-rate {rate} Hz is not 1/(k·h) for an integer k ≥ 1 with --h 0.001 s "
            "(e.g. 1000, 100 Hz)") in err
    assert not (tmp_path / "r").exists()


def test_save_every_and_output_rate_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "double-pendulum", "--save-every", "2", "--output-rate", "100"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_the_default_rate_is_min_of_1_over_h_and_1_khz(tmp_path, capsys):
    """h = 0.1 ms: every 10th step (1 kHz); h = 2 ms: every step (500 Hz); h = 0.3 ms: every 4th
    (833 Hz, the highest 1/(k·h) not above 1 kHz)."""
    for h, dt in (("1e-4", 1e-3), ("2e-3", 2e-3), ("3e-4", 1.2e-3)):
        out = tmp_path / h
        assert main(["run", "double-pendulum", "--t-end", "0.06", "--h", h, "--out", str(out),
                     "--no-progress"]) == 0
        res = Result.load(out)
        np.testing.assert_allclose(np.diff(res.t), dt, rtol=1e-9)
        assert res.t[-1] == pytest.approx(0.06, abs=dt)


def test_formats_are_chosen_and_hold_the_same_samples(tmp_path, capsys):
    from asammdf import MDF

    out = tmp_path / "f"
    assert main(["run", "double-pendulum", "--t-end", "0.2", "--format", "csv,mdf", "--out",
                 str(out), "--no-progress"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["result.csv", "result.mf4", "summary.json"]
    csv = Result.load(out / "result.csv")
    np.testing.assert_allclose(csv.t, np.arange(201) * 1e-3, atol=1e-12)
    with MDF(out / "result.mf4") as mdf:
        np.testing.assert_array_equal(mdf.get("q:link2.z").samples, csv.signal("q:link2.z"))


def test_an_unknown_format_is_refused_before_the_run(tmp_path, capsys):
    code = main(["run", "double-pendulum", "--format", "h5,xlsx", "--out", str(tmp_path / "x")])
    assert code == 1
    assert capsys.readouterr().err.strip() == ("rtmbs: error: --format 'h5,xlsx': unknown format "
                                               "'xlsx' (expected h5, csv, mdf or a list such as h5,csv)")
    assert not (tmp_path / "x").exists()


def test_a_run_that_would_write_more_than_1_gb_says_so_first(tmp_path, capsys):
    """double-pendulum at h = 0.1 ms for 1e5 s: 1e8 samples of 73 values (8 bytes each) at the
    default 1 kHz; refused for memory afterwards, but the size is said before."""
    main(["run", "double-pendulum", "--t-end", "1e5", "--h", "1e-4", "--out", str(tmp_path / "big"),
          "--no-progress"])
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("rtmbs: warning: the results will take about 58.4 GB (100000001 samples of "
                      "73 signals: h5 58.4 GB); --output-rate sets how many samples are kept")
    assert err[-1].startswith("rtmbs: error: simulate: 1000000000 steps keeping every 10 need ")
    assert not (tmp_path / "big" / "result.h5").exists()  # refused before a step: no file left
