"""Plots of results and roads, written as PNG files (matplotlib, Agg canvas, no pyplot state).

Figure sizes are fixed so reports line up: ``WIDTH_PX`` wide and ``HEADER_PX + ROW_PX * rows``
high, ``rows`` being the number of subplots.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import RtmbsError
from ..units import label as unit_label, unit_in

DPI = 100
WIDTH_PX = 800
ROW_PX = 200
HEADER_PX = 80


def figure_size_px(rows: int) -> tuple[int, int]:
    """(width, height) in pixels of a figure with ``rows`` subplots."""
    return WIDTH_PX, HEADER_PX + ROW_PX * rows


def _figure(rows: int):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    w, h = figure_size_px(rows)
    fig = Figure(figsize=(w / DPI, h / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, out_png) -> Path:
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", dpi=DPI)  # no bbox_inches="tight": the size stays as stated
    return out


def _resolve(result, name: str, label: str | None = None) -> np.ndarray:
    """``result.signal(name)``, its KeyError turned into an RtmbsError with the same message."""
    try:
        y = np.asarray(result.signal(name), dtype=float)
    except KeyError as exc:
        msg = exc.args[0] if exc.args else f"unknown signal '{name}'"
        raise RtmbsError(f"result '{label}': {msg}" if label else msg) from None
    if y.shape != np.shape(result.t):
        where = f"result '{label}': " if label else ""
        raise RtmbsError(f"{where}signal '{name}' has shape {y.shape}, expected {np.shape(result.t)} like t")
    return y


def plot_signals(result, signals, out_png, title: str | None = None) -> Path:
    """Plot named signals of a ``Result`` against time, one subplot per signal, into a PNG.

    ``signals``: names accepted by ``Result.signal`` (outputs, ``q:<coord>``, ``qd:<coord>``, ``t``).
    An unknown name raises ``RtmbsError`` with the did-you-mean message of ``Result.signal``.
    """
    if isinstance(signals, str):
        signals = [signals]
    signals = list(signals)
    if not signals:
        raise RtmbsError("plot_signals: no signal given (expected at least one name)")
    data = [_resolve(result, s) for s in signals]  # all checked before drawing
    fig = _figure(len(signals))
    axes = fig.subplots(len(signals), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name, y in zip(axes, signals, data):
        ax.plot(result.t, y, lw=1.0)
        ax.set_ylabel(unit_label(name, unit_in(result, name)))
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("t [s]")
    meta = getattr(result, "meta", {}) or {}
    if title is None and meta:
        title = " ".join(f"{k}={meta[k]}" for k in ("model", "solver", "h") if k in meta) or None
    if title:
        fig.suptitle(title)
    return _save(fig, out_png)


def compare_plot(results: dict, signal: str, out_png, title: str | None = None,
                 difference: bool = True) -> Path:
    """Overlay one signal from several results (``{label: Result}``); with ``difference`` and two
    or more results, a second subplot shows each minus the first (interpolated onto its times)."""
    if not results:
        raise RtmbsError("compare_plot: no result given (expected a {label: Result} dict)")
    series = {label: (np.asarray(r.t, dtype=float), _resolve(r, signal, label)) for label, r in results.items()}
    rows = 2 if difference and len(series) > 1 else 1
    fig = _figure(rows)
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    for label, (t, y) in series.items():
        axes[0].plot(t, y, lw=1.0, label=str(label))
    unit = unit_in(next(iter(results.values())), signal)
    axes[0].set_ylabel(unit_label(signal, unit))
    axes[0].legend(loc="best", fontsize="small")
    if rows == 2:
        (ref_label, (t_ref, y_ref)), *others = series.items()
        for label, (t, y) in others:
            axes[1].plot(t_ref, np.interp(t_ref, t, y) - y_ref, lw=1.0, label=f"{label} - {ref_label}")
        axes[1].set_ylabel(unit_label("difference", unit))
        axes[1].legend(loc="best", fontsize="small")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("t [s]")
    fig.suptitle(title or signal)
    return _save(fig, out_png)


def plot_road(road, out_png, psd: bool | None = None, title: str | None = None) -> Path:
    """Plot a ``rtmbs.vehicle.road.Road``: both track profiles against x and, when ``psd`` (default:
    for ISO 8608 roads), their Welch PSD against the ISO 8608 class bands (docs/roads.md)."""
    from ..vehicle import road as R

    if psd is None:
        psd = road.kind == "iso8608"
    fig = _figure(2 if psd else 1)
    axes = fig.subplots(2 if psd else 1, 1, squeeze=False)[:, 0]
    ax = axes[0]
    same = np.array_equal(road.z[0], road.z[1])
    ax.plot(road.x, road.z[0] * 1e3, lw=0.8, label="both tracks" if same else f"left (y={road.y_left:g} m)")
    if not same:
        ax.plot(road.x, road.z[1] * 1e3, lw=0.8, alpha=0.8, label=f"right (y={road.y_right:g} m)")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [mm]")
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, alpha=0.3)
    if title is None:
        keys = [k for k in ("class", "height", "slope", "length", "start", "seed", "correlation", "file")
                if k in road.params]
        title = road.kind + " " + " ".join(
            f"{k}={road.params[k]:g}" if isinstance(road.params[k], float) else f"{k}={road.params[k]}"
            for k in keys)
    if psd:
        ax = axes[1]
        periodic = road.kind == "iso8608"
        fit = None
        for k, name in ((0, "left"), (1, "right")):
            if k == 1 and same:
                break
            z = road.z[k, :-1] if periodic else road.z[k]
            n, g = R.iso_psd(z, road.dx)
            ax.loglog(n[1:], g[1:], lw=0.8, label=f"{name if not same else 'profile'} (Welch)")
            if k == 0:
                try:
                    fit = R.iso_classify(z, road.dx)
                except Exception:  # too short to classify: plot without the fit
                    fit = None
        nb = np.geomspace(R.ISO_BAND[0], R.ISO_BAND[1], 50)
        n_lab = R.ISO_BAND[0] * 1.15
        for i, c in enumerate(R.ISO_CLASSES):
            if i < len(R.ISO_CLASSES) - 1:  # boundary between class c and the next
                ax.loglog(nb, R.ISO_GD_N0[c] * 2.0 * (nb / R.ISO_N0) ** -2.0, color="0.6", lw=0.6, ls="--")
            ax.text(n_lab, R.ISO_GD_N0[c] * (n_lab / R.ISO_N0) ** -2.0, c, fontsize="small",
                    va="center", ha="left", color="0.35", clip_on=True)
        if fit is not None:
            ax.loglog(nb, fit.gd_n0 * (nb / R.ISO_N0) ** -2.0, color="k", lw=0.8, ls=":", zorder=3,
                      label=f"fit w=2: Gd(n0)={fit.gd_n0:.3g} m^3, class {fit.road_class} "
                      f"(free w={fit.waviness:.2f})")
        ax.set_xlim(R.ISO_BAND[0] * 0.8, R.ISO_BAND[1] * 1.6)
        k = R.ISO_CLASSES.index(fit.road_class) if fit is not None else 3
        lo_c, hi_c = R.ISO_CLASSES[max(k - 2, 0)], R.ISO_CLASSES[min(k + 2, 7)]
        ax.set_ylim(R.ISO_GD_N0[lo_c] / 2.0 * (R.ISO_BAND[1] / R.ISO_N0) ** -2.0,
                    R.ISO_GD_N0[hi_c] * 2.0 * (R.ISO_BAND[0] / R.ISO_N0) ** -2.0)
        ax.set_xlabel("spatial frequency n [cycles/m]")
        ax.set_ylabel("Gd(n) [m^3]")
        ax.legend(loc="lower left", fontsize="small")
        ax.grid(True, which="both", alpha=0.2)
    fig.suptitle(title)
    return _save(fig, out_png)
