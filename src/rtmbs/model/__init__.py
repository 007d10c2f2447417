"""Model description (bodies, markers, joints, forces, inputs) and YAML files."""
from .description import (FORCE_TYPES, JOINT_EQUATIONS, Body, Coupler, Force, Ground, Input, Joint,  # noqa: F401
                          Marker, Model, Orientation)
from .files import load_model_file, model_from_dict, save_model_file  # noqa: F401
