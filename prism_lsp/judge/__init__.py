"""The judge: run results in, one redacted run and a `PanelReport` out.

Pure: no sandbox, no process, no LSP. Verdicts, metrics, panel counts and sensitivity, findings
and their wording, what each reveal level shows, and the stability of verdicts from run to run.
"""
