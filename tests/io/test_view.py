"""``rtmbs view`` in a real headless browser (Debian's Chromium): the page of a multilink run over
a bump loads without script errors, and screenshots at two times show the wheel (drawn magenta)
moving by what the result says, in a side view with equal scales."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from rtmbs.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install "
                                "chromium; .ci/run installs it)")

SPEED = 5.0      # m/s
BUMP = 0.05      # m, square bump 2 m long starting 0.6 m ahead of the wheel centre
T_BEFORE, T_ON = 0.05, 0.3


@pytest.fixture(scope="module")
def bump_run(tmp_path_factory):
    from rtmbs.io.files import save_result
    from rtmbs.models.multilink import HARD_POINTS, multilink_model, spin_axis
    from rtmbs.solvers.simulate import simulate
    from rtmbs.system import compile_model

    wc = np.array(HARD_POINTS["wheel_centre"])
    model = multilink_model("ideal", road={"type": "square_bump", "height": BUMP, "length": 2.0,
                                           "start": float(wc[0] + 0.6)})
    for b in model.bodies:
        b.velocity = (SPEED, 0.0, 0.0)
        if b.name == "rim":
            b.angular_velocity = tuple(SPEED / wc[2] * spin_axis())
    system = compile_model(model)
    res = simulate(system, "li-euler", t_end=0.4, h=1e-3, save_every=5, stabilize="projection")
    out = tmp_path_factory.mktemp("view") / "ml"
    save_result(res, out, system=system)
    page = out / "view.html"
    assert main(["view", str(out), "--out", str(page), "--signal", "rim.z", "--signal", "tyre.Fz"]) == 0
    return res, page


def _chromium(tmp_path, url, *args):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
           "--disable-quic", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
           "--host-resolver-rules=MAP * ~NOTFOUND",  # no network: the page must not need it
           "--enable-logging=stderr", "--v=0", "--window-size=1200,1000", "--hide-scrollbars",
           "--virtual-time-budget=20000", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def _console_errors(stderr: str) -> list[str]:
    """Console messages of the page that are errors (uncaught exceptions, console.error)."""
    lines = [ln for ln in stderr.splitlines() if "CONSOLE" in ln]
    return [ln for ln in lines if re.search(r"Uncaught|\bError\b|TypeError|ReferenceError", ln)]


def test_page_is_self_contained_and_loads_without_errors(bump_run, tmp_path):
    res, page = bump_run
    html = page.read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)  # one file: nothing to fetch
    p = _chromium(tmp_path, page.as_uri() + "#t=0.2", "--dump-dom")
    assert p.returncode == 0, p.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", p.stdout).group(1)
    attrs = dict(re.findall(r'data-([\w-]+)="([^"]*)"', body))
    assert attrs.get("ready") == "1", body
    assert json.loads(attrs["errors"].replace("&quot;", '"')) == []
    assert _console_errors(p.stderr) == []
    shown = float(attrs["frame"])
    assert abs(shown - 0.2) <= 0.5 * (res.t[1] - res.t[0]) + 1e-9  # the frame nearest #t


def _wheel_centroid(png):
    from matplotlib.image import imread

    img = imread(png)[..., :3]
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    mask = (r > 0.6) & (b > 0.6) & (g < 0.35)  # magenta (#ff00ff, lit at 0.85-1.1)
    assert mask.sum() > 200, "the highlighted wheel is not on the screenshot"
    ys, xs = np.nonzero(mask)
    return xs.mean(), ys.mean()


def test_wheel_moves_over_the_bump_on_screen(bump_run, tmp_path):
    res, page = bump_run
    x, z = res.outputs["rim.x"], res.outputs["rim.z"]
    k0, k1 = (int(np.argmin(np.abs(res.t - t))) for t in (T_BEFORE, T_ON))
    dx, dz = x[k1] - x[k0], z[k1] - z[k0]
    assert dz > 0.6 * BUMP  # the run climbed the bump between the two times
    shots = []
    for t, name in ((T_BEFORE, "before.png"), (T_ON, "on.png")):
        p = _chromium(tmp_path, page.as_uri() + f"#t={t}&view=side&highlight=rim",
                      f"--screenshot={tmp_path / name}")
        assert p.returncode == 0, p.stderr[-2000:]
        assert _console_errors(p.stderr) == []
        shots.append(_wheel_centroid(tmp_path / name))
    (u0, v0), (u1, v1) = shots
    scale = abs(u1 - u0) / dx       # px per m along x (side view from the left, orthographic)
    assert scale > 50               # it moved forward, right on the screen
    assert (v0 - v1) / scale == pytest.approx(dz, rel=0.15, abs=0.003)  # and up by the rise
