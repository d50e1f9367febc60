"""mha: the small attention package behind the book *Multi-Head Attention*.

Modules:
    attention  scaled dot-product attention, one head and many
    cost       parameter and multiply-add counts, as the chapter counts them
    toy        the running example, *the cat chased the mouse*
    checks     the input checks every public function runs first
    widgets    controls whose views are precomputed, so they work without a kernel
    render     HTML pictures of attention weights for those views
    explorer   the h / d_k explorer widget on the toy sentence
    plots      matplotlib figures labelled with the sentence's words
"""

from mha.attention import (
    causal_mask,
    concat_heads,
    heads,
    multi_head_attention,
    multi_head_attention_loop,
    project,
    scaled_dot_product,
    single_head,
    split_heads,
)
from mha.cost import Cost, layer_cost

__all__ = [
    "Cost",
    "causal_mask",
    "concat_heads",
    "heads",
    "layer_cost",
    "multi_head_attention",
    "multi_head_attention_loop",
    "project",
    "scaled_dot_product",
    "single_head",
    "split_heads",
]
