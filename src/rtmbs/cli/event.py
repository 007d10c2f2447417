"""``rtmbs event``: the standard handling events on any car, with their reports.

The car (``sedan``, ``sedan-bushings`` or a vehicle file or folder) is built rolling at the
event's speed from its own file (:func:`rtmbs.manoeuvres.car.load_car`), its steering ratio
from the K&C rig and its width from its tracks and tyre; the event runs with the driver of
:mod:`rtmbs.manoeuvres` and its metrics (:mod:`rtmbs.manoeuvres.metrics`) go to DIR/event.md,
DIR/event.csv (a units row under the names), DIR/event.png and DIR/summary.json; the
result (DIR/result.h5, .csv, with the car's geometry) and the course (DIR/course.json) for
``rtmbs view DIR``."""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

EVENTS = {
    "step-steer": "ISO 7401 step steer: response time, overshoot, yaw-rate gain",
    "constant-radius": "ISO 4138 constant radius, speed raised slowly: understeer gradient",
    "lane-change": "ISO 3888-1 double lane change: cone clearances",
    "sine-dwell": "FMVSS 126 / ECE R13-H sine with dwell: yaw-rate ratios, lateral displacement",
    "brake-in-turn": "ISO 7975 braking in a turn: yaw-rate ratio, sideslip, path deviation",
}
#: default initial speed per event, km/h
SPEED = {"step-steer": 80.0, "constant-radius": 30.0, "lane-change": 80.0, "sine-dwell": 80.0,
         "brake-in-turn": 80.0}
#: constant-radius: seconds at the start speed before it rises (the entry transient dies out)
SETTLE = 3.0
#: ISO 7401 lateral acceleration of the default step (m/s²)
STEP_AY = 4.0

EXAMPLES = """examples:
  rtmbs event step-steer sedan --speed 80 --out out/step
  rtmbs event step-steer my_car/ --speed 100 --handwheel 30
  rtmbs event constant-radius my_car/vehicle.yaml --radius 40 --speed 30 --speed-end 60
  rtmbs event lane-change sedan --speed 70
  rtmbs event sine-dwell sedan --speed 80 --scale 5
  rtmbs event brake-in-turn sedan --speed 80 --radius 100 --decel 4

Speeds are in km/h, angles in degrees, lengths in metres, accelerations in m/s². The car starts
rolling straight at --speed (no vehicle file per speed). Steering ratio and width come from the
car (K&C rig; track + tyre width) unless --steering-ratio/--width are given."""


def register(subparsers, formatter_class=argparse.HelpFormatter) -> None:
    p = subparsers.add_parser(
        "event", help="a standard handling event on a car: Markdown, CSV and PNG report",
        description="Run a standard handling event on a car and report its metrics with units:\n"
        + "\n".join(f"  {k:<16} {v}" for k, v in EVENTS.items())
        + "\nWrites DIR/event.md, DIR/event.csv (units row under the names), DIR/event.png, "
        "DIR/summary.json, and the run (DIR/result.h5, DIR/course.json) for 'rtmbs view DIR'.",
        epilog=EXAMPLES, formatter_class=formatter_class)
    p.add_argument("event", metavar="EVENT", help=", ".join(EVENTS))
    p.add_argument("car", metavar="CAR", help="sedan, sedan-bushings or a vehicle file "
                   "(vehicle.yaml or its folder)")
    p.add_argument("--speed", type=float, default=None, metavar="KMH",
                   help="initial (and held) speed, km/h (default: step-steer, lane-change, "
                   "sine-dwell, brake-in-turn 80; constant-radius 30, its start)")
    p.add_argument("--handwheel", type=float, default=None, metavar="DEG",
                   help="step-steer: handwheel angle, deg, + left (default: the angle for "
                   f"a_y = {STEP_AY:g} m/s², ISO 7401: a trial step at the single-track model's "
                   "angle, scaled)")
    p.add_argument("--t-end", type=float, default=3.0, metavar="S",
                   help="step-steer: end of the run, s (the step at 0.5 s)")
    p.add_argument("--radius", type=float, default=None, metavar="M",
                   help="constant-radius (default 40) and brake-in-turn (default 100): circle "
                   "radius, m")
    p.add_argument("--speed-end", type=float, default=60.0, metavar="KMH",
                   help="constant-radius: final speed, km/h")
    p.add_argument("--accel", type=float, default=0.5, metavar="M/S2",
                   help="constant-radius: rate of the speed rise, m/s²")
    p.add_argument("--decel", type=float, default=4.0, metavar="M/S2",
                   help="brake-in-turn: deceleration demand, m/s²")
    p.add_argument("--scale", type=float, default=5.0,
                   help="sine-dwell: amplitude as a multiple of the 0.3 g steer A")
    p.add_argument("--direction", choices=("left", "right"), default="left",
                   help="sine-dwell: first steer direction")
    p.add_argument("--steering-ratio", type=float, default=None, metavar="RATIO",
                   help="handwheel / road-wheel angle (default: the car's, K&C rig on centre)")
    p.add_argument("--width", type=float, default=None, metavar="M",
                   help="lane-change: vehicle width, m (default: the car's track + tyre width)")
    p.add_argument("--h", type=float, default=1e-3, metavar="S", help="fixed step, s")
    p.add_argument("--solver", default="li-euler", help="fixed-step solver")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output directory (default: out/event-EVENT)")
    p.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_event)


def _check(args) -> None:
    from ..errors import ModelError, did_you_mean

    if args.event not in EVENTS:
        raise ModelError("EVENT", f"unknown event '{args.event}'" + did_you_mean(args.event, EVENTS))
    checks = [("--speed", args.speed, 1.0, 250.0), ("--handwheel", args.handwheel, -720.0, 720.0),
              ("--t-end", args.t_end, 1.5, 60.0), ("--radius", args.radius, 10.0, 1000.0),
              ("--speed-end", args.speed_end, 1.0, 250.0), ("--accel", args.accel, 0.01, 5.0),
              ("--decel", args.decel, 0.1, 12.0), ("--scale", args.scale, 0.1, 20.0),
              ("--steering-ratio", args.steering_ratio, 1.0, 100.0),
              ("--width", args.width, 0.5, 4.0), ("--h", args.h, 1e-5, 0.01)]
    for flag, v, lo, hi in checks:
        if v is not None and not (math.isfinite(v) and lo <= v <= hi):
            raise ModelError(flag, f"{v:g} is outside [{lo:g}, {hi:g}]")
    if args.event == "constant-radius":
        start = args.speed if args.speed is not None else SPEED["constant-radius"]
        if args.speed_end < start:
            raise ModelError("--speed-end", f"{args.speed_end:g} km/h is below the start speed "
                             f"{start:g} km/h")
        _ay_range(start, args.speed_end, args.radius or 40.0)  # before the car is built


class _Progress:
    """A tqdm bar of simulated seconds on stderr, restarted for each run of the event."""

    def __init__(self, label: str, on: bool):
        self.label, self.on, self.bar, self.t_end = label, on, None, None

    def __call__(self, t: float, t_end: float) -> None:
        if not self.on:
            return
        from tqdm import tqdm

        if self.bar is None or t_end != self.t_end or t < self.bar.n - 1e-9:
            self.close()
            self.bar = tqdm(total=round(t_end, 3), unit="s", desc=self.label, leave=False,
                            mininterval=0.5, file=sys.stderr, bar_format="{desc}: {n:.1f}/"
                            "{total:.1f} s simulated |{bar}| {elapsed}")
            self.t_end = t_end
        self.bar.update(round(t, 3) - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def cmd_event(args) -> int:
    from .user_warnings import warnings_shown
    from ..manoeuvres import car as carmod

    _check(args)
    event = args.event
    kmh = args.speed if args.speed is not None else SPEED[event]
    out = Path(args.out or f"out/event-{event}")
    out.mkdir(parents=True, exist_ok=True)
    car = carmod.load_car(args.car, kmh / 3.6)
    settings = {"car": car.name, "vehicle_file": str(car.path), "event": event,
                "speed_kmh": kmh, "h_s": args.h, "solver": args.solver}
    if args.steering_ratio is not None:
        ratio, settings["steering_ratio_source"] = args.steering_ratio, "--steering-ratio"
    else:
        from ..analysis.kc import steering_ratio_on_centre

        ratio = steering_ratio_on_centre(car.model)
        settings["steering_ratio_source"] = "the car's K&C rig, on centre"
    settings["steering_ratio"] = ratio
    progress = _Progress(f"{event} {car.name}", not (args.no_progress or args.json))
    run = dict(h=args.h, solver=args.solver, system=car.system, model=car.model,
               progress=progress)
    w0 = time.perf_counter()
    try:
        res, metrics, extra = RUNNERS[event](args, car, kmh, ratio, settings, run)
    finally:
        progress.close()
    wall = time.perf_counter() - w0
    from ..io.files import save_result
    from ..manoeuvres import published

    L = car.model.body("fl_wheel").position[0] - car.model.body("rl_wheel").position[0]
    beside = published.beside(event, metrics, L, ratio)

    files = [write_csv(out / "event.csv", res, ratio, extra),
             plot_event(out / "event.png", event, res, ratio, settings),
             write_markdown(out / "event.md", settings, metrics, res, beside),
             *save_result(res, out, system=car.system)]  # for `rtmbs view DIR`
    course = event_course(event, res, car.model.body("chassis").position[0])
    if course is not None:
        (out / "course.json").write_text(json.dumps(_json_safe(course)))
        files.append(out / "course.json")
    summary = {"event": event, "car": car.name, "settings": settings, "metrics": metrics,
               "published_ranges": beside, "wall_s": wall,
               "files": [str(f) for f in files] + [str(out / "summary.json")],
               "warnings": warnings_shown()}
    (out / "summary.json").write_text(json.dumps(_json_safe(summary), indent=1))
    if args.json:
        print(json.dumps(_json_safe(summary)))
    else:
        head = {k: metrics[k] for k in HEADLINE[event] if k in metrics}
        print(f"{EVENTS[event].split(':')[0]}, {car.name} at {kmh:g} km/h: "
              + ", ".join(f"{label(k)} {_fmt(v)}{' ' + unit(k) if unit(k) != '-' else ''}"
                          for k, v in head.items()))
        for line in published.lines(beside):
            print(line)
        print(f"report written to {out}/ ({', '.join(Path(f).name for f in summary['files'])})")
    return 0


# -- the events --------------------------------------------------------------------------------

def _step_steer(args, car, kmh, ratio, settings, run):
    from ..manoeuvres.events import steer_for_ay, step_steer
    from ..manoeuvres.metrics import step_steer_metrics
    from ..manoeuvres.single_track import single_track_from_car

    v = kmh / 3.6
    st, ing = single_track_from_car(car.model, speed=v)
    hw = args.handwheel
    if hw is None:
        # a trial step at the single-track model's angle (it knows only the tyres' share of the
        # understeer), scaled to the a_y the standard asks
        trial = math.degrees(ratio * st.steer_for_ay(v, STEP_AY))
        hw = steer_for_ay(kmh, STEP_AY, trial_deg=trial, **run)
        settings["handwheel_source"] = (f"a trial step steer of {trial:.4g} deg (the single-track "
                                        f"model's), scaled to a_y = {STEP_AY:g} m/s² (ISO 7401)")
    else:
        settings["handwheel_source"] = "--handwheel"
    settings.update(handwheel_deg=hw, t_step_s=0.5, rise_s=0.15, t_end_s=args.t_end)
    res = step_steer(kmh, hw, t_step=0.5, rise=0.15, t_end=args.t_end, save_every=5, **run)
    m = step_steer_metrics(res, ratio)
    m["single_track_yaw_rate_gain_road_wheel_1_s"] = st.yaw_rate_gain(m["speed_kmh"] / 3.6)
    m["single_track_understeer_gradient_deg_per_g"] = st.K_deg_per_g
    m["front_axle_load_N"], m["rear_axle_load_N"] = ing["front_load_N"], ing["rear_load_N"]
    m["wheelbase_m"] = ing["wheelbase"]
    return res, m, {}


def _constant_radius(args, car, kmh, ratio, settings, run):
    from ..manoeuvres.events import steady_state_circular
    from ..manoeuvres.metrics import circle_metrics

    R = args.radius or 40.0
    settings.update(radius_m=R, speed_end_kmh=args.speed_end, accel_m_s2=args.accel)
    res = steady_state_circular(R, kmh, args.speed_end, accel=args.accel, settle=SETTLE,
                                steering_ratio=ratio, save_every=5, **run)
    return res, circle_metrics(res, _ay_range(kmh, args.speed_end, R)), {}


def _ay_range(kmh0, kmh1, R):
    """The a_y range of the understeer fit: ISO 4138's linear range up to 4 m/s², from 1 m/s²
    or 0.5 m/s² above the circle's start (whichever is higher) to 0.2 m/s² below the end's."""
    a0, a1 = (kmh0 / 3.6) ** 2 / R, (kmh1 / 3.6) ** 2 / R
    lo = max(1.0, a0 + 0.5)
    hi = min(4.0, a1 - 0.2)
    from ..errors import ModelError

    if hi - lo < 0.5:
        raise ModelError("--speed-end", f"the circle's lateral acceleration {a0:.2f}-{a1:.2f} "
                         "m/s² leaves no range of 0.5 m/s² inside 1-4 m/s² for the understeer "
                         "gradient; raise --speed-end or lower --speed")
    return lo, hi


def _lane_change(args, car, kmh, ratio, settings, run):
    from ..manoeuvres import car as carmod
    from ..manoeuvres.events import double_lane_change
    from ..manoeuvres.metrics import lane_change_metrics

    if args.width is not None:
        width, settings["width_source"] = args.width, "--width"
    else:
        width, settings["width_source"] = carmod.overall_width(car.model)
    settings["width_m"] = width
    res = double_lane_change(kmh, steering_ratio=ratio, width=width, save_every=5, **run)
    return res, lane_change_metrics(res), {"path_y": ("m", res.outputs["path.y"])}


def _sine_dwell(args, car, kmh, ratio, settings, run):
    from ..manoeuvres.events import SINE_DWELL_LIMITS, sine_with_dwell

    direction = 1 if args.direction == "left" else -1
    settings.update(scale=args.scale, direction=args.direction)
    res = sine_with_dwell(kmh, scale=args.scale, direction=direction, save_every=5, **run)
    c = res.meta["criteria"]
    m = {"A_deg": c["A_deg"], "amplitude_deg": c["amplitude_deg"],
         "peak_yaw_rate_deg_s": math.degrees(c["peak_yaw_rate"]),
         "yaw_rate_ratio_at_cos_plus_1.0s": c["ratio_1.0"],
         "yaw_rate_ratio_at_cos_plus_1.75s": c["ratio_1.75"],
         "lateral_displacement_at_bos_plus_1.07s_m": c["lateral_1.07"],
         "limit_ratio_1.0s": SINE_DWELL_LIMITS["ratio_1.0"],
         "limit_ratio_1.75s": SINE_DWELL_LIMITS["ratio_1.75"],
         "limit_lateral_displacement_m": SINE_DWELL_LIMITS["lateral_1.07"], "spin": c["spin"],
         "pass": c["pass"]}
    return res, m, {}


def _brake_in_turn(args, car, kmh, ratio, settings, run):
    from ..manoeuvres.events import brake_in_turn
    from ..manoeuvres.metrics import brake_in_turn_metrics

    R = args.radius or 100.0
    settings.update(radius_m=R, decel_demand_m_s2=args.decel)
    res = brake_in_turn(kmh, radius=R, decel=args.decel, steering_ratio=ratio, save_every=5,
                        **run)
    settings.update(brake_torque_front_Nm=res.meta["brake_torque_front"],
                    brake_torque_rear_Nm=res.meta["brake_torque_rear"])
    extra = {"brake_torque_front": ("N m", res.outputs["driver.brake_torque_front"]),
             "brake_torque_rear": ("N m", res.outputs["driver.brake_torque_rear"])}
    return res, brake_in_turn_metrics(res), extra


RUNNERS = {"step-steer": _step_steer, "constant-radius": _constant_radius,
           "lane-change": _lane_change, "sine-dwell": _sine_dwell,
           "brake-in-turn": _brake_in_turn}
#: the metrics printed on the terminal
HEADLINE = {
    "step-steer": ("yaw_rate_gain_deg_s_per_deg", "response_time_s", "overshoot_pct",
                   "ay_ss_m_s2"),
    "constant-radius": ("understeer_gradient_deg_per_g", "handwheel_gradient_deg_per_m_s2"),
    "lane-change": ("clearance_min_m", "pass"),
    "sine-dwell": ("yaw_rate_ratio_at_cos_plus_1.0s", "yaw_rate_ratio_at_cos_plus_1.75s",
                   "lateral_displacement_at_bos_plus_1.07s_m", "pass"),
    "brake-in-turn": ("deceleration_mean_m_s2", "yaw_rate_ratio", "sideslip_change_deg",
                      "path_deviation_m"),
}

#: ISO 3888-1 cones: at most this far apart along a lane's lines (m)
CONE_SPACING = 5.0


def event_course(event: str, res, x0: float) -> dict | None:
    """The course drawn by ``rtmbs view`` (DIR/course.json, metres, ground frame): the cones of
    the ISO 3888-1 lanes (both lines of each gated section, at most ``CONE_SPACING`` apart) or
    the circle driven (centre, radius); None for events on an open road."""
    if event == "lane-change":
        cones = []
        for ln in res.meta["lanes"]:
            # (a section of 15 m starting at x0 = 1.69 m measures 15.000000000000002 m)
            n = max(1, math.ceil((ln["x1"] - ln["x0"]) / CONE_SPACING - 1e-9))
            for x in np.linspace(ln["x0"], ln["x1"], n + 1):
                cones += [[x, ln["y"] - ln["width"] / 2.0], [x, ln["y"] + ln["width"] / 2.0]]
        return {"event": event, "lanes": res.meta["lanes"], "cones": cones}
    if event in ("constant-radius", "brake-in-turn"):
        R = float(res.meta["radius"])
        return {"event": event, "circle": {"centre": [x0, R], "radius": R}}
    return None


# -- units and report files --------------------------------------------------------------------

#: metric-name suffix -> unit (longest first)
_UNITS = (("_deg_s_per_deg", "(deg/s)/deg"), ("_m_s2_per_deg", "(m/s²)/deg"),
          ("_deg_per_m_s2", "deg/(m/s²)"), ("_rad_per_m_s2", "rad/(m/s²)"),
          ("_deg_per_g", "deg/g"), ("_deg_s", "deg/s"), ("_m_s2", "m/s²"), ("_1_s", "1/s"),
          ("_kmh", "km/h"), ("_pct", "%"), ("_deg", "deg"), ("_Nm", "N m"), ("_N", "N"),
          ("_m", "m"), ("_s", "s"))


def unit(key: str) -> str:
    """The unit of a metric or setting by its name's suffix ('-': dimensionless)."""
    if key.endswith(("_ratio", "ratio", "pass", "spin", "_points", "scale")):
        return "-"
    return next((u for suffix, u in _UNITS if key.endswith(suffix)), "-")


def label(key: str) -> str:
    """The name of a metric without its unit suffix."""
    for suffix, _ in _UNITS:
        if key.endswith(suffix) and unit(key) != "-":
            return key[: -len(suffix)].replace("_", " ")
    return key.replace("_", " ")


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _json_safe(x):
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def time_series(res, ratio: float, extra: dict | None = None) -> dict:
    """The report's signals: name -> (unit, array)."""
    from ..manoeuvres.metrics import roll_angle, sideslip

    o = res.outputs
    hw = o["driver.handwheel_angle"] if "driver.handwheel_angle" in o else o["driver.handwheel"]
    roll = roll_angle(res)
    cols = {"t": ("s", res.t), "speed": ("km/h", 3.6 * o["chassis.speed"]),
            "handwheel": ("deg", np.degrees(hw)), "road_wheel": ("deg", np.degrees(hw) / ratio),
            "yaw_rate": ("deg/s", np.degrees(o["chassis.yaw_rate"])),
            "ay": ("m/s^2", o["chassis.ay"]), "sideslip": ("deg", np.degrees(sideslip(res))),
            "roll": ("deg", np.degrees(roll)), "x": ("m", o["chassis.x"]),
            "y": ("m", o["chassis.y"])}
    cols.update(extra or {})
    return cols


def write_csv(path: Path, res, ratio: float, extra: dict) -> Path:
    cols = time_series(res, ratio, extra)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(cols))
        w.writerow([u for u, _ in cols.values()])
        for row in np.column_stack([a for _, a in cols.values()]):
            w.writerow([f"{v:.9g}" for v in row])
    return path


def write_markdown(path: Path, settings: dict, metrics: dict, res, beside=()) -> Path:
    from ..manoeuvres.published import markdown

    title = EVENTS[settings["event"]].split(":")[0]
    lines = [f"# {title}: {settings['car']} at {settings['speed_kmh']:g} km/h", "",
             f"{EVENTS[settings['event']]}.", "", "## Settings", "",
             "| setting | value | unit |", "| --- | --- | --- |"]
    for k, v in settings.items():
        u = "-" if k.endswith(("_source", "_file")) or k in ("car", "event", "solver") else unit(k)
        lines.append(f"| {label(k) if u != '-' else k.replace('_', ' ')} | {_fmt(v)} | {u} |")
    lines += ["", "## Metrics", "", "| metric | value | unit |", "| --- | --- | --- |"]
    for k, v in metrics.items():
        lines.append(f"| {label(k)} | {_fmt(v)} | {unit(k)} |")
    lines += ["", *markdown(list(beside)), "Signals: event.csv (names, then units, then one row per sample) and "
              "event.png. Sideslip: of the chassis reference point; a_y = v·r.", ""]
    if "single_track_yaw_rate_gain_road_wheel_1_s" in metrics:
        lines += ["The single-track values are the linear bicycle model of the same car (axle "
                  "loads from its statics, cornering stiffnesses from its .tir at those loads; "
                  "Gillespie 1992, eqs. 6-15, 6-17).", ""]
    path.write_text("\n".join(lines))
    return path


def plot_event(path: Path, event: str, res, ratio: float, settings: dict) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = time_series(res, ratio)
    t = cols["t"][1]
    fig, ax = plt.subplots(2, 3, figsize=(13, 7))
    panels = ("handwheel", "yaw_rate", "ay", "sideslip", "roll", "speed")
    for a, name in zip(ax.flat, panels):
        u, y = cols[name]
        a.plot(t, y)
        a.set_xlabel("t [s]")
        a.set_ylabel(f"{name.replace('_', ' ')} [{u}]")
        a.grid(True, alpha=0.3)
    if event == "constant-radius":  # the understeer plot replaces the roll panel
        a = ax.flat[4]
        a.clear()
        m = t > res.meta["settle"]
        a.plot(cols["ay"][1][m], cols["road_wheel"][1][m], ".", ms=2)
        a.set_xlabel("a_y [m/s^2]")
        a.set_ylabel("road-wheel angle [deg]")
        a.grid(True, alpha=0.3)
    if event == "lane-change":
        a = ax.flat[4]
        a.clear()
        a.plot(cols["x"][1], cols["y"][1], label="chassis point")
        for ln in res.meta["lanes"]:
            for side in (-0.5, 0.5):
                a.plot([ln["x0"], ln["x1"]], [ln["y"] + side * ln["width"]] * 2, "r|-", ms=6)
        a.set_xlabel("x [m]")
        a.set_ylabel("y [m]")
        a.legend(loc="best", fontsize=8)
    fig.suptitle(f"{EVENTS[event].split(':')[0]}: {settings['car']} at "
                 f"{settings['speed_kmh']:g} km/h")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
