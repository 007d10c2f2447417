"""``rtmbs study NAME --out DIR [--quick]``: reproduce a paper's tables and figures as a report."""
from __future__ import annotations

import importlib
from .numbers import positive_int
from ..io.files import writable_dir

#: study name -> (module, function, what it reproduces)
STUDIES = {
    "truck": ("rtmbs.studies.truck", "run_truck_study", "Truck benchmark Tables 1-4: planar truck, LI Euler vs GRK4T, "
              "Baumgarte vs GGL"),
    "redundant": ("rtmbs.studies.redundant", "run_redundant_study", "Pękal & Frączek 2016 Appendix Table 1: redundant-"
                  "constraint formulations on the McPherson struts"),
    "multilink": ("rtmbs.studies.multilink", "run_multilink_study", "Carpinelli 2016 §6 / Carpinelli 2015 §4.4: Algorithms 1 "
                  "and 2 on the rear multilink suspension"),
    "concept": ("rtmbs.studies.concept", "run_concept_study", "Carpinelli 2015 §5.1-5.2 Tables 5.1-5.3: quarter-car concept model identified on multilink-ideal, full car on the sedan"),
    "subsystem": ("rtmbs.studies.subsystem", "run_subsystem_study", "Kim & Wang 2005 Fig. 5, Tables 1-2: subsystem synthesis on the SLA quarter car"),
    "fullcar": ("rtmbs.studies.fullcar", "run_fullcar_study", "Carpinelli 2015 §5.2.3 Figs 5.17-5.26: virtual "
                "measurement campaign on the sedan; Alg. 1 vs Alg. 2 on the full car"),
}


def register(sub, fmt):
    listing = "\n".join(f"  {k:<10} {v[2]}" for k, v in STUDIES.items())
    p = sub.add_parser("study", help="reproduce a paper's tables and figures as a Markdown report",
                       formatter_class=fmt,
                       description="Run a study and write report.md with PNG plots into --out.\n\nstudies:\n" + listing,
                       epilog="examples:\n  rtmbs study truck --out out/truck --quick\n"
                       "  rtmbs study redundant --out out/redundant\n"
                       "  rtmbs study multilink --out out/ml --quick --projection eq30")
    p.add_argument("name", choices=list(STUDIES), help="which study")
    p.add_argument("--out", required=True, help="output directory for report.md and plots")
    p.add_argument("--quick", action="store_true", help="a short version (minutes instead of hours)")
    p.add_argument("--scheduler", default=None, help="concept study only: where the "
                   "identification's Jacobian columns run: 'none' (this process, the default), "
                   "'local' (a Dask LocalCluster of --workers processes) or an address tcp://host:8786")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="with --scheduler local: worker processes (default: the cores)")
    p.add_argument("--projection", choices=("step", "eq30"), default=None,
                   help="multilink study only: the position projection of its projection runs: "
                   "'step' (li-euler's default: eq. 30's system with the factors of eq. 22, two "
                   "corrections) or 'eq30' (Carpinelli 2016 eq. 30 as written)")
    p.set_defaults(func=cmd_study)


#: studies that take --scheduler/--workers
PARALLEL = ("concept",)


def cmd_study(args) -> int:
    mod_name, fn_name, _ = STUDIES[args.name]
    scheduler = None if args.scheduler in (None, "none", "") else args.scheduler
    parallel = {}
    if scheduler is not None or args.workers is not None:
        from ..errors import SolverError
        from ..runs.engine import check_scheduler

        option = "--scheduler" if scheduler is not None else "--workers"
        if args.name not in PARALLEL:
            raise SolverError(f"{option}: study '{args.name}' runs in this process only "
                              f"(--scheduler is for: {', '.join(PARALLEL)})")
        if args.workers is not None and scheduler != "local":
            raise SolverError("--workers: only with --scheduler local (the processes of a "
                              "LocalCluster)")
        try:
            check_scheduler(scheduler)
        except SolverError:
            raise SolverError(f"--scheduler {scheduler!r}: expected none, local or an address "
                              "such as tcp://host:8786") from None
        parallel = {"scheduler": scheduler, "n_workers": args.workers}
    mod = importlib.import_module(mod_name)
    if getattr(args, "projection", None) is not None:
        if args.name != "multilink":
            from ..errors import SolverError

            raise SolverError(f"--projection: only for study 'multilink', not '{args.name}'")
        parallel["projection"] = args.projection
    out = writable_dir(args.out)  # before the work
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    from ..io.interrupts import unwinding

    try:
        with unwinding(f"study '{args.name}' interrupted; what it wrote so far is in {out}",
                       limit_s=1.0):
            getattr(mod, fn_name)(out, quick=args.quick, **parallel)
    except KeyboardInterrupt:  # Ctrl-C / SIGTERM: name what the study wrote before it
        import sys

        done = sorted(str(p) for p in out.rglob("*")
                      if p.is_file() and before.get(p) != p.stat().st_mtime_ns)
        listing = ", ".join(done) if done else "nothing yet"
        print(f"rtmbs: study '{args.name}' interrupted; written so far: {listing}", file=sys.stderr)
        return 130
    print(f"report written to {out / 'report.md'}")
    return 0
