"""``entmem_pronoun_resolver``: answers pronoun queries as GAP asks them — does this pronoun refer to name A, to
name B? — with a small classifier over what the memory decided, how sure it was, where the spans stand and the
token vectors around them (``pronoun_features``), read off the memory log; then (``align_clusters``) it makes the
doc's clusters say the same of the pronoun asked about, so the answer and the clusters agree.

A query is a span group (``query_key``, "gap" by default) holding spans labelled A, B and PRONOUN, the format of
GAP's converted documents; the component writes ``A_probability``, ``B_probability``, ``A_coref`` and ``B_coref``
into the group's attrs. ``resolve`` takes the three spans directly; ``answer_query`` runs a pipeline on a text
with the three character ranges as candidates of the memory (as ``entmem gap-evaluate`` does) and returns the
answered doc, ``resolve_pronoun`` its two probabilities.

The resolver names the memory whose log it reads (``memory``): the pipeline's ``entity_memory`` by default (the
shipped default: one memory writes the clusters and answers the queries), or a memory of its own, kept disabled
(``QUERY_MEMORY``), when the pipeline annotates with another one than the head was trained over."""
import io
from typing import Dict, List, Optional, Sequence, Tuple

import numpy

import srsly
import torch
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..evaluation.gap import answer_pair
from ..models.memory import packaged_name_genders
from ..linguistics.columns import BOUND_END, GENDER
from ..linguistics.cell_rules import IS_PERSONAL_GENDER
from ..nn.pair_head import PairHead
from .clusters import align_pronoun
from ..linguistics.lexicon import StringIds
from ..linguistics.mentions import mention_attributes
from .mention_schemes import MEMORY
from .pronoun_features import TokenRange, query_features, role_features
from .span_encoder import SpanEncoder, span_pair_features
from ..linguistics.syntax import NO_TOKEN, forbidden_antecedents, parse_arrays, span_root
from .settings import restore_cfg

QUERY_LABELS = ("A", "B", "PRONOUN")
STATE_KEYS = ("input_width", "hidden_width", "n_models", "trained_on", "encoder_layers",
              "parse_roles")  # what the head was
# trained with, restored from the saved cfg whatever the config says


@Language.factory(
    "entmem_pronoun_resolver",
    assigns=["doc.spans"],
    requires=["doc._.entity_memory_log", "doc.tensor"],
    default_config={"query_key": "gap", "threshold": 0.5, "gender_agreement": True, "binding_agreement": False,
                    "rule_conditioning": False, "encoder_layers": [], "memory": MEMORY, "exclusive": True,
                    "single_answer": False, "align_clusters": True, "syntactic_binding": False,
                    "parse_roles": False},
)
def make_pronoun_resolver(nlp: Language, name: str, query_key: str, threshold: float,
                          gender_agreement: bool, binding_agreement: bool = False, rule_conditioning: bool = False,
                          encoder_layers: Sequence[int] = (), memory: str = MEMORY,
                          exclusive: bool = True, single_answer: bool = False,
                          align_clusters: bool = True, syntactic_binding: bool = False,
                          parse_roles: bool = False) -> "PronounResolver":
    return PronounResolver(name, query_key=query_key, threshold=threshold, gender_agreement=gender_agreement,
                           binding_agreement=binding_agreement, rule_conditioning=rule_conditioning,
                           encoder_layers=encoder_layers, memory=memory, pipeline=nlp, exclusive=exclusive,
                           single_answer=single_answer, align_clusters=align_clusters,
                           syntactic_binding=syntactic_binding, parse_roles=parse_roles)


class PronounResolver:
    """Scores (pronoun, A, B) queries with a trained ``PairHead``; ``set_head`` puts one in. With
    ``gender_agreement`` a he / she pronoun gets probability 0 for a candidate whose title, kinship word or given
    name (the packaged lexicon) has the other gender: GAP pairs a pronoun with two names of its own gender, so
    the head never saw such a pair. With ``binding_agreement`` an object pronoun gets probability 0 for the
    subject of its own clause ("Cobb allegedly choked her": not Cobb; ``binding``); with ``syntactic_binding`` a
    name binding theory rules out on the parse gets 0, as in the memory (``syntactically_bound``). With
    ``rule_conditioning``,
    where these rules rule out exactly one candidate, the other's probability is conditioned on that: P / (1 −
    P(ruled out)), the head's two answers read as excluding each other; the head learnt from GAP, whose two names
    always share the pronoun's gender, so alone it underrates the one name a mixed pair leaves ("Alan Turing met
    Joan Clarke. She …"). With ``encoder_layers`` the head also reads the span vectors of a frozen sentence
    encoder's layers (``span_encoder``). The head reads the log of ``memory``: where that is not the pipeline's
    running ``entity_memory``, a query doc is annotated again by it (``pipeline``, the nlp the factory was given,
    holds it), on a copy, with the query's spans among its candidates. With ``exclusive`` the two answers are read
    as one pronoun's single referent: P(A) + P(B) is at most 1 (both divided by their sum where it is more); with
    ``single_answer`` at most one name gets "yes", the likelier. With ``align_clusters`` the doc's clusters are
    made to say what the answer says of the pronoun asked about (``answer``). With ``parse_roles`` the head also
    reads the grammatical roles of the three spans in the parse (``pronoun_features.role_features``).
    """

    def __init__(self, name: str = "pronoun_resolver", *, query_key: str = "gap", threshold: float = 0.5,
                 gender_agreement: bool = True, binding_agreement: bool = False, rule_conditioning: bool = False,
                 encoder_layers: Sequence[int] = (), memory: str = MEMORY, pipeline: Optional[Language] = None,
                 exclusive: bool = True, single_answer: bool = False, align_clusters: bool = True,
                 syntactic_binding: bool = False, parse_roles: bool = False):
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"[spacy-entmem] {name}: threshold must be in [0, 1], got {threshold}")
        self.name = name
        self.cfg: Dict = {"query_key": query_key, "threshold": threshold, "gender_agreement": bool(gender_agreement),
                          "binding_agreement": bool(binding_agreement), "rule_conditioning": bool(rule_conditioning),
                          "encoder_layers": [int(layer) for layer in encoder_layers], "memory": memory,
                          "exclusive": bool(exclusive), "single_answer": bool(single_answer),
                          "align_clusters": bool(align_clusters), "syntactic_binding": bool(syntactic_binding),
                          "parse_roles": bool(parse_roles)}
        self.pipeline = pipeline
        self.head: Optional[PairHead] = None
        self.encoder: Optional[SpanEncoder] = SpanEncoder(encoder_layers) if encoder_layers else None

    def set_head(self, head: PairHead, trained_on: str = "") -> None:
        self.head = head.eval()
        self.cfg.update({"input_width": head.input_width, "hidden_width": head.models[0][0].out_features,
                         "n_models": len(head.models), "trained_on": trained_on})

    def resolve(self, doc: Doc, pronoun: TokenRange, a: TokenRange, b: TokenRange) -> Tuple[float, float]:
        """P(pronoun refers to A), P(pronoun refers to B): token ranges of an annotated doc."""
        if self.head is None:
            raise ValueError(f"[spacy-entmem] {self.name} has no trained head: train one (python -m "
                             "spacy_entmem.research.maintainer add-pronoun-resolver) or load a pipeline that has one")
        rows = query_rows(doc, pronoun, a, b, self.encoder, self.cfg.get("parse_roles", False))
        if rows.shape[1] != self.head.input_width:
            raise ValueError(f"[spacy-entmem] {self.name} was trained on {self.head.input_width} features, the doc "
                             f"gives {rows.shape[1]} (another tok2vec width?)")
        probabilities = self.head.predict(rows)
        syntactic = self.cfg.get("syntactic_binding", False)
        if self.cfg["gender_agreement"] or self.cfg["binding_agreement"] or syntactic:
            attrs = mention_attributes(doc, [pronoun, a, b], StringIds(), packaged_name_genders())
            ruled_out = numpy.zeros(2, dtype=bool)
            if self.cfg["gender_agreement"]:
                ruled_out |= gender_disagreements(attrs)
            if self.cfg["binding_agreement"]:
                ruled_out |= bound_candidates(attrs[0], (a, b))
            if syntactic:
                ruled_out |= syntactically_bound(doc, pronoun, (a, b))
            if self.cfg["rule_conditioning"] and ruled_out.sum() == 1:
                # the head's two answers read as excluding each other: P(the other | this one ruled out)
                probabilities[~ruled_out] = numpy.minimum(
                    1.0, probabilities[~ruled_out] / max(1.0 - float(probabilities[ruled_out][0]), 1e-6))
            probabilities[ruled_out] = 0.0
        total = float(probabilities.sum())
        if self.cfg.get("exclusive", True) and total > 1.0:  # one pronoun, one referent: P(A) + P(B) <= 1
            probabilities = probabilities / total
        probability_a, probability_b = probabilities.tolist()
        return probability_a, probability_b

    def __call__(self, doc: Doc) -> Doc:
        group = doc.spans.get(self.cfg["query_key"])
        if group is None or not len(group):
            return doc
        spans = {span.label_: span for span in group}
        missing = [label for label in QUERY_LABELS if label not in spans]
        if missing:
            raise ValueError(f"[spacy-entmem] {self.name}: the query span group '{group.name}' of the doc "
                             f"starting {doc.text[:40]!r} lacks spans labelled {missing}")
        ranges = [(spans[label].start, spans[label].end) for label in ("PRONOUN", "A", "B")]
        read = doc if self.cfg["memory"] == MEMORY else self._read_by_own_memory(doc, ranges)
        self.answer(doc, group, *ranges, probabilities=self.resolve(read, *ranges))
        return doc

    def answer(self, doc: Doc, group: SpanGroup, pronoun: TokenRange, a: TokenRange, b: TokenRange,
               probabilities: Tuple[float, float]) -> Tuple[bool, bool]:
        """Write the query's answer (``A_probability``, ``B_probability``, ``A_coref``, ``B_coref``) into the
        query group's attrs and, with ``align_clusters``, make the doc's clusters say the same of the pronoun
        (``clusters.align_pronoun``: it joins the name it refers to, or leaves the names' entities; with
        ``syntactic_binding``, the mentions the parse rules out for the pronoun leave the entity it joins); with two
        "yes" answers (``single_answer`` off) it joins the likelier name."""
        pa, pb = probabilities
        a_coref, b_coref = answer_pair(pa, pb, self.cfg["threshold"], self.cfg.get("single_answer", False))
        group.attrs.update({"A_probability": pa, "B_probability": pb, "A_coref": a_coref, "B_coref": b_coref})
        if self.cfg.get("align_clusters", True):
            referent = (a if pa >= pb else b) if a_coref and b_coref else a if a_coref else b if b_coref else None
            prefix, mentions_key = self._cluster_keys()
            forbidden = forbidden_antecedents(doc, *pronoun) if self.cfg.get("syntactic_binding", False) else []
            align_pronoun(doc, pronoun, referent, [a, b], prefix, mentions_key, forbidden)
        return a_coref, b_coref

    def _cluster_keys(self) -> Tuple[str, str]:
        """The running memory's cluster prefix and mentions key (its factory's defaults without one)."""
        if self.pipeline is not None and MEMORY in self.pipeline.component_names:
            cfg = self.pipeline.get_pipe(MEMORY).cfg
            return cfg["cluster_prefix"], cfg["mentions_key"]
        return "coref_clusters", "coref_mentions"

    def _read_by_own_memory(self, doc: Doc, ranges: Sequence[TokenRange]) -> Doc:
        """A copy of ``doc`` annotated by the resolver's own memory with the query's spans among its candidates
        (as ``annotate_query`` runs it): the log the head was trained on; ``doc``'s clusters stay as they are."""
        name = self.cfg["memory"]
        if self.pipeline is None or name not in self.pipeline.component_names:
            raise ValueError(f"[spacy-entmem] {self.name} reads the log of the memory '{name}', which "
                             + ("its pipeline lacks" if self.pipeline is not None else "it was built without a "
                                "pipeline to find in (make it with nlp.add_pipe)"))
        memory = self.pipeline.get_pipe(name)
        copy = doc.copy()
        add_candidates(copy, memory.cfg["candidates_key"], [copy[start:end] for start, end in ranges])
        return memory(copy)

    def pipe(self, docs, batch_size: int = 128):
        for doc in docs:
            yield self(doc)

    def _head_bytes(self) -> bytes:
        if self.head is None:
            raise ValueError(f"[spacy-entmem] {self.name}: nothing to save, no trained head")
        buffer = io.BytesIO()
        torch.save(self.head.state_dict(), buffer)
        return buffer.getvalue()

    def _load_head(self, data: bytes) -> None:
        head = PairHead(self.cfg["input_width"], self.cfg["hidden_width"], self.cfg["n_models"])
        head.load_state_dict(torch.load(io.BytesIO(data), weights_only=True))
        self.head = head.eval()
        layers = self.cfg["encoder_layers"]
        self.encoder = SpanEncoder(layers) if layers else None

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return srsly.msgpack_dumps({"cfg": srsly.json_dumps(self.cfg), "head": self._head_bytes()})

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "PronounResolver":
        msg = srsly.msgpack_loads(bytes_data)
        restore_cfg(self.cfg, srsly.json_loads(msg["cfg"]), STATE_KEYS)
        self._load_head(msg["head"])
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg", self.cfg)
        (path / "head.pt").write_bytes(self._head_bytes())

    def from_disk(self, path, *, exclude=tuple()) -> "PronounResolver":
        path = util.ensure_path(path)
        restore_cfg(self.cfg, srsly.read_json(path / "cfg"), STATE_KEYS)
        self._load_head((path / "head.pt").read_bytes())
        return self


def query_rows(doc: Doc, pronoun: TokenRange, a: TokenRange, b: TokenRange,
               encoder: Optional[SpanEncoder] = None, parse_roles: bool = False) -> numpy.ndarray:
    """(2, F) the head's rows for A and B: ``query_features``, with ``parse_roles`` ``role_features``, then,
    with an ``encoder``, ``span_pair_features`` of the three spans' vectors."""
    rows = query_features(doc, pronoun, a, b)
    if parse_roles:
        rows = numpy.concatenate([rows, role_features(doc, pronoun, a, b)], axis=1)
    if encoder is None:
        return rows
    chars = [(doc[start:end].start_char, doc[start:end].end_char) for start, end in (pronoun, a, b)]
    return numpy.concatenate([rows, span_pair_features(encoder(doc.text, chars))], axis=1)


def gender_disagreements(attrs: numpy.ndarray) -> numpy.ndarray:
    """(C,) bool from the ``mention_attributes`` of the pronoun and C candidates, in that order: the candidate
    has a masculine / feminine cue and the pronoun the other gender."""
    genders = attrs[:, GENDER]
    gendered = IS_PERSONAL_GENDER[genders]
    return gendered[0] & gendered[1:] & (genders[1:] != genders[0])


def bound_candidates(pronoun_attrs: numpy.ndarray, candidates: Sequence[TokenRange]) -> numpy.ndarray:
    """(len(candidates),) bool: the candidate ends where the subject the pronoun cannot refer to ends
    (``binding.bound_subject_end``, in the pronoun's ``mention_attributes`` row)."""
    bound_end = pronoun_attrs[BOUND_END]
    return numpy.array([bound_end >= 0 and end == bound_end for _, end in candidates], dtype=bool)


def syntactically_bound(doc: Doc, pronoun: TokenRange, candidates: Sequence[TokenRange]) -> numpy.ndarray:
    """(len(candidates),) bool: binding theory read off the parse (``syntax.forbidden_antecedents``) rules the
    pair out as the memory's ``syntactic_binding`` does, reading left to right: the candidate is the pronoun's
    co-argument or understood subject ("Mary asked Susan to help her": not Susan), or the pronoun comes first and
    c-commands the candidate ("She said that Mary left": not Mary). All false without a parse. (The whole
    entity of the candidate is not read: its other mentions leave it where an answer joins the pronoun to it,
    ``align_pronoun``; ruling the name out by them lost 1.0 on GAP validation, 78.3 → 77.3.)"""
    if not doc.has_annotation("DEP"):
        return numpy.zeros(len(candidates), dtype=bool)
    parse = parse_arrays(doc)  # (read once, not once per candidate)
    ruled_out = set(forbidden_antecedents(doc, *pronoun, parse=parse))
    pronoun_root = span_root(doc, *pronoun)
    return numpy.array([span_root(doc, start, end) in ruled_out
                        or (pronoun[1] <= start and pronoun_root in forbidden_antecedents(doc, start, end, parse=parse))
                        for start, end in candidates], dtype=bool)


def char_range_span(doc: Doc, chars: Tuple[int, int], what: str) -> Span:
    """The tokens a character range touches (``alignment_mode="expand"``), or a clear error."""
    start, end = chars
    span = doc.char_span(start, end, alignment_mode="expand") if 0 <= start < end <= len(doc.text) else None
    if span is None or not len(span):
        raise ValueError(f"[spacy-entmem] the {what} range {chars} covers no token of the text "
                         f"({len(doc.text)} characters)")
    return span


def add_candidates(doc: Doc, key: str, spans: List[Span]) -> None:
    """Add ``spans`` to the doc's candidate mentions under ``key`` (those not proposed already)."""
    proposed = list(doc.spans[key]) if key in doc.spans else []
    known = {(s.start, s.end) for s in proposed}
    doc.spans[key] = proposed + [s for s in spans if (s.start, s.end) not in known]


def query_memory(nlp: Language, resolver: str = "pronoun_resolver") -> Optional[str]:
    """The memory that answers pronoun queries: the one ``resolver`` reads, else the pipeline's running
    ``entity_memory``; None when there is neither."""
    if resolver in nlp.component_names:
        return nlp.get_pipe(resolver).cfg["memory"]
    return MEMORY if MEMORY in nlp.pipe_names else None


def use_query_memory(nlp: Language, resolver: str = "pronoun_resolver") -> Language:
    """Make the memory ``resolver`` reads the pipeline's running ``entity_memory`` (the annotating one removed),
    so that what scores or tunes "the memory" on pronoun queries (``entmem gap-evaluate``) acts on that one."""
    name = query_memory(nlp, resolver)
    if name in (None, MEMORY):
        return nlp
    if MEMORY in nlp.component_names:
        nlp.remove_pipe(MEMORY)
    if name in nlp.disabled:
        nlp.enable_pipe(name)
    nlp.rename_pipe(name, MEMORY)
    nlp.get_pipe(resolver).cfg["memory"] = MEMORY
    return nlp


def upstream_of_memories(nlp: Language, skip: Sequence[str] = (), resolver: str = "pronoun_resolver") -> List[str]:
    """The running components but the memories (the pipeline's and the one ``resolver`` reads) and ``skip``:
    what runs before the annotated spans join the candidates."""
    memories = {MEMORY, query_memory(nlp, resolver)}
    return [name for name in nlp.pipe_names if name not in memories and name not in skip]


def annotate_query(nlp: Language, text: str, pronoun: Tuple[int, int], a: Tuple[int, int], b: Tuple[int, int],
                   resolver: str = "pronoun_resolver") -> Tuple[Doc, List[TokenRange]]:
    """The doc of ``text`` annotated up to the memory with the three character ranges among the candidates of
    the memory ``resolver`` reads (``query_memory``; as ``entmem gap-evaluate`` runs it), and their token ranges
    (pronoun, A, B)."""
    memory = nlp.get_pipe(query_memory(nlp, resolver) or MEMORY)
    with nlp.select_pipes(enable=upstream_of_memories(nlp, skip=(resolver,), resolver=resolver)):
        doc = nlp(text)
    spans = [char_range_span(doc, chars, what) for chars, what in ((pronoun, "pronoun"), (a, "A"), (b, "B"))]
    add_candidates(doc, memory.cfg["candidates_key"], spans)
    return memory(doc), [(span.start, span.end) for span in spans]


def answer_query(nlp: Language, text: str, pronoun: Tuple[int, int], a: Tuple[int, int], b: Tuple[int, int],
                 resolver: str = "pronoun_resolver", query_key: Optional[str] = None) -> Doc:
    """The doc of ``text`` annotated with the pronoun query for character ranges of ``text``
    (``annotate_query``, then the pipeline's resolver): its span group ``query_key`` (the resolver's, "gap" by
    default) holds A, B and PRONOUN with the answer in its attrs, and its clusters say the same of the pronoun
    (with the resolver's ``align_clusters``, on by default)."""
    doc, (p, a_range, b_range) = annotate_query(nlp, text, pronoun, a, b, resolver)
    component = nlp.get_pipe(resolver)
    key = query_key or component.cfg["query_key"]
    doc.spans[key] = SpanGroup(doc, name=key, spans=[Span(doc, *span, label=label) for span, label in
                                                      ((a_range, "A"), (b_range, "B"), (p, "PRONOUN"))])
    probabilities = component.resolve(doc, p, a_range, b_range)
    component.answer(doc, doc.spans[key], p, a_range, b_range, probabilities=probabilities)
    return doc


def resolve_pronoun(nlp: Language, text: str, pronoun: Tuple[int, int], a: Tuple[int, int], b: Tuple[int, int],
                    resolver: str = "pronoun_resolver") -> Tuple[float, float]:
    """P(pronoun refers to A), P(pronoun refers to B) for character ranges of ``text`` (``answer_query``: the
    doc it annotates has clusters that agree with the answer)."""
    doc = answer_query(nlp, text, pronoun, a, b, resolver)
    attrs = doc.spans[nlp.get_pipe(resolver).cfg["query_key"]].attrs
    return attrs["A_probability"], attrs["B_probability"]
