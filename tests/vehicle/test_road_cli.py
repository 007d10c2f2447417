"""``rtmbs road`` through ``rtmbs.cli.main``: the files it writes hold the road the API builds."""
import numpy as np

from rtmbs.cli import main
from rtmbs.vehicle import road as R


def _is_png(path):
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_road_plot_iso_writes_the_profile_and_plot(tmp_path, capsys):
    out = tmp_path / "c"
    rc = main(["road", "plot", "--type", "iso", "--class", "C", "--length", "200", "--dx", "0.05",
               "--seed", "1", "--out", str(out)])
    assert rc == 0
    assert _is_png(out / "road.png")
    back = R.from_csv(out / "road.csv")
    ref = R.iso8608("C", 200.0, 0.05, seed=1)
    np.testing.assert_array_equal(back.z, ref.z)
    assert R.iso_classify(back.z[0, :-1], back.dx).road_class == "C"
    text = capsys.readouterr().out
    assert "class C" in text and str(out / "road.csv") in text


def test_road_plot_bump(tmp_path):
    out = tmp_path / "bump"
    rc = main(["road", "plot", "--type", "bump", "--height", "0.02", "--length", "2", "--start", "5",
               "--out", str(out)])
    assert rc == 0
    assert _is_png(out / "road.png")
    road = R.from_csv(out / "road.csv")
    np.testing.assert_allclose(road.height([4.0, 5.5, 6.9, 7.5]), [0.0, 0.02, 0.02, 0.0], atol=1e-15)


def test_road_classify_reports_each_track(tmp_path, capsys):
    R.iso8608("E", 300.0, 0.05, seed=2).to_csv(tmp_path / "e.csv")
    assert main(["road", "classify", str(tmp_path / "e.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[:3] for ln in lines] == [["left:", "class", "E"], ["right:", "class", "E"]]


def test_road_plot_bad_class_is_a_clean_error(tmp_path, capsys):
    rc = main(["road", "plot", "--type", "iso", "--class", "Q", "--out", str(tmp_path / "q")])
    assert rc == 1
    assert capsys.readouterr().err.strip() == (
        "rtmbs: error: road.class: unknown ISO 8608 class 'Q' (known: A, B, C, D, E, F, G, H)")
    assert not (tmp_path / "q").exists()


def test_road_plot_csv_without_file(tmp_path, capsys):
    assert main(["road", "plot", "--type", "csv", "--out", str(tmp_path / "f")]) == 1
    assert "--file: required with --type csv" in capsys.readouterr().err
