"""Reusable node-graph mobjects (data first; animations returned, never played)."""

from scenes.mobjects.charts import Plot, accuracy_curve
from scenes.mobjects.grids import HeatGrid, NumberGrid, brackets, column_labels, fitted, row_peaks, size_to_fit
from scenes.mobjects.network import NetworkCopy, scale_group, weighed
from scenes.mobjects.nodes import (
    Connections,
    NodeLayer,
    TokenRow,
    bar,
    chart_axes,
    drawn_characters,
    emphasise,
    label,
    number,
    prediction_rows,
)
from scenes.mobjects.vectors import VectorColumn, tag

__all__ = [
    "Connections",
    "HeatGrid",
    "NetworkCopy",
    "NodeLayer",
    "NumberGrid",
    "Plot",
    "TokenRow",
    "VectorColumn",
    "accuracy_curve",
    "bar",
    "brackets",
    "chart_axes",
    "column_labels",
    "drawn_characters",
    "emphasise",
    "fitted",
    "label",
    "number",
    "prediction_rows",
    "row_peaks",
    "scale_group",
    "size_to_fit",
    "tag",
    "weighed",
]
