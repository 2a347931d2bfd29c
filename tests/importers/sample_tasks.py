"""Sample Terminal-Bench and Harbor task folders (with patch sets) for the importer tests."""

from __future__ import annotations

from pathlib import Path

from tests.importers.helpers import diff, patch_set, write

WC_BUGGY = '#!/bin/bash\n# Print the number of words in the file $1.\nwc -l < "$1"\n'
WC_FIXED = "#!/bin/bash\n# Print the number of words in the file $1.\nwc -w < \"$1\" | tr -d ' '\n"
WC_AWK = "#!/bin/bash\n# Print the number of words in the file $1.\nawk '{n += NF} END {print n + 0}' \"$1\"\n"
WC_CHARS = "#!/bin/bash\n# Print the number of words in the file $1.\nwc -c < \"$1\" | tr -d ' '\n"

TB_TEST = """
import subprocess
from pathlib import Path


def words(text, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(text)
    out = subprocess.run(["bash", "wc_words.sh", str(f)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_counts_words_across_lines(tmp_path):
    assert words("one two\\nthree\\n", tmp_path) == 3


def test_empty_file(tmp_path):
    assert words("", tmp_path) == 0
"""


def terminal_bench(root: Path, *, parser: str = "pytest") -> Path:
    write(
        root,
        {
            "task.yaml": f"instruction: |\n  Fix wc_words.sh so it prints the number of words in a file.\n"
            f"author_email: someone@example.com\ndifficulty: easy\nparser_name: {parser}\n"
            "max_test_timeout_sec: 30\n",
            "Dockerfile": "FROM prism-python:local\nWORKDIR /app\nCOPY wc_words.sh /app/\n",
            "docker-compose.yaml": "services:\n  client:\n    build: .\n",
            "solution.sh": "#!/bin/bash\nsed -i 's/wc -l/wc -w/' wc_words.sh\n",
            "run-tests.sh": '#!/bin/bash\nset -e\nout=$(printf "a b\\nc\\n" > /tmp/in.txt && bash wc_words.sh /tmp/in.txt)\n'
            '[ "$out" = 3 ]\n',
            "tests/test_outputs.py": TB_TEST,
            "wc_words.sh": WC_BUGGY,
        },
    )
    patch_set(
        root / "patch-set",
        [
            {"id": "reference", "label": "valid", "reference": True, "diff": diff("wc_words.sh", WC_BUGGY, WC_FIXED)},
            {"id": "awk", "label": "valid", "diff": diff("wc_words.sh", WC_BUGGY, WC_AWK)},
            {"id": "counts-chars", "label": "invalid", "diff": diff("wc_words.sh", WC_BUGGY, WC_CHARS)},
        ],
    )
    return root


GREET_BUGGY = '#!/bin/sh\necho "Hello $1"\n'
GREET_FIXED = '#!/bin/sh\necho "Hello, $1!"\n'
GREET_PRINTF = "#!/bin/sh\nprintf 'Hello, %s!\\n' \"$1\"\n"
GREET_NO_BANG = '#!/bin/sh\necho "Hello, $1"\n'


def harbor(root: Path) -> Path:
    write(
        root,
        {
            "task.toml": 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 20.0\n'
            "[agent]\ntimeout_sec = 600.0\n",
            "instruction.md": "Make `greet.sh NAME` print `Hello, NAME!`.\n",
            "environment/Dockerfile": "FROM prism-python:local\nWORKDIR /app\nCOPY greet.sh /app/\n",
            "environment/greet.sh": GREET_BUGGY,
            "solution/solve.sh": "#!/bin/sh\nprintf '#!/bin/sh\\necho \"Hello, $1!\"\\n' > greet.sh\n",
            "tests/test.sh": '#!/bin/sh\n. tests/expect.sh\nexpect "$(sh greet.sh World)" "Hello, World!"\n',
            "tests/expect.sh": 'expect() { [ "$1" = "$2" ] || { echo "got [$1], want [$2]"; exit 1; }; }\n',
        },
    )
    patch_set(
        root.parent / f"{root.name}.patch-set",
        [
            {
                "id": "reference",
                "label": "valid",
                "reference": True,
                "diff": diff("greet.sh", GREET_BUGGY, GREET_FIXED),
            },
            {"id": "printf", "label": "valid", "diff": diff("greet.sh", GREET_BUGGY, GREET_PRINTF)},
            {"id": "no-bang", "label": "invalid", "diff": diff("greet.sh", GREET_BUGGY, GREET_NO_BANG)},
        ],
        fmt="json",
    )
    return root
