"""MDF4 export read back with asammdf: channel names, units and values."""
import asammdf
import numpy as np

import _models.realtime as tm
from rtmbs.io.mdf import save_mdf
from rtmbs.result import Result
from rtmbs.solvers.simulate import simulate


def test_mdf_round_trip(tmp_path):
    system = tm.MassSpringDamper()
    system.set_input("force", 2.5)
    res = simulate(system, tm.SOLVER_NAME, t_end=0.05, h=1e-3)
    path = save_mdf(res, tmp_path / "run.mf4", units=system.units)
    mdf = asammdf.MDF(path)
    try:
        names = set(mdf.channels_db)
        assert {"q:x", "qd:x", "phi_norm", "phid_norm", "x", "v", "force"} <= names
        for name, unit, ref in (("q:x", "m", res.q[:, 0]), ("qd:x", "m/s", res.qd[:, 0]),
                                ("x", "m", res.outputs["x"]), ("v", "m/s", res.outputs["v"]),
                                ("force", "N", res.outputs["force"]),
                                ("phi_norm", "", res.phi_norm)):
            sig = mdf.get(name)
            assert sig.unit == unit, name
            np.testing.assert_array_equal(sig.samples, ref)
            np.testing.assert_array_equal(sig.timestamps, res.t)
        assert mdf.version.startswith("4.")
    finally:
        mdf.close()


def test_units_from_meta_and_rate_units(tmp_path):
    n = 4
    t = np.linspace(0, 0.3, n)
    q = np.column_stack([np.arange(n) * 1.0, np.arange(n) * 0.1])
    res = Result(t=t, q=q, qd=q * 2, lam=np.ones((n, 1)), phi_norm=np.zeros(n),
                 phid_norm=np.zeros(n), outputs={}, coordinate_names=["z", "pitch"],
                 meta={"units": {"z": "m", "pitch": "rad"}})
    mdf = asammdf.MDF(save_mdf(res, tmp_path / "u.mf4"))
    try:
        assert mdf.get("q:pitch").unit == "rad" and mdf.get("qd:pitch").unit == "rad/s"
        assert mdf.get("qd:z").unit == "m/s"
        np.testing.assert_array_equal(mdf.get("qd:pitch").samples, q[:, 1] * 2)
        np.testing.assert_array_equal(mdf.get("lam:0").samples, np.ones(n))
    finally:
        mdf.close()
