"""Batch annotation of corpora: inputs (files, folders, JSONL, stdin), writers (JSONL, CoNLL-2012, DocBin
shards) and the resumable run that joins them (``entmem annotate``)."""
from .inputs import InputProblem, TextRecord, read_inputs
from .outputs import doc_record, open_writer, read_shards
from .runner import RunSummary, annotate_stream, character_limit, local_annotator

__all__ = ["InputProblem", "TextRecord", "read_inputs", "doc_record", "open_writer", "read_shards", "RunSummary",
           "annotate_stream", "character_limit", "local_annotator"]
