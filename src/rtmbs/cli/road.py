"""``rtmbs road ...``: build a road profile, write it as CSV and plot it (with its ISO 8608 PSD)."""
from __future__ import annotations

import argparse

from .numbers import finite_float, nonnegative_float, positive_float

EXAMPLES = """examples:
  rtmbs road plot --type iso --class C --length 200 --dx 0.05 --seed 1 --out out/road_c
  rtmbs road plot --type bump --height 0.02 --length 2 --start 5 --out out/bump
  rtmbs road plot --type sine-bump --height 0.05 --length 0.5 --start 1 --out out/sine
  rtmbs road plot --type ramp --slope 0.05 --length 10 --direction down --out out/ramp
  rtmbs road plot --type csv --file measured.csv --out out/measured
  rtmbs road classify measured.csv"""

# CLI type name -> road.ROAD_TYPES name
TYPES = {"flat": "flat", "bump": "square_bump", "sine-bump": "half_sine_bump", "ramp": "ramp",
         "iso": "iso8608", "csv": "csv"}


def register(subparsers, formatter_class=argparse.HelpFormatter) -> None:
    p = subparsers.add_parser("road", help="road profiles: build, plot, classify (ISO 8608)",
                              description="Build a road profile, write it as CSV and plot it "
                              "(with its PSD against the ISO 8608 classes); classify a measured one.", epilog=EXAMPLES, formatter_class=formatter_class)
    sub = p.add_subparsers(dest="road_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    pp = sub.add_parser(
        "plot", help="write DIR/road.csv and DIR/road.png (profile, and PSD vs ISO classes)",
        description="Build a road, write its sampled profile (x, z_left, z_right) to DIR/road.csv "
        "and a plot to DIR/road.png; ISO roads also get their PSD against the ISO 8608 class bands.",
        epilog=EXAMPLES, formatter_class=formatter_class)
    pp.add_argument("--type", default="iso", choices=list(TYPES), help="road type")
    pp.add_argument("--class", dest="road_class", default="B", help="ISO 8608 class A..H (iso)")
    pp.add_argument("--length", type=positive_float, default=None,
                    help="profile length [m] (iso, default 200) or bump/ramp length [m] "
                    "(bump 2, sine-bump 0.5, ramp 10)")
    pp.add_argument("--dx", type=positive_float, default=None,
                    help="sample spacing [m] (iso default 0.05, shapes default 0.001)")
    pp.add_argument("--seed", type=int, default=0, help="random seed (iso)")
    pp.add_argument("--correlation", type=finite_float, default=0.0,
                    help="left/right phase correlation in [0, 1] (iso): 0 independent, 1 identical")
    pp.add_argument("--fade-in", type=nonnegative_float, default=0.0, help="half-cosine fade-in length [m] (iso)")
    pp.add_argument("--height", type=finite_float, default=None, help="bump height [m] (bump 0.02, sine-bump 0.05)")
    pp.add_argument("--start", type=finite_float, default=5.0, help="bump/ramp start position x [m]")
    pp.add_argument("--slope", type=finite_float, default=0.05, help="ramp slope (rise/run) (ramp)")
    pp.add_argument("--direction", default="up", choices=["up", "down"], help="ramp direction")
    pp.add_argument("--z0", type=finite_float, default=0.0, help="height of a flat road [m]")
    pp.add_argument("--file", default=None, help="CSV with columns x,z or x,z_left,z_right (csv)")
    pp.add_argument("--track-width", type=positive_float, default=None,
                    help="lateral distance between the left and right tracks [m] (default 1.6)")
    pp.add_argument("--psd", action="store_true",
                    help="also plot the PSD against the ISO 8608 classes (always on for iso)")
    pp.add_argument("--out", default="out/road", help="output directory")
    pp.set_defaults(func=_plot)

    pc = sub.add_parser(
        "classify", help="ISO 8608 class of a profile CSV (Welch PSD, 1/3-octave fit)",
        description="Estimate the ISO 8608 class of each track of a road CSV: Gd(n0) fitted with "
        "waviness 2 over 0.011-2.83 cycles/m (as far as the file resolves), plus a free-exponent fit.",
        epilog="example:\n  rtmbs road classify out/road_c/road.csv", formatter_class=formatter_class)
    pc.add_argument("file", help="CSV with columns x,z or x,z_left,z_right")
    pc.set_defaults(func=_classify)


def _spec(args) -> dict:
    kind = TYPES[args.type]
    spec: dict = {"type": kind}
    if kind == "iso8608":
        spec.update({"road_class": args.road_class, "length": 200.0 if args.length is None else args.length,
                     "dx": 0.05 if args.dx is None else args.dx, "seed": args.seed,
                     "correlation": args.correlation, "fade_in": args.fade_in})
    elif kind in ("square_bump", "half_sine_bump"):
        dflt_h, dflt_l = (0.02, 2.0) if kind == "square_bump" else (0.05, 0.5)
        spec.update({"height": dflt_h if args.height is None else args.height,
                     "length": dflt_l if args.length is None else args.length, "start": args.start})
        if args.dx is not None:
            spec["dx"] = args.dx
    elif kind == "ramp":
        spec.update({"slope": args.slope, "length": 10.0 if args.length is None else args.length,
                     "start": args.start, "direction": args.direction})
    elif kind == "flat":
        spec["z0"] = args.z0
    elif kind == "csv":
        from ..errors import ModelError

        if not args.file:
            raise ModelError("--file", "required with --type csv (a CSV with columns x,z or x,z_left,z_right)")
        spec["path"] = args.file
        if args.dx is not None:
            spec["dx"] = args.dx
    if args.track_width is not None:
        spec["track_width"] = args.track_width
    return spec


def _plot(args) -> int:
    from ..io.files import writable_dir
    from ..io.plot import plot_road
    from ..vehicle import road as R

    road = R.from_spec(_spec(args))  # a bad spec leaves no folder behind
    out = writable_dir(args.out)  # before the files are written
    csv_path = road.to_csv(out / "road.csv")
    png_path = plot_road(road, out / "road.png", psd=True if args.psd else None)
    rms = [float(v) for v in road.z.std(axis=1)]
    print(f"road {road.kind}: {road.n} samples, dx={road.dx:g} m, x in [{road.x0:g}, {road.x_end:g}] m, "
          f"rms left/right {rms[0] * 1e3:.3g}/{rms[1] * 1e3:.3g} mm")
    if road.kind == "iso8608":
        fit = R.iso_classify(road.z[0, :-1], road.dx)
        print(f"ISO 8608 check (left): class {fit.road_class}, Gd(n0)={fit.gd_n0:.4g} m^3 "
              f"(class mean {R.ISO_GD_N0[road.params['class']]:.4g}), waviness {fit.waviness:.3f}")
    print(f"wrote {csv_path}\nwrote {png_path}")
    return 0


def _classify(args) -> int:
    from ..vehicle import road as R

    road = R.from_csv(args.file)
    tracks = [("both", road.z[0])] if road.z[0].tobytes() == road.z[1].tobytes() else \
        [("left", road.z[0]), ("right", road.z[1])]
    for name, z in tracks:
        fit = R.iso_classify(z, road.dx)
        print(f"{name}: class {fit.road_class}  Gd(n0)={fit.gd_n0:.4g} m^3 (w=2)  "
              f"free fit: Gd(n0)={fit.gd_n0_free:.4g} m^3, w={fit.waviness:.3f}  "
              f"band {fit.n_lo:.3g}-{fit.n_hi:.3g} cycles/m")
    return 0
