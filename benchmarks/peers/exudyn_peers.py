"""The peer mechanisms in Exudyn: redundant coordinates (rigid bodies with Euler parameters),
exact index-3 joints, implicit generalized-α with ρ∞ = 0.9 and Newton iterations, the whole run in
one ``SolveDynamic``. Joints are those of the rtmbs model: revolute, spherical, prismatic as
Exudyn's joints; the universal as a generic joint with translations and the rotation about
z_i × z_j locked (cross axes z_i on body i, z_j on body j)."""
from __future__ import annotations

import numpy as np


class ExudynCase:
    """``run(nstep, h)`` solves from t = 0 to nstep·h; ``snapshot()`` reads the final state."""

    def __init__(self, mech):
        import exudyn as exu
        from exudyn.utilities import RigidBodyInertia

        self.exu = exu
        self.mech = mech
        self.SC = exu.SystemContainer()
        mbs = self.mbs = self.SC.AddSystem()
        ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
        self.index = {"ground": ground}
        g = [0.0, 0.0, -9.81]
        for name, b in mech.bodies.items():
            inertia = RigidBodyInertia(mass=b.mass, inertiaTensor=b.inertia, com=[0.0, 0.0, 0.0],
                                       inertiaTensorAtCOM=True)
            self.index[name] = mbs.CreateRigidBody(
                referencePosition=list(b.com), initialVelocity=list(b.v0), initialAngularVelocity=list(b.w0),
                inertia=inertia, gravity=g, nodeType=exu.NodeType.RotationEulerParameters)
        for jname, jtype, mi, mj in mech.joints:
            bodies = [self.index[mech.points[mi][0]], self.index[mech.points[mj][0]]]
            p = list(mech.points[mj][1])
            if jtype == "revolute":
                mbs.CreateRevoluteJoint(bodyNumbers=bodies, position=p, axis=list(mech.axes[mi]))
            elif jtype == "spherical":
                mbs.CreateSphericalJoint(bodyNumbers=bodies, position=p)
            elif jtype == "prismatic":
                mbs.CreatePrismaticJoint(bodyNumbers=bodies, position=p, axis=list(mech.axes[mi]))
            elif jtype == "universal":
                zi, zj = mech.axes[mi], mech.axes[mj]
                R = np.column_stack([zi, zj, np.cross(zi, zj)])
                mbs.CreateGenericJoint(bodyNumbers=bodies, position=p, rotationMatrixAxes=R,
                                       constrainedAxes=[1, 1, 1, 0, 0, 1])
            else:
                raise ValueError(f"{mech.name}: joint {jname} of type {jtype} not mapped to Exudyn")
        for mi, mj, k, c, L0 in mech.springs:
            ends = []
            for ref in (mi, mj):
                body, p = mech.points[ref]
                local = p if body == "ground" else p - mech.bodies[body].com
                ends.append((self.index[body], list(local)))
            mbs.CreateSpringDamper(bodyNumbers=[ends[0][0], ends[1][0]], localPosition0=ends[0][1],
                                   localPosition1=ends[1][1], referenceLength=L0, stiffness=k, damping=c)
        mbs.Assemble()
        self.settings = exu.SimulationSettings()
        s = self.settings
        s.timeIntegration.generalizedAlpha.spectralRadius = 0.9
        s.timeIntegration.generalizedAlpha.useIndex2Constraints = False
        s.timeIntegration.generalizedAlpha.useNewmark = False
        s.timeIntegration.generalizedAlpha.computeInitialAccelerations = True
        s.timeIntegration.verboseMode = 0
        s.solutionSettings.writeSolutionToFile = False
        s.solutionSettings.writeInitialValues = False
        s.displayComputationTime = False
        s.displayStatistics = False
        s.parallel.numberOfThreads = 1

    def run(self, nstep: int, h: float = 1e-3):
        s = self.settings
        s.timeIntegration.numberOfSteps = nstep
        s.timeIntegration.endTime = nstep * h
        ok = self.mbs.SolveDynamic(s)
        if not ok:
            raise RuntimeError(f"Exudyn SolveDynamic failed on {self.mech.name}")

    def snapshot(self) -> dict:
        ovt = self.exu.OutputVariableType
        out = {}
        for name in self.mech.bodies:
            b = self.index[name]
            get = lambda v: np.array(self.mbs.GetObjectOutputBody(b, v, localPosition=[0.0, 0.0, 0.0]))  # noqa: E731
            out[name] = (get(ovt.Position), get(ovt.RotationMatrix).reshape(3, 3), get(ovt.Velocity),
                         get(ovt.AngularVelocity))
        return out
