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
