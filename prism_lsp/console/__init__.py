"""Terminal presentation for the `prism` command: tables, doctor checks."""
