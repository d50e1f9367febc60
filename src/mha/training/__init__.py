"""Train real heads on a toy task, small enough to run while a page builds.

Modules:
    data   the task: vocabulary, sentences, the fixed train/test split, positions
    model  one multi-head attention layer with a read-out at the verb
    loop   training runs: settings, the Adam loop, what a run records
    probe  accuracy, and where each head's verb row looks (subject, object, nouns)
    store  trained weights kept with the package (``make weights`` writes them)
    curves  a run's record without its weights: final metrics and held-out curves
    more  more runs, metrics only: more seeds, and one head trained longer
    reference  the trained layer computed again with PyTorch's SDPA, to check it
    results  the stored runs summed up: solved counts with intervals, kinds of heads
    ablation  heads switched off after training, one at a time, and what is left
    variants  tied-values heads (several rows, one shared value space): their stored runs
    experiments  stored grids of runs on why heads differ (sentence order, nudges)

Everything public is importable from ``mha.training`` itself.
"""

from mha.training.curves import both_curve, loss_curve, metrics
from mha.training.data import (
    ADJECTIVES,
    D_MODEL,
    MAX_LEN,
    NOUNS,
    PAD,
    ROLES,
    SHOW,
    SHOW_OBJECT,
    SHOW_SUBJECT,
    SHOW_VERB,
    VERBS,
    VOCAB,
    Sentences,
    all_sentences,
    batch,
    encode,
    positions,
    split,
    word_ids,
)
from mha.training.loop import (
    EVAL_EVERY,
    SNAPSHOT_STEPS,
    Run,
    RunConfig,
    build,
    cached_run,
    train,
    with_steps,
)
from mha.training.model import (
    HeadsModel,
    TiedValuesModel,
    head_spread,
    loss_fn,
    make_symmetric,
    perturb,
)
from mha.training.more import (
    ALL_SEEDS,
    EXTRA_SEEDS,
    EXTRA_SETTINGS,
    LONG_STEPS,
    METRICS_GRID,
    seeds_of,
)
from mha.training.probe import (
    SOLVED_AT,
    both_right,
    edited_both_right,
    edited_rows,
    evaluate,
    head_kinds,
    noun_choice,
    noun_preference,
    readout_with_rows,
    refit_readout,
    role_of,
    role_weights,
    scores_without_position,
    show_rows,
    summed_subject_share,
    verb_noun_weights,
    verb_output,
)
from mha.training.store import (
    GRID,
    SEEDS,
    SETTINGS,
    StoredRun,
    StoredWeightsError,
    load_model,
    load_run,
)

__all__ = [
    "ADJECTIVES",
    "ALL_SEEDS",
    "D_MODEL",
    "EVAL_EVERY",
    "EXTRA_SEEDS",
    "EXTRA_SETTINGS",
    "GRID",
    "LONG_STEPS",
    "MAX_LEN",
    "METRICS_GRID",
    "NOUNS",
    "PAD",
    "ROLES",
    "SEEDS",
    "SETTINGS",
    "SHOW",
    "SHOW_OBJECT",
    "SHOW_SUBJECT",
    "SHOW_VERB",
    "SNAPSHOT_STEPS",
    "SOLVED_AT",
    "VERBS",
    "VOCAB",
    "HeadsModel",
    "Run",
    "RunConfig",
    "Sentences",
    "StoredRun",
    "StoredWeightsError",
    "TiedValuesModel",
    "all_sentences",
    "batch",
    "both_curve",
    "both_right",
    "build",
    "cached_run",
    "edited_both_right",
    "edited_rows",
    "encode",
    "evaluate",
    "head_kinds",
    "head_spread",
    "load_model",
    "load_run",
    "loss_curve",
    "loss_fn",
    "make_symmetric",
    "metrics",
    "noun_choice",
    "noun_preference",
    "perturb",
    "positions",
    "readout_with_rows",
    "refit_readout",
    "role_of",
    "role_weights",
    "scores_without_position",
    "seeds_of",
    "show_rows",
    "split",
    "summed_subject_share",
    "train",
    "verb_noun_weights",
    "verb_output",
    "with_steps",
    "word_ids",
]
