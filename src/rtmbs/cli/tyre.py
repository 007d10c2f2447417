"""``rtmbs tyre ...``: evaluate a .tir tyre with the steady-state Magic Formula, plot its curves."""
from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np

EXAMPLES = """examples:
  rtmbs tyre eval tyre.tir --inputs points.csv --out forces.csv
  rtmbs tyre curves tyre.tir --out out/tyre_curves
  (the shipped files are in rtmbs/data/tyre, e.g. chrono_MagicFormula61_Parameters.tir)"""

#: Input columns of ``tyre eval`` (MFeval layout) and the output columns added to them.
INPUT_COLUMNS = ("Fz_N", "kappa", "alpha_rad", "gamma_rad", "Vx_mps")
OUTPUT_COLUMNS = {"Fx_N": "Fx", "Fy_N": "Fy", "Mx_Nm": "Mx", "My_Nm": "My", "Mz_Nm": "Mz",
                  "Re_m": "Re"}
EXTRA_COLUMNS = {"t_m": "t", "mux": "mux", "muy": "muy", "Kya_Npr": "Kya", "Kxk_N": "Kxk",
                 "sigma_kappa_m": "sigma_kappa", "sigma_alpha_m": "sigma_alpha"}


def register(subparsers, formatter_class=argparse.HelpFormatter) -> None:
    p = subparsers.add_parser("tyre", help="Magic Formula tyre: evaluate a .tir file, plot curves",
                              description=__doc__, epilog=EXAMPLES, formatter_class=formatter_class)
    sub = p.add_subparsers(dest="tyre_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    pe = sub.add_parser(
        "eval", help="steady-state forces and moments for the rows of a CSV",
        description="Evaluate the steady-state Magic Formula of a .tir file (MF 6.1, MF 5.2, "
        "PAC2002) for each row of a CSV with columns " + ", ".join(INPUT_COLUMNS) + " (other "
        "columns are ignored). Writes those columns plus " + ", ".join(OUTPUT_COLUMNS)
        + " (ISO-W contact-patch axes, as MFeval).",
        epilog="example:\n  rtmbs tyre eval tyre.tir --inputs points.csv --out forces.csv",
        formatter_class=formatter_class)
    pe.add_argument("file", metavar="FILE", help="tyre property file (.tir)")
    pe.add_argument("--inputs", required=True, metavar="IN.csv", help="CSV of operating points")
    pe.add_argument("--out", required=True, metavar="OUT.csv", help="CSV to write")
    pe.add_argument("--extra", action="store_true",
                    help="also write " + ", ".join(EXTRA_COLUMNS))
    pe.set_defaults(func=_eval)

    pc = sub.add_parser(
        "curves", help="PNG plots of Fx-kappa, Fy-alpha, Mz-alpha and a Markdown summary",
        description="Plot the longitudinal (DIR/longitudinal.png) and lateral (DIR/lateral.png) "
        "characteristics of a .tir tyre for several loads and cambers (like Figs 4.18-4.19 of "
        "Carpinelli 2015) and write DIR/summary.md (peak friction, slip and cornering stiffness).",
        epilog="example:\n  rtmbs tyre curves tyre.tir --out out/tyre_curves",
        formatter_class=formatter_class)
    pc.add_argument("file", metavar="FILE", help="tyre property file (.tir)")
    pc.add_argument("--out", required=True, metavar="DIR", help="output directory")
    pc.add_argument("--loads", default="0.5,1,1.5",
                    help="loads as multiples of FNOMIN, comma separated")
    pc.add_argument("--cambers-deg", default="0,3,6", help="camber angles [deg], comma separated")
    pc.set_defaults(func=_curves)


def read_inputs(path) -> tuple[list[str], dict[str, np.ndarray]]:
    """Columns of an operating-point CSV; ModelError names a missing or non-numeric column."""
    from ..errors import ModelError

    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:  # an editor's BOM is no column
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise ModelError(str(path), f"cannot read inputs ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ModelError(str(path), f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                         f"offset {exc.start}); expected a CSV file") from None
    rows = [r for r in rows if r and any(c.strip() for c in r)]
    if not rows:
        raise ModelError(str(path), "empty file; expected a header with " + ", ".join(INPUT_COLUMNS))
    header = [c.strip() for c in rows[0]]
    for name in INPUT_COLUMNS:
        if name not in header:
            raise ModelError(str(path), f"missing column '{name}'; expected columns "
                             + ", ".join(INPUT_COLUMNS))
    cols = {}
    for name in INPUT_COLUMNS:
        j = header.index(name)
        values = []
        for i, r in enumerate(rows[1:], start=2):
            try:
                values.append(float(r[j]))
            except (ValueError, IndexError):
                cell = r[j] if j < len(r) else ""
                raise ModelError(f"{path}:{i}", f"column '{name}': value {cell!r} is not a number")
            if not math.isfinite(values[-1]):  # NaN in, NaN forces out with exit 0
                raise ModelError(f"{path}:{i}", f"column '{name}': value {r[j].strip()!r} is not "
                                 "a finite number")
        cols[name] = np.array(values)
    return header, cols


def _eval(args) -> int:
    from ..io.files import writable_file
    from ..vehicle.tyre import evaluate, load_tir

    props = load_tir(args.file)
    _, cols = read_inputs(args.inputs)
    out = writable_file(args.out)  # before the work; bad inputs leave no folder behind
    res = evaluate(props, *(cols[c] for c in INPUT_COLUMNS))
    names = dict(OUTPUT_COLUMNS)
    if args.extra:
        names.update(EXTRA_COLUMNS)
    with out.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(INPUT_COLUMNS) + list(names))
        for i in range(len(cols["Fz_N"])):
            w.writerow([f"{cols[c][i]:.10g}" for c in INPUT_COLUMNS]
                       + [f"{res[k][i]:.10g}" for k in names.values()])
    print(f"wrote {out} ({len(cols['Fz_N'])} rows, {props.family} equations)")
    return 0


def _floats(text: str, what: str, positive: bool = False) -> list[float]:
    """A comma-separated list of finite numbers (> 0 with ``positive``), or an error naming
    the option ``--what``."""
    import math

    from ..errors import RtmbsError

    kind = "finite numbers > 0" if positive else "finite numbers"
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) and (v > 0 or not positive) for v in values):
        raise RtmbsError(f"--{what}: {text!r} is not a comma-separated list of {kind}")
    return values


def _curves(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.files import writable_dir
    from ..vehicle.tyre import evaluate, load_tir

    props = load_tir(args.file)
    loads = [f * props["FNOMIN"] for f in _floats(args.loads, "loads", positive=True)]
    cambers = [np.radians(c) for c in _floats(args.cambers_deg, "cambers-deg")]
    out = writable_dir(args.out)  # before the work; bad inputs leave no folder behind
    kap = np.linspace(max(-1.0, props["KPUMIN"]), min(1.0, props["KPUMAX"]), 401)
    alp = np.linspace(max(-0.35, props["ALPMIN"]), min(0.35, props["ALPMAX"]), 401)
    Fz0 = props["FNOMIN"]
    fz_sweep = np.linspace(0.1 * Fz0, 2.0 * Fz0, 60)

    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    for fz in loads:
        ax[0, 0].plot(kap, evaluate(props, fz, kap, 0.0)["Fx"], label=f"Fz = {fz:.0f} N")
    ax[0, 0].set(xlabel="longitudinal slip κ [-]", ylabel="Fx [N]", title="Fx-κ, γ = 0")
    ax[0, 1].plot(fz_sweep, evaluate(props, fz_sweep, 0.0, 0.0)["Kxk"])
    ax[0, 1].set(xlabel="Fz [N]", ylabel="Kxκ [N]", title="slip stiffness vs load")
    for g in cambers:
        ax[1, 0].plot(kap, evaluate(props, Fz0, kap, 0.0, g)["Fx"], label=f"γ = {np.degrees(g):.0f}°")
    ax[1, 0].set(xlabel="longitudinal slip κ [-]", ylabel="Fx [N]", title="Fx-κ at FNOMIN")
    grid = evaluate(props, fz_sweep[:, None], kap[None, :], 0.0)["Fx"]
    ax[1, 1].plot(fz_sweep, grid.max(axis=1), label="max driving")
    ax[1, 1].plot(fz_sweep, -grid.min(axis=1), label="max braking")
    ax[1, 1].plot(fz_sweep, -grid[:, 0], "--", label=f"sliding (κ = {kap[0]:g})")
    ax[1, 1].set(xlabel="Fz [N]", ylabel="|Fx| [N]", title="peak and sliding force vs load")
    for a in ax.flat:
        a.grid(True, alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=8)
    fig.suptitle(f"{props.name}: longitudinal ({props.family})")
    fig.tight_layout()
    fig.savefig(out / "longitudinal.png", dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    for fz in loads:
        r = evaluate(props, fz, 0.0, alp)
        ax[0, 0].plot(np.degrees(alp), r["Fy"], label=f"Fz = {fz:.0f} N")
        ax[0, 1].plot(np.degrees(alp), r["Mz"], label=f"Fz = {fz:.0f} N")
    for g in cambers:
        r = evaluate(props, Fz0, 0.0, alp, g)
        ax[1, 0].plot(np.degrees(alp), r["Fy"], label=f"γ = {np.degrees(g):.0f}°")
        ax[1, 1].plot(np.degrees(alp), r["Mz"], label=f"γ = {np.degrees(g):.0f}°")
    for a, yl in zip(ax.flat, ("Fy [N]", "Mz [N m]", "Fy [N]", "Mz [N m]")):
        a.set(xlabel="slip angle α [deg]", ylabel=yl)
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8)
    ax[0, 0].set_title("Fy-α, γ = 0")
    ax[0, 1].set_title("Mz-α, γ = 0")
    ax[1, 0].set_title("Fy-α at FNOMIN")
    ax[1, 1].set_title("Mz-α at FNOMIN")
    fig.suptitle(f"{props.name}: lateral ({props.family})")
    fig.tight_layout()
    fig.savefig(out / "lateral.png", dpi=100)
    plt.close(fig)

    lines = [f"# Tyre {props.name}", "",
             f"- equations: {props.family} (FITTYP {props.fittyp}, "
             f"PROPERTY_FILE_FORMAT '{props.property_file_format}')",
             f"- UNLOADED_RADIUS {props['UNLOADED_RADIUS']:g} m, FNOMIN {Fz0:g} N, "
             f"LONGVL {props['LONGVL']:g} m/s", "",
             "| Fz [N] | max Fx/Fz | min Fx/Fz | max Fy/Fz | min Fy/Fz | Kxκ [N] | Kyα [N/rad] | Re [m] |",
             "|---|---|---|---|---|---|---|---|"]
    for fz in loads:
        rx = evaluate(props, fz, kap, 0.0)
        ry = evaluate(props, fz, 0.0, alp)
        r0 = evaluate(props, fz, 0.0, 0.0)
        lines.append(f"| {fz:.0f} | {rx['Fx'].max() / fz:.3f} | {rx['Fx'].min() / fz:.3f} | "
                     f"{ry['Fy'].max() / fz:.3f} | {ry['Fy'].min() / fz:.3f} | "
                     f"{float(r0['Kxk']):.4g} | {float(r0['Kya']):.4g} | {float(r0['Re']):.4f} |")
    lines += ["", f"Curves at Vx = LONGVL, slip range κ ∈ [{kap[0]:g}, {kap[-1]:g}], "
              f"α ∈ [{np.degrees(alp[0]):.1f}°, {np.degrees(alp[-1]):.1f}°]. "
              "Plots: longitudinal.png, lateral.png.", "",
              f"Parameters not in the file (defaults used, see docs/tyre.md): "
              f"{', '.join(props.defaulted) if props.defaulted else 'none'}.", ""]
    (out / "summary.md").write_text("\n".join(lines))
    print(f"wrote {out / 'longitudinal.png'}, {out / 'lateral.png'}, {out / 'summary.md'}")
    return 0
