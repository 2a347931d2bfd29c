"""The sensitivity curves as a PNG (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path

from prism_lsp.judge.sensitivity import Counts, curves


def write_plot(c: Counts, path: Path, title: str) -> None:
    """Plot E[jsf] against the number of non-reference candidates for the three ways to grow a panel."""
    import matplotlib

    matplotlib.use("Agg")  # no display: the CLI and CI run headless
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    styles = {"valid": ("only valid", "o-"), "invalid": ("only invalid", "s-"), "alternating": ("alternating", "^-")}
    for name, rows in curves(c).items():
        label, style = styles[name]
        ax.plot([a + b for a, b, _ in rows], [float(v) for _, _, v in rows], style, label=label)
    ax.set_xlabel("candidates besides the reference")
    ax.set_ylabel("expected joint success")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    # Metadata off: the same counts give the same bytes (matplotlib stamps its version otherwise).
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)
