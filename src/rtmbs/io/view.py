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


def rotation(rtype: int, p) -> np.ndarray:
    """Rotation matrix of a body from its rotational coordinates: Euler parameters
    (seed 003 eq. 4.5, A = (2e0² − 1)I + 2(e eᵀ + e0 ẽ)) or zxz angles (A = Rz(φ) Rx(θ) Rz(ψ))."""
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


def scene_figure(result, geo, max_frames: int = MAX_FRAMES):
    """The plotly figure of the scene (traces: bodies, large bodies' edges, joints, force
    elements, road) and its frames, one per shown sample; and the body index of each face of
    the bodies' mesh."""
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

        def r4(a):
            return [None if x is None else round(float(x), 5) for x in a]

        return [go.Mesh3d(x=r4(solid[:, 0]), y=r4(solid[:, 1]), z=r4(solid[:, 2])),
                go.Scatter3d(x=r4(edges[:, 0]), y=r4(edges[:, 1]), z=r4(edges[:, 2])),
                go.Scatter3d(x=r4(jp[:, 0]), y=r4(jp[:, 1]), z=r4(jp[:, 2])),
                go.Scatter3d(x=r4(lines[:, 0]), y=r4(lines[:, 1]), z=r4(lines[:, 2])),
                go.Scatter3d(x=r4(fp[:, 0]), y=r4(fp[:, 1]), z=r4(fp[:, 2]))], solid

    frames, lo, hi = [], np.full(3, np.inf), np.full(3, -np.inf)
    for k in idx:
        data, solid = frame_data(k)
        pts = [solid] + [np.array([d.x, d.y, d.z], dtype=float).T for d in data[1:] if d.x]
        allp = np.vstack([p for p in pts if len(p)])
        lo, hi = np.minimum(lo, np.nanmin(allp, axis=0)), np.maximum(hi, np.nanmax(allp, axis=0))
        frames.append(go.Frame(name=f"{result.t[k]:.4f}", data=data, traces=[0, 1, 2, 3, 4]))
    first = frames[0].data
    light = dict(ambient=0.85, diffuse=0.25, specular=0.0, roughness=1.0, fresnel=0.0)
    traces = [
        go.Mesh3d(x=first[0].x, y=first[0].y, z=first[0].z, i=faces[:, 0], j=faces[:, 1],
                  k=faces[:, 2], facecolor=colours, flatshading=True, lighting=light,
                  name="bodies", hoverinfo="skip", showlegend=False),
        go.Scatter3d(x=first[1].x, y=first[1].y, z=first[1].z, mode="lines", name="large bodies",
                     line=dict(color="#555", width=2), hoverinfo="skip"),
        go.Scatter3d(x=first[2].x, y=first[2].y, z=first[2].z, mode="markers", name="joints",
                     marker=dict(size=4, color="#222", symbol="diamond"),
                     text=[j["name"] for j in geo["joints"] if j["i"]], hoverinfo="text"),
        go.Scatter3d(x=first[3].x, y=first[3].y, z=first[3].z, mode="lines", name="force elements",
                     line=dict(color="#d62728", width=4), hoverinfo="skip"),
        go.Scatter3d(x=first[4].x, y=first[4].y, z=first[4].z, mode="markers", name="force points",
                     marker=dict(size=2, color="#d62728"),
                     text=[f["name"] for f in geo["forces"] if f["j"]], hoverinfo="text"),
    ]
    roads = geo.get("roads") or ([geo["road"]] if geo.get("road") else [])  # older files: one
    for road in roads:
        surface = _road_surface(road, lo, hi)
        z = np.asarray(surface.z)
        traces += [surface, go.Scatter3d(  # the two tracks' profiles: seen edge-on from the side
            x=list(surface.x) + [None] + list(surface.x), y=[surface.y[1]] * len(surface.x) + [None]
            + [surface.y[2]] * len(surface.x), z=list(z[1]) + [None] + list(z[2]), mode="lines",
            name="road", line=dict(color="#444", width=3), hoverinfo="skip")]
        lo[2] = min(lo[2], float(z.min()))
    pad = 0.05 * (hi - lo).max() + 1e-3
    lo, hi = lo - pad, hi + pad
    span = hi - lo
    scene = dict(
        xaxis=dict(range=[lo[0], hi[0]], title="x [m]"), yaxis=dict(range=[lo[1], hi[1]], title="y [m]"),
        zaxis=dict(range=[lo[2], hi[2]], title="z [m]"), aspectmode="manual",
        aspectratio=dict(x=span[0] / span.max(), y=span[1] / span.max(), z=span[2] / span.max()),
        camera=dict(eye=dict(x=0.85, y=-1.0, z=0.55), up=dict(x=0, y=0, z=1)))
    steps = [dict(method="animate", label=f.name, args=[[f.name], dict(
        mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))])
        for f in frames]
    layout = go.Layout(
        title=f"{geo.get('model') or result.meta.get('model', '')} — {result.meta.get('solver', '')}",
        scene=scene, margin=dict(l=0, r=0, t=40, b=0), height=560, legend=dict(x=0, y=1),
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left",
                          yanchor="top", pad=dict(t=40), buttons=[
            dict(label="play", method="animate", args=[None, dict(
                frame=dict(duration=40, redraw=True), fromcurrent=True, transition=dict(duration=0))]),
            dict(label="pause", method="animate", args=[[None], dict(
                mode="immediate", frame=dict(duration=0, redraw=False), transition=dict(duration=0))])])],
        sliders=[dict(active=0, x=0.12, len=0.88, y=0.0, yanchor="top", pad=dict(t=30), ticklen=0,
                      minorticklen=0, font=dict(color="rgba(0,0,0,0)"),  # no label per frame
                      currentvalue=dict(prefix="t = ", suffix=" s", font=dict(color="#333")),
                      steps=steps)])
    return go.Figure(data=traces, layout=layout, frames=frames), owner


def _road_surface(road, lo, hi):
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


def default_signals(result, geo) -> list[str]:
    """Signals plotted when none are named: the highlighted body's or first tyre's rim height and
    the tyre's load, else the first body's height."""
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


def signals_figure(result, signals):
    """Signals against time, one row each, with a cursor line at the shown time."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = max(1, len(signals))
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.06)
    for r, name in enumerate(signals, start=1):
        try:
            y = np.asarray(result.signal(name), float)
        except KeyError as exc:
            raise RtmbsError(f"view: --signal: {exc.args[0]}") from None
        fig.add_trace(go.Scatter(x=np.round(result.t, 6), y=y, mode="lines", name=name,
                                 line=dict(width=1.2)), row=r, col=1)
        fig.update_yaxes(title_text=label(name, unit_in(result, name)), row=r, col=1)
        yref = "y domain" if r == 1 else f"y{r} domain"
        fig.add_shape(type="line", x0=result.t[0], x1=result.t[0], y0=0, y1=1, xref=f"x{r if r > 1 else ''}",
                      yref=yref, line=dict(color="#d62728", width=1))
    fig.update_xaxes(title_text="t [s]", row=rows, col=1)
    fig.update_layout(height=140 + 160 * rows, margin=dict(l=70, r=20, t=10, b=40), showlegend=False)
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
<style>body{font-family:sans-serif;margin:8px} #info{color:#555;font-size:13px}</style>
</head><body>
<div id="info">__INFO__</div>
<div id="scene"></div><div id="signals"></div>
<script>
(function () {
const SCENE = __SCENE__, SIGNALS = __SIGNALS__, BODIES = __BODIES__;
const HIGHLIGHT = __HIGHLIGHT__, ORTHO_ZOOM = 3.5, CAMERAS = {
  iso: {eye: {x: 0.85, y: -1.0, z: 0.55}, up: {x: 0, y: 0, z: 1}, projection: {type: "perspective"}},
  side: {eye: {x: 0, y: 1.1, z: 0}, up: {x: 0, y: 0, z: 1}, projection: {type: "orthographic"}},
  top: {eye: {x: 0, y: 0, z: 1.1}, up: {x: 1, y: 0, z: 0}, projection: {type: "orthographic"}}};
const hash = new URLSearchParams(location.hash.slice(1));
const body = document.body, gd = document.getElementById("scene"), sg = document.getElementById("signals");
function finish() {
  body.dataset.errors = JSON.stringify(window.__rtmbsErrors);
}
function cursor(t) {
  const upd = {};
  (SIGNALS.layout.shapes || []).forEach((s, i) => { upd[`shapes[${i}].x0`] = t; upd[`shapes[${i}].x1`] = t; });
  body.dataset.frame = String(t);
  return Plotly.relayout(sg, upd);
}
const view = CAMERAS[hash.get("view")] ? hash.get("view") : "iso";
SCENE.layout.scene.camera = CAMERAS[view];
if (view !== "iso") {  // an orthographic camera zooms by the aspect ratio: fill the width
  const a = SCENE.layout.scene.aspectratio;
  a.x *= ORTHO_ZOOM; a.y *= ORTHO_ZOOM; a.z *= ORTHO_ZOOM;
}
body.dataset.view = view;
const hl = hash.get("highlight") || HIGHLIGHT;
if (hl) {
  const fc = SCENE.data[0].facecolor, owner = BODIES.owner;
  const k = BODIES.names.indexOf(hl);
  if (k < 0) window.__rtmbsErrors.push("highlight: no body '" + hl + "'");
  for (let f = 0; f < fc.length; f++) if (owner[f] === k) fc[f] = __HL_COLOUR__;
}
Plotly.newPlot(sg, SIGNALS.data, SIGNALS.layout, {responsive: true, displaylogo: false})
.then(() => Plotly.newPlot(gd, SCENE.data, SCENE.layout, {responsive: true, displaylogo: false}))
.then(() => Plotly.addFrames(gd, SCENE.frames))
.then(() => {
  gd.on("plotly_animatingframe", e => cursor(parseFloat(e.name)));
  gd.on("plotly_sliderchange", e => cursor(parseFloat(e.step.label)));
  const names = SCENE.frames.map(f => f.name);
  let target = names[0];
  if (hash.has("t")) {
    const t = parseFloat(hash.get("t"));
    if (!isFinite(t)) window.__rtmbsErrors.push("#t: not a number: " + hash.get("t"));
    else target = names.reduce((a, b) => Math.abs(parseFloat(b) - t) < Math.abs(parseFloat(a) - t) ? b : a);
  }
  const i = names.indexOf(target);
  return Plotly.animate(gd, [target], {mode: "immediate", frame: {duration: 0, redraw: true},
                                      transition: {duration: 0}})
    .then(() => Plotly.relayout(gd, {"sliders[0].active": i}))
    .then(() => cursor(parseFloat(target)));
})
.then(() => { finish(); body.dataset.ready = "1"; })
.catch(e => { window.__rtmbsErrors.push(String(e)); finish(); body.dataset.ready = "1"; });
})();
</script></body></html>
"""


def write_view(result, out_html, signals=None, model=None, highlight: str | None = None,
               max_frames: int = MAX_FRAMES) -> Path:
    """Write the page for ``result`` (a :class:`~rtmbs.result.Result`) to ``out_html``.

    ``signals``: names to plot under the scene (default :func:`default_signals`); ``model``: a
    compiled body model, for a result saved without its geometry; ``highlight``: a body drawn
    magenta. Returns the path. Bad names raise ``RtmbsError`` naming them."""
    from plotly.offline import get_plotlyjs
    from plotly.utils import PlotlyJSONEncoder

    if int(max_frames) < 2:
        raise RtmbsError(f"view: --frames {max_frames}: expected at least 2 frames")
    if len(result.t) < 1:
        raise RtmbsError("view: the result has no samples")
    geo = _geometry(result, model)
    names = [b["name"] for b in geo["bodies"]]
    if highlight is not None and highlight not in names:
        from ..errors import did_you_mean

        raise RtmbsError(f"view: --highlight: no body '{highlight}'" + did_you_mean(highlight, names))
    signals = list(signals) if signals else default_signals(result, geo)
    fig, owner = scene_figure(result, geo, max_frames)
    sig = signals_figure(result, signals)
    meta = result.meta
    info = (f"model {geo.get('model') or meta.get('model', '?')}, solver {meta.get('solver', '?')}, "
            f"h = {meta.get('h', '?')} s, t = {result.t[0]:g} … {result.t[-1]:g} s; "
            f"{len(fig.frames)} frames; bodies drawn as the box of their mass and inertia "
            "(edges only for large bodies), a rim with a tyre as a cylinder")

    def js(obj):
        return json.dumps(obj, cls=PlotlyJSONEncoder).replace("</", "<\\/")

    page = (_PAGE.replace("__SCENE__", js(fig.to_plotly_json()))
            .replace("__SIGNALS__", js(sig.to_plotly_json()))
            .replace("__BODIES__", js({"names": names, "owner": owner}))
            .replace("__HIGHLIGHT__", js(highlight or ""))
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

