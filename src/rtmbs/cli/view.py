"""``rtmbs view``: the 3-D page of a result (rtmbs.io.view)."""
from __future__ import annotations

from pathlib import Path

from .numbers import positive_int


def register(sub, fmt):
    p = sub.add_parser(
        "view", help="write a self-contained HTML page animating a result in 3-D", formatter_class=fmt,
        description="Write an HTML page (plotly.js embedded: opens without network) that animates "
        "a result in 3-D: bodies as the box of their mass and inertia (a rim with a tyre as a "
        "cylinder), joints as markers, force elements as lines, the road under the path, an "
        "event's cones or circle (RESULT/course.json); a time slider, play/pause, a camera that "
        "follows the car or shows the whole course, and signals plotted beside the scene with a "
        "cursor at the shown time. The page's URL hash picks the time, camera and a highlighted "
        "body: view.html#t=0.2&view=side&camera=course&highlight=rim&play=1.",
        epilog="examples:\n  rtmbs event lane-change sedan --speed 80 --out out/dlc && rtmbs view out/dlc\n"
        "  rtmbs run multilink-ideal --t-end 0.5 --out out/ml && rtmbs view out/ml\n"
        "  rtmbs view out/ml --signal rim.z --signal tyre.Fz --highlight rim --out ml.html\n"
        "  rtmbs view out/dlc --camera course   (the whole course first)\n"
        "  rtmbs view old/result.h5 --model my_model.yaml   (a result saved without its geometry)")
    p.add_argument("result", help="result folder, .h5 or .csv file written by 'rtmbs run' or 'rtmbs event'")
    p.add_argument("--out", default=None, help="HTML file (default: RESULT/view.html)")
    p.add_argument("--signal", action="append", default=None, metavar="NAME",
                   help="signal plotted beside the scene (repeatable; default: a car's speed, "
                   "lateral acceleration, yaw rate and handwheel angle, else rim height and tyre load)")
    p.add_argument("--camera", choices=("follow", "course"), default=None,
                   help="first camera: follow the car at a fixed scale, or the whole course "
                   "(default: follow when the car travels more than 3 m); the page switches")
    p.add_argument("--course", default=None, metavar="FILE",
                   help="an event's course (cones, circle) to draw (default: course.json beside "
                   "the result, written by 'rtmbs event')")
    p.add_argument("--model", default=None,
                   help="model (built-in name or YAML file) for a result saved without its geometry")
    p.add_argument("--highlight", default=None, metavar="BODY", help="body drawn in magenta")
    p.add_argument("--frames", type=positive_int, default=200, help="most frames in the animation")
    p.set_defaults(func=cmd_view)


def cmd_view(args) -> int:
    from ..errors import RtmbsError
    from ..io.view import read_course, write_view
    from ..result import Result

    src = Path(args.result)
    if not src.exists():
        raise RtmbsError(f"result '{src}': no such file or folder")
    try:
        res = Result.load(src)
    except (OSError, ValueError, KeyError) as exc:
        raise RtmbsError(f"result '{src}': cannot read it ({exc})") from None
    model = None
    if args.model:
        from ..models import load_model

        model = load_model(args.model)
    folder = src if src.is_dir() else src.parent
    course_file = Path(args.course) if args.course else folder / "course.json"
    if args.course and not course_file.is_file():
        raise RtmbsError(f"course '{course_file}': no such file")
    course = read_course(course_file) if course_file.is_file() else None
    out = Path(args.out) if args.out else folder / "view.html"
    write_view(res, out, signals=args.signal, model=model, highlight=args.highlight,
               max_frames=args.frames, course=course, camera=args.camera)
    print(f"wrote {out}")
    return 0
