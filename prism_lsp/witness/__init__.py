"""Witness search: inputs that tell a program apart from every valid candidate.

Public API (stable; other packages build on these):

- `search_panel(session, task, suite_text, *, sandbox=None, targets=None) -> PanelSearch`:
  the whole pipeline on a task. Entry points come from `entry = [...]` in prism.toml or
  are inferred from the suite; inputs are the suite's literal arguments, mutations of
  them and random inputs of their shape; every program (the initial one included, id
  "initial") is probed in the sandbox. `PanelSearch.result.witnesses` maps a program id
  to its smallest `Witness`; `.open_inputs` lists inputs where valid candidates disagree.
- `find_witnesses(prober, entry, valid, others, inputs) -> SearchResult`: the search
  alone, for any programs (e.g. mutants against a reference): `valid` and `others` are
  `Program(id, valid, tree)` with trees from `TreeCache`; `inputs` are argument tuples
  of Python literals, smallest first. `Prober(pool)` probes through a `RunnerPool`
  (or `prober_for(pool, task)`, shared and cached per pool).
- `Witness`: `call` (source text), `kind` ("value" | "raises" | "mutates"), `view`
  (the comparison the valid candidates agree in), `expected` (literal source), `got`. A call
  returning an instance of the program's own class is compared on what the instance does too
  (`witness.protocol`): the witness's `call` is then e.g. `list(reversed(numeric_range(0)))`.
"""

from prism_lsp.witness.entry import Entry, entry_points
from prism_lsp.witness.panel_search import BASELINE, PanelSearch, prober_for, programs_of, search_panel
from prism_lsp.witness.probe import Prober, Program
from prism_lsp.witness.search import OpenInput, SearchResult, Witness, find_witnesses

__all__ = [
    "BASELINE",
    "Entry",
    "OpenInput",
    "PanelSearch",
    "Program",
    "Prober",
    "SearchResult",
    "Witness",
    "entry_points",
    "find_witnesses",
    "prober_for",
    "programs_of",
    "search_panel",
]
