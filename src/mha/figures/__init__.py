"""Matplotlib figures, one module per subject; see the map in :mod:`mha`.

Every figure is drawn about :data:`WIDTH` inches wide, the width of the PDF's text column,
so that the PDF prints it at (about) its own size, and its text at 7.5 pt or more (a sub- or
superscript at 0.7 of its text) prints at 7 pt or more: ``tests/test_pdf.py`` measures it.
On the site the same figure is about 650 px wide, so a desktop's text column shows it unshrunk,
and a phone's shrinks its text less than a wider figure's.
"""

WIDTH = 6.5  # inches: the PDF's text column (Sphinx's manual class on letter paper)
TITLE = 10  # pt: the title of a panel, where panels sit side by side
