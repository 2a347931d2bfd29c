"""`prism gate`: one command that judges a change in CI or before a push.

`change` makes the task of the change (as `prism init` does) and builds mutants of the lines it
changed when the panel has no invalid candidate (as `prism panel build --mutate changed` does);
`checks` decides, purely, whether the judged suites pass the gate; `command` wires both to the
command line and the reports.
"""
