"""``rtmbs view``: in a real headless browser (Debian's Chromium), the page of a multilink run over
a bump loads without script errors, and screenshots at two times show the wheel (drawn magenta)
moving by what the result says, in a side view with equal scales; the page of a sedan's step
steer (``rtmbs event``) follows the car to the end of playback (its pixels cover a share of the
frame the whole-course view does not give it, centred), plots four signals with units beside the
scene within 1280×800, and draws an event's cones; the shapes, rotations, road strip and course
it draws; its errors."""
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
    assert attrs["camera"] == "course"  # the wheel travels 2 m: the whole scene, not the follow camera
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


# -- a moving car: the follow camera, the signals beside the scene, the course -----------------

WINDOW = "--window-size=1280,800"
STEP_T_END = 1.5  # s: the shortest step steer `rtmbs event` runs (80 km/h: 33 m)


@pytest.fixture(scope="module")
def step_run(tmp_path_factory):
    """`rtmbs event step-steer sedan` (1.5 s) and `rtmbs view` of its folder (30 frames)."""
    from rtmbs.result import Result

    out = tmp_path_factory.mktemp("event") / "step"
    assert main(["event", "step-steer", "sedan", "--t-end", str(STEP_T_END), "--out", str(out),
                 "--no-progress"]) == 0
    assert not (out / "course.json").exists()  # a step steer runs on an open road
    assert main(["view", str(out), "--frames", "30"]) == 0
    return Result.load(out), out


def _attrs(stdout: str) -> dict:
    body = re.search(r"<body([^>]*)>", stdout).group(1)
    return {k: v.replace("&quot;", '"') for k, v in re.findall(r'data-([\w-]+)="([^"]*)"', body)}


def _coloured(png, rect):
    """Share of the scene's pixels that are saturated colours (the bodies, the force elements;
    not the grey road, the pale axes' planes or dark text), and their centroid in the scene
    (fractions of its width and height)."""
    from matplotlib.image import imread

    img = imread(png)[..., :3]
    x, y, w, h = (int(round(v)) for v in rect)
    a = img[y:y + h, x:x + w]
    mask = (a.max(axis=2) - a.min(axis=2)) > 0.3
    ys, xs = np.nonzero(mask)
    return mask.mean(), (xs.mean() / w if len(xs) else np.nan), (ys.mean() / h if len(ys) else np.nan)


@pytest.fixture(scope="module")
def step_page(step_run, tmp_path_factory):
    """The step steer's page played to its end (#play=1): its DOM and Chromium's log."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed")
    _, out = step_run
    p = _chromium(tmp_path_factory.mktemp("dom"), (out / "view.html").as_uri() + "#play=1",
                  WINDOW, "--dump-dom")
    assert p.returncode == 0, p.stderr[-2000:]
    return _attrs(p.stdout), p


@browser
def test_playback_ends_with_cursor_and_signals_beside_the_scene(step_run, step_page):
    res, _ = step_run
    attrs, p = step_page
    assert attrs.get("ready") == "1" and json.loads(attrs["errors"]) == []
    assert _console_errors(p.stderr) == []
    assert attrs["camera"] == "follow"  # the default: the chassis travels 33 m
    assert float(attrs["frame"]) == pytest.approx(res.t[-1], abs=1e-6)   # played to the end
    assert float(attrs["cursor"]) == pytest.approx(res.t[-1], abs=1e-6)  # and the cursor with it
    titles = re.findall(r'<text class="y\d*title"[^>]*>([^<]*)<', p.stdout)
    assert titles == ["speed [km/h]", "lateral acc. [m/s²]", "yaw rate [deg/s]", "handwheel [deg]"]
    sx, sy, sw, sh = json.loads(attrs["scene-rect"])
    gx, gy, gw, gh = json.loads(attrs["signals-rect"])
    assert gx >= sx + sw - 1 and abs(gy - sy) < 1  # beside the scene, not under it
    assert gx + gw <= 1280 and max(sy + sh, gy + gh) <= 800 and sw > 600 and gh > 400


@browser
def test_follow_camera_keeps_the_car_large_and_centred(step_run, step_page, tmp_path):
    res, out = step_run
    rect = json.loads(step_page[0]["scene-rect"])
    shots = {}
    for name, hash_ in (("follow", "#play=1"), ("course", f"#t={STEP_T_END}&camera=course")):
        png = tmp_path / f"{name}.png"
        p = _chromium(tmp_path, (out / "view.html").as_uri() + hash_, WINDOW, f"--screenshot={png}")
        assert p.returncode == 0, p.stderr[-2000:]
        assert _console_errors(p.stderr) == []
        shots[name] = _coloured(png, rect)
    (follow, fx, fy), (course, _, _) = shots["follow"], shots["course"]
    travel = np.hypot(res.outputs["chassis.x"][-1] - res.outputs["chassis.x"][0],
                      res.outputs["chassis.y"][-1] - res.outputs["chassis.y"][0])
    assert travel > 30  # the car left the place where it started
    assert follow > 0.005         # measured 0.8-1.4 % of the scene after 33 m (course view: 0.05 %)
    assert course < follow / 5    # the whole course: 0.05 %
    assert abs(fx - 0.5) < 0.1 and abs(fy - 0.5) < 0.1  # centred at the end of playback


def _cone_pixels(png, rect):
    from matplotlib.image import imread

    img = imread(png)[..., :3]
    x, y, w, h = (int(round(v)) for v in rect)
    r, g, b = (img[y:y + h, x:x + w, c] for c in range(3))
    return int(((r > 0.7) & (g > 0.2) & (g < 0.45) & (b < 0.05)).sum())  # CONE_COLOUR, lit


@browser
def test_event_cones_are_drawn_around_the_car(step_run, step_page, tmp_path):
    from rtmbs.io.view import CONE_COLOUR

    assert CONE_COLOUR == "#ff6a00"  # what _cone_pixels looks for
    res, out = step_run
    x, y = res.outputs["chassis.x"][-1], res.outputs["chassis.y"][-1]
    course = tmp_path / "course.json"
    course.write_text(json.dumps({"cones": [[x + 1.0, y + 1.6], [x + 1.0, y - 1.6],
                                            [x - 1.0, y + 1.6], [x - 1.0, y - 1.6]]}))
    page = tmp_path / "cones.html"
    assert main(["view", str(out), "--frames", "30", "--course", str(course), "--out", str(page)]) == 0
    counts = []
    for html_page in (page, out / "view.html"):
        png = tmp_path / f"{html_page.stem}.png"
        p = _chromium(tmp_path, html_page.as_uri() + f"#t={STEP_T_END}", WINDOW, f"--screenshot={png}")
        assert p.returncode == 0, p.stderr[-2000:]
        counts.append(_cone_pixels(png, json.loads(step_page[0]["scene-rect"])))
    assert counts[0] > 300 and counts[1] < 30  # four cones; none without the course


def test_course_of_the_iso_3888_lanes():
    """The cones stand on both lines of every gated section, at both of its ends and at most
    5 m apart; a circle's course is its centre and radius."""
    from types import SimpleNamespace

    from rtmbs.cli.event import CONE_SPACING, event_course
    from rtmbs.manoeuvres.events import iso3888_lanes

    lanes = iso3888_lanes(1.85, start=2.0)
    c = event_course("lane-change", SimpleNamespace(meta={"lanes": lanes}), 2.0)
    cones = np.array(c["cones"])
    for ln in lanes:
        on = cones[(cones[:, 0] >= ln["x0"] - 1e-9) & (cones[:, 0] <= ln["x1"] + 1e-9)]
        for side in (-0.5, 0.5):
            line = np.sort(on[np.isclose(on[:, 1], ln["y"] + side * ln["width"]), 0])
            assert line[0] == pytest.approx(ln["x0"]) and line[-1] == pytest.approx(ln["x1"])
            assert np.diff(line).max() <= CONE_SPACING + 1e-9
    # section 1 of a 1.85 m car: 1.1·1.85 + 0.25 = 2.285 m between the lines
    first = cones[cones[:, 0] <= lanes[0]["x1"] + 1e-9]
    assert np.ptp(first[:, 1]) == pytest.approx(2.285)
    circle = event_course("constant-radius", SimpleNamespace(meta={"radius": 40.0}), 3.0)
    assert circle == {"event": "constant-radius", "circle": {"centre": [3.0, 40.0], "radius": 40.0}}
    assert event_course("step-steer", SimpleNamespace(meta={}), 0.0) is None


def test_road_strip_follows_the_path_with_the_road_height():
    """Under a quarter circle, every vertex of the strip is within its half width of the circle;
    over a square bump the strip is at the bump's height on the bump, at 0 off it."""
    from rtmbs.io.meta import _road
    from rtmbs.io.view import _road_height, _road_strip

    flat = _road({"type": "flat"})
    R, half = 40.0, 2.0
    th = np.linspace(0, np.pi / 2, 200)
    strip = _road_strip(flat, np.column_stack([R * np.sin(th), R * (1 - np.cos(th))]), half, ahead=0.0)
    r = np.hypot(np.asarray(strip.x), np.asarray(strip.y) - R)
    assert r.min() == pytest.approx(R - half, abs=0.02) and r.max() == pytest.approx(R + half, abs=0.02)
    assert np.all(np.asarray(strip.z) == 0.0)
    bump = _road({"type": "square_bump", "height": 0.05, "length": 2.0, "start": 10.0})
    strip = _road_strip(bump, np.column_stack([np.linspace(0, 20, 50), np.zeros(50)]), 1.0, ahead=5.0)
    x, z = np.asarray(strip.x), np.asarray(strip.z)
    assert x.min() == pytest.approx(-5.0, abs=0.1) and x.max() == pytest.approx(25.0, abs=0.1)
    assert np.all(z[(x > 10.1) & (x < 11.9)] == pytest.approx(0.05))
    assert np.all(z[(x < 9.9) | (x > 12.1)] == 0.0)
    # between the two tracks: linear in y (both tracks at the bump's height here)
    assert _road_height(bump, np.array([11.0]), np.array([0.0]))[0] == pytest.approx(0.05)


def test_course_and_camera_errors_name_the_cause(tmp_path, capsys):
    from rtmbs.io.view import read_course, write_view

    bad = tmp_path / "course.json"
    bad.write_text('{"cones": [[1, 2], [3]]}')
    with pytest.raises(RtmbsError, match=re.escape(f"course '{bad}': cones: expected a list of "
                                                   "[x, y] in metres")):
        read_course(bad)
    bad.write_text('{"circle": {"centre": [0, 40], "radius": -1}}')
    with pytest.raises(RtmbsError, match=re.escape(f"course '{bad}': circle: expected")):
        read_course(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(RtmbsError, match="expected a JSON object with 'cones' or 'circle'"):
        read_course(bad)
    bad.write_text("{cones")
    with pytest.raises(RtmbsError, match=f"course '{re.escape(str(bad))}': cannot read it"):
        read_course(bad)
    res = _plain_result()
    with pytest.raises(RtmbsError, match="view: --camera side: expected follow or course"):
        write_view(res, tmp_path / "v.html", camera="side")
    res.save_hdf5(tmp_path / "r.h5")
    assert main(["view", str(tmp_path / "r.h5"), "--course", str(tmp_path / "none.json")]) == 1
    assert f"rtmbs: error: course '{tmp_path / 'none.json'}': no such file" in capsys.readouterr().err


def test_a_cars_default_signals_and_their_units():
    """The driver's signals first (every event has them), else the car's vehicle outputs, but
    the vehicle's lateral acceleration before `chassis.ay`; shown in km/h, m/s², deg/s, deg."""
    from rtmbs.io.view import _shown, default_signals

    res = _plain_result()
    n = len(res.t)
    vehicle = {"vehicle.vx": 10.0, "vehicle.ay": 2.0, "vehicle.yaw_rate": 0.1,
               "vehicle.handwheel_angle": np.pi / 6}
    res.outputs.update({k: np.full(n, v) for k, v in vehicle.items()})
    assert default_signals(res, {"forces": [], "bodies": []}) == list(vehicle)
    shown = [(_shown(res, k)[1:], _shown(res, k)[0][0]) for k in vehicle]
    assert shown == [(("speed", "km/h"), pytest.approx(36.0)), (("lateral acc.", "m/s²"), 2.0),
                     (("yaw rate", "deg/s"), pytest.approx(np.degrees(0.1))),
                     (("handwheel", "deg"), pytest.approx(30.0))]
    res.outputs.update({k: np.zeros(n) for k in ("chassis.speed", "chassis.yaw_rate",
                                                  "driver.handwheel", "chassis.ay")})
    assert default_signals(res, {"forces": [], "bodies": []}) == [
        "chassis.speed", "vehicle.ay", "chassis.yaw_rate", "driver.handwheel"]
