"""``rtmbs view``: a self-contained HTML page (plotly.js embedded, no network) that animates a
result in 3-D — bodies as boxes (the uniform box of the body's mass and inertia) or cylinders
(a rim with a tyre), joints as markers, force elements as lines between their markers, the road
under the tyre — with a time slider, play/pause and selected signals plotted under the scene.

The page reads its URL hash: ``#t=0.2`` shows the frame nearest t = 0.2 s, ``view=side|top|iso``
picks the camera (side and top orthographic), ``highlight=rim`` paints one body magenta
(``HIGHLIGHT``); it writes the shown time, the camera and any script error into
``document.body.dataset`` (``frame``, ``view``, ``errors``) and sets ``dataset.ready`` when drawn.
The geometry comes from ``result.meta['geometry']`` (:mod:`rtmbs.io.meta`, saved with the run)
or from the model passed in.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from ..errors import OutputError, RtmbsError
from ..units import label, unit_in

#: most frames in a page (evenly spaced samples of the result)
MAX_FRAMES = 200
#: colour of a highlighted body (no other body is drawn in it)
HIGHLIGHT = "#ff00ff"
#: body colours (none of them magenta)
PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#b79a20", "#439894", "#e45756", "#83bcb6",
           "#9d755d", "#bab0ac", "#72b7b2", "#eeca3b", "#88d27a")
#: a body whose box is this many times longer than the median body's is drawn as edges only
LARGE = 4.0
CYLINDER_SEGMENTS = 24
#: the follow camera is the default when the reference body travels more than this (m)
FOLLOW_MIN_TRAVEL = 3.0
#: side (m) of the square the follow camera shows around the car: the car keeps this scale
FOLLOW_BOX = 7.0
#: the road strip under a moving car reaches this far (m) beyond the outermost body
ROAD_MARGIN = 1.0
ROAD_COLOUR = "#a9a9a9"
#: cones of an event's course: base radius and height (m), colour
CONE_RADIUS, CONE_HEIGHT, CONE_COLOUR = 0.15, 0.5, "#ff6a00"
CIRCLE_COLOUR = "#e6b800"
#: SI signals of a car shown by default, with their titles: the driver's (rtmbs.manoeuvres.driver,
#: every `rtmbs event`), else the car's own vehicle outputs; per title the first one present. The
#: lateral acceleration of the vehicle outputs first: without a driver, `chassis.ay` is the body
#: output (world y), not the lateral acceleration
CAR_SIGNALS = (("chassis.speed", "speed", "m/s"), ("vehicle.vx", "speed", "m/s"),
               ("vehicle.ay", "lateral acc.", "m/s²"), ("chassis.ay", "lateral acc.", "m/s²"),
               ("chassis.yaw_rate", "yaw rate", "rad/s"), ("vehicle.yaw_rate", "yaw rate", "rad/s"),
               ("driver.handwheel_angle", "handwheel", "rad"),
               ("driver.handwheel", "handwheel", "rad"),
               ("vehicle.handwheel_angle", "handwheel", "rad"))
#: units shown instead of SI ones: unit -> (shown unit, factor)
DISPLAY = {"rad": ("deg", 180.0 / np.pi), "rad/s": ("deg/s", 180.0 / np.pi)}


def rotation(rtype: int, p) -> np.ndarray:
    """Rotation matrix of a body from its rotational coordinates: Euler parameters
    (Carpinelli 2015 eq. 4.5, A = (2e0² − 1)I + 2(e eᵀ + e0 ẽ)) or zxz angles (A = Rz(φ) Rx(θ) Rz(ψ))."""
    if rtype == 0:
        e0, e1, e2, e3 = p[:4]
        e = np.array([e1, e2, e3])
        et = np.array([[0, -e3, e2], [e3, 0, -e1], [-e2, e1, 0]])
        return (2 * e0 * e0 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * et)
    phi, th, psi = p[:3]

    def rz(a):
        return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])

    rx = np.array([[1, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    return rz(phi) @ rx @ rz(psi)


def _box(size, axes, centre=None):
    """Vertices (8, 3) in body axes and triangles (12, 3) of a box of sides ``size`` along the
    columns of ``axes``, centred at ``centre`` (default the body's origin)."""
    s = 0.5 * np.asarray(size)
    corners = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float) * s
    c = np.zeros(3) if centre is None else np.asarray(centre, float)
    v = corners @ np.asarray(axes).T + c
    f = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
         (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return v, _outward(v, np.array(f), c)


def _outward(v, f, centre):
    """Triangles ``f`` ordered so that their normals point away from ``centre`` (convex shapes):
    the lighting then shades the outside."""
    p0, p1, p2 = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    inward = np.einsum("ij,ij->i", np.cross(p1 - p0, p2 - p0), p0 + p1 + p2 - 3 * centre) < 0
    f = f.copy()
    f[inward, 1], f[inward, 2] = f[inward, 2], f[inward, 1].copy()
    return f


def _cylinder(centre, axis, radius, width, n=CYLINDER_SEGMENTS):
    """Vertices and triangles of a closed cylinder about ``axis`` through ``centre``."""
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    u = np.cross(a, [1.0, 0, 0] if abs(a[0]) < 0.9 else [0, 1.0, 0])
    u /= np.linalg.norm(u)
    w = np.cross(a, u)
    ang = 2 * np.pi * np.arange(n) / n
    ring = np.outer(np.cos(ang), u) * radius + np.outer(np.sin(ang), w) * radius
    c = np.asarray(centre, float)
    v = np.vstack([c + ring - 0.5 * width * a, c + ring + 0.5 * width * a,
                   c - 0.5 * width * a, c + 0.5 * width * a])
    f = []
    for k in range(n):
        k1 = (k + 1) % n
        f += [(k, k1, n + k1), (k, n + k1, n + k), (2 * n, k1, k), (2 * n + 1, n + k, n + k1)]
    return v, _outward(v, np.array(f), c)


_BOX_EDGES = ((0, 1), (1, 3), (3, 2), (2, 0), (4, 5), (5, 7), (7, 6), (6, 4), (0, 4), (1, 5),
              (2, 6), (3, 7))


def _frames(t, n_max):
    n = len(t)
    if n <= n_max:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, n_max)).astype(int))


def _geometry(result, model):
    geo = result.meta.get("geometry")
    if geo is None and model is not None:
        from .meta import geometry

        geo = geometry(model)
    if geo is None:
        raise RtmbsError(
            f"result of model '{result.meta.get('model', '?')}' holds no geometry (it was saved "
            "without its model, or the model is not made of bodies): pass the model (--model)")
    if result.q.shape[1] < max(b["qadr"] + 7 - b["rtype"] for b in geo["bodies"]):
        raise RtmbsError(f"the geometry of model '{geo.get('model')}' does not fit this result "
                         f"({result.q.shape[1]} coordinates)")
    return geo


def _reference_body(geo) -> int:
    """The body the follow camera centres: ``chassis`` if there is one, else the largest."""
    names = [b["name"] for b in geo["bodies"]]
    if "chassis" in names:
        return names.index("chassis")

    def size(b):
        return float(np.prod(b["size"])) if b["shape"] == "box" else b["radius"] ** 2 * b["width"]

    return int(np.argmax([size(b) for b in geo["bodies"]]))


def scene_figure(result, geo, max_frames: int = MAX_FRAMES, course: dict | None = None):
    """The plotly figure of the scene — traces 0-4 move (bodies, large bodies' edges, joints,
    force elements, force points), then the road (a strip under the path of a moving car, else
    the road's surface over the region the bodies move) and the course — and a dict of what the
    page animates: per shown sample its time, the moving traces' coordinates and the centre of
    the reference body (:func:`_reference_body`); the whole-scene ranges; how far the reference
    body travels; the body index of each face of the bodies' mesh."""
    import plotly.graph_objects as go

    bodies = geo["bodies"]
    shapes = []
    for b in bodies:
        if b["shape"] == "cylinder":
            shapes.append(_cylinder(b["centre"], b["axis"], b["radius"], b["width"]))
        else:
            shapes.append(_box(b["size"], b["axes"], b.get("centre")))
    extent = np.array([np.ptp(v, axis=0).max() for v, _ in shapes])
    large = extent > LARGE * np.median(extent)
    idx = _frames(result.t, max_frames)
    ref = _reference_body(geo)
    qref = bodies[ref]["qadr"]

    def poses(k):
        q = result.q[k]
        return [(q[b["qadr"]:b["qadr"] + 3], rotation(b["rtype"], q[b["qadr"] + 3:])) for b in bodies]

    def point(ref, pose):
        p = geo["points"][ref]
        if p["body"] < 0:
            return np.asarray(p["s"], float)
        r, A = pose[p["body"]]
        return r + A @ np.asarray(p["s"], float)

    faces, colours, owner, offset = [], [], [], 0
    for bi, (v, f) in enumerate(shapes):
        if large[bi]:
            continue
        faces.append(f + offset)
        offset += len(v)
        colours += [PALETTE[bi % len(PALETTE)]] * len(f)
        owner += [bi] * len(f)
    faces = np.vstack(faces) if faces else np.zeros((0, 3), int)

    def r4(a):
        return [None if x is None else round(float(x), 4) for x in a]

    def frame_data(k):
        pose = poses(k)
        solid = [r + v @ A.T for (r, A), (v, _), big in zip(pose, shapes, large) if not big]
        solid = np.vstack(solid) if solid else np.zeros((0, 3))
        edges = []
        for (r, A), (v, _), big in zip(pose, shapes, large):
            if big:
                w = r + v @ A.T
                for a, c in _BOX_EDGES:
                    edges += [w[a], w[c], [None] * 3]
        edges = np.array(edges, dtype=object).reshape(-1, 3)
        jp = np.array([point(j["i"], pose) for j in geo["joints"] if j["i"]]).reshape(-1, 3)
        lines = []
        for fe in geo["forces"]:
            ends = [point(m, pose) for m in (fe["i"], fe["j"]) if m]
            lines += ends + [[None] * 3] if len(ends) == 2 else []
        lines = np.array(lines, dtype=object).reshape(-1, 3)
        fp = np.array([point(fe["j"], pose) for fe in geo["forces"] if fe["j"]]).reshape(-1, 3)
        return [solid, edges, jp, lines, fp]

    frames, lo, hi = [], np.full(3, np.inf), np.full(3, -np.inf)
    for k in idx:
        data = frame_data(k)
        allp = np.vstack([np.asarray(d, dtype=float) for d in data if len(d)])
        lo, hi = np.minimum(lo, np.nanmin(allp, axis=0)), np.maximum(hi, np.nanmax(allp, axis=0))
        frames.append([[r4(d[:, 0]), r4(d[:, 1]), r4(d[:, 2])] for d in data])
    first = frames[0]
    light = dict(ambient=0.85, diffuse=0.25, specular=0.0, roughness=1.0, fresnel=0.0)
    traces = [
        go.Mesh3d(x=first[0][0], y=first[0][1], z=first[0][2], i=faces[:, 0], j=faces[:, 1],
                  k=faces[:, 2], facecolor=colours, flatshading=True, lighting=light,
                  name="bodies", hoverinfo="skip", showlegend=False),
        go.Scatter3d(x=first[1][0], y=first[1][1], z=first[1][2], mode="lines",
                     name="large bodies", line=dict(color="#555", width=2), hoverinfo="skip"),
        go.Scatter3d(x=first[2][0], y=first[2][1], z=first[2][2], mode="markers", name="joints",
                     marker=dict(size=4, color="#222", symbol="diamond"),
                     text=[j["name"] for j in geo["joints"] if j["i"]], hoverinfo="text"),
        go.Scatter3d(x=first[3][0], y=first[3][1], z=first[3][2], mode="lines",
                     name="force elements", line=dict(color="#d62728", width=4), hoverinfo="skip"),
        go.Scatter3d(x=first[4][0], y=first[4][1], z=first[4][2], mode="markers",
                     name="force points", marker=dict(size=2, color="#d62728"),
                     text=[f["name"] for f in geo["forces"] if f["j"]], hoverinfo="text"),
    ]
    centre = np.asarray(result.q[:, qref:qref + 3], float)
    travel = float(np.max(np.linalg.norm(centre[:, :2] - centre[0, :2], axis=1)))
    roads = geo.get("roads") or ([geo["road"]] if geo.get("road") else [])  # older files: one
    if roads and travel > FOLLOW_MIN_TRAVEL:  # a car on the move: a strip under its path
        r, A = poses(0)[ref]
        solid0 = np.asarray(frame_data(0)[0], float)
        half = float(np.max(np.abs((solid0 - r) @ A[:, 1]))) + ROAD_MARGIN if len(solid0) else 2.0
        strip = _road_strip(roads[0], centre[:, :2], half, ahead=max(10.0, FOLLOW_BOX))
        traces.append(strip)
        for a, c in zip("xyz", range(3)):
            v = np.asarray(getattr(strip, a), float)
            lo[c], hi[c] = min(lo[c], v.min()), max(hi[c], v.max())
    else:
        for road in roads:
            surface = _road_surface(road, lo, hi)
            z = np.asarray(surface.z)
            traces += [surface, go.Scatter3d(  # the two tracks' profiles: seen edge-on from the side
                x=list(surface.x) + [None] + list(surface.x), y=[surface.y[1]] * len(surface.x)
                + [None] + [surface.y[2]] * len(surface.x), z=list(z[1]) + [None] + list(z[2]),
                mode="lines", name="road", line=dict(color="#444", width=3), hoverinfo="skip")]
            lo[2] = min(lo[2], float(z.min()))
    if course:
        ground = (lambda x, y: _road_height(roads[0], x, y)) if roads else (lambda x, y: 0 * x)
        for tr in _course_traces(course, ground):
            traces.append(tr)
            pts = np.array([getattr(tr, a) for a in "xyz"], dtype=float).T
            lo, hi = np.minimum(lo, np.nanmin(pts, axis=0)), np.maximum(hi, np.nanmax(pts, axis=0))
    pad = 0.05 * (hi - lo).max() + 1e-3
    lo, hi = lo - pad, hi + pad
    span = hi - lo
    whole = dict(x=[lo[0], hi[0]], y=[lo[1], hi[1]], z=[lo[2], hi[2]],
                 aspect=dict(x=span[0] / span.max(), y=span[1] / span.max(),
                             z=span[2] / span.max()))
    scene = dict(
        xaxis=dict(range=whole["x"], title="x [m]"), yaxis=dict(range=whole["y"], title="y [m]"),
        zaxis=dict(range=whole["z"], title="z [m]"), aspectmode="manual",
        aspectratio=whole["aspect"],
        camera=dict(eye=dict(x=0.85, y=-1.0, z=0.55), up=dict(x=0, y=0, z=1)))
    layout = go.Layout(scene=scene, margin=dict(l=0, r=0, t=0, b=0), legend=dict(x=0, y=1),
                       uirevision="scene")
    anim = {"t": [round(float(result.t[k]), 6) for k in idx], "frames": frames,
            "centre": np.round(centre[idx], 4).tolist(), "whole": whole, "travel": travel,
            "follow_box": FOLLOW_BOX, "reference": bodies[ref]["name"]}
    return go.Figure(data=traces, layout=layout), anim, owner


def _road_surface(road, lo, hi):
    """The road's surface over both tracks, over the region [lo, hi] the bodies move."""
    import plotly.graph_objects as go

    x = road["x0"] + road["dx"] * np.arange(len(road["z"][0]))
    margin = 0.5
    keep = (x >= lo[0] - margin) & (x <= hi[0] + margin)
    if keep.sum() < 2:
        keep = np.argsort(np.abs(x - 0.5 * (lo[0] + hi[0])))[:2]
        keep = np.isin(np.arange(len(x)), keep)
    xs = x[keep][:: max(1, int(keep.sum() // 400))]
    zl = np.interp(xs, x, road["z"][0])
    zr = np.interp(xs, x, road["z"][1])
    yl, yr = road["y_left"], road["y_right"]
    y0, y1 = min(yr, lo[1]) - margin, max(yl, hi[1]) + margin
    ys = np.array([y0, yr, yl, y1])
    z = np.vstack([zr, zr, zl, zl])
    return go.Surface(x=xs, y=ys, z=z, colorscale=[[0, "#9a9a9a"], [1, "#9a9a9a"]], showscale=False,
                      opacity=0.9, name="road", hoverinfo="skip",
                      lighting=dict(ambient=0.9, diffuse=0.1, specular=0.0))


def _road_height(road, x, y):
    """Height of ``road`` at (x, y): linear in x along each track and in y between them, the
    tracks' heights beyond them (as the tyre's road lookup, rtmbs.vehicle.road)."""
    xs = road["x0"] + road["dx"] * np.arange(len(road["z"][0]))
    zl, zr = np.interp(x, xs, road["z"][0]), np.interp(x, xs, road["z"][1])
    yl, yr = road["y_left"], road["y_right"]
    u = np.clip((np.asarray(y, float) - yr) / (yl - yr), 0.0, 1.0) if yl != yr else 0.5
    return zr + u * (zl - zr)


def _road_strip(road, path, half_width, ahead, max_stations=1500):
    """A strip of road ``2·half_width`` wide under a path (n, 2), extended ``ahead`` metres
    straight beyond both ends, with the road's height at every vertex (bumps and ramps appear
    where the road has them); 5 vertices across, at most ``max_stations`` along."""
    import plotly.graph_objects as go

    step = np.hypot(*np.diff(path, axis=0).T)
    keep = np.r_[True, step > 1e-6]
    path = path[keep]
    d = np.r_[0.0, np.cumsum(np.hypot(*np.diff(path, axis=0).T))]

    def tangent(a, b):
        t = b - a
        return t / np.linalg.norm(t)

    j0 = min(int(np.searchsorted(d, 0.5)), len(d) - 1)
    j1 = max(int(np.searchsorted(d, d[-1] - 0.5)) - 1, 0)
    t0, t1 = tangent(path[0], path[j0]), tangent(path[j1], path[-1])
    ds = max(0.1, (d[-1] + 2 * ahead) / max_stations)
    s = np.arange(-ahead, d[-1] + ahead + 0.5 * ds, ds)
    c = np.column_stack([np.interp(s, d, path[:, 0]), np.interp(s, d, path[:, 1])])
    c[s < 0] = path[0] + np.outer(s[s < 0], t0)
    c[s > d[-1]] = path[-1] + np.outer(s[s > d[-1]] - d[-1], t1)
    tg = np.gradient(c, axis=0)
    tg /= np.linalg.norm(tg, axis=1)[:, None]
    normal = np.column_stack([-tg[:, 1], tg[:, 0]])
    across = np.linspace(-half_width, half_width, 5)
    xy = c[:, None, :] + across[None, :, None] * normal[:, None, :]   # (stations, 5, 2)
    x, y = xy[..., 0].ravel(), xy[..., 1].ravel()
    z = _road_height(road, x, y)
    n, m = len(s), len(across)
    ii, jj = np.meshgrid(np.arange(n - 1), np.arange(m - 1), indexing="ij")
    a = (ii * m + jj).ravel()
    tri = np.vstack([np.column_stack([a, a + m, a + m + 1]),
                     np.column_stack([a, a + m + 1, a + 1])])
    return go.Mesh3d(x=np.round(x, 3), y=np.round(y, 3), z=np.round(z, 4), i=tri[:, 0],
                     j=tri[:, 1], k=tri[:, 2], color=ROAD_COLOUR, flatshading=True, name="road",
                     hoverinfo="skip", lighting=dict(ambient=0.9, diffuse=0.1, specular=0.0))


def _course_traces(course, ground):
    """The course of an event (``course.json`` written by ``rtmbs event``): its cones as small
    orange cones standing on the road, the circle driven as a line on the road."""
    import plotly.graph_objects as go

    out = []
    cones = np.asarray(course.get("cones") or [], float).reshape(-1, 2)
    if len(cones):
        n = 12
        ang = 2 * np.pi * np.arange(n) / n
        ring = CONE_RADIUS * np.column_stack([np.cos(ang), np.sin(ang)])
        vx, vy, vz, tri = [], [], [], []
        for c, (x, y) in enumerate(cones):
            z0 = float(ground(np.array([x]), np.array([y]))[0])
            base = c * (n + 1)
            vx += list(x + ring[:, 0]) + [x]
            vy += list(y + ring[:, 1]) + [y]
            vz += [z0] * n + [z0 + CONE_HEIGHT]
            tri += [(base + k, base + (k + 1) % n, base + n) for k in range(n)]
        tri = np.array(tri)
        out.append(go.Mesh3d(x=np.round(vx, 3), y=np.round(vy, 3), z=np.round(vz, 3),
                             i=tri[:, 0], j=tri[:, 1], k=tri[:, 2], color=CONE_COLOUR,
                             flatshading=True, name="cones", hoverinfo="skip",
                             lighting=dict(ambient=0.8, diffuse=0.3, specular=0.0)))
        out.append(go.Scatter3d(  # a dot of fixed size on screen: the cones seen from afar
            x=cones[:, 0], y=cones[:, 1], z=np.round(np.asarray(vz[n::n + 1]), 3), mode="markers",
            name="cones", marker=dict(size=3, color=CONE_COLOUR), hoverinfo="skip",
            showlegend=False))
    circle = course.get("circle")
    if circle:
        (cx, cy), R = circle["centre"], float(circle["radius"])
        th = np.linspace(0.0, 2 * np.pi, 361)
        x, y = cx + R * np.cos(th), cy + R * np.sin(th)
        out.append(go.Scatter3d(x=np.round(x, 3), y=np.round(y, 3),
                                z=np.round(ground(x, y) + 0.02, 3), mode="lines",
                                name=f"circle R {R:g} m", line=dict(color=CIRCLE_COLOUR, width=4),
                                hoverinfo="skip"))
    return out


def default_signals(result, geo) -> list[str]:
    """Signals plotted when none are named: a car's speed, lateral acceleration, yaw rate and
    handwheel angle (:data:`CAR_SIGNALS`, per quantity the first name present); else the
    highlighted body's or first tyre's rim height and the tyre's load, else the first body's
    height."""
    car, seen = [], set()
    for name, title, _ in CAR_SIGNALS:
        if name in result.outputs and title not in seen:
            car.append(name)
            seen.add(title)
    if len(car) >= 2:
        return car
    tyres = [f["name"] for f in geo["forces"] if f["type"] == "tyre"]
    names = []
    for f in tyres[:1]:
        rim = geo["points"].get(next(fe["j"] for fe in geo["forces"] if fe["name"] == f), {})
        if rim and rim["body"] >= 0:
            names.append(f"{geo['bodies'][rim['body']]['name']}.z")
        names.append(f"{f}.Fz")
    if not names and geo["bodies"]:
        names.append(f"{geo['bodies'][0]['name']}.z")
    return [n for n in names if n in result.outputs]


def _shown(result, name):
    """A signal as plotted: its values, axis title and unit (car signals by their short names
    and in km/h, deg, deg/s; any rad or rad/s signal in deg or deg/s)."""
    try:
        y = np.asarray(result.signal(name), float)
    except KeyError as exc:
        raise RtmbsError(f"view: --signal: {exc.args[0]}") from None
    car = {n: (title, u) for n, title, u in CAR_SIGNALS}
    title, unit = car.get(name, (name, unit_in(result, name)))
    if title == "speed" and unit == "m/s":
        return 3.6 * y, title, "km/h"
    if unit in DISPLAY:
        shown, factor = DISPLAY[unit]
        return factor * y, title, shown
    return y, title, unit


def signals_figure(result, signals):
    """Signals against time, one row each, with a cursor line at the shown time."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = max(1, len(signals))
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.1 / rows + 0.02)
    for r, name in enumerate(signals, start=1):
        y, title, unit = _shown(result, name)
        fig.add_trace(go.Scatter(x=np.round(result.t, 6), y=y, mode="lines", name=name,
                                 line=dict(width=1.4)), row=r, col=1)
        fig.update_yaxes(title_text=label(title, unit), title_standoff=4, row=r, col=1)
        yref = "y domain" if r == 1 else f"y{r} domain"
        fig.add_shape(type="line", x0=result.t[0], x1=result.t[0], y0=0, y1=1, xref=f"x{r if r > 1 else ''}",
                      yref=yref, line=dict(color="#d62728", width=1.5))
    fig.update_xaxes(title_text="t [s]", row=rows, col=1)
    fig.update_layout(margin=dict(l=64, r=8, t=8, b=40), showlegend=False,
                      font=dict(size=11))
    return fig


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>rtmbs view: __TITLE__</title>
<script>
window.__rtmbsErrors = [];
window.addEventListener("error", e => window.__rtmbsErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", e => window.__rtmbsErrors.push(String(e.reason)));
(function () { const err = console.error.bind(console);
  console.error = function (...a) { window.__rtmbsErrors.push(a.map(String).join(" ")); err(...a); }; })();
</script>
<script>__PLOTLYJS__</script>
<style>
html, body {height: 100%; margin: 0}
body {font-family: sans-serif; display: flex; flex-direction: column; padding: 6px 8px;
      box-sizing: border-box}
#info {color: #555; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis}
#controls {display: flex; align-items: center; gap: 10px; font-size: 13px; margin: 4px 0}
#slider {flex: 1} #time {min-width: 7em; font-variant-numeric: tabular-nums}
#main {flex: 1; display: flex; min-height: 420px}
#scene {flex: 0 0 62%; min-width: 0} #signals {flex: 1; min-width: 0}
</style>
</head><body>
<div id="info">__INFO__</div>
<div id="controls"><button id="play">play</button><input id="slider" type="range" min="0" value="0">
<span id="time"></span><label>camera <select id="camera"><option value="follow">follow the car
</option><option value="course">whole course</option></select></label></div>
<div id="main"><div id="scene"></div><div id="signals"></div></div>
<script>
(function () {
const SCENE = __SCENE__, SIGNALS = __SIGNALS__, BODIES = __BODIES__, ANIM = __ANIM__;
const HIGHLIGHT = __HIGHLIGHT__, DEFAULT_CAMERA = __CAMERA__, ORTHO_ZOOM = 3.5, FOLLOW_Z = 0.3,
  FRAME_MS = 40, CAMERAS = {
  iso: {eye: {x: 0.85, y: -1.0, z: 0.55}, up: {x: 0, y: 0, z: 1}, projection: {type: "perspective"}},
  side: {eye: {x: 0, y: 1.1, z: 0}, up: {x: 0, y: 0, z: 1}, projection: {type: "orthographic"}},
  top: {eye: {x: 0, y: 0, z: 1.1}, up: {x: 1, y: 0, z: 0}, projection: {type: "orthographic"}}};
const hash = new URLSearchParams(location.hash.slice(1));
const body = document.body, gd = document.getElementById("scene"), sg = document.getElementById("signals");
const slider = document.getElementById("slider"), playBtn = document.getElementById("play"),
  timeLabel = document.getElementById("time"), camSelect = document.getElementById("camera");
const N = ANIM.t.length;
slider.max = String(N - 1);
function rect(el) { const r = el.getBoundingClientRect(); return JSON.stringify([r.x, r.y, r.width, r.height]); }
function finish() {
  body.dataset.errors = JSON.stringify(window.__rtmbsErrors);
  body.dataset.sceneRect = rect(gd);
  body.dataset.signalsRect = rect(sg);
}
function cursor(t) {
  const upd = {};
  (SIGNALS.layout.shapes || []).forEach((s, i) => { upd[`shapes[${i}].x0`] = t; upd[`shapes[${i}].x1`] = t; });
  body.dataset.frame = String(t);
  return Plotly.relayout(sg, upd).then(() => {
    body.dataset.cursor = String((sg.layout.shapes || [{x0: t}])[0].x0);
  });
}
const view = CAMERAS[hash.get("view")] ? hash.get("view") : "iso";
SCENE.layout.scene.camera = CAMERAS[view];
body.dataset.view = view;
let camera = ["follow", "course"].includes(hash.get("camera")) ? hash.get("camera") : DEFAULT_CAMERA;
if (hash.has("camera") && hash.get("camera") !== camera)
  window.__rtmbsErrors.push("#camera: expected follow or course, got " + hash.get("camera"));
camSelect.value = camera;
function ranges(k) {  // the follow camera: a fixed box centred on the reference body
  let r, a;
  if (camera === "follow") {
    const c = ANIM.centre[k], h = ANIM.follow_box / 2, hz = FOLLOW_Z * h;
    r = {x: [c[0] - h, c[0] + h], y: [c[1] - h, c[1] + h], z: [c[2] - hz, c[2] + hz]};
    a = {x: 1, y: 1, z: FOLLOW_Z};
  } else { r = ANIM.whole; a = ANIM.whole.aspect; }
  const zoom = view === "iso" ? 1 : ORTHO_ZOOM;  // an orthographic camera: fill the width
  return {"scene.xaxis.range": r.x, "scene.yaxis.range": r.y, "scene.zaxis.range": r.z,
          "scene.aspectratio": {x: a.x * zoom, y: a.y * zoom, z: a.z * zoom}};
}
const hl = hash.get("highlight") || HIGHLIGHT;
if (hl) {
  const fc = SCENE.data[0].facecolor, owner = BODIES.owner;
  const k = BODIES.names.indexOf(hl);
  if (k < 0) window.__rtmbsErrors.push("highlight: no body '" + hl + "'");
  for (let f = 0; f < fc.length; f++) if (owner[f] === k) fc[f] = __HL_COLOUR__;
}
let shown = 0, playing = false;
function show(k) {
  shown = k;
  const f = ANIM.frames[k];
  slider.value = String(k);
  timeLabel.textContent = "t = " + ANIM.t[k].toFixed(3) + " s";
  body.dataset.camera = camera;
  return Plotly.update(gd, {x: f.map(d => d[0]), y: f.map(d => d[1]), z: f.map(d => d[2])},
                       ranges(k), [0, 1, 2, 3, 4]).then(() => cursor(ANIM.t[k]));
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function play() {
  if (playing) { playing = false; return; }
  playing = true; playBtn.textContent = "pause";
  let k = shown >= N - 1 ? 0 : shown;
  for (; playing && k < N; k++) { await show(k); await sleep(FRAME_MS); }
  playing = false; playBtn.textContent = "play";
}
playBtn.addEventListener("click", () => play().catch(e => window.__rtmbsErrors.push(String(e))));
slider.addEventListener("input", () => { playing = false; show(parseInt(slider.value, 10)); });
camSelect.addEventListener("change", () => { camera = camSelect.value; show(shown); });
const SET = ranges(0);
SCENE.layout.scene.xaxis.range = SET["scene.xaxis.range"];
SCENE.layout.scene.yaxis.range = SET["scene.yaxis.range"];
SCENE.layout.scene.zaxis.range = SET["scene.zaxis.range"];
SCENE.layout.scene.aspectratio = SET["scene.aspectratio"];
const config = {responsive: true, displaylogo: false};
Plotly.newPlot(sg, SIGNALS.data, SIGNALS.layout, config)
.then(() => Plotly.newPlot(gd, SCENE.data, SCENE.layout, config))
.then(() => {
  let i = 0;
  if (hash.has("t")) {
    const t = parseFloat(hash.get("t"));
    if (!isFinite(t)) window.__rtmbsErrors.push("#t: not a number: " + hash.get("t"));
    else i = ANIM.t.reduce((b, x, j) => Math.abs(x - t) < Math.abs(ANIM.t[b] - t) ? j : b, 0);
  }
  return show(i).then(() => hash.get("play") === "1" ? play() : null);
})
.then(() => { finish(); body.dataset.ready = "1"; })
.catch(e => { window.__rtmbsErrors.push(String(e)); finish(); body.dataset.ready = "1"; });
})();
</script></body></html>
"""


def read_course(path) -> dict:
    """The course of an event (``course.json`` beside its result, written by ``rtmbs event``):
    ``cones`` [[x, y], ...] and/or ``circle`` {centre: [x, y], radius} in metres. A file that
    is not such a course raises ``RtmbsError`` naming the file and key."""
    path = Path(path)
    try:
        course = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RtmbsError(f"course '{path}': cannot read it ({exc})") from None
    if not isinstance(course, dict):
        raise RtmbsError(f"course '{path}': expected a JSON object with 'cones' or 'circle'")
    cones = course.get("cones")
    if cones is not None:
        a = np.asarray(cones, dtype=object)
        try:
            ok = a.ndim == 2 and a.shape[1] == 2 and np.isfinite(a.astype(float)).all()
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise RtmbsError(f"course '{path}': cones: expected a list of [x, y] in metres")
    circle = course.get("circle")
    if circle is not None:
        try:
            ok = (len(circle["centre"]) == 2 and np.isfinite(np.asarray(circle["centre"], float)).all()
                  and float(circle["radius"]) > 0)
        except (TypeError, ValueError, KeyError):
            ok = False
        if not ok:
            raise RtmbsError(f"course '{path}': circle: expected {{\"centre\": [x, y], "
                             "\"radius\": R > 0}} in metres")
    return course


def write_view(result, out_html, signals=None, model=None, highlight: str | None = None,
               max_frames: int = MAX_FRAMES, course: dict | None = None,
               camera: str | None = None) -> Path:
    """Write the page for ``result`` (a :class:`~rtmbs.result.Result`) to ``out_html``.

    ``signals``: names plotted beside the scene (default :func:`default_signals`); ``model``: a
    compiled body model, for a result saved without its geometry; ``highlight``: a body drawn
    magenta; ``course``: an event's cones or circle (:func:`read_course`); ``camera``:
    ``follow`` (the car centred at a fixed scale) or ``course`` (the whole scene), by default
    ``follow`` when the reference body travels more than :data:`FOLLOW_MIN_TRAVEL`. Returns the
    path. Bad names raise ``RtmbsError`` naming them."""
    from plotly.offline import get_plotlyjs
    from plotly.utils import PlotlyJSONEncoder

    if int(max_frames) < 2:
        raise RtmbsError(f"view: --frames {max_frames}: expected at least 2 frames")
    if camera not in (None, "follow", "course"):
        raise RtmbsError(f"view: --camera {camera}: expected follow or course")
    if len(result.t) < 1:
        raise RtmbsError("view: the result has no samples")
    geo = _geometry(result, model)
    names = [b["name"] for b in geo["bodies"]]
    if highlight is not None and highlight not in names:
        from ..errors import did_you_mean

        raise RtmbsError(f"view: --highlight: no body '{highlight}'" + did_you_mean(highlight, names))
    signals = list(signals) if signals else default_signals(result, geo)
    fig, anim, owner = scene_figure(result, geo, max_frames, course)
    sig = signals_figure(result, signals)
    if camera is None:
        camera = "follow" if anim["travel"] > FOLLOW_MIN_TRAVEL else "course"
    meta = result.meta
    info = (f"model {geo.get('model') or meta.get('model', '?')}, solver {meta.get('solver', '?')}, "
            f"h = {meta.get('h', '?')} s, t = {result.t[0]:g} … {result.t[-1]:g} s, "
            f"{len(anim['t'])} frames; '{anim['reference']}' travels {anim['travel']:.1f} m; "
            "bodies: the box of their mass and inertia (edges only for large ones), a rim with "
            "its tyre as a cylinder")

    def js(obj):
        return json.dumps(obj, cls=PlotlyJSONEncoder).replace("</", "<\\/")

    page = (_PAGE.replace("__SCENE__", js(fig.to_plotly_json()))
            .replace("__SIGNALS__", js(sig.to_plotly_json()))
            .replace("__BODIES__", js({"names": names, "owner": owner}))
            .replace("__ANIM__", js(anim))
            .replace("__HIGHLIGHT__", js(highlight or ""))
            .replace("__CAMERA__", js(camera))
            .replace("__HL_COLOUR__", js(HIGHLIGHT))
            .replace("__TITLE__", html.escape(str(geo.get("model") or meta.get("model", ""))))
            .replace("__INFO__", html.escape(info)))
    head, tail = page.split("__PLOTLYJS__")  # last: nothing is replaced inside plotly.js
    out = Path(out_html)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(head + get_plotlyjs() + tail, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"view page '{out}': cannot write it ({exc.strerror or exc})") from None
    return out
