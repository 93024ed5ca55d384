"""The ``entity_memory`` pipeline component: spaCy glue around the memory model."""
import math
import re
import warnings
from itertools import islice
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer

from ..linguistics.switches import GrammarSwitches, with_own_switches
from ..models.memory import (
    TOKEN_IDS_LAYER, UNTRAINED_MESSAGE, build_torch_layer, count_lm_vocabulary, find_layer, find_memory_layer,
    is_span_model, is_teacher_forced, lm_vocab_size, set_attribute_settings, set_lm_vocabulary, torch_memory,
)
from .attributes import register_extensions
from .clusters import seen_before, write_clusters
from .memory_log import MemoryLog, count_entities, decode_actions, log_mentions
from .settings import restore_cfg
from .span_proposals import CANDIDATES_KEY
from ..nn.memory.carry import CarriedMemory
from ..training.targets import DocSupervision, LossWeights

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "spacy_entmem.PeTra.v1"
hidden_width = 300
n_cells = 10
mlp_width = 300
usage_decay = 0.98
dropout = 0.0
gumbel_hard = false

[model.tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[model.tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [5000, 1000, 2500, 2500]
include_static_vectors = false

[model.tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
depth = 4
window_size = 1
maxout_pieces = 3
"""
DEFAULT_MODEL = Config().from_str(DEFAULT_MODEL_CONFIG)["model"]
# the on / off decision rules of MentionMemory, each set from the cfg key of the same name
DECISION_RULES = ("name_agreement", "animacy_agreement", "narrator_continuity", "noun_number_agreement",
                  "plural_noun_agreement", "titled_name_agreement", "binding_agreement", "name_continuity",
                  "speaker_continuity", "apposition_continuity", "syntactic_binding", "person_agreement",
                  "singular_they", "title_agreement", "names_from_name_heads", "name_ties_to_most_mentioned")
DEFAULT_MAX_BATCH_STEPS = 8192  # padded steps per memory batch (LitBank's ~2,000-word documents: 276 MB peak at batch size 64)


@Language.factory(
    "entity_memory",
    assigns=["doc.spans", "doc._.entity_memory_log"],
    default_config={
        "model": DEFAULT_MODEL,
        "cluster_prefix": "coref_clusters",
        "mentions_key": "coref_mentions",
        "gap_key": "gap",
        "candidates_key": CANDIDATES_KEY,
        "negatives_per_token": 0.4,
        "entity_threshold": 0.5,
        "new_entity_bias": 1.0,
        "replace_existing": True,
        "store_memory_log": True,
        "self_link_weight": 1.0,
        "positive_weight": 5.0,
        "negative_weight": 50.0,
        "sparsity_weight": 0.1,
        "full_link_weight": 1.0,
        "full_negatives": 10,
        "lm_weight": 0.0,
        "count_threshold": 0.5,
        "temperature_halving_examples": 20000,
        "disabled_pair_features": [],
        "name_genders": False,
        "animacy_agreement": False,
        "narrator_continuity": False,
        "noun_number_agreement": False,
        "plural_noun_agreement": False,
        "titled_name_agreement": False,
        "binding_agreement": False,
        "name_continuity": False,
        "speaker_continuity": False,
        "apposition_continuity": False,
        "syntactic_binding": False,
        "person_agreement": False,
        "singular_they": False,
        "reader_you": False,
        "title_agreement": False,
        "names_from_name_heads": False,
        "name_ties_to_most_mentioned": False,
        "archive_size": 0,
        "protected_cells": 0,
        "eviction": "least_used",
        "pronoun_agreement": [],
        "name_agreement": False,
        "pruning_bound": None,
        "beam_width": 1,
        "max_batch_steps": DEFAULT_MAX_BATCH_STEPS,
        "grammar_switches": {},
        "scorer": {"@scorers": "spacy_entmem.entity_memory_scorer.v1"},
    },
    default_score_weights={"gap_f1": 0.5, "coref_f": 0.5},
)
def make_entity_memory(
    nlp: Language, name: str, model: Model, cluster_prefix: str, mentions_key: str, gap_key: str,
    candidates_key: str, negatives_per_token: float, entity_threshold: float, new_entity_bias: float, replace_existing: bool, store_memory_log: bool, self_link_weight: float,
    positive_weight: float, negative_weight: float, sparsity_weight: float, full_link_weight: float,
    full_negatives: int, lm_weight: float, count_threshold: float, temperature_halving_examples: int,
    scorer: Optional[Callable], disabled_pair_features: List[str] = [],  # noqa: B006 (spaCy config default)
    name_genders: bool = False, pronoun_agreement: List[str] = [],  # noqa: B006 (spaCy config default)
    name_agreement: bool = False, animacy_agreement: bool = False, pruning_bound: Optional[float] = None,
    narrator_continuity: bool = False, noun_number_agreement: bool = False, beam_width: int = 1,
    max_batch_steps: Optional[int] = None, titled_name_agreement: bool = False, binding_agreement: bool = False,
    name_continuity: bool = False, plural_noun_agreement: bool = False, speaker_continuity: bool = False,
    apposition_continuity: bool = False, syntactic_binding: bool = False, person_agreement: bool = False,
    singular_they: bool = False, reader_you: bool = False, title_agreement: bool = False,
    names_from_name_heads: bool = False, name_ties_to_most_mentioned: bool = False, archive_size: int = 0,
    protected_cells: int = 0, eviction: str = "least_used",
    grammar_switches: Dict[str, Any] = {},  # noqa: B006 (spaCy config default)
) -> "EntityMemory":
    weights = LossWeights(self_link_weight, positive_weight, negative_weight, sparsity_weight,
                          full_link_weight, full_negatives, lm_weight)
    return EntityMemory(
        nlp.vocab, model, name, cluster_prefix=cluster_prefix, mentions_key=mentions_key, gap_key=gap_key,
        candidates_key=candidates_key, negatives_per_token=negatives_per_token, new_entity_bias=new_entity_bias,
        entity_threshold=entity_threshold, replace_existing=replace_existing,
        store_memory_log=store_memory_log, weights=weights, count_threshold=count_threshold,
        temperature_halving_examples=temperature_halving_examples, scorer=scorer,
        disabled_pair_features=disabled_pair_features, name_genders=name_genders,
        pronoun_agreement=pronoun_agreement, name_agreement=name_agreement, animacy_agreement=animacy_agreement,
        pruning_bound=pruning_bound, narrator_continuity=narrator_continuity,
        noun_number_agreement=noun_number_agreement, beam_width=beam_width, max_batch_steps=max_batch_steps,
        titled_name_agreement=titled_name_agreement, binding_agreement=binding_agreement,
        name_continuity=name_continuity, plural_noun_agreement=plural_noun_agreement,
        speaker_continuity=speaker_continuity, apposition_continuity=apposition_continuity,
        syntactic_binding=syntactic_binding, person_agreement=person_agreement, singular_they=singular_they,
        reader_you=reader_you, title_agreement=title_agreement, names_from_name_heads=names_from_name_heads,
        name_ties_to_most_mentioned=name_ties_to_most_mentioned, archive_size=archive_size,
        protected_cells=protected_cells, eviction=eviction, grammar_switches=grammar_switches,
    )


def eviction_weights(eviction: str) -> Optional[numpy.ndarray]:
    """The weights of the eviction policy a setting names: None for "least_used", the packaged learnt policy for
    "learnt" (``training.eviction``), else the policy JSON file at that path; a clear error otherwise."""
    if eviction == "least_used":
        return None
    from ..training.eviction import load_weights

    return load_weights("packaged" if eviction == "learnt" else eviction)


def check_book_settings(archive_size: Any, protected_cells: Any) -> None:
    """``archive_size`` and ``protected_cells`` are whole numbers ≥ 0; a clear error names the one that is not."""
    for name, value in (("archive_size", archive_size), ("protected_cells", protected_cells)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"[spacy-entmem] invalid entity_memory config: {name} must be a whole number >= 0, "
                             f"got {value!r}")


def _check_config(prefix: str, mentions_key: str, threshold: float, weights: LossWeights, halving: int,
                  count_threshold: float) -> None:
    problems = []
    if not prefix or not re.fullmatch(r"[\w.-]+", prefix):
        problems.append(f"cluster_prefix must be a non-empty name, got {prefix!r}")
    if not mentions_key:
        problems.append("mentions_key must be non-empty")
    if re.fullmatch(rf"{re.escape(prefix)}_\d+", mentions_key or ""):
        problems.append(f"mentions_key {mentions_key!r} would clash with the cluster keys '{prefix}_N'")
    if not 0.0 <= threshold <= 1.0:
        problems.append(f"entity_threshold must be in [0, 1], got {threshold}")
    for field_name, value in (("self_link_weight", weights.self_link), ("positive_weight", weights.positive),
                              ("negative_weight", weights.negative), ("sparsity_weight", weights.sparsity),
                              ("full_link_weight", weights.full_link), ("lm_weight", weights.language_model)):
        if value < 0:
            problems.append(f"{field_name} must be >= 0, got {value}")
    if not 0.0 <= count_threshold <= 1.0:
        problems.append(f"count_threshold must be in [0, 1], got {count_threshold}")
    if weights.full_negatives < 0:
        problems.append(f"full_negatives must be >= 0, got {weights.full_negatives}")
    if halving < 1:
        problems.append(f"temperature_halving_examples must be >= 1, got {halving}")
    if problems:
        raise ValueError("[spacy-entmem] invalid entity_memory config: " + "; ".join(problems))


def check_pair_feature_names(names: Iterable[str]) -> None:
    from ..linguistics.cell_rules import ALL_FEATURE_NAMES

    unknown = [name for name in names if name not in ALL_FEATURE_NAMES]
    if unknown:
        raise ValueError(f"[spacy-entmem] invalid entity_memory config: disabled_pair_features {unknown} are not "
                         f"pair features of the mention memory; choose from {list(ALL_FEATURE_NAMES)}")


AGREEMENT_FEATURES = {"gender": "gender agreement", "number": "number agreement"}


def agreement_indices(names: Iterable[str]) -> tuple:
    """The pair features behind ``pronoun_agreement`` (a pronoun never joins a cell whose gender / number
    differs from its own), with a clear error for anything else."""
    from ..linguistics.cell_rules import PAIR_FEATURE_NAMES

    names = list(names)
    unknown = [name for name in names if name not in AGREEMENT_FEATURES]
    if unknown:
        raise ValueError(f"[spacy-entmem] invalid entity_memory config: pronoun_agreement {unknown} is not one of "
                         f"{sorted(AGREEMENT_FEATURES)}")
    return tuple(PAIR_FEATURE_NAMES.index(AGREEMENT_FEATURES[name]) for name in names)


def check_pruning_bound(bound: Any) -> None:
    """``pruning_bound`` is null (read every candidate) or a finite number (a COREF score no cell is taken to
    exceed when a candidate is pruned before the memory loop)."""
    if bound is None:
        return
    if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not math.isfinite(bound):
        raise ValueError(f"[spacy-entmem] invalid entity_memory config: pruning_bound must be null or a finite "
                         f"number, got {bound!r}")


def check_beam_width(width: Any) -> None:
    """``beam_width`` is a whole number ≥ 1 (1: greedy decoding)."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise ValueError(f"[spacy-entmem] invalid entity_memory config: beam_width must be a whole number >= 1 "
                         f"(1: greedy), got {width!r}")


def check_max_batch_steps(steps: Any) -> None:
    """``max_batch_steps`` is null (``batch_size`` alone bounds a batch) or a whole number >= 1."""
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or steps < 1):
        raise ValueError(f"[spacy-entmem] invalid entity_memory config: max_batch_steps must be null or a whole "
                         f"number >= 1 (documents x their longest candidate list per batch), got {steps!r}")


def read_windows(stream: Iterable[Doc], steps: Callable[[Doc], int], max_docs: int,
                 max_steps: Optional[int]) -> Iterator[Tuple[List[Doc], List[int]]]:
    """The stream in consecutive windows of at most ``max_docs`` documents, each closed as soon as its steps
    reach ``max_steps`` (if given); each window with its documents' step counts."""
    docs: List[Doc] = []
    lengths: List[int] = []
    total = 0
    for doc in stream:
        docs.append(doc)
        lengths.append(steps(doc))
        total += lengths[-1]
        if len(docs) >= max_docs or (max_steps is not None and total >= max_steps):
            yield docs, lengths
            docs, lengths, total = [], [], 0
    if docs:
        yield docs, lengths


def length_batches(sorted_lengths: Sequence[int], max_docs: int, max_steps: Optional[int]) -> List[List[int]]:
    """Positions of documents sorted by length (shortest first) cut into consecutive batches of at most
    ``max_docs`` documents whose padded size (documents × the batch's longest) is at most ``max_steps`` (if
    given); a document longer than ``max_steps`` is a batch of its own."""
    batches: List[List[int]] = []
    current: List[int] = []
    for position, length in enumerate(sorted_lengths):
        full = len(current) >= max_docs or (max_steps is not None and (len(current) + 1) * length > max_steps)
        if current and full:
            batches.append(current)
            current = []
        current.append(position)
    if current:
        batches.append(current)
    return batches


def pair_feature_indices(names: Iterable[str], n_features: int) -> tuple:
    """The indices of the pair features ``names`` in a memory that has ``n_features`` (a parse feature
    disabled in a memory without the parse's features is an error)."""
    from ..linguistics.cell_rules import ALL_FEATURE_NAMES

    check_pair_feature_names(names)
    absent = [name for name in names if ALL_FEATURE_NAMES.index(name) >= n_features]
    if absent:
        raise ValueError(f"[spacy-entmem] invalid entity_memory config: disabled_pair_features {absent} are parse "
                         f"features, and this memory has none (architecture spacy_entmem.MentionMemory.v2 has)")
    return tuple(ALL_FEATURE_NAMES.index(name) for name in names)


SORT_WINDOW = 8  # batches read ahead by ``pipe`` and regrouped by length
# what training and shipping leave in cfg (the rest comes from the config); tok2vec_digest: the weights of the tok2vec
# it reads, see ``pipeline.listeners``
STATE_KEYS = ("examples_seen", "input_width", "tok2vec_digest")


class EntityMemory(TrainablePipe):
    """Reads each doc left to right with a bounded entity memory and writes coreference clusters to
    ``doc.spans[f"{cluster_prefix}_{i}"]``, all mentions to ``doc.spans[mentions_key]`` and the memory
    log to ``doc._.entity_memory_log``."""

    def __init__(
        self, vocab: Vocab, model: Model, name: str = "entity_memory", *, cluster_prefix: str = "coref_clusters",
        mentions_key: str = "coref_mentions", gap_key: str = "gap", candidates_key: str = CANDIDATES_KEY,
        negatives_per_token: float = 0.4, entity_threshold: float = 0.5, new_entity_bias: float = 1.0,
        replace_existing: bool = True, store_memory_log: bool = True, weights: Optional[LossWeights] = None,
        count_threshold: float = 0.5, temperature_halving_examples: int = 20000, scorer: Optional[Callable] = None,
        disabled_pair_features: Iterable[str] = (), name_genders: bool = False,
        pronoun_agreement: Iterable[str] = (), name_agreement: bool = False, animacy_agreement: bool = False,
        pruning_bound: Optional[float] = None, narrator_continuity: bool = False,
        noun_number_agreement: bool = False, beam_width: int = 1, max_batch_steps: Optional[int] = None,
        titled_name_agreement: bool = False, binding_agreement: bool = False, name_continuity: bool = False,
        plural_noun_agreement: bool = False, speaker_continuity: bool = False, apposition_continuity: bool = False,
        syntactic_binding: bool = False, person_agreement: bool = False, singular_they: bool = False,
        reader_you: bool = False, title_agreement: bool = False, names_from_name_heads: bool = False,
        name_ties_to_most_mentioned: bool = False, archive_size: int = 0, protected_cells: int = 0,
        eviction: str = "least_used", grammar_switches: Optional[Dict[str, Any]] = None,
    ):
        weights = weights or LossWeights()
        _check_config(cluster_prefix, mentions_key, entity_threshold, weights, temperature_halving_examples,
                      count_threshold)
        if not new_entity_bias > 0:
            raise ValueError(f"[spacy-entmem] invalid entity_memory config: new_entity_bias must be > 0, "
                             f"got {new_entity_bias}")
        if negatives_per_token < 0:
            raise ValueError(f"[spacy-entmem] invalid entity_memory config: negatives_per_token must be >= 0, "
                             f"got {negatives_per_token}")
        if not candidates_key or candidates_key in (mentions_key, gap_key):
            raise ValueError(f"[spacy-entmem] invalid entity_memory config: candidates_key {candidates_key!r} "
                             "must be a non-empty span key distinct from mentions_key and gap_key")
        check_pair_feature_names(disabled_pair_features)
        agreement_indices(pronoun_agreement)
        check_pruning_bound(pruning_bound)
        check_beam_width(beam_width)
        check_max_batch_steps(max_batch_steps)
        check_book_settings(archive_size, protected_cells)
        eviction_weights(eviction)
        switches = GrammarSwitches.from_config(grammar_switches or {}, f"{name}.grammar_switches")
        register_extensions()
        self._negatives_rng = numpy.random.default_rng(0)
        self._upstreams: Optional[List[str]] = None  # the tok2vecs it listens to (``_check_vectors``), found once
        self._vectors_warned = False
        self.vocab = vocab
        self.model = model
        self.name = name
        self.weights = weights
        self.scorer = scorer
        self.cfg: Dict[str, Any] = {
            "cluster_prefix": cluster_prefix,
            "mentions_key": mentions_key,
            "gap_key": gap_key,
            "candidates_key": candidates_key,
            "negatives_per_token": negatives_per_token,
            "entity_threshold": entity_threshold,
            "new_entity_bias": new_entity_bias,
            "replace_existing": replace_existing,
            "store_memory_log": store_memory_log,
            "count_threshold": count_threshold,
            "temperature_halving_examples": temperature_halving_examples,
            "disabled_pair_features": list(disabled_pair_features),
            "name_genders": bool(name_genders),
            "animacy_agreement": bool(animacy_agreement),
            "pronoun_agreement": list(pronoun_agreement),
            "name_agreement": bool(name_agreement),
            "narrator_continuity": bool(narrator_continuity),
            "noun_number_agreement": bool(noun_number_agreement),
            "titled_name_agreement": bool(titled_name_agreement),
            "binding_agreement": bool(binding_agreement),
            "name_continuity": bool(name_continuity),
            "plural_noun_agreement": bool(plural_noun_agreement),
            "speaker_continuity": bool(speaker_continuity),
            "apposition_continuity": bool(apposition_continuity),
            "syntactic_binding": bool(syntactic_binding),
            "person_agreement": bool(person_agreement),
            "singular_they": bool(singular_they),
            "reader_you": bool(reader_you),
            "title_agreement": bool(title_agreement),
            "names_from_name_heads": bool(names_from_name_heads),
            "name_ties_to_most_mentioned": bool(name_ties_to_most_mentioned),
            "archive_size": int(archive_size),
            "protected_cells": int(protected_cells),
            "eviction": str(eviction),
            "pruning_bound": pruning_bound,
            "beam_width": beam_width,
            "max_batch_steps": max_batch_steps,
            "grammar_switches": switches.to_config(),
            "examples_seen": 0,
        }

    @property
    def grammar_switches(self) -> GrammarSwitches:
        """The grammar switches it runs with (its ``grammar_switches`` setting; ``linguistics.switches``)."""
        return GrammarSwitches.from_config(self.cfg.get("grammar_switches", {}), f"{self.name}.grammar_switches")

    # -- inference ----------------------------------------------------------------------------------
    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """As ``TrainablePipe.pipe``, but the documents of a window of ``SORT_WINDOW`` batches reach the memory
        in batches of similar length (candidates for a span model, tokens otherwise) and come out in their
        input order. A padded batch's steps are mostly padding otherwise (69 % on GAP at batch size 64); each
        document's result does not depend on its batch. A batch holds at most ``batch_size`` documents and, with
        ``max_batch_steps``, at most that many padded steps (documents × the longest one), so many short
        documents share a batch while long ones are read a few at a time (a longer one alone): the memory's
        working set stays bounded whatever ``batch_size`` is."""
        error_handler = self.get_error_handler()
        key = self.cfg["candidates_key"] if is_span_model(self.model) else None  # one model walk, not one per doc
        max_steps = self.cfg.get("max_batch_steps")

        def steps(doc: Doc) -> int:
            return len(doc.spans[key]) if key is not None and key in doc.spans else len(doc)

        for window, lengths in read_windows(stream, steps, batch_size * SORT_WINDOW,
                                            None if max_steps is None else max_steps * SORT_WINDOW):
            order = sorted(range(len(window)), key=lengths.__getitem__)
            failed = set()
            for positions in length_batches([lengths[i] for i in order], batch_size, max_steps):
                batch = [order[p] for p in positions]
                docs = [window[i] for i in batch]
                try:
                    self.set_annotations(docs, self.predict(docs))
                except Exception as error:
                    error_handler(self.name, self, docs, error)
                    failed.update(batch)
            yield from (doc for i, doc in enumerate(window) if i not in failed)

    @with_own_switches
    def predict(self, docs: Iterable[Doc]) -> List[MemoryLog]:
        return self._predict(list(docs))[0]

    @with_own_switches
    def read_in_stream(self, doc: Doc, carried: Optional[CarriedMemory]) -> CarriedMemory:
        """Annotate ``doc`` as the next text of a stream whose memory is ``carried`` (None: a new stream): its
        mentions may join the entities of earlier texts, and the entity ids go on counting. Returns the memory
        after the doc, moved past it (``CarriedMemory.after_text``): what the next text starts from."""
        module = torch_memory(self.model)
        if module is None:
            raise ValueError(UNTRAINED_MESSAGE)
        if not is_teacher_forced(self.model):
            raise ValueError(f"[spacy-entmem] component '{self.name}' cannot carry its memory from text to text: only "
                             "the mention memory (spacy_entmem.MentionMemory.v1) can")
        module.carried = [carried]
        try:
            logs, out = self._predict([doc])
        finally:
            module.carried = None
        self.set_annotations([doc], logs)
        final = out.final_states[0]
        if carried is not None:  # how far the stream has come: counted on
            final.texts_read, final.tokens_read = carried.texts_read, carried.tokens_read
        return final.after_text(len(doc))

    def _predict(self, docs: List[Doc]) -> Tuple[List[MemoryLog], Any]:
        """The docs' memory logs and the model's output."""
        if torch_memory(self.model) is None:
            raise ValueError(UNTRAINED_MESSAGE)
        if not docs:
            return [], None
        self._check_vectors(docs)
        spans = [self.candidates(doc) for doc in docs] if is_span_model(self.model) else None
        forced = is_teacher_forced(self.model)
        # the memories a stream hands in (None: fresh ones; only the mention memory carries any)
        carried = torch_memory(self.model).carried if forced else None
        if forced:
            out = self.run_memory(docs, spans)
        else:
            out = self.model.predict(docs if spans is None else (docs, spans))
        logs = []
        for i, doc in enumerate(docs):
            n = len(doc) if spans is None else len(spans[i])
            log = {
                "entity": out.entity[i, :n].cpu().numpy().astype(numpy.float32),
                "overwrite": out.overwrite[i, :n].cpu().numpy().astype(numpy.float32),
                "coref": out.coref[i, :n].cpu().numpy().astype(numpy.float32),
                "usage": out.usage[i, :n].cpu().numpy().astype(numpy.float32),
            }
            if spans is not None:
                log["spans"] = spans[i]
            if forced:  # the decisions the memory took in its loop: the clusters are its contents
                log["action"] = out.actions[i, :n].cpu().numpy().astype(numpy.int8)
                log["cell"] = out.cells[i, :n].cpu().numpy().astype(numpy.int16)
                if out.entities is not None:  # the memory's entity ids
                    log["entity_id"] = out.entities[i, :n].astype(numpy.int64)
                    start = carried[i] if carried is not None else None
                    log["first_entity"] = numpy.asarray([0 if start is None else start.next_entity], dtype=numpy.int64)
                log["decided_in_loop"] = numpy.ones(1, dtype=bool)
                if out.pruned is not None:  # candidates the loop skipped (pruning_bound)
                    log["pruned"] = out.pruned[i, :n].copy()
            else:
                log["action"], log["cell"] = decode_actions(log, self.cfg["entity_threshold"],
                                                            self.cfg.get("new_entity_bias", 1.0))
            logs.append(log)
        return logs, out

    def _check_vectors(self, docs: List[Doc]) -> None:
        """Warn once if this memory listens to a tok2vec and the docs' vectors were not made by the one it was
        trained with (``listeners``: a digest recorded at shipping, a stamp the package's tok2vec leaves)."""
        from .listeners import VECTORS_STAMP, foreign_vectors_message, listened_upstreams

        expected = self.cfg.get("tok2vec_digest")
        if not expected or self._vectors_warned:
            return
        if self._upstreams is None:
            self._upstreams = listened_upstreams(self)
        if self._upstreams and any(doc.user_data.get(VECTORS_STAMP) != expected for doc in docs):
            self._vectors_warned = True
            warnings.warn(foreign_vectors_message(self.name, self._upstreams), stacklevel=2)

    def run_memory(self, docs: List[Doc], spans: List[numpy.ndarray]):
        """The teacher-forced memory's output (``MemoryOutput``) for docs with their candidates (in step
        order), with this component's decision settings."""
        self._set_decision_offsets()
        self._set_attribute_settings()
        return self.model.predict((docs, spans, None))

    def _set_attribute_settings(self) -> None:
        set_attribute_settings(self.model, self.cfg.get("name_genders", False),
                               self.cfg.get("animacy_agreement", False), self.cfg.get("reader_you", False))

    def _set_decision_offsets(self) -> None:
        """A teacher-forced memory decides inside its loop: pass it the decision settings as log-space
        offsets (entity_threshold 0.5 and new_entity_bias 1 leave the argmax unchanged)."""
        module = torch_memory(self.model)
        threshold = float(self.cfg["entity_threshold"])  # 1.0: nothing is a mention; 0.0: every candidate is
        module.ignore_bias = math.inf if threshold >= 1 else -math.inf if threshold <= 0 else \
            math.log(threshold / (1 - threshold))
        module.new_entity_bias = math.log(float(self.cfg.get("new_entity_bias", 1.0)))
        module.disabled_pair_features = pair_feature_indices(self.cfg.get("disabled_pair_features", []),
                                                              len(module.feature_sizes))
        module.agreement_constraints = agreement_indices(self.cfg.get("pronoun_agreement", []))
        for rule in DECISION_RULES:  # the memory's on / off rules, named as in the cfg (off when absent)
            setattr(module, rule, bool(self.cfg.get(rule, False)))
        archive_size, protected = self.cfg.get("archive_size", 0), self.cfg.get("protected_cells", 0)
        check_book_settings(archive_size, protected)
        module.archive_size, module.protected_cells = int(archive_size), int(protected)
        module.eviction_weights = eviction_weights(self.cfg.get("eviction", "least_used"))
        bound = self.cfg.get("pruning_bound")
        check_pruning_bound(bound)
        module.pruning_bound = None if bound is None else float(bound)
        width = self.cfg.get("beam_width", 1)
        check_beam_width(width)
        module.beam_width = width

    @with_own_switches
    def set_annotations(self, docs: Iterable[Doc], logs: List[MemoryLog]) -> None:
        prefix = self.cfg["cluster_prefix"]
        pattern = re.compile(rf"^{re.escape(prefix)}_\d+$")
        for doc, log in zip(docs, logs):
            existing = [key for key in doc.spans if pattern.match(key) or key == self.cfg["mentions_key"]]
            if existing and not self.cfg["replace_existing"]:
                raise ValueError(
                    f"[spacy-entmem] doc {doc.text[:40]!r}... already has span groups {existing[:5]}; "
                    "set replace_existing = true to replace them, or choose another cluster_prefix"
                )
            write_clusters(doc, log_mentions(log), prefix, self.cfg["mentions_key"], seen_before(log))
            doc._.entity_memory_log = log if self.cfg["store_memory_log"] else None
            doc._.entity_count = count_entities(log["overwrite"], self.cfg["count_threshold"])

    # -- training -----------------------------------------------------------------------------------
    @property
    def temperature(self) -> float:
        epochs = self.cfg["examples_seen"] // self.cfg["temperature_halving_examples"]
        return 0.5 ** epochs

    @with_own_switches
    def update(
        self, examples: Iterable[Example], *, drop: float = 0.0, sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        from ..nn.losses import memory_loss

        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "EntityMemory.update")
        self.cfg["tok2vec_digest"] = None  # training moves the weights: the shipped digest no longer applies
        if is_teacher_forced(self.model):
            return self._update_teacher_forced(examples, sgd, losses)
        inputs, sups = self._training_batch(examples)
        if all(sup is None for sup in sups) and not self.weights.language_model:
            return losses
        # Docs without supervision stay in the batch (a shared tok2vec's listener expects the whole
        # batch) and contribute no loss.
        sups = [sup or DocSupervision(0) for sup in sups]
        module = torch_memory(self.model)
        if module is not None:
            module.temperature = self.temperature
        out, backprop = self.model.begin_update(inputs)
        loss, grads = memory_loss(out, sups, self.weights.sparsity, self.weights.language_model)
        backprop(grads)
        if sgd is not None:
            self.finish_update(sgd)
        self.cfg["examples_seen"] += len(examples)
        losses[self.name] += loss
        return losses

    def _update_teacher_forced(self, examples: List[Example], sgd: Optional[Optimizer],
                               losses: Dict[str, float]) -> Dict[str, float]:
        """One step of teacher forcing: the memory follows the gold actions; loss = mean −log p(gold
        action) over the batch's candidate steps."""
        import torch

        from ..nn.memory.mention_memory import action_loss

        inputs = self._teacher_forced_batch(examples)
        self._set_attribute_settings()
        out, backprop = self.model.begin_update(inputs)
        loss = action_loss(out)
        leaves = out.tensors()
        grads = torch.autograd.grad(loss, leaves, allow_unused=True)
        backprop(list(grads))
        if sgd is not None:
            self.finish_update(sgd)
        self.cfg["examples_seen"] += len(examples)
        losses[self.name] += float(loss.detach())
        return losses

    def _teacher_forced_batch(self, examples: List[Example]):
        """(docs, candidates, gold code of each candidate, partially annotated flag per doc). Codes: the
        lowest of a mention's clusters; -1 for a non-mention; in a GAP document (partial) A is 0, B is 1,
        the pronoun 0 or 1 as annotated (or SOME_OTHER_ENTITY), every other candidate UNKNOWN."""
        from ..training.targets import cluster_groups, find_gap_group, gold_mentions

        docs, spans, clusters, partial = [], [], [], []
        for eg in examples:
            docs.append(eg.predicted)
            gap_group = find_gap_group(eg.reference, self.cfg["gap_key"])
            if gap_group is None and not cluster_groups(eg.reference, self.cfg["cluster_prefix"]):
                # no annotation (an unannotated doc): no steps, no loss; the doc stays in the batch for a
                # shared tok2vec's listener
                candidates, codes = numpy.zeros((0, 2), dtype="int64"), numpy.zeros(0, dtype="int64")
            elif gap_group is not None:
                candidates, codes = self._gap_codes(eg, gap_group)
            else:
                gold = gold_mentions(eg, self.cfg["gap_key"], self.cfg["cluster_prefix"])
                candidates = self.training_candidates(eg)
                codes = numpy.asarray([min(gold[s]) if s in gold else -1 for s in map(tuple, candidates.tolist())],
                                      dtype="int64")
            spans.append(candidates)
            clusters.append(codes)
            partial.append(gap_group is not None)
        return docs, spans, clusters, partial

    def _gap_codes(self, eg: Example, group):
        from ..training.targets import gold_mentions
        from ..nn.memory.mention_memory import SOME_OTHER_ENTITY, UNKNOWN

        labelled = {label: span for span, labels in gold_mentions(eg, self.cfg["gap_key"]).items()
                    for label in labels}
        codes_by_span = {labelled[label]: code for label, code in (("A", 0), ("B", 1)) if label in labelled}
        if "PRONOUN" in labelled:
            antecedent = 0 if group.attrs.get("A_coref") else 1 if group.attrs.get("B_coref") else SOME_OTHER_ENTITY
            codes_by_span.setdefault(labelled["PRONOUN"], antecedent)
        candidates = self.training_candidates(eg)
        codes = numpy.asarray([codes_by_span.get(s, UNKNOWN) for s in map(tuple, candidates.tolist())], dtype="int64")
        return candidates, codes

    def supervision(self, eg: Example):
        from ..training.targets import example_supervision

        return example_supervision(eg, self.weights, self.cfg["gap_key"], self.cfg["cluster_prefix"])

    def candidates(self, doc: Doc) -> numpy.ndarray:
        """The candidate mentions of a doc in step order, (M, 2) [start, end), from
        ``doc.spans[candidates_key]`` (written by an upstream ``entmem_span_finder``)."""
        key = self.cfg["candidates_key"]
        if key not in doc.spans:
            raise ValueError(
                f"[spacy-entmem] component '{self.name}' reads mention candidates from doc.spans[{key!r}], but "
                f"doc {doc.text[:40]!r}... has none: add an 'entmem_span_finder' (spans_key = {key!r}) before "
                "it in the pipeline"
            )
        return _as_steps({(span.start, span.end) for span in doc.spans[key]})

    def training_candidates(self, eg: Example) -> numpy.ndarray:
        """Gold mentions plus the proposals on the predicted doc (when an annotating span finder made
        any), of which at most ``negatives_per_token`` × length are kept, chosen reproducibly."""
        from ..training.targets import gold_mentions

        gold = set(gold_mentions(eg, self.cfg["gap_key"], self.cfg["cluster_prefix"]))
        group = eg.predicted.spans.get(self.cfg["candidates_key"])
        others = sorted({(s.start, s.end) for s in group} - gold) if group is not None else []
        limit = int(self.cfg["negatives_per_token"] * len(eg.predicted))
        if len(others) > limit:  # other negatives each epoch, reproducibly (one generator per component)
            keep = self._negatives_rng.choice(len(others), size=limit, replace=False)
            others = [others[i] for i in sorted(keep)]
        return _as_steps(gold | set(others))

    def _training_batch(self, examples: List[Example]):
        """Model input and per-example supervision (None where an example carries none)."""
        from ..training.targets import span_supervision

        docs = [eg.predicted for eg in examples]
        if not is_span_model(self.model):
            return docs, [self.supervision(eg) for eg in examples]
        spans = [self.training_candidates(eg) for eg in examples]
        sups = [span_supervision(eg, [tuple(s) for s in c.tolist()], self.weights, self.cfg["gap_key"])
                for eg, c in zip(examples, spans)]
        return (docs, spans), sups

    def get_loss(self, examples: Iterable[Example], scores) -> Any:
        from ..nn.losses import memory_loss

        _, sups = self._training_batch(list(examples))
        sups = [sup or DocSupervision(0) for sup in sups]
        return memory_loss(scores, sups, self.weights.sparsity, self.weights.language_model)

    def initialize(
        self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None
    ) -> None:
        util.check_lexeme_norms(self.vocab, "entity_memory")
        validate_get_examples(get_examples, "EntityMemory.initialize")
        first = list(islice(get_examples(), 10))
        inputs = self._teacher_forced_batch(first) if is_teacher_forced(self.model) else self._training_batch(first)[0]
        vocab_size = lm_vocab_size(self.model)
        if self.weights.language_model and not vocab_size:
            raise ValueError(
                "[spacy-entmem] lm_weight > 0 needs a language-model head: set lm_vocab_size in the "
                "model block (spacy_entmem.PeTra.v2 or spacy_entmem.ReferentialReader.v1)"
            )
        if vocab_size:
            words = count_lm_vocabulary((eg.predicted for eg in get_examples()), vocab_size)
            set_lm_vocabulary(self.model, words)
        with_supervision = sum(self.supervision(eg) is not None for eg in islice(get_examples(), 100))
        if not with_supervision and not self.weights.language_model:
            raise ValueError(
                "[spacy-entmem] none of the first 100 training examples carries coreference supervision: "
                f"expected a sparse '{self.cfg['gap_key']}' span group (GAP) or 'coref_clusters_N' span groups"
            )
        self.model.initialize(X=inputs)
        if self.weights.language_model and nlp is not None:
            check_no_lookahead(nlp, self.name, self.model)

    def add_label(self, label: str) -> int:
        raise NotImplementedError("[spacy-entmem] entity_memory has no labels")

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
        return self.scorer(examples, gap_key=self.cfg["gap_key"], **kwargs) if self.scorer else {}

    # -- serialization ------------------------------------------------------------------------------
    def _build_before_loading(self) -> None:
        layer = find_memory_layer(self.model)
        if not layer.layers and self.cfg.get("input_width"):
            build_torch_layer(layer, int(self.cfg["input_width"]))

    def _remember_width(self) -> None:
        layer = find_memory_layer(self.model)
        if layer.has_dim("nI"):
            self.cfg["input_width"] = layer.get_dim("nI")

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._remember_width()
        return srsly.msgpack_dumps({
            "cfg": srsly.json_dumps(self.cfg),
            "model": self.model.to_bytes(),
        })

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "EntityMemory":
        msg = srsly.msgpack_loads(bytes_data)
        restore_cfg(self.cfg, srsly.json_loads(msg["cfg"]), STATE_KEYS)
        self._build_before_loading()
        self.model.from_bytes(msg["model"])
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        self._remember_width()
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg", self.cfg)
        self.model.to_disk(path / "model")

    def from_disk(self, path, *, exclude=tuple()) -> "EntityMemory":
        path = util.ensure_path(path)
        restore_cfg(self.cfg, srsly.read_json(path / "cfg"), STATE_KEYS)
        self._build_before_loading()
        self.model.from_disk(path / "model")
        return self


def _as_steps(spans) -> numpy.ndarray:
    from ..training.targets import step_order

    return numpy.asarray(sorted(spans, key=step_order), dtype="int64").reshape(-1, 2)


LOOKAHEAD_TEXTS = ("Anna met Bob in Paris and she said hello", "Anna met Bob in Paris and she said goodbye")


def check_no_lookahead(nlp: Language, name: str, model: Model) -> None:
    """The language-model objective predicts token t+1 from tokens 1..t: raise if the token vectors the
    memory reads already depend on later tokens (a windowed CNN tok2vec or a transformer does)."""
    docs = [nlp.make_doc(text) for text in LOOKAHEAD_TEXTS]
    for pipe_name, proc in nlp.pipeline:
        if pipe_name == name:
            break
        docs = [proc(doc) for doc in docs]
    layer = find_layer(model, TOKEN_IDS_LAYER)
    if layer is None:
        return
    first, second = layer.layers[0].predict(docs)
    if not numpy.allclose(model.ops.to_numpy(first[:-1]), model.ops.to_numpy(second[:-1]), atol=1e-6):
        raise ValueError(
            f"[spacy-entmem] component '{name}': lm_weight > 0, but the token vectors it reads depend on "
            "later tokens (changing the last word changed earlier vectors), so next-token prediction would "
            "see the answer. Use a tok2vec without right context (e.g. spacy.MaxoutWindowEncoder.v2 with "
            "window_size = 0) or set lm_weight = 0."
        )
