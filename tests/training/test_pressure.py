"""Training documents under memory pressure: documents joined a few at a time, each one's gold clusters kept
apart and moved to their place."""
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_entmem.training.pressure import main, write_joined
from spacy_entmem.training.targets import gold_clusters

VOCAB = spacy.blank("en").vocab


def _doc(words, clusters, doc_id):
    doc = Doc(VOCAB, words=words)
    for k, spans in enumerate(clusters, start=1):
        doc.spans[f"coref_clusters_{k}"] = [doc[s:e] for s, e in spans]
    doc.user_data["doc_id"] = doc_id
    return doc


def test_documents_are_joined_with_their_clusters_apart(tmp_path):
    docs = [_doc("Jo ran . She fell .".split(), [[(0, 1), (3, 4)]], "a"),
            _doc("Meg sang . She won .".split(), [[(0, 1), (3, 4)]], "b"),
            _doc("Amy slept .".split(), [[(0, 1)]], "c")]
    DocBin(docs=docs, store_user_data=True).to_disk(tmp_path / "in.spacy")
    assert write_joined(tmp_path / "in.spacy", tmp_path / "out" / "joined.spacy", 2) == 2
    first, second = DocBin().from_disk(tmp_path / "out" / "joined.spacy").get_docs(VOCAB)
    assert first.text.strip() == "Jo ran . She fell . Meg sang . She won ."
    clusters = {key: [span.text for span in group] for key, group in first.spans.items()
                if key.startswith("coref_clusters")}
    assert clusters == {"coref_clusters_1": ["Jo", "She"], "coref_clusters_2": ["Meg", "She"]}
    assert [span.start for span in first.spans["coref_clusters_2"]] == [6, 9]
    assert [span.text for span in second.spans["coref_clusters_1"]] == ["Amy"]
    assert gold_clusters(first) == [[(0, 1), (3, 4)], [(6, 7), (9, 10)]]  # what training reads


def test_a_stream_of_fewer_than_one_document_is_refused(tmp_path):
    DocBin(docs=[_doc(["Jo"], [], "a")]).to_disk(tmp_path / "in.spacy")
    with pytest.raises(ValueError, match="--per-stream must be at least 1"):
        write_joined(tmp_path / "in.spacy", tmp_path / "out.spacy", 0)
    main([str(tmp_path / "in.spacy"), str(tmp_path / "out.spacy"), "--per-stream", "1"])
    assert len(list(DocBin().from_disk(tmp_path / "out.spacy").get_docs(VOCAB))) == 1
