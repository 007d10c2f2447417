"""``rtmbs demo``: the rear multilink suspension (ideal joints) rolling over a bump with the
real-time solvers of Carpinelli 2016 — Algorithm 1 and Algorithm 2, both with the projection step —
then the full car: the built-in sedan through the ISO 3888-1 double lane change at 70 km/h
under the driver of rtmbs.manoeuvres (Algorithm 1)."""
from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import numpy as np

DEMO_T_END = 1.5   # s
DEMO_H = 1e-3      # s
SPEED = 5.0        # m/s
DEMO_SAVE_EVERY = 5  # results kept at 200 Hz (every step: 11 MB of CSV per algorithm)
BUMP = {"type": "square_bump", "height": 0.02, "length": 2.0}
LANE_CHANGE_KMH = 70.0  # the full-car demo: ISO 3888-1 at this speed (about 7 s simulated)


def demo_system(bump_ahead: float = 1.0):
    """multilink-ideal rolling at SPEED towards a 2 cm × 2 m square bump ``bump_ahead`` metres
    ahead of the wheel centre."""
    from ..models.multilink import HARD_POINTS, multilink_model, spin_axis
    from ..system import compile_model

    wc = np.array(HARD_POINTS["wheel_centre"])
    model = multilink_model("ideal", road={**BUMP, "start": float(wc[0] + bump_ahead)})
    for b in model.bodies:
        b.velocity = (SPEED, 0.0, 0.0)
        if b.name == "rim":  # rolling without slip on the loaded radius
            b.angular_velocity = tuple(SPEED / (wc[2] - 0.0) * spin_axis())
    model.name = "multilink-ideal on a bump"
    return compile_model(model)


def run_demo(out: Path, t_end: float | None = None) -> int:
    from ..solvers.base import get_solver
    from ..solvers.known_limits import KnownLimitWarning
    from ..solvers.timing import bench_steps
    from ..io.files import save_result
    from ..io.plot import plot_signals
    from ..solvers.simulate import simulate

    t_end = t_end or DEMO_T_END
    out.mkdir(parents=True, exist_ok=True)
    print("rtmbs demo: building the model", flush=True)
    system = demo_system()
    print(f"rtmbs demo: rear multilink suspension, ideal joints (n = {system.n}, m = {system.m}, "
          f"f = {system.n - system.m}), {SPEED:g} m/s over a 2 cm bump, {t_end:g} s at h = {DEMO_H * 1e3:g} ms")
    report = {}
    for label, solver, opts in (("algorithm-1", "li-euler", {}), ("algorithm-2", "li-euler-indep", {"B": "partition"})):
        slv = get_solver(solver)(system, stabilize="projection", **opts)
        t0 = time.perf_counter()
        with warnings.catch_warnings():  # (Algorithm 2's re-partitions: said on its own line)
            warnings.simplefilter("ignore", KnownLimitWarning)
            res = simulate(system, slv, t_end=t_end, h=DEMO_H, save_every=DEMO_SAVE_EVERY)
        wall = time.perf_counter() - t0
        b = bench_steps(system, solver, DEMO_H, 1000, warmup=100, stabilize="projection", **opts)
        save_result(res, out / label, system=system)
        plot_signals(res, ["chassis.z", "rim.z", "tyre.Fz", "subframe_mount_1.Fz"], out / label / "bump.png",
                     title=f"{solver} + projection")
        s = res.summary(wall)
        s.update(us_per_step_median=b["us_per_step_median"], us_per_step_p99=b["us_per_step_p99"],
                 realtime_factor=DEMO_H * 1e6 / b["us_per_step_median"],
                 max_tyre_load_N=float(res.outputs["tyre.Fz"].max()),
                 chassis_travel_mm=float(1e3 * np.ptp(res.outputs["chassis.z"])))
        report[label] = s
        print(f"  {solver:<15} + projection: {s['us_per_step_median']:7.1f} µs per step (median), "
              f"{s['realtime_factor']:5.1f}× real time; max ‖Φ‖ {s['max_constraint_norm']:.1e}; "
              f"peak tyre load {s['max_tyre_load_N']:.0f} N; chassis travel {s['chassis_travel_mm']:.1f} mm")
        nrebase = int(getattr(slv, "nrebase", 0))
        if nrebase:
            s["repartitions"] = nrebase
            print(f"  {'':<15}   chose its independent coordinates again {nrebase} times in "
                  f"{slv.nstep} steps (a dense pivoting of Φq each: not fixed cost; li-euler is)")
    print(f"  results ({1 / (DEMO_H * DEMO_SAVE_EVERY):g} Hz): {out}/algorithm-1, {out}/algorithm-2 "
          f"(result.h5, result.csv, bump.png); see them in 3-D: rtmbs view {out}/algorithm-1")
    report["lane-change"] = lane_change_demo(out / "lane-change")
    (out / "summary.json").write_text(json.dumps(report, indent=1))
    print(f"  summary: {out}/summary.json")
    return 0


def lane_change_demo(out: Path) -> dict:
    """The sedan through the ISO 3888-1 double lane change at LANE_CHANGE_KMH; prints and
    returns its numbers, writes the results and a plot to ``out``."""
    from ..io.files import save_result
    from ..io.plot import plot_signals
    from ..manoeuvres.events import double_lane_change, lane_margins, sedan_system

    system, model = sedan_system(LANE_CHANGE_KMH / 3.6)
    print(f"rtmbs demo: full car, built-in sedan ({len(model.bodies)} bodies, n = {system.n}, "
          f"m = {system.m}), ISO 3888-1 double lane change at {LANE_CHANGE_KMH:g} km/h, li-euler, "
          f"h = {DEMO_H * 1e3:g} ms, driver: speed PI + pure pursuit", flush=True)
    res = double_lane_change(LANE_CHANGE_KMH, h=DEMO_H, save_every=DEMO_SAVE_EVERY, system=system,
                             model=model)
    out.mkdir(parents=True, exist_ok=True)
    save_result(res, out, system=system)
    plot_signals(res, ["chassis.y", "path.y", "driver.handwheel", "chassis.yaw_rate"],
                 out / "lane-change.png", title=f"ISO 3888-1 at {LANE_CHANGE_KMH:g} km/h")
    o, steps = res.outputs, res.meta["steps"]
    s = {"t_end_s": float(res.t[-1]), "wall_s": res.meta["wall_s"],
         "us_per_step_with_driver": 1e6 * res.meta["wall_s"] / steps,
         "cone_margin_min_m": min(lane_margins(res).values()),
         "lateral_error_max_m": float(np.abs(o["driver.lateral_error"]).max()),
         "handwheel_max_deg": float(np.degrees(np.abs(o["driver.handwheel"]).max())),
         "ay_max_m_s2": float(np.abs(o["chassis.ay"]).max())}
    print(f"  {s['t_end_s']:.1f} s simulated in {s['wall_s']:.1f} s ({s['us_per_step_with_driver']:.0f} µs "
          f"per step with the driver); smallest clearance to the cones {s['cone_margin_min_m']:.2f} m, "
          f"path error ≤ {s['lateral_error_max_m']:.2f} m, handwheel ≤ {s['handwheel_max_deg']:.0f}°, "
          f"|ay| ≤ {s['ay_max_m_s2']:.1f} m/s²")
    print(f"  results: {out} (result.h5, result.csv, lane-change.png); rtmbs view {out}")
    return s
