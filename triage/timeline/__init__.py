"""The rank timeline: Plotly figure and Perfetto trace built from the engine's timeline data.

Django-free, like the engine: the web views call `build_figure` / `build_trace` and serve JSON.
"""
from __future__ import annotations
