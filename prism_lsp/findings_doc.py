"""Where each finding kind is explained: a section of `docs/findings.md`, shipped inside the package.

Prism has no public web page to point at, so the links (the editor's `codeDescription`, SARIF's
`helpUri`) are `file:` URIs of the installed document, `#<kind>` naming its heading: they open
wherever Prism is installed, the machine that ran it.
"""

from __future__ import annotations

from pathlib import Path

FINDINGS_DOC = Path(__file__).resolve().parent / "docs" / "findings.md"


def finding_uri(kind: str) -> str:
    """The URI of `kind`'s section of the findings document (its heading is the kind's name)."""
    return f"{FINDINGS_DOC.as_uri()}#{kind}"
