"""``rtmbs statics``: the static equilibrium of a car on a flat road (rtmbs.analysis.statics)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

EXAMPLES = """examples:
  rtmbs statics sedan
  rtmbs statics my_car/vehicle.yaml --json
  rtmbs statics my_car --ride-height front=design,rear=0.33 --out out/statics"""


def register(subparsers, formatter_class=argparse.HelpFormatter) -> None:
    p = subparsers.add_parser(
        "statics", help="static equilibrium of a car: corner loads, ride heights, deflections",
        description="Solve the static equilibrium of a car standing on its four tyres on a flat "
        "road (Newton on the static balance; chassis x, y, yaw and the wheel spins held, their "
        "reactions vanish) and report the corner loads [N], axle loads [N, %], ride heights "
        "[m] (height of the chassis point at each axle's design hub height), the chassis' sag, "
        "pitch and roll, the tyre deflections [m] and the spring lengths, deflections and "
        "forces. With --ride-height, also the spring preloads (and free lengths) that put the "
        "axles at the target ride heights. Writes DIR/statics.md and DIR/statics.json.",
        epilog=EXAMPLES, formatter_class=formatter_class)
    p.add_argument("model", metavar="CAR",
                   help="sedan, sedan-bushings or a vehicle file (vehicle.yaml or its folder)")
    p.add_argument("--ride-height", metavar="AXLE=H,...", default=None,
                   help="target ride heights, m (or 'design'), e.g. front=0.33,rear=design: "
                   "solve for the spring preloads that give them")
    p.add_argument("--out", default="out/statics", metavar="DIR", help="output directory")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.set_defaults(func=cmd_statics)


def parse_ride_height(text: str) -> dict:
    """``front=0.33,rear=design`` -> {"front": 0.33, "rear": "design"}; a bad entry names the
    option and the entry."""
    from ..errors import ModelError

    out = {}
    for item in (s.strip() for s in text.split(",") if s.strip()):
        axle, sep, value = item.partition("=")
        axle = axle.strip()
        if not sep or axle not in ("front", "rear"):
            raise ModelError("--ride-height", f"expected front=H and/or rear=H (H in m or "
                             f"'design'), got '{item}'")
        value = value.strip()
        if value == "design":
            out[axle] = value
            continue
        try:
            out[axle] = float(value)
        except ValueError:
            raise ModelError(f"--ride-height {axle}", f"expected a height in m or 'design', "
                             f"got '{value}'") from None
    if not out:
        raise ModelError("--ride-height", "expected front=H and/or rear=H")
    return out


def markdown(st: dict, preloads: dict | None = None) -> str:
    """The statics as Markdown tables with units."""
    lines = [f"# Static equilibrium of {st['model']} on a flat road", "",
             f"Mass {st['mass_kg']:.1f} kg, weight {st['weight_N']:.0f} N; the tyres carry "
             f"{st['total_Fz_N']:.0f} N.", "",
             "| axle | load [N] | share [%] | ride height [m] | design [m] | sag [mm] | track [m] |",
             "|---|---|---|---|---|---|---|"]
    for a, r in st["axles"].items():
        lines.append(f"| {a} | {r['load_N']:.0f} | {100 * r['load_share']:.1f} | "
                     f"{r['ride_height_m']:.4f} | {r['design_ride_height_m']:.4f} | "
                     f"{1e3 * r['sag_m']:.1f} | {r['track_m']:.3f} |")
    ch = st["chassis"]
    lines += ["", f"Chassis: pitch {ch['pitch_deg']:.3f} deg (+ nose down), roll "
              f"{ch['roll_deg']:.3f} deg, centre of mass at {ch['cm_height_m']:.4f} m "
              f"({1e3 * ch['cm_change_m']:+.1f} mm from design).", "",
              "| corner | Fz [N] | tyre deflection [mm] | wheel centre [m] | spring rate [N/m] | "
              "spring length [m] | spring deflection [mm] | change from design [mm] | "
              "spring force [N] | preload at design [N] |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for c, r in st["corners"].items():
        sp = [f"{r['spring_rate_N_per_m']:.0f}", f"{r['spring_length_m']:.4f}",
              f"{1e3 * r['spring_deflection_m']:.1f}", f"{1e3 * r['spring_change_from_design_m']:+.2f}",
              f"{r['spring_force_N']:.0f}", f"{r['spring_preload_at_design_N']:.0f}"] \
            if "spring_rate_N_per_m" in r else ["-"] * 6
        lines.append(f"| {c} | {r['Fz_N']:.0f} | {1e3 * r['tyre_deflection_m']:.2f} | "
                     f"{r['wheel_centre_height_m']:.4f} | " + " | ".join(sp) + " |")
    if preloads:
        lines += ["", "Spring preloads for the target ride heights (each spring of the axle):", "",
                  "| axle | target ride height [m] | preload at design [N] | free length [m] |",
                  "|---|---|---|---|"]
        for a, r in preloads.items():
            lines.append(f"| {a} | {r['ride_height_m']:.4f} | {r['preload_N']:.0f} | "
                         f"{r['free_length_m']:.5f} |")
    lines += ["", "Spring deflection: compression from the free length; change from design: + "
              "shorter than at design. Ride height: the chassis point at the axle's design hub "
              "height (x of the axle, y = 0)."]
    return "\n".join(lines) + "\n"


UNITS = {"mass_kg": "kg", "weight_N": "N", "total_Fz_N": "N"}


def cmd_statics(args) -> int:
    from ..analysis.statics import preloads_for_ride_height, vehicle_statics
    from .kc import vehicle_model

    target = parse_ride_height(args.ride_height) if args.ride_height else None
    model = vehicle_model(args.model)
    st = vehicle_statics(model)
    pre = None
    if target:
        pre, adjusted = preloads_for_ride_height(model, target)
        st["with_preloads"] = adjusted
    from .user_warnings import warnings_shown

    doc = {**st, "preloads": pre, "warnings": warnings_shown(),
           "units": "SI: every key ends in its unit (_N, _m, _kg, _deg; load_share 1)"}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "statics.json").write_text(json.dumps(doc, indent=1))
    (out / "statics.md").write_text(markdown(st, pre))
    if args.json:
        print(json.dumps(doc))
        return 0
    print(markdown(st, pre), end="")
    print(f"\nwrote {out / 'statics.md'}, {out / 'statics.json'}")
    return 0
