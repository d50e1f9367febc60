"""Matplotlib figures, one module per subject; see the map in :mod:`mha`."""
