"""``rtmbs kc``: suspension kinematics and compliance of one corner (rtmbs.analysis.kc)."""
from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

import numpy as np

EXAMPLES = """examples:
  rtmbs kc sedan --corner front-left --out out/kc_fl
  rtmbs kc sedan --corner rear-right --travel -0.05:0.05:21 --mode single
  rtmbs kc my_car/vehicle.yaml --corner front-left --rack -0.04:0.04:41"""


def register(subparsers, formatter_class=argparse.HelpFormatter) -> None:
    p = subparsers.add_parser(
        "kc", help="suspension kinematics & compliance of one corner: tables and plots",
        description="Sweep the wheel-centre travel of one corner on a virtual K&C rig (chassis "
        "fixed, gravity off, no tyre forces; position assembly at each point) and tabulate "
        "camber [deg], toe-in [deg] (ISO 8855: + front of the wheel inboard), steer [deg], "
        "track change [mm] (+ outboard, wheel centre and contact point), the vertical force at "
        "the wheel centre Fz [N] (from the travel driver's multiplier), camber gain, bump "
        "steer [deg/m] and wheel rate [N/m]; for a steered corner also the road-wheel angles "
        "against rack travel and the steer gain [deg/mm]. Writes DIR/kc.md, DIR/travel.csv, "
        "DIR/steering.csv (with a units row) and DIR/travel.png, DIR/steering.png.",
        epilog=EXAMPLES, formatter_class=formatter_class)
    p.add_argument("model", metavar="MODEL",
                   help="sedan, sedan-bushings or a vehicle file (vehicle.yaml or its folder)")
    p.add_argument("--corner", required=True, metavar="CORNER",
                   help="front-left, front-right, rear-left or rear-right")
    p.add_argument("--travel", default="-0.08:0.08:33", metavar="START:STOP:COUNT",
                   help="wheel-centre travels, m (+ up)")
    p.add_argument("--rack", default="-0.03:0.03:31", metavar="START:STOP:COUNT",
                   help="rack travels of the steering sweep, m (+ left)")
    p.add_argument("--mode", default="parallel", choices=("parallel", "single"),
                   help="parallel: both wheels of the axle move together; single: the other "
                   "wheel stays at design (an anti-roll bar twists)")
    p.add_argument("--out", default="out/kc", metavar="DIR", help="output directory")
    # ``--travel -0.08:0.08:33``: a value starting with a negative number is a value, not an option
    p._negative_number_matcher = re.compile(r"^-\d+$|^-\d*\.?\d+(:[-+.\d]*)*$")
    p.set_defaults(func=cmd_kc)


def vehicle_model(name: str):
    """A vehicle's model description by built-in name or file."""
    from ..errors import ModelError
    from ..vehicle.build import load_vehicle_file, sedan_model

    if name in ("sedan", "sedan-bushings"):
        return sedan_model("ideal" if name == "sedan" else "bushings")
    path = Path(name).expanduser()
    if not path.exists():
        raise ModelError("MODEL", f"'{name}' is neither a built-in vehicle (sedan, "
                         "sedan-bushings) nor a vehicle file")
    return load_vehicle_file(path)


def cmd_kc(args) -> int:
    from ..analysis.kc import STEER_COLUMNS, TRAVEL_COLUMNS, corner_tag, kc_sweep, parse_range

    corner_tag(args.corner)
    travel = parse_range(args.travel, "--travel")
    rack = parse_range(args.rack, "--rack")
    res = kc_sweep(vehicle_model(args.model), args.corner, travel, rack, args.mode)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = [write_csv(out / "travel.csv", res.travel, TRAVEL_COLUMNS)]
    files.append(plot_travel(out / "travel.png", res))
    if res.steering is not None:
        files.append(write_csv(out / "steering.csv", res.steering, steer_columns(res)))
        files.append(plot_steering(out / "steering.png", res))
    files.append(write_markdown(out / "kc.md", res))
    s = res.summary
    print(f"{res.model} {res.corner} ({res.mode} travel): camber {s['camber_deg']:.2f} deg, "
          f"toe-in {s['toe_in_deg']:.2f} deg, Fz {s['Fz_N']:.0f} N, camber gain "
          f"{s['camber_gain_deg_per_m']:.2f} deg/m, bump steer {s['bump_steer_deg_per_m']:.2f} "
          f"deg/m, wheel rate {s['wheel_rate_N_per_m']:.0f} N/m"
          + (f", steer gain {s['steer_gain_deg_per_mm']:.4f} deg/mm" if "steer_gain_deg_per_mm" in s
             else "")
          + (f", steering ratio {s['steering_ratio']:.2f}" if "steering_ratio" in s else ""))
    print("wrote " + ", ".join(str(f) for f in files))
    return 0


def steer_columns(res) -> dict:
    """The rack-travel table's columns; with a pinion also the handwheel angle and ratio."""
    from ..analysis.kc import PINION_COLUMNS, STEER_COLUMNS

    return {**STEER_COLUMNS, **(PINION_COLUMNS if "handwheel" in res.steering else {})}


def write_csv(path: Path, tab: dict, units: dict) -> Path:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(units))
        w.writerow(list(units.values()))
        for row in np.column_stack([tab[c] for c in units]):
            w.writerow([f"{v:.9g}" for v in row])
    return path


def _md_table(tab: dict, units: dict) -> list[str]:
    lines = ["| " + " | ".join(f"{c} [{u}]" for c, u in units.items()) + " |",
             "|" + " --- |" * len(units)]
    for row in np.column_stack([tab[c] for c in units]):
        lines.append("| " + " | ".join(f"{v:.4g}" for v in row) + " |")
    return lines


def write_markdown(path: Path, res) -> Path:
    from ..analysis.kc import STEER_COLUMNS, TRAVEL_COLUMNS

    s = res.summary
    lines = [f"# K&C: {res.model}, {res.corner} ({res.mode} wheel travel)", "",
             "Virtual rig: chassis fixed, gravity off, no tyre forces; ISO 8855 (toe-in +, "
             "camber − = top inboard, steer + left, track change + outboard, Fz + up).", "",
             "| at design | value |", "| --- | --- |"]
    lines += [f"| {k} | {v:.6g} |" for k, v in s.items()]
    lines += ["", "## Wheel travel", ""] + _md_table(res.travel, TRAVEL_COLUMNS)
    if res.steering is not None:
        lines += ["", "## Rack travel (wheel travel at design)", ""]
        lines += _md_table(res.steering, steer_columns(res))
    path.write_text("\n".join(lines) + "\n")
    return path


def _pyplot():
    """matplotlib.pyplot on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, title: str, path: Path) -> Path:
    """Title ``fig``, save it to ``path`` (100 dpi) and close it."""
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_travel(path: Path, res) -> Path:
    plt = _pyplot()
    t = res.travel
    fig, ax = plt.subplots(2, 3, figsize=(13, 7))
    for a, (col, label) in zip(ax.flat, [("camber", "camber [deg]"), ("toe_in", "toe-in [deg]"),
                                          ("track_change", "track change [mm]"), ("Fz", "Fz [N]"),
                                          ("wheel_rate", "wheel rate [kN/m]"),
                                          ("bump_steer", "bump steer [deg/m]")]):
        a.plot(t[col] / (1e3 if col == "wheel_rate" else 1.0), t["travel"], "o-", ms=3)
        if col == "track_change":
            a.plot(t["track_change_contact"], t["travel"], "s--", ms=3, label="contact point")
            a.legend()
        a.set_xlabel(label)
        a.set_ylabel("wheel travel [mm]")
        a.grid(True)
    return _save(fig, f"{res.model} {res.corner}: K&C against wheel travel ({res.mode})", path)


def plot_steering(path: Path, res) -> Path:
    plt = _pyplot()
    st = res.steering
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.5))
    ax[0].plot(st["rack_travel"], st["steer"], "o-", ms=3, label=res.corner)
    ax[0].plot(st["rack_travel"], st["steer_other"], "s--", ms=3, label="other wheel")
    ax[0].set_ylabel("road-wheel steer angle [deg]")
    ax[0].legend()
    ax[1].plot(st["rack_travel"], st["steer_gain"], "o-", ms=3)
    ax[1].set_ylabel("steer gain [deg/mm]")
    for a in ax:
        a.set_xlabel("rack travel [mm] (+ left)")
        a.grid(True)
    return _save(fig, f"{res.model} {res.corner}: steering", path)
