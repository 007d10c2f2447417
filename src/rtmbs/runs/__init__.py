"""Many runs of one model: parameter sweeps and identification, in this process or on Dask.

``run_many`` (engine), parameter paths (parameters), manoeuvres, ``sweep``, ``identify``;
docs/runs.md.
"""
