"""A challenge suite written from grammar (not from any published test set): short items in categories, each with
the links it expects, every gendered item in a masculine and a feminine form. Rules and models are chosen on
LitBank / GUM dev, but the suite was read: the failures of the first, third and fourth sets were read to find
what was missing, and those of the fifth set (run once, 85.7 %) then prompted two rules (plurals of nouns for
people, fragments cover nothing), so none of the five sets is unseen any more. The sixth set (issue 73) was
written after that round's model was chosen and run once (64.3 %); its small clauses failed, and the next round's
small-clause rule was chosen on sentences of our own and dev, not on its items, which were then run a second
time. The seventh set was written after that round's choices and run once (78.6 %); its failed small clauses
were read, and the next round's reading of a possessive-looking "her" was chosen on sentences of our own and dev,
then the seventh set run a second time. The eighth set was written after that round's choices and run once (83.6
%); its failures were read, two more readings chosen on them, our own sentences and dev, and the eighth set run a
second time. The ninth set was written after that and run once (95.0 %, the round's unseen figure); its one
failing template then prompted the adjective reading, so no set is unseen now (docs/grammar.md, "Issue 73, third
round": which sets were read, in which order).

    python benchmarks/challenge_suite.py                       # the shipped pipeline
    python benchmarks/challenge_suite.py --pipeline DIR --setting syntactic_binding=false
    python benchmarks/challenge_suite.py --previous-default   # the default before the grammar work
    python benchmarks/challenge_suite.py --write benchmarks/challenge_items.jsonl   # the items, for reading
    python benchmarks/challenge_suite.py --pipeline DIR --only-set sixth   # one set (a pipeline with the LM preference)

An item's text has marked slots; each check names two slots and whether they must be linked (one cluster holds
a mention headed by each slot's last token) or must not be, or (ambiguous items) that exactly one of two slots
is linked to a third. An item is right when all its checks hold. Reports accuracy per category, over all
items, and for the masculine and feminine forms.
"""
import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Tuple

MASCULINE = ["John", "David", "Michael", "Robert", "James", "Daniel", "Thomas", "Peter", "Mark", "Paul", "George",
             "Henry"]
FEMININE = ["Mary", "Susan", "Linda", "Sarah", "Emma", "Laura", "Anna", "Julia", "Helen", "Alice", "Rachel",
            "Karen"]
ROLES = [("pilot", "mechanic"), ("doctor", "nurse"), ("lawyer", "witness"), ("teacher", "student"),
         ("manager", "clerk"), ("chef", "waiter"), ("officer", "driver"), ("editor", "writer"),
         ("coach", "player"), ("landlord", "tenant"), ("banker", "client"), ("judge", "defendant")]
# the third set's role nouns (fifth round): chosen before running the set, never looked up in the person-noun list
NEW_ROLES = [("surgeon", "patient"), ("captain", "sailor"), ("professor", "assistant"), ("director", "actor"),
             ("farmer", "neighbour"), ("detective", "suspect"), ("carpenter", "builder"), ("pharmacist", "customer"),
             ("referee", "athlete"), ("librarian", "visitor"), ("plumber", "homeowner"), ("receptionist", "guest")]
# the fourth set's role nouns (sixth round): chosen before running the set, never looked up in the person-noun list
FOURTH_ROLES = [("cashier", "shopper"), ("sergeant", "recruit"), ("principal", "janitor"), ("dentist", "hygienist"),
                ("instructor", "trainee"), ("surveyor", "engineer"), ("firefighter", "resident"),
                ("cook", "dishwasher"), ("bartender", "patron"), ("curator", "donor"), ("programmer", "tester"),
                ("auditor", "treasurer")]
# the fifth set's role nouns and plural groups (seventh round): chosen after that round's rules, never looked up in
# the person-noun list
FIFTH_ROLES = [("architect", "contractor"), ("translator", "diplomat"), ("coordinator", "intern"),
               ("producer", "singer"), ("chemist", "technician"), ("mayor", "councillor"),
               ("accountant", "consultant"), ("porter", "traveller"), ("lecturer", "researcher"),
               ("paramedic", "cyclist"), ("journalist", "photographer"), ("tutor", "pupil")]
GROUPS = ["workers", "tourists", "children", "engineers", "soldiers", "fans", "passengers", "reporters", "nurses",
          "pupils", "villagers", "musicians"]
CITIES = ["Warsaw", "Paris", "Boston", "Madrid", "Chicago", "Vienna", "Dublin", "Toronto", "Lisbon", "Prague",
          "Denver", "Oslo"]
PRONOUNS = {"m": {"he": "he", "He": "He", "him": "him", "his": "his", "His": "His", "himself": "himself"},
            "f": {"he": "she", "He": "She", "him": "her", "his": "her", "His": "Her", "himself": "herself"}}
OTHER = {"m": "f", "f": "m"}

# (category, template, checks). Slots: {A} {B} {C} names of the item's gender (C: the other gender where the
# template says {C~}), {R1} {R2} role nouns, {X} a city; pronouns as {p:he} {p:him} … in the item's gender
# ({q:…} the other gender's); a slot's name is what checks refer to, a pronoun's is P, P2 … in text order.
# checks: ("link", s, t) must be linked; ("apart", s, t) must not; ("either", s, t, u): s linked to exactly
# one of t, u.
TEMPLATES = [
    ("principle B: coordination", "The {R1} thanked the {R2} and paid {p:him}.",
     [("apart", "P", "R1"), ("link", "P", "R2")]),
    ("principle B: coordination", "{A} met {B} at the station and paid {p:him} for the tickets.",
     [("apart", "P", "A"), ("link", "P", "B")]),
    ("principle B: coordination", "The {R1} called the {R2} and thanked {p:him} warmly.",
     [("apart", "P", "R1"), ("link", "P", "R2")]),
    ("principle B: control", "{A} asked {B} to help {p:him}.", [("apart", "P", "B"), ("link", "P", "A")]),
    ("principle B: control", "{A} told {B} to call {p:him} later.", [("apart", "P", "B"), ("link", "P", "A")]),
    ("principle B: co-arguments", "{A} met {B} at the station and {p:he} gave {p:him} a ticket.",
     [("apart", "P", "P2")]),
    ("principle B: co-arguments", "{A} visited {B} on Sunday. {p:He} showed {p:him} the garden.",
     [("apart", "P", "P2")]),
    ("principle B: co-arguments", "The {R1} praised {p:him}.", [("apart", "P", "R1")]),
    ("principle A: reflexives", "{A} saw {p:himself} in the mirror.", [("link", "P", "A")]),
    ("principle A: reflexives", "{B} said that {A} had hurt {p:himself}.", [("link", "P", "A"), ("apart", "P", "B")]),
    ("principle A: reflexives", "The {R1} introduced {p:himself} to the {R2}.",
     [("link", "P", "R1"), ("apart", "P", "R2")]),
    ("principle C", "{A} arrived late. {p:He} said that {B} was tired.", [("link", "P", "A"), ("apart", "P", "B")]),
    ("principle C", "{A} waited outside. {p:He} thinks {B} will win.", [("link", "P", "A"), ("apart", "P", "B")]),
    ("possessors and i-within-i", "{A} called {p:his} mother yesterday.", [("link", "P", "A"), ("apart", "P", "M")]),
    ("possessors and i-within-i", "{A} met {B} and {p:his} brother.", [("apart", "P", "M")]),
    ("gender agreement", "{A} met {C~} at the station. {p:He} was late.", [("link", "P", "A"), ("apart", "P", "C")]),
    ("gender agreement", "{C~} met {A} at the station. {p:He} was late.", [("link", "P", "A"), ("apart", "P", "C")]),
    ("gender agreement", "{A} thanked {C~} because {p:he} was kind.", [("link", "P", "A"), ("apart", "P", "C")]),
    ("number agreement", "The students met {A} in the hall. {p:He} gave a speech.",
     [("link", "P", "A"), ("apart", "P", "S")]),
    ("number agreement", "{A} met the students in the hall. They asked many questions.",
     [("link", "T", "S"), ("apart", "T", "A")]),
    ("singular they", "{A} hired a {R2}. The {R2b} said that they would come on Monday.",
     [("link", "T", "R2b"), ("apart", "T", "A")]),
    ("singular they", "A {R1} called this morning. They wanted to speak to {A}.",
     [("link", "T", "R1"), ("apart", "T", "A")]),
    ("cataphora", "When {p:he} arrived, {A} smiled.", [("link", "P", "A")]),
    ("cataphora", "Before {p:he} left, {A} locked the door.", [("link", "P", "A")]),
    ("apposition", "{A}, a {R1}, arrived early. {p:He} sat down.", [("link", "R1", "A"), ("link", "P", "A")]),
    ("titles and name variants", "Dr. {A} {L} gave a talk. {L} said the results were new.",
     [("link", "L2", "A")]),
    ("titles and name variants", "{A} {L} won the race. Later, {T:Mr.} {L} thanked the crowd.",
     [("link", "L2", "A")]),
    ("first and second person in dialogue", '"I am tired," {A} told {C~}. "You should rest," {C} replied.',
     [("link", "I", "A"), ("apart", "I", "C"), ("link", "You", "A")]),
    ("first and second person in dialogue", "Interviewer: When did you meet {B}?\n{A}: I met {B} in college. "
     "{p:He} was my roommate.", [("link", "I", "A"), ("apart", "P", "A"), ("link", "P", "B2")]),
    ("animacy: places and times", "{A} was born in {X}. {p:He} moved to Paris in 1890.",
     [("link", "P", "A"), ("apart", "P", "X")]),
    ("animacy: places and times", "Hi {A}, thanks for sending the report yesterday. I forwarded it to {C~}.",
     [("link", "It", "Rep"), ("apart", "It", "Y"), ("apart", "I", "A")]),
    ("ambiguous (either answer)", "The {R1} called the {R2} because {p:he} needed help.",
     [("either", "P", "R1", "R2")]),
    ("ambiguous (either answer)", "{A} told {B} that {p:he} had won.", [("either", "P", "A", "B")]),
    # second set (fourth round), written after the first set's results were known and never used to choose
    ("principle B: coordination", "{A} greeted {B} and hugged {p:him}.", [("apart", "P", "A"), ("link", "P", "B")]),
    ("principle B: coordination", "The {R1} saw the {R2} and waved at {p:him}.",
     [("apart", "P", "R1"), ("link", "P", "R2")]),
    ("principle B: control", "{A} persuaded {B} to visit {p:him}.", [("apart", "P", "B"), ("link", "P", "A")]),
    ("principle B: control", "{A} wanted {B} to trust {p:him}.", [("apart", "P", "B"), ("link", "P", "A")]),
    ("principle B: co-arguments", "{A} and {B} talked. {p:He} told {p:him} the news.", [("apart", "P", "P2")]),
    ("principle B: co-arguments", "{A} phoned {B}. {p:He} asked {p:him} for advice.", [("apart", "P", "P2")]),
    ("principle A: reflexives", "{A} blamed {p:himself} for the accident.", [("link", "P", "A")]),
    ("principle A: reflexives", "{B} knew that {A} trusted {p:himself}.", [("link", "P", "A"), ("apart", "P", "B")]),
    ("principle C", "{p:He} said that {A} was tired.", [("apart", "P", "A")]),
    ("possessors and i-within-i", "{A} visited {p:his} brother in {X}.", [("link", "P", "A"), ("apart", "P", "M")]),
    ("gender agreement", "{A} and {C~} arrived. {p:He} sat down.", [("link", "P", "A"), ("apart", "P", "C")]),
    ("gender agreement", "{C~} called {A} because {p:he} needed help.", [("link", "P", "A"), ("apart", "P", "C")]),
    ("number agreement", "The students thanked {A}. {p:He} smiled.", [("link", "P", "A"), ("apart", "P", "S")]),
    ("singular they", "A {R1} left a message. They will call back.", [("link", "T", "R1")]),
    ("singular they", "The {R2} arrived late because they missed the bus.", [("link", "T", "R2")]),
    ("cataphora", "After {p:he} finished dinner, {A} went to bed.", [("link", "P", "A")]),
    ("apposition", "{A}, the {R1}, smiled. {p:He} was happy.", [("link", "R1", "A"), ("link", "P", "A")]),
    ("titles and name variants", "Professor {A} {L} arrived. Professor {L} spoke first.", [("link", "L2", "A")]),
    ("first and second person in dialogue", '"I will help you," {A} said to {C~}.', [("link", "I", "A"),
                                                                                    ("apart", "I", "C")]),
    ("animacy: places and times", "{A} moved to {X} in 1990. {p:He} liked the city.",
     [("link", "P", "A"), ("apart", "P", "X")]),
    ("animacy: places and times", "{A} lived in {X}. {p:He} was a teacher there.",
     [("link", "P", "A"), ("apart", "P", "X")]),
    ("ambiguous (either answer)", "{A} called {B} when {p:he} got home.", [("either", "P", "A", "B")]),
    # third set (fifth round), written and run once after the fifth round's choices, with role nouns of its own
    ("singular they", "A {N1} phoned the office. They asked for {A}.", [("link", "T", "N1"), ("apart", "T", "A")]),
    ("singular they", "{A} met the {N2} at the party. Later the {N2b} said they were tired.",
     [("link", "T", "N2b"), ("apart", "T", "A")]),
    ("singular they", "The {N1} was worried because they had lost the keys.", [("link", "T", "N1")]),
    ("principle B: coordination", "The {N1} greeted the {N2} and offered {p:him} a seat.",
     [("apart", "P", "N1"), ("link", "P", "N2")]),
    ("principle B: coordination", "The {N1} visited the {N2} and told {p:him} the plan.",
     [("apart", "P", "N1"), ("link", "P", "N2")]),
    ("principle B: control", "{A} begged the {N2} to wait for {p:him}.", [("apart", "P", "N2"), ("link", "P", "A")]),
    ("principle A: reflexives", "The {N1} blamed {p:himself} for the delay.", [("link", "P", "N1")]),
    ("number agreement", "The guests thanked {A}. They loved the food.", [("link", "T", "S"), ("apart", "T", "A")]),
    # fourth set (sixth round), written and run once after the sixth round's choices, with role nouns of its own
    ("singular they", "The {F1} apologized because they had forgotten the receipt.", [("link", "T", "F1")]),
    ("singular they", "A {F1} knocked on the door. They wanted to see {A}.",
     [("link", "T", "F1"), ("apart", "T", "A")]),
    ("singular they", "{A} called the {F2}. The {F2b} said they would be late.",
     [("link", "T", "F2b"), ("apart", "T", "A")]),
    ("principle B: coordination", "The {F1} met the {F2} and thanked {p:him}.",
     [("apart", "P", "F1"), ("link", "P", "F2")]),
    ("principle B: coordination", "The {F1} found the {F2} and gave {p:him} a key.",
     [("apart", "P", "F1"), ("link", "P", "F2")]),
    ("principle B: control", "The {F1} asked the {F2} to wait for {p:him}.",
     [("apart", "P", "F2"), ("link", "P", "F1")]),
    ("principle B: co-arguments", "The {F1} and the {F2} talked. {p:He} gave {p:him} a map.", [("apart", "P", "P2")]),
    ("number agreement", "{A} met the volunteers at noon. They carried the boxes.",
     [("link", "T", "S"), ("apart", "T", "A")]),
    ("number agreement", "The neighbours greeted {A}. {p:He} waved back.", [("link", "P", "A"), ("apart", "P", "S")]),
    ("first and second person in dialogue", "Dear {A}, our {F1} checked the invoice. {p:He} found an error.",
     [("apart", "We", "A"), ("apart", "P", "A"), ("link", "P", "F1")]),
    # fifth set (seventh round), written after that round's rules were chosen on dev and run once; its failures
    # were then read and prompted two rules, so its later figures are not unseen
    ("number agreement", "{A} thanked the {G} after the meeting. They smiled.",
     [("link", "T", "G"), ("apart", "T", "A")]),
    ("number agreement", "The {G} waited for {A}. {p:He} was late.", [("link", "P", "A"), ("apart", "P", "G")]),
    ("number agreement", "{A} visited the {G} in {X}. They were happy to see {p:him}.",
     [("link", "T", "G"), ("apart", "T", "A"), ("link", "P", "A")]),
    ("first and second person in dialogue", "Dear {A}, my {V1} read your letter. {p:He} will reply soon.",
     [("link", "P", "V1"), ("apart", "P", "A"), ("apart", "V1", "A")]),
    ("first and second person in dialogue", "{A}: I called my {V1} yesterday. {p:He} was at home.",
     [("link", "P", "V1"), ("apart", "P", "I"), ("apart", "V1", "I")]),
    ("principle B: coordination", "The {V1} greeted the {V2} and helped {p:him}.",
     [("apart", "P", "V1"), ("link", "P", "V2")]),
    ("principle B: control", "The {V1} persuaded the {V2} to visit {p:him}.",
     [("apart", "P", "V2"), ("link", "P", "V1")]),
    ("singular they", "The {V1} said that they would call {A}.", [("link", "T", "V1"), ("apart", "T", "A")]),
    ("gender agreement", "{A} met {C~} at the cafe. {p:He} ordered tea.", [("link", "P", "A"), ("apart", "P", "C")]),
    ("principle B: co-arguments", "The {V1} and {A} met. {p:He} told {p:him} the news.", [("apart", "P", "P2")]),
    # sixth set (issue 73), written after that round's choices (the shipped memory kept; WordNet's nouns for people,
    # the title and given-name changes chosen on dev) and run once: role nouns of its own, small clauses, and "they"
    # for two people named apart
    ("role nouns (sixth set)", "The {W1} met the {W2} and thanked {p:him}.", [("apart", "P", "W1"), ("link", "P", "W2")]),
    ("role nouns (sixth set)", "The {W1} asked the {W2} to call {p:him}.", [("apart", "P", "W2"), ("link", "P", "W1")]),
    ("role nouns (sixth set)", "The {W2} hurt {p:himself} at work.", [("link", "P", "W2")]),
    ("role nouns (sixth set)", "{p:He} said that the {W1} was tired.", [("apart", "P", "W1")]),
    ("small clauses", "{B} was nervous, so {A} made {p:him} laugh.", [("link", "P", "B"), ("apart", "P", "A")]),
    ("small clauses", "The {W1} let {p:him} borrow the car.", [("apart", "P", "W1")]),
    ("small clauses", "{A} heard {p:him} sing in the hall.", [("apart", "P", "A")]),
    ("small clauses", "{A} wanted {p:him} to stay.", [("apart", "P", "A")]),
    ("small clauses", "{B} came in late. The {W1} asked {p:him} to clean the kitchen.",
     [("link", "P", "B"), ("apart", "P", "W1")]),
    ("they with two people", "{A} met {B} at the station. They took a taxi together.",
     [("apart", "T", "A"), ("apart", "T", "B")]),
    ("they with two people", "The {W1} phoned the {W2}. Later they had lunch together.",
     [("apart", "T", "W1"), ("apart", "T", "W2")]),
    ("singular they", "The {W2} said that they would be late.", [("link", "T", "W2")]),
    # seventh set (issue 73, second round), written after that round's choices (the small-clause rule, chosen on
    # sentences of our own and dev; the character merge; the recipe's memory) and run once: small clauses with
    # verbs no other set or grammar template uses, role nouns of its own, "they" for two people
    ("small clauses", "{A} watched {p:him} paint the fence.", [("apart", "P", "A")]),
    ("small clauses", "The {Z1} had {p:him} sign the form.", [("apart", "P", "Z1")]),
    ("small clauses", "{B} looked tired, but {A} kept {p:him} waiting.", [("link", "P", "B"), ("apart", "P", "A")]),
    ("small clauses", "{A} considered {p:him} honest.", [("apart", "P", "A")]),
    ("small clauses", "The {Z1} noticed {p:him} leave the room.", [("apart", "P", "Z1")]),
    ("small clauses", "{B} sat down, and the {Z1} got {p:him} to sign.", [("link", "P", "B"), ("apart", "P", "Z1")]),
    ("role nouns (seventh set)", "The {Z1} called the {Z2} and apologised to {p:him}.",
     [("apart", "P", "Z1"), ("link", "P", "Z2")]),
    ("role nouns (seventh set)", "The {Z2} cut {p:himself} on the glass.", [("link", "P", "Z2")]),
    ("they with two people", "{A} and {B} missed the bus, so they walked home.", [("apart", "T", "A"), ("apart", "T", "B")]),
    ("they with two people", "The {Z1} greeted the {Z2}, and then they sat down.",
     [("apart", "T", "Z1"), ("apart", "T", "Z2")]),
    # eighth set (issue 73, third round), written after that round's choices (the possessive-"her" small-clause
    # reading, chosen on sentences of our own and dev; the appositive aliases; the rule code moved) and run once:
    # small clauses, role nouns and "they" for two people, with verbs and nouns no other set, the role-and-
    # participant set or the grammar templates use
    ("small clauses", "{A} spotted {p:him} climb the wall.", [("apart", "P", "A")]),
    ("small clauses", "The {Y1} forced {p:him} to resign.", [("apart", "P", "Y1")]),
    ("small clauses", "{B} was bored, so {A} dared {p:him} to jump.", [("link", "P", "B"), ("apart", "P", "A")]),
    ("small clauses", "The {Y1} declared {p:him} fit.", [("apart", "P", "Y1")]),
    ("small clauses", "{A} judged {p:him} ready.", [("apart", "P", "A")]),
    ("small clauses", "{B} hesitated, and the {Y1} convinced {p:him} to enter.",
     [("link", "P", "B"), ("apart", "P", "Y1")]),
    ("role nouns (eighth set)", "The {Y1} approached the {Y2} and shook hands with {p:him}.",
     [("apart", "P", "Y1"), ("link", "P", "Y2")]),
    ("role nouns (eighth set)", "The {Y2} poured {p:himself} a drink.", [("link", "P", "Y2")]),
    ("they with two people", "{A} and {B} quit, so they caught the train.", [("apart", "T", "A"), ("apart", "T", "B")]),
    ("they with two people", "The {Y1} drove the {Y2} home, and then they had a drink.",
     [("apart", "T", "Y1"), ("apart", "T", "Y2")]),
    # ninth set (issue 73, third round), written after the eighth set's failures were read and the last choices
    # of the round made (small clauses with two objects, nouns for people the tagger mistook), and run once
    ("small clauses", "{A} observed {p:him} sweep the porch.", [("apart", "P", "A")]),
    ("small clauses", "The {U1} compelled {p:him} to testify.", [("apart", "P", "U1")]),
    ("small clauses", "{B} felt faint, and {A} obliged {p:him} to sit.", [("link", "P", "B"), ("apart", "P", "A")]),
    ("small clauses", "The {U1} deemed {p:him} trustworthy.", [("apart", "P", "U1")]),
    ("small clauses", "{A} pressed {p:him} to whistle.", [("apart", "P", "A")]),
    ("small clauses", "{B} shivered, and the {U1} summoned {p:him} inside.", [("link", "P", "B"), ("apart", "P", "U1")]),
    ("role nouns (ninth set)", "The {U1} waved at the {U2} and winked at {p:him}.",
     [("apart", "P", "U1"), ("link", "P", "U2")]),
    ("role nouns (ninth set)", "The {U2} reckoned {p:himself} fortunate.", [("link", "P", "U2")]),
    ("they with two people", "{A} and {B} lifted the crate, then they rested.", [("apart", "T", "A"), ("apart", "T", "B")]),
    ("they with two people", "The {U1} pulled the {U2} aboard, and they laughed.",
     [("apart", "T", "U1"), ("apart", "T", "U2")]),
]
# the sixth set's role nouns (issue 73): chosen after that round's choices, none in another set, the
# role-and-participant set or the grammar templates
SIXTH_ROLES = [("sommelier", "diner"), ("lifeguard", "swimmer"), ("barista", "commuter"), ("electrician", "landlady"),
               ("physiotherapist", "jogger"), ("ranger", "hiker"), ("pianist", "conductor"), ("novelist", "publisher"),
               ("veterinarian", "breeder"), ("mover", "cleaner"), ("paralegal", "stenographer"), ("roofer", "inspector")]
# the seventh set's role nouns (issue 73, second round): none in another set, the role-and-participant set or
# the grammar templates
SEVENTH_ROLES = [("baker", "pensioner"), ("butcher", "caregiver"), ("steward", "bidder"), ("bookkeeper", "goalkeeper"),
                 ("blacksmith", "painter"), ("welder", "zookeeper"), ("archivist", "sculptor"),
                 ("choreographer", "dancer"), ("saxophonist", "umpire"), ("biologist", "courier")]
# the eighth set's role nouns (issue 73, third round): none in another set, the role-and-participant set or the
# grammar templates
EIGHTH_ROLES = [("collector", "apprentice"), ("farmhand", "diver"), ("harpist", "violinist"), ("skier", "boxer"),
                ("rower", "surfer"), ("typist", "vendor"), ("caterer", "miner"), ("trucker", "dispatcher"),
                ("watchmaker", "bookbinder"), ("rancher", "appraiser")]
# the ninth set's role nouns: none in another set, the role-and-participant set or the grammar templates
NINTH_ROLES = [("puppeteer", "juggler"), ("acrobat", "falconer"), ("oboist", "cellist"), ("drummer", "bassist"),
               ("flautist", "trombonist"), ("kayaker", "angler"), ("trapper", "poacher"), ("sheriff", "deputy"),
               ("magistrate", "concierge"), ("valet", "jockey")]
# the first template of the second to the ninth set
SET_STARTS = (SECOND_SET, THIRD_SET, FOURTH_SET, FIFTH_SET, SIXTH_SET, SEVENTH_SET, EIGHTH_SET, NINTH_SET) = (
    33, 55, 63, 73, 83, 95, 105, 115)
SET_NAMES = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")

SLOT = re.compile(r"\{([^}]+)\}|\b(They|they|I|You|it|report|yesterday|students|guests|volunteers|neighbours|brother|"
                  r"mother|our)\b")


def render(template: str, fill: Dict[str, str], gender: str) -> Tuple[str, Dict[str, Tuple[int, int]]]:
    """The item's text and each slot's character span (pronouns named P, P2, …; plain marked words by
    name: They/they → T, I, You, it → It, report → Rep, yesterday → Y, students, guests, volunteers,
    neighbours → S, mother → M, our → We)."""
    out, spans, n_pronouns, seen = "", {}, 0, defaultdict(int)
    words = {"They": "T", "they": "T", "I": "I", "You": "You", "it": "It", "report": "Rep", "yesterday": "Y",
             "students": "S", "guests": "S", "volunteers": "S", "neighbours": "S", "mother": "M", "brother": "M",
             "our": "We"}
    position = 0
    for match in SLOT.finditer(template):
        out += template[position:match.start()]
        position = match.end()
        slot, word = match.group(1), match.group(2)
        if word is not None:
            text = word
            name = words[word]
        elif slot.startswith("p:") or slot.startswith("q:"):
            text = PRONOUNS[gender if slot[0] == "p" else OTHER[gender]][slot[2:]]
            n_pronouns += 1
            name = "P" if n_pronouns == 1 else f"P{n_pronouns}"
        elif slot.startswith("T:"):
            text = {"m": "Mr.", "f": "Ms."}[gender]
            name = "Title"
        else:
            key = slot.rstrip("~")
            text = fill[key]
            name = key
            if text[:1].lower() in "aeiou" and re.search(r"(^|\s)[Aa] $", out):  # "an instructor"
                out = out[:-1] + "n "
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name}{seen[name]}"
        spans[name] = (len(out), len(out) + len(text))
        out += text
    out += template[position:]
    return out, spans


def items() -> List[dict]:
    """Every template, 7 fillings, each in the masculine and the feminine form (the role-noun items, which carry
    no gender but their pronoun's, in both pronoun genders too)."""
    out = []
    for t, (category, template, checks) in enumerate(TEMPLATES):
        for k in range(7):
            for gender in ("m", "f"):
                names = MASCULINE if gender == "m" else FEMININE
                others = FEMININE if gender == "m" else MASCULINE
                a, b = names[(2 * k + t) % len(names)], names[(2 * k + t + 1) % len(names)]
                r1, r2 = ROLES[(k + t) % len(ROLES)]
                n1, n2 = NEW_ROLES[(k + t) % len(NEW_ROLES)]
                f1, f2 = FOURTH_ROLES[(k + t) % len(FOURTH_ROLES)]
                v1, v2 = FIFTH_ROLES[(k + t) % len(FIFTH_ROLES)]
                w1, w2 = SIXTH_ROLES[(k + t) % len(SIXTH_ROLES)]
                z1, z2 = SEVENTH_ROLES[(k + t) % len(SEVENTH_ROLES)]
                y1, y2 = EIGHTH_ROLES[(k + t) % len(EIGHTH_ROLES)]
                u1, u2 = NINTH_ROLES[(k + t) % len(NINTH_ROLES)]
                fill = {"A": a, "B": b, "C": others[(k + t) % len(others)], "R1": r1, "R2": r2, "R2b": r2,
                        "N1": n1, "N2": n2, "N2b": n2, "F1": f1, "F2": f2, "F2b": f2,
                        "V1": v1, "V2": v2, "W1": w1, "W2": w2, "Z1": z1, "Z2": z2, "Y1": y1, "Y2": y2, "U1": u1, "U2": u2,
                        "G": GROUPS[(k + t) % len(GROUPS)],
                        "X": CITIES[(k + t) % len(CITIES)], "L": ["Smith", "Brown", "Taylor", "Walker", "Clark",
                                                                 "Hughes"][k % 6]}
                text, spans = render(template, fill, gender)
                out.append({"id": f"{t}-{k}-{gender}", "category": category, "gender": gender, "text": text,
                            "slots": spans, "checks": [list(check) for check in checks],
                            "set": SET_NAMES[sum(t >= first for first in SET_STARTS)]})
    return out


def linked(clusters: List[List[Tuple[int, int]]], a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    """Whether one cluster holds a mention headed at each slot (covering the slot's last character) and the two
    mentions differ."""
    def covers(span, slot):
        return span[0] <= slot[1] - 1 < span[1]
    for cluster in clusters:
        first = [span for span in cluster if covers(span, a)]
        second = [span for span in cluster if covers(span, b)]
        if any(x != y for x in first for y in second):
            return True
    return False


def judge(item: dict, clusters: List[List[Tuple[int, int]]]) -> bool:
    slots = {name: tuple(span) for name, span in item["slots"].items()}
    for check in item["checks"]:
        kind, names = check[0], check[1:]
        if any(name not in slots for name in names):
            raise KeyError(f"item {item['id']}: check {check} names a slot the text lacks ({sorted(slots)})")
        if kind == "link" and not linked(clusters, slots[names[0]], slots[names[1]]):
            return False
        if kind == "apart" and linked(clusters, slots[names[0]], slots[names[1]]):
            return False
        if kind == "either" and linked(clusters, slots[names[0]], slots[names[1]]) == linked(
                clusters, slots[names[0]], slots[names[2]]):
            return False
    return True


def evaluate(nlp, suite: List[dict], failures: Optional[List[dict]] = None) -> Dict[str, Dict[str, float]]:
    """Accuracy per category (and overall, masculine, feminine): {name: {"n": count, "accuracy": percent}}.
    ``failures``, when given, receives each failed item with the clusters printed for it."""
    right = defaultdict(list)
    for item, doc in zip(suite, nlp.pipe(item["text"] for item in suite)):
        clusters = [[(span.start_char, span.end_char) for span in group] for group in doc._.coref_clusters]
        ok = judge(item, clusters)
        if not ok and failures is not None:
            failures.append({**item, "clusters": [[span.text for span in group] for group in doc._.coref_clusters]})
        for key in (item["category"], "all items", "masculine" if item["gender"] == "m" else "feminine",
                    f"set: {item['set']}"):
            right[key].append(ok)
    return {key: {"n": len(values), "accuracy": 100 * sum(values) / len(values)} for key, values in right.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", default=None, help="a pipeline directory (default: the shipped one)")
    parser.add_argument("--setting", action="append", default=[], help="NAME=JSON entity_memory setting")
    parser.add_argument("--previous-default", action="store_true", help="score the pipeline as it was before the "
                        "grammar work (grammar_variants.PREVIOUS_DEFAULT: no parser, none of its rules)")
    parser.add_argument("--write", type=Path, default=None, help="write the items as JSON lines and stop")
    parser.add_argument("--output", type=Path, default=None, help="write the scores as JSON")
    parser.add_argument("--mention-scheme", default=None, help="the shipped pipeline under this mention scheme "
                        "(spacy_entmem.load_default's mention_scheme; 'gum' links appositions, LitBank's does not)")
    parser.add_argument("--failures", type=Path, default=None, help="write the failed items, each with the "
                        "clusters printed for it, as JSON lines")
    parser.add_argument("--only-set", choices=SET_NAMES, default=None, help="score one set's items only")
    args = parser.parse_args()
    suite = [item for item in items() if args.only_set in (None, item["set"])]
    if args.write:
        args.write.write_text("".join(json.dumps(item) + "\n" for item in suite), encoding="utf8")
        print(f"{len(suite)} items -> {args.write}")
        return
    import spacy

    import spacy_entmem

    if args.pipeline and args.mention_scheme:
        parser.error("--mention-scheme applies to the shipped pipeline; give it or --pipeline, not both")
    scheme = {"mention_scheme": args.mention_scheme} if args.mention_scheme else {}
    nlp = spacy.load(args.pipeline) if args.pipeline else spacy_entmem.load_default(**scheme)
    for setting in args.setting:
        name, value = setting.split("=", 1)
        nlp.get_pipe("entity_memory").cfg[name] = json.loads(value)
    from contextlib import nullcontext

    from spacy_entmem.evaluation.grammar_variants import PREVIOUS_DEFAULT, grammar_variant

    with grammar_variant(nlp, **PREVIOUS_DEFAULT) if args.previous_default else nullcontext():
        failures: List[dict] = []
        scores = evaluate(nlp, suite, failures)
    if args.failures:
        args.failures.write_text("".join(json.dumps(item) + "\n" for item in failures), encoding="utf8")
    for key in sorted(scores, key=lambda k: (k in ("all items", "masculine", "feminine") or k.startswith("set:"), k)):
        print(f"{key:42s} {scores[key]['n']:4d} items  {scores[key]['accuracy']:5.1f} %")
    gap = scores["masculine"]["accuracy"] - scores["feminine"]["accuracy"]
    print(f"{'masculine - feminine':42s}             {gap:+5.1f} points")
    if args.output:
        args.output.write_text(json.dumps(scores, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
