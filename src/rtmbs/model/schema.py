"""Write the JSON Schema of the model format: ``python -m rtmbs.model.schema [PATH]``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .description import Model


def schema_text() -> str:
    return json.dumps(Model.model_json_schema(by_alias=True), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/model-schema.json")
    out.write_text(schema_text())
    print(f"wrote {out}")
