"""``rtmbs view``: in a real headless browser (Debian's Chromium), the page of a multilink run over
a bump loads without script errors, and screenshots at two times show the wheel (drawn magenta)
moving by what the result says, in a side view with equal scales; the shapes and rotations it
draws; its errors."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from rtmbs.cli import main
from rtmbs.errors import RtmbsError

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
browser = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install "
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


@browser
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


@browser
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


def test_equivalent_box_of_a_uniform_box():
    from rtmbs.io.meta import equivalent_box
    from rtmbs.io.view import _box

    m, a, b, c = 12.0, 1.0, 2.0, 3.0
    inertia = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    v, faces = _box(*equivalent_box(m, inertia))
    np.testing.assert_allclose(np.ptp(v, axis=0), [a, b, c], rtol=1e-12)
    assert faces.shape == (12, 3) and set(faces.ravel()) == set(range(8))
    # each triangle's normal points away from the centre: a closed box
    for f in faces:
        p0, p1, p2 = v[f]
        assert np.dot(np.cross(p1 - p0, p2 - p0), p0 + p1 + p2) > 0


def test_tyre_cylinder_has_the_radius_and_width():
    from rtmbs.io.view import _cylinder

    centre, axis = np.array([0.1, 0.8, 0.38]), np.array([0.0, 1.0, 0.0])
    v, faces = _cylinder(centre, axis, 0.31, 0.2)
    d = v - centre
    np.testing.assert_allclose(np.ptp(d @ axis), 0.2, rtol=1e-12)
    radial = np.linalg.norm(d - np.outer(d @ axis, axis), axis=1)
    np.testing.assert_allclose(radial.max(), 0.31, rtol=1e-12)
    assert set(faces.ravel()) == set(range(len(v)))


def test_rotation_matches_the_model_conventions():
    from rtmbs.io.view import rotation
    from rtmbs.model.rotation import matrix_from_quaternion, matrix_from_zxz

    rng = np.random.default_rng(3)
    for _ in range(5):
        p = rng.normal(size=4)
        p /= np.linalg.norm(p)
        np.testing.assert_allclose(rotation(0, p), matrix_from_quaternion(p), atol=1e-14)
        a = rng.uniform(-3, 3, size=3)
        np.testing.assert_allclose(rotation(1, a), matrix_from_zxz(a), atol=1e-14)


def _plain_result():
    from rtmbs.result import Result

    t = np.linspace(0.0, 1.0, 11)
    q = np.zeros((11, 7))
    q[:, 3] = 1.0
    return Result(t=t, q=q, qd=q * 0, lam=np.zeros((11, 0)), phi_norm=t * 0, phid_norm=t * 0,
                  outputs={"box.z": t}, coordinate_names=[f"box.{c}" for c in
                                                          ("x", "y", "z", "e0", "e1", "e2", "e3")],
                  meta={"model": "plain", "solver": "none", "h": 0.1})


def test_view_errors_name_the_cause(tmp_path, capsys):
    from rtmbs.io.view import write_view

    res = _plain_result()
    res.save_hdf5(tmp_path / "r.h5")
    assert main(["view", str(tmp_path / "r.h5")]) == 1
    err = capsys.readouterr().err
    assert "rtmbs: error: result of model 'plain' holds no geometry" in err and "--model" in err
    assert main(["view", str(tmp_path / "missing")]) == 1
    assert f"result '{tmp_path / 'missing'}': no such file or folder" in capsys.readouterr().err
    res.meta["geometry"] = {"model": "plain", "points": {}, "joints": [], "forces": [], "road": None,
                            "bodies": [{"name": "box", "qadr": 0, "rtype": 0, "shape": "box",
                                        "size": [1, 1, 1], "axes": np.eye(3).tolist()}]}
    with pytest.raises(RtmbsError, match=r"view: --highlight: no body 'bx' \(did you mean 'box'"):
        write_view(res, tmp_path / "v.html", highlight="bx")
    with pytest.raises(RtmbsError, match="unknown signal 'box.zz'"):
        write_view(res, tmp_path / "v.html", signals=["box.zz"])
    (tmp_path / "afile").write_text("")
    with pytest.raises(RtmbsError, match="view page '.*afile/v.html': cannot write it"):
        write_view(res, tmp_path / "afile" / "v.html")
    assert write_view(res, tmp_path / "v.html").stat().st_size > 1e6  # plotly.js inside


def test_every_distinct_road_is_kept():
    """Two tyres on two roads: both roads are in the geometry (and drawn); two tyres on one road:
    one. Left track raised by the bump of the second road, not of the first."""
    import copy

    from rtmbs.io.meta import geometry
    from rtmbs.models.multilink import multilink_model
    from rtmbs.system import compile_model

    base = multilink_model("ideal")
    one = copy.deepcopy(base)
    tyre = next(f for f in one.forces if f.type == "tyre")
    same = tyre.model_copy(update={"name": "tyre_same"})
    one.forces.append(same)
    assert len(geometry(compile_model(one))["roads"]) == 1
    two = copy.deepcopy(base)
    bump = {"type": "square_bump", "start": 2.0, "length": 1.0, "height": 0.03}
    two.forces.append(tyre.model_copy(update={"name": "tyre_bump", "road": bump}))
    geo = geometry(compile_model(two))
    assert len(geo["roads"]) == 2 and geo["road"] == geo["roads"][0]
    assert max(max(track) for track in geo["roads"][0]["z"]) == 0.0
    assert max(max(track) for track in geo["roads"][1]["z"]) == pytest.approx(0.03)


def test_declared_shapes_are_drawn_as_declared():
    """A body's `shape:` replaces the inertia box in the geometry and on screen: a box of the
    declared sides around its centre, a cylinder of the declared radius and length."""
    from rtmbs.io.meta import geometry
    from rtmbs.io.view import _box
    from rtmbs.model import Model
    from rtmbs.system import compile_model

    m = Model(name="shapes")
    m.add_body("plate", 2.0, inertia=[0.1, 0.1, 0.1], position=[0.0, 0.0, 1.0],
               shape={"type": "box", "size": [0.4, 0.2, 0.02], "centre": [0.1, 0.0, 0.0]})
    m.add_body("drum", 1.0, inertia=[0.1, 0.1, 0.1], position=[1.0, 0.0, 1.0],
               shape={"type": "cylinder", "radius": 0.3, "length": 0.1, "axis": [0, 2, 0]})
    m.add_body("blob", 1.0, inertia=[0.1, 0.1, 0.1], position=[2.0, 0.0, 1.0])
    plate, drum, blob = geometry(compile_model(m))["bodies"]
    assert plate["shape"] == "box" and plate["size"] == [0.4, 0.2, 0.02]
    v, _ = _box(plate["size"], plate["axes"], plate["centre"])
    np.testing.assert_allclose(v.min(axis=0), [-0.1, -0.1, -0.01], atol=1e-15)
    np.testing.assert_allclose(v.max(axis=0), [0.3, 0.1, 0.01], atol=1e-15)
    assert drum == {**drum, "shape": "cylinder", "radius": 0.3, "width": 0.1, "axis": [0.0, 1.0, 0.0]}
    assert blob["shape"] == "box" and "centre" not in blob  # the inertia box


@pytest.mark.parametrize("shape, message", [
    ({"type": "box"}, "a box needs 'size'"),
    ({"type": "cylinder", "radius": 0.3}, "a cylinder needs 'length'"),
    ({"type": "box", "size": [0.1, -0.2, 0.1]}, "size must be positive and finite"),
    ({"type": "cone", "size": [1, 1, 1]}, "shape.type"),
])
def test_bad_shapes_are_named(shape, message):
    from rtmbs.model import Model

    m = Model(name="bad")
    with pytest.raises(Exception) as err:
        m.add_body("b", 1.0, inertia=[0.1, 0.1, 0.1], shape=shape)
    assert message in str(err.value)
