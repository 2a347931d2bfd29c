"""`prism gate`: one command that judges a change in CI or before a push.

`change` makes the task of the change (as `prism init` does) and builds mutants of the lines it
changed when the panel has no invalid candidate (as `prism panel build --mutate changed` does);
`checks` decides, purely, whether the judged suites pass the gate; `command` wires both to the
command line and the reports.
"""

# The gate's thresholds when neither the command line nor the project says otherwise (percent).
DEFAULT_INVALID_REJECTION = 80.0
DEFAULT_VALID_ACCEPTANCE = 100.0
