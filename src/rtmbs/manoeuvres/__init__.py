"""Full-vehicle manoeuvres: a driver (speed PI control, pure-pursuit path
following, open-loop channel inputs) stepping a fixed-step solver, the standard events
(ISO 3888-1 double lane change, ISO 7401 step steer, ISO 4138 steady-state circular, FMVSS 126
sine with dwell, ISO 7975 braking in a turn) on any car (:mod:`.car`), their metrics
(:mod:`.metrics`; the command ``rtmbs event``) and the
virtual measurement campaign of Carpinelli 2015 §5.2.3 (:mod:`.campaign`). docs/vehicle.md "Driver and
events" and "Virtual measurement campaign"."""
from .campaign import Campaign, run_campaign
from .driver import Driver, PurePursuit, SpeedControl, drive, table_input
from .car import load_car
from .events import (brake_in_turn, double_lane_change, iso3888_lanes, sedan_system,
                     steady_state_circular, step_steer, understeer_gradient)

__all__ = ["Campaign", "run_campaign", "Driver", "PurePursuit", "SpeedControl", "drive",
           "table_input", "load_car", "brake_in_turn", "double_lane_change", "iso3888_lanes", "sedan_system", "steady_state_circular", "step_steer", "understeer_gradient"]
