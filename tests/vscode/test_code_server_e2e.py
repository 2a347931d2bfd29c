"""End to end in a real VS Code: code-server in Chromium, driven by Playwright, with the packaged `.vsix`.

One marked group (`-m code_server`), run by `.ci/run` after `scripts/code-server.sh` installed
code-server and the extension was packaged. It opens a fixture suite, waits for the diagnostics,
hovers, opens a quick fix, edits the buffer without saving and sees the update, opens a candidate
diff and the Test Explorer, and saves a screenshot of each step (`$PRISM_ARTEFACTS`, else a
temporary folder). It also sees the status states (old counts marked `last run` during a syntax
error, an ImportError as an error), and on a copy of top-tags (a panel of only the reference)
`JSF ?`/`panel too small`, Build Panel rerunning the open suite by itself, and a Settings UI edit
then Restart Server bringing the diagnostics back. Every wait is for something on the page, never
a sleep.

Needs `PRISM_CODE_SERVER` (code-server's folder, installed by `scripts/code-server.sh DEST`),
Chromium (`PRISM_CHROMIUM`, default `chromium`) and the Playwright package: skipped without
`PRISM_CODE_SERVER`, failed when it is set and something else is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.vscode.conftest import FAILED

ROOT = Path(__file__).resolve().parents[2]
VSIX = ROOT / "vscode-client" / "prism-0.1.0.vsix"
WAIT_MS = 180_000  # the first panel run starts the sandboxed runners; later waits are shorter
STEP_MS = 60_000

pytestmark = pytest.mark.code_server


def _missing() -> str | None:
    folder = os.environ.get("PRISM_CODE_SERVER")
    if not folder or not (Path(folder) / "out" / "node" / "entry.js").is_file():
        return "PRISM_CODE_SERVER is not a code-server folder (scripts/code-server.sh installs one)"
    if not shutil.which(os.environ.get("PRISM_CHROMIUM", "chromium")):
        return "no Chromium (apt-get install chromium, or set PRISM_CHROMIUM)"
    if not VSIX.is_file():
        return f"{VSIX} is not built (cd vscode-client && npm run package)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[vscode-e2e]')"
    return None


USER_SETTINGS = {
    "files.autoSave": "off",  # the browser build autosaves: runs must be seen on the unsaved buffer
    "prism.debounceMs": 100,
    "workbench.startupEditor": "none",
    "extensions.ignoreRecommendations": True,
    "workbench.tips.enabled": False,
    "editor.stickyScroll.enabled": False,
    "editor.hover.delay": 100,
}


MACHINE_SETTINGS = {"prism.interpreter": sys.executable}


def _interpreters(data: Path) -> list[str]:
    """The extension's 'Interpreter: …' log lines, oldest first (its output channel's log file)."""
    lines = []
    for log in sorted(data.glob("logs/**/*Prism*.log")):
        lines += [line for line in log.read_text(errors="replace").splitlines() if "Interpreter: " in line]
    return lines


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module (Playwright's sync API runs one session at a time)."""
    missing = _missing()
    if missing:
        if os.environ.get("PRISM_CODE_SERVER"):  # asked for (as .ci/run does): a missing piece is a failure
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=shutil.which(os.environ.get("PRISM_CHROMIUM", "chromium")), args=["--no-sandbox"]
        )
        yield chromium
        chromium.close()


@contextmanager
def _workbench(browser, base: Path, folder: Path, *, trust: bool):
    """code-server with the packaged extension on `folder`, and a page showing it.

    `trust`: Workspace Trust is on (the folder starts untrusted); else it is disabled."""
    data, extensions = base / "data", base / "extensions"
    (data / "User").mkdir(parents=True)
    (data / "User" / "settings.json").write_text(
        json.dumps({**USER_SETTINGS, "security.workspace.trust.enabled": trust})
    )
    # code-server's window is a remote one: VS Code applies a machine-scoped setting such as
    # prism.interpreter only from the Remote settings (Machine/), and drops it from the User tab's
    # file at its first re-read (a Settings UI edit), which is how issue 23's user lost the server.
    (data / "Machine").mkdir()
    (data / "Machine" / "settings.json").write_text(json.dumps(MACHINE_SETTINGS))
    entry = [shutil.which("node") or "node", str(Path(os.environ["PRISM_CODE_SERVER"]) / "out" / "node" / "entry.js")]
    common = ["--user-data-dir", str(data), "--extensions-dir", str(extensions)]
    subprocess.run([*entry, *common, "--install-extension", str(VSIX)], check=True, capture_output=True, timeout=300)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PRISM_CACHE_DIR": str(base / "cache")}
    server = subprocess.Popen(
        [
            *entry,
            *common,
            "--auth",
            "none",
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--disable-telemetry",
            *([] if trust else ["--disable-workspace-trust"]),
            str(folder),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        for line in server.stdout:  # an event: the server says it listens
            if "HTTP server listening" in line:
                break
        else:
            pytest.fail("code-server stopped before listening")
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.set_default_timeout(WAIT_MS)
        page.goto(f"http://127.0.0.1:{port}/?folder={folder}")
        page.wait_for_selector(".monaco-workbench .part.editor")
        yield page
        page.close()
    finally:
        server.kill()
        server.wait()


def _artefacts() -> Path:
    return Path(os.environ.get("PRISM_ARTEFACTS") or tempfile.mkdtemp(prefix="prism-e2e-"))


def _on_fixture_copy(browser, tmp_path_factory, prefix: str, fixture: str):
    """code-server (Workspace Trust off) on a copy of fixture task `fixture`: (page, folder, artefacts)."""
    base = tmp_path_factory.mktemp(prefix)
    folder = base / fixture
    shutil.copytree(ROOT / "fixtures" / fixture, folder)
    with _workbench(browser, base, folder, trust=False) as page:
        yield page, folder, _artefacts()


@pytest.fixture(scope="module")
def workbench(browser, tmp_path_factory):
    """A code-server with the packaged extension, a copy of a fixture task as its folder, and a browser page."""
    yield from _on_fixture_copy(browser, tmp_path_factory, "code-server", "mean-rounded")


def _squiggle_centre(page) -> tuple[float, float]:
    """Where the first warning squiggle is now. Squiggles sit under the text layer: point at them,
    do not "hover" the element. The editor redraws its overlays (a hover closing, diagnostics
    published again), so a squiggle found can be gone when measured (a CI run met that): find it
    again until one is measured."""
    squiggle = page.locator(".view-overlays .squiggly-warning").first
    for _ in range(50):
        squiggle.wait_for(state="visible")
        box = squiggle.bounding_box()
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    raise AssertionError("the warning squiggle never stayed drawn long enough to be measured")


def _command(page, name: str) -> None:
    page.keyboard.press("F1")
    page.wait_for_selector(".quick-input-widget input").fill(f">{name}")
    page.wait_for_selector(f".quick-input-list .monaco-list-row:has-text('{name}')")
    page.keyboard.press("Enter")


def _screenshots(page, folder: Path, request, failure: str):
    """The screenshot folder, made; the page as it was is saved there as `failure` when the test fails."""
    folder.mkdir(parents=True, exist_ok=True)
    yield folder
    if request.node.stash.get(FAILED, False):
        page.screenshot(path=str(folder / failure))


@pytest.fixture
def shots(workbench, request):
    """The screenshot folder; the page as it was is saved there when the test fails."""
    page, _, folder = workbench
    yield from _screenshots(page, folder, request, "failure.png")


def test_a_fixture_suite_in_a_real_vs_code(workbench, shots):
    page, folder, _ = workbench
    page.keyboard.press("Control+P")
    page.wait_for_selector(".quick-input-widget input").fill("test_overfit.py")
    page.wait_for_selector(".quick-input-list .monaco-list-row:has-text('test_overfit.py')")
    page.keyboard.press("Enter")
    page.wait_for_selector(".view-overlays .squiggly-warning")  # rejects-valid, from the real panel
    # The code lenses (the file's and each test's) arrive after the diagnostics and push the lines
    # down: point at the squiggle only once all four are drawn.
    page.wait_for_function("document.querySelectorAll('.codelens-decoration').length >= 4")
    page.screenshot(path=str(shots / "1-diagnostics.png"))
    page.set_default_timeout(STEP_MS)

    page.mouse.move(*_squiggle_centre(page))
    hover = page.wait_for_selector(".monaco-hover:visible:has-text('valid (reference)')")  # the outcome table
    assert "half-even" in hover.inner_text()
    page.screenshot(path=str(shots / "2-hover.png"))
    page.keyboard.press("Escape")

    page.mouse.click(*_squiggle_centre(page))
    _command(page, "Quick Fix...")
    page.wait_for_selector(":text('Ignore `rejects-valid` on this line')")
    page.screenshot(path=str(shots / "3-quick-fix.png"))
    page.keyboard.press("Escape")

    hints = len(page.query_selector_all(".view-overlays .squiggly-hint"))
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n\ndef test_type_only():\n    assert isinstance(mean_rounded([1, 2]), int)\n")
    page.wait_for_function(f"document.querySelectorAll('.view-overlays .squiggly-hint').length > {hints}")
    page.wait_for_selector(".tab.dirty:has-text('test_overfit.py')")  # unsaved, and checked anyway
    page.screenshot(path=str(shots / "4-unsaved-edit.png"))

    _command(page, "Prism: Show Candidate")
    page.wait_for_selector(".quick-input-list .monaco-list-row:has-text('half-even')")
    page.wait_for_selector(".quick-input-widget input").fill("half-even")
    page.keyboard.press("Enter")
    page.wait_for_selector(".monaco-diff-editor")
    page.wait_for_selector(".tab:has-text('half-even (valid): solution.py')")  # one view: id and label first
    page.wait_for_selector(".monaco-diff-editor :text('Fraction')")  # the candidate's text, served by the server
    page.screenshot(path=str(shots / "5-candidate-diff.png"))

    _command(page, "Testing: Focus on Test Explorer View")
    page.click(".part.sidebar :text('test_overfit.py')")  # the suite's item: its programs under it
    page.keyboard.press("ArrowRight")
    # initial program and reference first, then the groups (not alphabetical)
    rows = page.locator(".part.sidebar .monaco-list-row")
    page.wait_for_selector(".part.sidebar :text('valid candidates')")
    labels = [t.strip() for t in rows.all_inner_texts()]
    first = next(i for i, t in enumerate(labels) if "initial program" in t)
    assert "reference" in labels[first + 1] and "valid candidates" in labels[first + 2], labels
    page.click(".part.sidebar :text-is('valid candidates')")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(".part.sidebar :text('half-even (valid)')")
    page.screenshot(path=str(shots / "6-test-explorer.png"))

    # The status bar says the server's summary: the reference is not in the denominator.
    page.click(".tab:has-text('test_overfit.py')")
    page.wait_for_selector(".statusbar-item:has-text('besides the reference')")
    page.screenshot(path=str(shots / "7-status-summary.png"))

    # Kill matrix: coloured by whether each verdict is right, titled as the matrix, not the file.
    _command(page, "Prism: Show Kill Matrix")
    page.wait_for_selector(".tab:has-text('Kill Matrix · test_overfit.py')")
    matrix = page.frame_locator("iframe.webview").frame_locator("iframe#active-frame")
    matrix.locator("td.cell.right[data-outcome='fail']").first.wait_for()  # a test killing the initial program
    matrix.locator("td.cell.wrong[data-outcome='fail']").first.wait_for()  # rejecting half-even, a valid one
    page.screenshot(path=str(shots / "8-kill-matrix.png"))
    assert "def test_type_only" not in (folder / "suites" / "test_overfit.py").read_text(), "nothing was saved"


def _open(page, name: str) -> None:
    """Open a file of the folder by name (Quick Open), and wait until its tab is the active one."""
    page.keyboard.press("Control+P")
    page.wait_for_selector(".quick-input-widget input").fill(name)
    page.wait_for_selector(f".quick-input-list .monaco-list-row:has-text('{name}')")
    page.keyboard.press("Enter")
    page.wait_for_selector(f".tab.active:has-text('{name}')")


def _replace_first_line(page, text: str) -> None:
    """Type `text` over the active editor's first line (unsaved)."""
    page.keyboard.press("Control+Home")
    page.keyboard.press("Shift+End")
    page.keyboard.insert_text(text)


def _lens(page, text: str) -> None:
    """Wait until a code lens of the active editor shows `text` (lenses are redrawn after a refresh)."""
    page.wait_for_function(
        """text => [...document.querySelectorAll('.editor-group-container.active .codelens-decoration')]
            .some(lens => lens.textContent.includes(text))""",
        arg=text,
    )


def test_status_says_old_counts_are_old_and_an_import_error_is_no_verdict(workbench, shots):
    page, folder, _ = workbench
    page.set_default_timeout(STEP_MS)
    _open(page, "test_weak.py")
    page.wait_for_selector(".statusbar-item:has-text('Prism: JSF')", timeout=WAIT_MS)  # this version's run

    # A syntax error while typing: the last run's counts stay, marked as the last run's.
    _replace_first_line(page, "from solution import (")
    stale = page.wait_for_selector(".statusbar-item:has-text('Prism (last run)')")
    assert stale.query_selector(".codicon-history"), "old counts carry the history icon"
    assert "JSF" in stale.inner_text(), "the numbers are still shown"
    _lens(page, "Prism (last run): JSF")  # the lenses say what the status bar says
    page.screenshot(path=str(shots / "status-1-syntax-error-last-run.png"))

    # An ImportError: the suite cannot run on anything, so an error, not a verdict on its assertions.
    _replace_first_line(page, "from solution_that_is_not_there import mean_rounded")
    error = page.wait_for_selector(".statusbar-item:has-text('Prism: error')")
    assert "JSF" not in error.inner_text() and "valid" not in error.inner_text()
    _lens(page, "collection error")
    page.screenshot(path=str(shots / "status-2-import-error.png"))
    assert "solution_that_is_not_there" not in (folder / "suites" / "test_weak.py").read_text(), "nothing saved"


@pytest.fixture(scope="module")
def empty_panel(browser, tmp_path_factory):
    """code-server on a copy of top-tags, whose panel is only its reference (a copy: Build Panel writes into it)."""
    yield from _on_fixture_copy(browser, tmp_path_factory, "code-server-empty-panel", "top-tags")


@pytest.fixture
def empty_shots(empty_panel, request):
    """The screenshot folder for the empty-panel tests; the page is saved there when one fails."""
    page, _, folder = empty_panel
    yield from _screenshots(page, folder, request, f"failure-{request.node.name}.png")


def test_a_panel_of_only_the_reference_shows_no_tick(empty_panel, empty_shots):
    page, _, _ = empty_panel
    _open(page, "test_weak.py")
    status = page.wait_for_selector(".statusbar-item:has-text('panel too small')", timeout=WAIT_MS)
    text = status.inner_text()
    assert "JSF ?" in text and "✓" not in text, text  # nothing to fail: no pass
    assert status.query_selector(".codicon-warning"), "marked as a warning"
    page.screenshot(path=str(empty_shots / "empty-panel-1-jsf-unknown.png"))


def test_build_panel_reruns_the_open_suite_by_itself(empty_panel, empty_shots):
    page, folder, _ = empty_panel
    _open(page, "test_weak.py")
    page.wait_for_selector(".statusbar-item:has-text('panel too small')", timeout=WAIT_MS)
    _command(page, "Prism: Build Panel")
    # No "Run Panel": the task's prism.toml changed, so the server reruns the open suite, and
    # the mutants built as invalid candidates show the weak suite's under-assertion.
    status = page.locator(".statusbar-item", has_text=re.compile(r"Prism: JSF .*invalid \d+/[1-9]"))
    status.wait_for(timeout=WAIT_MS)
    text = status.inner_text()
    assert "invalid 0/0" not in text and "✓" not in text, text
    _lens(page, re.search(r"invalid \d+/\d+", text).group(0))  # the file's lens has the same counts
    page.screenshot(path=str(empty_shots / "build-panel-1-rerun-real-counts.png"))
    assert "mutants" in (folder / "prism.toml").read_text(), "the copy's panel was built"


SQUIGGLES = ".view-overlays [class*='squiggly-']"


def test_a_settings_edit_then_restart_server_brings_the_diagnostics_back(empty_panel, empty_shots):
    page, folder, _ = empty_panel
    page.set_default_timeout(STEP_MS)
    _open(page, "test_weak.py")
    page.wait_for_selector(SQUIGGLES, timeout=WAIT_MS)

    # The Settings UI, User tab, as the user did: prism.runOn -> save.
    _command(page, "Preferences: Open User Settings")
    page.wait_for_selector(".settings-editor")
    page.keyboard.type("prism.runOn")  # the search box has the focus
    page.click(".setting-item-contents[data-key='prism.runOn'] select")
    page.click(".monaco-select-box-dropdown-container .monaco-list-row:has(.option-text:text-is('save'))")
    page.wait_for_selector(".setting-item-contents.is-configured[data-key='prism.runOn']")
    page.screenshot(path=str(empty_shots / "restart-1-run-on-save-set.png"))

    page.click(".tab:has-text('test_weak.py')")
    page.wait_for_selector(SQUIGGLES)
    # Restarting clears the diagnostics; they must be seen gone, then back from the new server.
    page.evaluate(
        """sel => { window.prismSquigglesGone = false;
        new MutationObserver(() => { if (!document.querySelector(sel)) window.prismSquigglesGone = true; })
            .observe(document.body, { subtree: true, childList: true }); }""",
        SQUIGGLES,
    )
    _command(page, "Prism: Restart Server")
    page.wait_for_function(
        "sel => window.prismSquigglesGone && document.querySelector(sel) !== null", arg=SQUIGGLES, timeout=WAIT_MS
    )
    page.wait_for_selector(".statusbar-item:has-text('Prism: JSF')")  # a status from the new server
    assert not page.query_selector(".statusbar-item:has-text('server not running')")
    page.screenshot(path=str(empty_shots / "restart-2-diagnostics-back.png"))
    started = _interpreters(folder.parent / "data")
    assert len(started) >= 2 and all(f"{sys.executable} (from setting)" in line for line in started), started


def _notification(page, text: str) -> None:
    """A notification with `text`, in the notification centre (its toast may have timed out already)."""
    _command(page, "Notifications: Show Notifications")
    page.wait_for_selector(f".notifications-center :text('{text}')")


@pytest.fixture(scope="module")
def untrusted(browser, tmp_path_factory):
    """code-server with Workspace Trust on, on a folder whose own settings pick an interpreter (a
    script that leaves a mark, then runs the real Python) and turn the sandbox off."""
    base = tmp_path_factory.mktemp("code-server-trust")
    folder = base / "mean-rounded"
    shutil.copytree(ROOT / "fixtures" / "mean-rounded", folder)
    mark = base / "the-folder-interpreter-ran"
    wrapper = folder / ".tools" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\ntouch "{mark}"\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    (folder / ".vscode").mkdir()
    (folder / ".vscode" / "settings.json").write_text(
        json.dumps({"prism.interpreter": "${workspaceFolder}/.tools/python", "prism.sandbox": "none"})
    )
    with _workbench(browser, base, folder, trust=True) as page:
        yield page, mark, _artefacts()


def test_restricted_mode_shows_static_hints_and_says_why_and_trusting_starts_runs(untrusted):
    page, mark, shots = untrusted
    shots.mkdir(parents=True, exist_ok=True)
    try:
        page.click('.monaco-dialog-box .monaco-button:has-text("No, I don\'t trust the authors")')
        page.keyboard.press("Control+P")
        page.wait_for_selector(".quick-input-widget input").fill("test_weak.py")
        page.wait_for_selector(".quick-input-list .monaco-list-row:has-text('test_weak.py')")
        page.keyboard.press("Enter")
        page.wait_for_selector(".view-overlays .squiggly-hint")  # the static hint: type-only assertion
        page.wait_for_selector(".statusbar-item:has-text('Prism: static hints only')")
        _notification(page, "not trusted (Restricted Mode)")
        page.screenshot(path=str(shots / "trust-1-restricted-mode.png"))
        page.keyboard.press("Escape")
        assert not page.query_selector(".view-overlays .squiggly-info"), "no panel finding without a run"
        assert not mark.exists(), "the folder's interpreter never runs in Restricted Mode"

        page.set_default_timeout(STEP_MS)
        _command(page, "Workspaces: Manage Workspace Trust")
        page.click(".workspace-trust-editor .monaco-button:has-text('Trust')")
        page.wait_for_selector(".workspace-trust-editor :text('You trust this folder')")
        page.click(".tab:has-text('test_weak.py')")  # back to the suite: its squiggles and status bar
        page.set_default_timeout(WAIT_MS)
        page.wait_for_selector(".view-overlays .squiggly-info")  # accepts-invalid, from the real panel
        page.wait_for_selector(".statusbar-item:has-text('JSF')")
        page.screenshot(path=str(shots / "trust-2-trusted-runs.png"))
        _notification(page, "only your User settings can turn the sandbox off")
        page.screenshot(path=str(shots / "trust-3-sandbox-none-refused.png"))
        page.keyboard.press("Escape")
        assert mark.exists(), "trusted: the folder's own interpreter runs the server"
    except BaseException:
        page.screenshot(path=str(shots / "trust-failure.png"))
        raise
