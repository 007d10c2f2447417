"""``rtmbs view``: the 3-D page of a result (rtmbs.io.view)."""
from __future__ import annotations

from pathlib import Path

from .cli_numbers import positive_int


def register(sub, fmt):
    p = sub.add_parser(
        "view", help="write a self-contained HTML page animating a result in 3-D", formatter_class=fmt,
        description="Write an HTML page (plotly.js embedded: opens without network) that animates "
        "a result in 3-D: bodies as the box of their mass and inertia (a rim with a tyre as a "
        "cylinder), joints as markers, force elements as lines, the road; a time slider, "
        "play/pause, and signals plotted under the scene. The page's URL hash picks the time, "
        "camera and a highlighted body: view.html#t=0.2&view=side&highlight=rim.",
        epilog="examples:\n  rtmbs run multilink-ideal --t-end 0.5 --out out/ml && rtmbs view out/ml\n"
        "  rtmbs view out/ml --signal rim.z --signal tyre.Fz --highlight rim --out ml.html\n"
        "  rtmbs view old/result.h5 --model my_model.yaml   (a result saved without its geometry)")
    p.add_argument("result", help="result folder, .h5 or .csv file written by 'rtmbs run'")
    p.add_argument("--out", default=None, help="HTML file (default: RESULT/view.html)")
    p.add_argument("--signal", action="append", default=None, metavar="NAME",
                   help="signal plotted under the scene (repeatable; default: rim height and tyre load)")
    p.add_argument("--model", default=None,
                   help="model (built-in name or YAML file) for a result saved without its geometry")
    p.add_argument("--highlight", default=None, metavar="BODY", help="body drawn in magenta")
    p.add_argument("--frames", type=positive_int, default=200, help="most frames in the animation")
    p.set_defaults(func=cmd_view)


def cmd_view(args) -> int:
    from .errors import RtmbsError
    from .io.view import write_view
    from .result import Result

    src = Path(args.result)
    if not src.exists():
        raise RtmbsError(f"result '{src}': no such file or folder")
    try:
        res = Result.load(src)
    except (OSError, ValueError, KeyError) as exc:
        raise RtmbsError(f"result '{src}': cannot read it ({exc})") from None
    model = None
    if args.model:
        from .models import load_model

        model = load_model(args.model)
    out = Path(args.out) if args.out else (src if src.is_dir() else src.parent) / "view.html"
    write_view(res, out, signals=args.signal, model=model, highlight=args.highlight,
               max_frames=args.frames)
    print(f"wrote {out}")
    return 0
