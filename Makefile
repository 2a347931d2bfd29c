# Aliases for the scripts README opens with (scripts/demo, scripts/test), plus a few extras.
# Everything runs from the virtual environment scripts/setup.sh makes in .venv.
export PATH := $(CURDIR)/.venv/bin:$(PATH)

.PHONY: demo test vsix bench

demo:
	scripts/demo

test:
	scripts/test

vsix:
	cd vscode-client && npm ci --no-audit --no-fund && npm run package

# Issue 11's table (every row beside the naive loops of the same run) and the runner's phases.
bench:
	python bench/table.py --repeat 3 --rounds 5
