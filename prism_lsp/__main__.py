"""`python -m prism_lsp` starts the language server (what editors launch)."""

from prism_lsp.cli import lsp_main

if __name__ == "__main__":
    lsp_main()
