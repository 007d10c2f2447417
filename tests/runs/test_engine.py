"""run_many on a Dask LocalCluster (2 single-threaded workers) against the same runs in process."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rtmbs.errors import RtmbsError
from rtmbs.runs.engine import TaskFailed, TaskFailure, _worker_setup, local_cluster, run_many
from rtmbs.runs.sweep import sweep

SWEEP = dict(params={"bodies.link2.mass": [0.5, 1.0, 1.5, 2.0], "bodies.link1.mass": [1.0, 3.0]},
             signals=["link2.z", "link2.vx", "q:link1.e2"], t_end=0.1, h=1e-3, trajectories=True,
             progress=False)


def test_sweep_of_8_runs_on_a_local_cluster_equals_the_runs_in_process():
    here = sweep("double-pendulum", **SWEEP)
    with local_cluster(2) as client:
        workers = client.run(_worker_setup)
        there = sweep("double-pendulum", scheduler=client, **SWEEP)
        batched = sweep("double-pendulum", scheduler=client, batch=3, **SWEEP)  # 3 + 3 + 2
        # a failing task is named with its label and does not lose the other results
        with pytest.raises(TaskFailed) as info:
            run_many(math.sqrt, [4.0, -1.0, 9.0], scheduler=client, progress=False,
                     labels=["a=4", "a=-1", "a=9"], batch=2)
        # the same cluster by its address (as a remote one is used): a second client
        by_address = run_many(math.sqrt, [4.0, 9.0], scheduler=client.scheduler.address, progress=False)
    assert by_address == [2.0, 3.0]
    assert len(workers) == 2
    for w in workers.values():  # one BLAS thread each
        assert w["blas_threads"] == [1]
    assert len(here) == len(there) == 8
    for name, col in here.columns.items():
        if name != "wall_s":
            np.testing.assert_array_equal(there.columns[name], col, err_msg=name)
            np.testing.assert_array_equal(batched.columns[name], col, err_msg=name)
    for name, arr in here.trajectories.items():
        np.testing.assert_array_equal(there.trajectories[name], arr, err_msg=name)
    np.testing.assert_array_equal(there.t, here.t)
    assert (here.columns["status"] == 1).all()
    # the parameters reach the runs: heavier links, other motions, all 8 different
    assert len(set(np.round(here.columns["link2.z.final"], 12))) == 8
    assert str(info.value) == "task 1 (a=-1) failed: ValueError: math domain error"
    assert info.value.results[0] == 2.0 and info.value.results[2] == 3.0


def test_in_process_failure_is_named_and_the_others_kept():
    out = run_many(math.sqrt, [4.0, -1.0, 9.0], progress=False, labels=["a=4", "a=-1", "a=9"],
                   keep_going=True)
    assert out[0] == 2.0 and out[2] == 3.0
    assert isinstance(out[1], TaskFailure)
    assert out[1].describe() == "task 1 (a=-1) failed: ValueError: math domain error"
    with pytest.raises(TaskFailed, match=r"^task 1 \(a=-1\) failed: ValueError: math domain error$"):
        run_many(math.sqrt, [4.0, -1.0, 9.0], progress=False, labels=["a=4", "a=-1", "a=9"])
    assert issubclass(TaskFailed, RtmbsError)


def test_run_many_is_a_map_callable():
    import functools

    mapper = functools.partial(run_many, scheduler=None, progress=False)
    assert mapper(abs, [-1, 2, -3]) == list(map(abs, [-1, 2, -3]))


def test_unknown_scheduler_is_named():
    with pytest.raises(RtmbsError, match=r"^scheduler = 'remote', expected None \(in this process\), "
                       r"'local' \(a LocalCluster\) or an address such as tcp://host:8786$"):
        run_many(abs, [1], scheduler="remote", progress=False)
