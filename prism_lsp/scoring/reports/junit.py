"""JUnit XML: one testsuite per pair, one testcase per program; a failure where the verdict is wrong.

The initial program's case fails when the suite does not detect it; a candidate's case
fails when the suite judged it wrongly (rejected a valid one, accepted an invalid one);
a program that could not run is an <error>. A pair that could not be scored is a
testsuite with one erroring case, so CI dashboards show it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from prism_lsp.scoring.text import clean


def _case(suite_el: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite_el, "testcase", classname=clean(classname), name=clean(name), time="0")


def _program_case(
    suite_el: ET.Element, classname: str, name: str, program: dict, wrong: str | None, detected: bool = False
) -> str:
    case = _case(suite_el, classname, name)
    if program["outcome"] == "error" and not detected:  # an initial program's error may detect it
        el = ET.SubElement(
            case,
            "error",
            type=program.get("reason") or "error",
            message=clean(program.get("message") or "could not run"),
        )
        el.text = clean(program.get("message") or "")
        return "error"
    if wrong:
        ET.SubElement(case, "failure", type="wrong-verdict", message=clean(wrong))
        return "failure"
    return "ok"


def junit_xml(records: list[dict]) -> ET.ElementTree:
    root = ET.Element("testsuites", name="prism score")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for r in records:
        name = f"{r['task']}:{r['suite']}"
        suite_el = ET.SubElement(root, "testsuite", name=clean(name))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        if r["status"] != "ok":
            case = _case(suite_el, r["task"], "score")
            ET.SubElement(case, "error", type="pair-error", message=clean(r["error"] or ""))
            counts.update(tests=1, errors=1)
        else:
            report = r["report"]
            base = report["baseline"]
            wrong = (
                None
                if report["metrics"]["detects_baseline"]
                else f"the suite does not fail on the initial program ({base['outcome']})"
            )
            kinds = [_program_case(suite_el, r["task"], "initial", base, wrong, wrong is None)]
            for c in report["candidates"]:
                wrong = (
                    None
                    if c["correct"]
                    else (
                        f"{c['label']} candidate {c['verdict'] or 'not judged'}: expected "
                        f"{'accepted' if c['label'] == 'valid' else 'rejected'}"
                    )
                )
                kinds.append(_program_case(suite_el, r["task"], f"{c['label']} {c['id']}", c, wrong))
            counts.update(tests=len(kinds), failures=kinds.count("failure"), errors=kinds.count("error"))
        for key, value in counts.items():
            suite_el.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(records: list[dict], path: Path) -> None:
    junit_xml(records).write(path, encoding="utf-8", xml_declaration=True)
