"""Full vehicles from a vehicle file and subsystem files (docs/vehicle.md).

Pure Python: reads YAML (validated like model files) and produces ONE ordinary model
description (:class:`rtmbs.model.Model`) that ``rtmbs.system.compile_model`` compiles.
"""
from .vehicle import (corner_bodies, held_for_statics, is_vehicle_file, load_vehicle_file, sedan_model,
                      vehicle_from_dict)

__all__ = ["corner_bodies", "held_for_statics", "is_vehicle_file", "load_vehicle_file", "sedan_model", "vehicle_from_dict"]
