"""mha: the small attention package behind the book *Multi-Head Attention, Interactively*.

Three layers: the maths, then the figures and the views, which build on the
maths and never the other way round. The maths imports neither matplotlib nor
ipywidgets, so it runs anywhere torch runs.

The maths and the running example:
    attention          scaled dot-product attention: one head, every head at once, heads
                       sharing keys and values (grouped-query), the layer
    checks             input checks, run once at the outermost public call
    cost               parameter and multiply-add counts of a layer, key/value cache size
    measure            FLOPs counted by PyTorch on real calls, and interleaved timing
    stack              a stack of layers: what appending a word changes in the key/value cache
    seeds              the one way the package seeds random numbers
    toy                the running example, *the cat chased the mouse*: X, labels, weights
    translation        a sentence for a decoder to write, in Latin, and heads that read the source
    budget             one head's budget: tilting a softmax row, blends without a softmax
    exercise           chapter 1's exercise: one head of width 1, goals for chased's row,
                       every setting of its six sliders searched
    scaling            why scores are divided by sqrt(d_k): their variance, saturation, gradients
    concat             where each head's numbers land once heads are laid side by side, and
                       each head's query-key and value-output maps
    stats              how sure a count is: the Wilson interval of a binomial proportion
    training           real heads trained on a toy subject/object task:
      training.data    the task: vocabulary, sentences, the train/test split, positions
      training.model   one multi-head attention layer with a read-out at the verb
      training.loop    training runs: settings, the Adam loop, what a run records
      training.probe   accuracy, and where each head's verb row looks
      training.store   trained weights kept with the package; make weights writes them
      training.curves  a run's record without its weights: final metrics, held-out curves
      training.reference  the trained layer again, by PyTorch's SDPA, to check it
      training.results  the stored runs summed up: solved counts, intervals, kinds of heads
      training.experiments  stored runs on why heads differ: sentence order, nudges
      training.more    more runs, metrics only: more seeds, and one head trained longer
      training.ablation  heads switched off after training, one at a time, and what is left
      training.variants  tied-values heads (several rows, one shared value space), stored runs
      training.__main__   python -m mha.training: the command behind make weights

Shared by the figures and the views:
    style              colours, the colormap, black or white text on a coloured cell

The figures (matplotlib), one module per subject:
    figures            the subpackage:
      figures.attention  weight tables, rows as bars, stacked rows, growth curves
      figures.cost       cost of a layer against the number of heads
      figures.concat     heads side by side, the columns a head reaches, the reshape
      figures.layer      the whole layer for one word: rows, averages, concatenation, W^O
      figures.maps       each head's map W^V_i W^O_i as a grid of printed numbers
      figures.mask       weights before and after a mask
      figures.cross      cross-attention: the words being written reading the source
      figures.scaling    score variance and softmax saturation against the head width
      figures.training   loss curves, differences between heads, rows before/after, scatter
      figures.png        figures as palette PNGs, for the site (an IPython extension)

The views (HTML and widgets that work with a kernel and without one):
    views              the subpackage:
      views.html       the views' shared style sheet (STYLE)
      views.anywidgets the views' base class (View) and their esbuild-bundled modules
      views.trained    the trained explorer's labels and vocabulary message
      views.trained_view  chapters 2 and 5's trained explorer (every stored run, any
                       sentence, heads on/off), computed in the browser (an anywidget)
      views.grouped    the key/value-groups slider: what sharing keys and values saves,
                       computed in the browser (an anywidget)
      views.budget     the trade-off slider of one head's budget, computed in the browser
      views.scaling    one row as a head widens, its scores divided by sqrt(d_k) or not,
                       computed in the browser
      views.training   the training-step slider, drawn in the browser from stored snapshots
      views.mask_view  chapter 6's mask view, computed in the browser (an anywidget)
      views.heads_view  chapters 1 to 4's heads (rows, heads, concat, cost panels),
                       computed in the browser (an anywidget)
      views.exercise_view  chapter 1's exercise: set a head's query and key weights, goals
                       met or not, computed in the browser (an anywidget)
      views.anywidgets what the anywidget views share: their ES module as one text, and
                       the base of the slider views (static/slider_view.mjs)
      views.tables     Markdown tables of training results
      views.text       computed numbers formatted for the prose ({eval} roles)
      views.captions   figure captions in JupyterLab, read from the figure cells' metadata
      views/static/mha_views.mjs  the views' maths in JavaScript (attention, masks, the
                       trained model, cost counts, random heads for any seed) for the browser
                       and Node; checked against mha, numpy and PyTorch by
                       tests/test_js_module.py and tests/test_js_random.py
      views/static/view_html.mjs  the HTML pieces the anywidget views share (esc, tables,
                       bars, labelled range controls)
      views/static/slider_view.mjs  controls, permalinks and the live render of the small
                       views (budget_view, scaling_view, groups_view, steps_view .mjs)

For make lab:
    lab                the Jupyter server's contents manager: a chapter opens unmodified
"""

import os

# The stored training runs were made with PyTorch's AVX2 kernels, and chapter 5 and the tests
# retrain some of them and compare the numbers exactly. On a CPU with AVX-512 PyTorch would
# pick other kernels, which round differently (about 1e-6 relative after 400 steps), so the
# package asks for AVX2 before torch runs its first kernel (torch reads this once, on first
# use). A machine without AVX2 still rounds its own way; see the README.
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")

from mha.attention import (
    all_heads,
    causal_mask,
    concat_heads,
    cross_attention,
    grouped_heads,
    multi_head_attention,
    multi_head_attention_loop,
    project,
    scaled_dot_product,
    single_head,
    split_heads,
    window_mask,
)
from mha.cost import Cost, layer_cost

__all__ = [
    "Cost",
    "all_heads",
    "causal_mask",
    "concat_heads",
    "cross_attention",
    "grouped_heads",
    "layer_cost",
    "multi_head_attention",
    "multi_head_attention_loop",
    "project",
    "scaled_dot_product",
    "single_head",
    "split_heads",
    "window_mask",
]
