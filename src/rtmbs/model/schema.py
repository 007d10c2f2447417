"""The JSON Schema of the model format (``rtmbs schema --out PATH`` writes it)."""
from __future__ import annotations

import json

from .description import Model


def schema_text() -> str:
    return json.dumps(Model.model_json_schema(by_alias=True), indent=1, sort_keys=True) + "\n"

