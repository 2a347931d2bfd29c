"""How an imported suite that Prism does not run per assertion is judged: its task's test command.

The runner judges a test command by its exit status (0 is a pass). Python suites
are never run with `bash`: one pytest collects is run by Prism itself (no command,
per-assertion results); another `.py` file is run with pytest. Shell suites run with
`bash`. Harbor's verifier instead reads the reward its `test.sh` writes (see
`harbor_command`).
"""

from __future__ import annotations

import shlex
from pathlib import PurePosixPath

from prism_lsp.tasks.suites import DEFAULT_PYTHON_FILES, matches

# Harbor's verifier reads /logs/verifier/reward.txt (one number; it wins over reward.json, a JSON object
# of named numbers). Prism gives each run its own verifier folder under the run's private $TMPDIR and
# points the script there: the real /logs is not writable in the sandbox, and a shared one would mix up
# the verdicts of runs going on in parallel (only test.sh's own text is rewritten: a helper it calls that
# writes /logs/verifier itself is not redirected). Full marks (every reward >= 1) is a pass, less is a fail;
# without a reward file, test.sh's exit status decides, as for any other script.
_JSON_JUDGE = (
    'import json, sys; r = json.load(open(sys.argv[1])); r = r if isinstance(r, dict) else {"reward": r}; '
    'print("rewards:", r); sys.exit(0 if r and all(float(x) >= 1 for x in r.values()) else 1)'
)


def suite_command(suite_rel: str, given: str | None) -> str | None:
    """The test command for the suite at `suite_rel` (None: Prism runs it with pytest, per assertion)."""
    if given:
        return given
    path = PurePosixPath(suite_rel)
    if path.suffix == ".py":
        if matches(path, DEFAULT_PYTHON_FILES):
            return None
        return f"python3 -m pytest -q -p no:cacheprovider {shlex.quote(suite_rel)}"
    return f"bash {shlex.quote(suite_rel)}"


def harbor_command(suite_rel: str) -> str:
    """Run Harbor's `test.sh` at `suite_rel` with /logs/verifier redirected to a per-run folder; judge its reward."""
    return (
        'v="${TMPDIR:-/tmp}/prism-logs/verifier"; mkdir -p "$v" && '
        f'sed "s#/logs/verifier#$v#g" {shlex.quote(suite_rel)} > "$v/../test.sh" && bash "$v/../test.sh"; s=$?; '
        'if [ -s "$v/reward.txt" ]; then echo "reward: $(cat "$v/reward.txt")"; '
        "awk '{exit !($1 + 0 >= 1)}' \"$v/reward.txt\"; "
        f'elif [ -s "$v/reward.json" ]; then python3 -c {shlex.quote(_JSON_JUDGE)} "$v/reward.json"; '
        "else exit $s; fi"
    )
