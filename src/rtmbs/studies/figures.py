"""Figures of the study reports: one matplotlib (Agg) figure of stacked panels, no pyplot state."""
from __future__ import annotations


def figure(rows: int, cols: int = 1, height: float = 200, sharex="col", width: float = 9.0,
           dpi: int = 100):
    """A constrained-layout figure of ``rows`` × ``cols`` panels, each ``height`` pixels high
    (at 100 dpi), and its axes as a 2-D array."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, (80 + height * rows) / 100), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, squeeze=False, sharex=sharex)


def finish(fig, ax, title: str, path, legend: str = "small", legend_row: int = 0) -> None:
    """The stacked time plots' last touches: the legend of panel ``legend_row`` (``legend``: its
    font size), "t [s]" under the bottom panel, the title; saved to ``path``."""
    ax[legend_row, 0].legend(fontsize=legend)
    ax[-1, 0].set_xlabel("t [s]")
    fig.suptitle(title)
    fig.savefig(path)


def cost_history(histories, title: str, path) -> None:
    """One panel of identification cost histories (``histories``: label → the cost of each
    iteration, on a log scale), saved to ``path``."""
    import numpy as np

    fig, ax = figure(1)
    for label, h in histories:
        ax[0, 0].semilogy(range(len(h)), np.maximum(h, 1e-300), "o-", label=label)
    ax[0, 0].set_xlabel("iteration")
    ax[0, 0].set_ylabel("cost ½‖r‖²")
    ax[0, 0].legend()
    ax[0, 0].grid(True, which="both", alpha=0.3)
    fig.suptitle(title)
    fig.savefig(path)
