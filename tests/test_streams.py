"""A cell's printed text reaches the page as printed, however the kernel cut it into messages.

The build merges a cell's stream outputs into one box (``nb_merge_streams``); myst-nb's merge
alone ends every chunk with a line break, so a print the kernel sent in two messages showed
on two lines. ``execution.join_stream_chunks`` joins the chunks first.
"""

from __future__ import annotations

from myst_nb.core import render
from nbformat import from_dict

from tests.book_ext import execution


def stream(text: str, name: str = "stdout") -> dict:
    return from_dict({"output_type": "stream", "name": name, "text": text})


def test_a_print_cut_mid_line_stays_on_one_line() -> None:
    cut = [stream("head i returns"), stream(" (5, 3) = n x d_k\n")]
    execution._merge_streams_without_mutating()
    merged = render.coalesce_streams(cut)
    assert [o["text"] for o in merged] == ["head i returns (5, 3) = n x d_k\n"]
    assert cut[0]["text"] == "head i returns"  # the saved notebook's outputs are untouched


def test_streams_keep_their_names_and_other_outputs_their_place() -> None:
    figure = from_dict(
        {"output_type": "display_data", "data": {"text/plain": "fig"}, "metadata": {}}
    )
    outputs = [stream("a\n"), stream("warn\n", "stderr"), figure, stream("b\n")]
    joined = execution.join_stream_chunks(outputs)
    assert [(o.get("name"), o.get("text")) for o in joined] == [
        ("stdout", "a\nb\n"),
        ("stderr", "warn\n"),
        (None, None),
    ]
