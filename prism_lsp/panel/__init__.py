"""Panel tooling: build a panel from mutants of the reference, label candidates with the
verifier, check a panel's fitness, and size it (how a suite's verdict depends on panel size).

Pure of LSP: the CLI (`prism panel ...`) and the server's commands call in here.
"""
