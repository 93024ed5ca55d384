import json

import pytest

from spacy_entmem.corpora.zero_shot import detokenize_wikitext, lambada_passages, wikitext_articles

from ..conftest import DATA


def test_wikitext_tokenisation_is_undone():
    text = 'He had a guest @-@ starring role , worth 1 @,@ 000 @.@ 5 ( roughly ) in " Teddy \'s Story " .'
    assert detokenize_wikitext(text) == 'He had a guest-starring role, worth 1,000.5 (roughly) in "Teddy\'s Story".'


def test_wikitext_articles_are_split_at_top_level_headings(tmp_path):
    path = tmp_path / "test.txt"
    path.write_text(" \n = First = \n \n Some text , here . \n = = Section = = \n More . \n = Second = \n Other .\n")
    articles = wikitext_articles(path)
    assert [a.title for a in articles] == ["First", "Second"]
    assert "= = Section = =" in articles[0].text and articles[0].text.endswith("More.")
    assert articles[0].n_words == len("= First = Some text , here . = = Section = = More .".split())
    assert len(wikitext_articles(path, limit=1)) == 1


def test_lambada_passages_split_off_the_last_word(tmp_path):
    path = tmp_path / "lambada.jsonl"
    path.write_text(json.dumps({"text": "He looked at the dog.\n\nThe dog"}) + "\n" + json.dumps({"text": "one"}) + "\n")
    with pytest.raises(ValueError, match="line 2: a passage needs a context and a last word"):
        lambada_passages(path)
    passage = lambada_passages(path, limit=1)[0]
    assert (passage.context, passage.target) == ("He looked at the dog.\n\nThe", "dog")
    path.write_text("{not json\n")
    with pytest.raises(ValueError, match="line 1: not a LAMBADA record"):
        lambada_passages(path)


@pytest.mark.corpus
def test_the_shared_test_sets_read_in_full():
    assert len(lambada_passages(DATA / "lambada" / "lambada_test.jsonl")) == 5153
    articles = wikitext_articles(DATA / "wikitext-2" / "test.txt")
    assert len(articles) == 62 and sum(a.n_words for a in articles) == 241211
