"""Role-and-participant pronouns: two people named by role nouns in one sentence, and a pronoun whose referent
only the meaning decides ("The nurse reminded the patient that she had to rest": the patient). Written for
issue 73 before the LM preference was built or run; not from any published set.

Each schema is one sentence frame with two continuations whose answers flip (one picks the first person, one
the second), each rendered with "he", "she" and "they": 6 items per schema, 36 schemas, 216 items, balanced
across the three pronouns and across the two answers. Schemas 0-11 are the dev part (the only part read while
building the preference), 12-35 the test part, run once for the README.

    python benchmarks/role_participant.py                        # the shipped pipeline
    python benchmarks/role_participant.py --lm-preference        # with the causal-LM preference
    python benchmarks/role_participant.py --part dev --failures  # what the dev part gets wrong
    python benchmarks/role_participant.py --write corpus/role_participant.jsonl   # the items, for reading

An item is right when the pronoun is linked to the answer and not to the other person (``challenge_suite``'s
judge). Reports accuracy overall, per pronoun, per answer position, and the gap between "he" and "she".
"""
import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).parent))
from challenge_suite import judge  # noqa: E402

# (first role, second role, frame with {A} {B} {p}, continuation for the first, continuation for the second)
SCHEMAS = [
    ("nurse", "patient", "The {A} reminded the {B} that {p}", "would come back after lunch", "needed to rest"),
    ("teacher", "student", "The {A} praised the {B} because {p}", "felt generous that day", "had worked very hard"),
    ("customer", "waiter", "The {A} tipped the {B} because {p}", "felt generous", "had served the meal quickly"),
    ("client", "lawyer", "The {A} paid the {B} after {p}", "received the inheritance", "won the case in court"),
    ("tenant", "landlord", "The {A} called the {B} because {p}", "had no hot water",
     "owned the building and handled repairs"),
    ("driver", "mechanic", "The {A} thanked the {B} because {p}", "could finally drive home",
     "had fixed the brakes so quickly"),
    ("manager", "employee", "The {A} fired the {B} because {p}", "needed to cut costs", "kept arriving late"),
    ("officer", "suspect", "The {A} arrested the {B} because {p}", "had seen the theft", "had stolen a car"),
    ("guest", "host", "The {A} thanked the {B} because {p}", "had enjoyed the dinner", "had cooked a wonderful meal"),
    ("buyer", "seller", "The {A} paid the {B} because {p}", "wanted the bicycle", "had delivered the bicycle"),
    ("editor", "writer", "The {A} called the {B} because {p}", "had questions about the draft",
     "had missed the deadline"),
    ("judge", "defendant", "The {A} sentenced the {B} because {p}", "had heard enough evidence",
     "had robbed a bank"),
    ("pupil", "tutor", "The {A} hugged the {B} because {p}", "had passed the exam", "had helped so patiently"),
    ("client", "hairdresser", "The {A} complained to the {B} because {p}", "hated the new haircut",
     "had cut off too much hair"),
    ("passenger", "pilot", "The {A} thanked the {B} because {p}", "had been afraid of flying",
     "had landed the plane smoothly"),
    ("parent", "babysitter", "The {A} paid the {B} because {p}", "had come back from the theatre",
     "had looked after the baby all evening"),
    ("librarian", "reader", "The {A} fined the {B} because {p}", "had to enforce the rules",
     "had returned the books late"),
    ("surgeon", "assistant", "The {A} thanked the {B} because {p}", "felt relieved after the long operation",
     "had passed the instruments so quickly"),
    ("shopper", "clerk", "The {A} asked the {B} for help because {p}", "could not find the shoes",
     "knew the store well"),
    ("sergeant", "recruit", "The {A} shouted at the {B} because {p}", "ran the drill",
     "had dropped the rifle"),
    ("farmer", "labourer", "The {A} hired the {B} because {p}", "needed help with the harvest",
     "seemed strong and reliable"),
    ("lender", "borrower", "The {A} refused the {B} because {p}", "doubted the business plan",
     "owed too much money already"),
    ("critic", "chef", "The {A} praised the {B} because {p}", "had loved the soup", "had cooked the soup perfectly"),
    ("student", "professor", "The {A} emailed the {B} because {p}", "felt confused about the homework",
     "had posted the wrong exam date"),
    ("journalist", "senator", "The {A} interviewed the {B} because {p}", "wrote a profile for the paper",
     "had just won the election"),
    ("guard", "prisoner", "The {A} watched the {B} closely because {p}", "worked the night shift",
     "had tried to escape before"),
    ("child", "nanny", "The {A} hugged the {B} because {p}", "felt scared of the storm",
     "had read a bedtime story"),
    ("resident", "firefighter", "The {A} thanked the {B} because {p}", "had been trapped in the smoke",
     "had carried the ladder up the stairs"),
    ("homeowner", "plumber", "The {A} called the {B} because {p}", "had a leaking pipe",
     "opened the only shop on Sunday"),
    ("cashier", "shopper", "The {A} apologised to the {B} because {p}", "had made a mistake at the till",
     "had been charged twice"),
    ("interviewer", "applicant", "The {A} hired the {B} because {p}", "needed someone quickly",
     "had excellent references"),
    ("referee", "player", "The {A} sent off the {B} because {p}", "had seen the foul clearly",
     "had kicked an opponent"),
    ("tourist", "local", "The {A} asked the {B} for directions because {p}", "got lost in the old town",
     "knew the city well"),
    ("owner", "vet", "The {A} thanked the {B} because {p}", "had been worried about the dog",
     "had saved the dog"),
    ("architect", "builder", "The {A} scolded the {B} because {p}", "had drawn precise plans",
     "had ignored the plans"),
    ("coach", "athlete", "The {A} congratulated the {B} because {p}", "felt proud of the team",
     "had broken the record"),
]
DEV_SCHEMAS = 12
PRONOUN_FORMS = ("he", "she", "they")


def items() -> List[dict]:
    """Every schema × answer × pronoun, in the challenge suite's item format."""
    out = []
    for s, (first, second, frame, for_first, for_second) in enumerate(SCHEMAS):
        for answer, continuation in (("A", for_first), ("B", for_second)):
            for pronoun in PRONOUN_FORMS:
                head = frame.format(A=first, B=second, p="")
                text = f"{head}{pronoun} {continuation}."
                a_end = head.index(f"The {first}") + len(f"The {first}")
                b_start = head.index(f"the {second}")
                slots = {"A": (a_end - len(first), a_end), "B": (b_start + 4, b_start + 4 + len(second)),
                         "P": (len(head), len(head) + len(pronoun))}
                other = "B" if answer == "A" else "A"
                out.append({"id": f"{s}-{answer}-{pronoun}", "schema": s, "answer": answer, "pronoun": pronoun,
                            "text": text, "slots": slots,
                            "checks": [["link", "P", answer], ["apart", "P", other]],
                            "part": "dev" if s < DEV_SCHEMAS else "test"})
    return out


def evaluate(nlp, suite: List[dict], failures=None) -> Dict[str, Dict[str, float]]:
    """Accuracy overall, per pronoun and per answer position, and the he / she gap in points."""
    right = defaultdict(list)
    for item, doc in zip(suite, nlp.pipe(item["text"] for item in suite)):
        clusters = [[(span.start_char, span.end_char) for span in group] for group in doc._.coref_clusters]
        ok = judge(item, clusters)
        if not ok and failures is not None:
            failures.append({"text": item["text"], "answer": item["answer"],
                             "clusters": [[span.text for span in group] for group in doc._.coref_clusters]})
        for key in ("all items", f"pronoun: {item['pronoun']}", f"answer: {item['answer']}"):
            right[key].append(ok)
    report = {key: {"n": len(v), "accuracy": round(100 * sum(v) / len(v), 1)} for key, v in right.items()}
    if "pronoun: he" in report and "pronoun: she" in report:
        report["he - she gap"] = {"n": 0, "accuracy": round(report["pronoun: he"]["accuracy"]
                                                            - report["pronoun: she"]["accuracy"], 1)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--lm-preference", action="store_true", help="add the causal-LM preference component")
    parser.add_argument("--failures", action="store_true", help="print the items it gets wrong")
    parser.add_argument("--write", help="write the items as JSONL here and stop")
    args = parser.parse_args()
    if args.write:
        Path(args.write).write_text("".join(json.dumps(item) + "\n" for item in items()), encoding="utf8")
        return
    import spacy_entmem

    nlp = spacy_entmem.load_default(lm_preference=args.lm_preference)
    suite = [item for item in items() if args.part in ("all", item["part"])]
    failures = [] if args.failures else None
    start = time.perf_counter()
    report = evaluate(nlp, suite, failures)
    report["seconds"] = {"n": len(suite), "accuracy": round(time.perf_counter() - start, 1)}
    for failure in failures or []:
        print(json.dumps(failure))
    print(json.dumps({"part": args.part, "lm_preference": args.lm_preference, "results": report}, indent=1))


if __name__ == "__main__":
    main()
