"""HTML and widgets that work with a kernel and without one; see the map in :mod:`mha`."""
