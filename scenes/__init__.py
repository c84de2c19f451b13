"""Manim scenes of the explainer. They read a Trace (plain data) and never import torch."""
