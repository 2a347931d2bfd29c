"""JSON Schemas of Prism's TOML files, generated from their pydantic models, for TOML editors.

`schemas/prism.toml.schema.json` (a task's manifest; a `#:schema` line at the top of prism.toml
points Taplo and Even Better TOML at it) and `schemas/tool-prism.schema.json` (`[tool.prism]` of
pyproject.toml) are committed; `python -m prism_lsp.model.json_schemas DIR` writes them again,
and a test checks that the committed files are what the models give.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from prism_lsp.model.manifest import Manifest
from prism_lsp.model.project_config import ProjectConfig

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema."""
    manifest = {"$schema": DRAFT, "title": "prism.toml", **Manifest.model_json_schema(by_alias=True)}
    manifest["description"] = "A Prism task: its statement, initial program and panel of candidates (DESIGN.md)."
    tool = {"$schema": DRAFT, "title": "[tool.prism]", **ProjectConfig.model_json_schema(by_alias=True)}
    tool["description"] = "Defaults of `prism run` and `prism gate` for this project; the command line wins."
    return {"prism.toml.schema.json": manifest, "tool-prism.schema.json": tool}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "schemas")
    folder.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas().items():
        (folder / name).write_text(render(schema), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
