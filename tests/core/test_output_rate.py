"""``rtmbs run --output-rate HZ`` keeps the results at HZ samples per second."""
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
