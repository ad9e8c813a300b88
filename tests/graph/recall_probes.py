"""Paraphrase probes for recall: ten memories about one person and nine questions, each sharing
little more than the person's name with the one memory it means (issue 30). Three sets on
different people and topics, so that a change is not fitted to one of them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    question: str
    # The start of the memory the question means.
    answer: str


@dataclass(frozen=True)
class ProbeSet:
    name: str
    memories: tuple[str, ...]
    probes: tuple[Probe, ...]


ADA = ProbeSet(
    "ada",
    (
        "Ada works at Initech as a payroll analyst.",
        "Ada loves Sichuan noodles.",
        "Ada has a brother studying in Porto.",
        "Ada commutes by bicycle.",
        "Ada adopted a three-legged greyhound named Biscuit.",
        "Ada is allergic to penicillin.",
        "Ada plays the cello in a community orchestra.",
        "Ada was born on the fourth of March.",
        "Ada is saving up for a flat in Leeds.",
        "Ada learned to swim only last summer.",
    ),
    (
        Probe("What cuisine does Ada love eating?", "Ada loves Sichuan"),
        Probe("How does Ada get to the office?", "Ada commutes"),
        Probe("Where is Ada's sibling at university?", "Ada has a brother"),
        Probe("Who is Ada's employer?", "Ada works at Initech"),
        Probe("Does Ada have any pets?", "Ada adopted"),
        Probe("Which medicine must Ada avoid?", "Ada is allergic"),
        Probe("What instrument does Ada perform on?", "Ada plays the cello"),
        Probe("When does Ada celebrate her birthday?", "Ada was born"),
        Probe("What property is Ada hoping to purchase?", "Ada is saving"),
    ),
)
MARCUS = ProbeSet(
    "marcus",
    (
        "Marcus keeps a sourdough starter in his fridge and bakes every Sunday.",
        "Marcus moved from Toronto to Lisbon two years ago.",
        "Marcus is training for the Berlin marathon.",
        "Marcus's daughter Lena just started kindergarten.",
        "Marcus drives an old green Volvo estate.",
        "Marcus is a nurse on the night shift at St Mary's hospital.",
        "Marcus collects vinyl records of 1970s jazz.",
        "Marcus gave up coffee and sticks to green tea now.",
        "Marcus has a fear of heights.",
        "Marcus volunteers at the food bank on Tuesdays.",
    ),
    (
        Probe("What does Marcus bake bread with at the weekend?", "Marcus keeps a sourdough"),
        Probe("Which city did Marcus relocate to?", "Marcus moved"),
        Probe("What race is Marcus preparing for?", "Marcus is training"),
        Probe("Does Marcus have kids?", "Marcus's daughter"),
        Probe("What car does Marcus own?", "Marcus drives"),
        Probe("What is Marcus's job?", "Marcus is a nurse"),
        Probe("What music does Marcus listen to?", "Marcus collects vinyl"),
        Probe("Is Marcus afraid of anything?", "Marcus has a fear"),
        Probe("How does Marcus help people in need?", "Marcus volunteers"),
    ),
)
PRIYA = ProbeSet(
    "priya",
    (
        "Priya has been a vegetarian since her teens.",
        "Priya speaks Tamil, English and some Japanese.",
        "Priya broke her wrist skiing in February.",
        "Priya's partner Tom is a carpenter.",
        "Priya is reading War and Peace for her book club.",
        "Priya grows tomatoes and chillies on her balcony.",
        "Priya's favourite film is Spirited Away.",
        "Priya pays rent of 900 pounds a month.",
        "Priya runs a small pottery studio.",
        "Priya takes the sleeper train when she visits Scotland.",
    ),
    (
        Probe("Does Priya eat meat?", "Priya has been a vegetarian"),
        Probe("Which languages does Priya know?", "Priya speaks"),
        Probe("Has Priya ever been injured?", "Priya broke"),
        Probe("Who is Priya in a relationship with?", "Priya's partner"),
        Probe("What novel is Priya working through?", "Priya is reading"),
        Probe("What vegetables does Priya cultivate at home?", "Priya grows"),
        Probe("Which animated movie does Priya adore?", "Priya's favourite film"),
        Probe("How much does Priya spend on housing?", "Priya pays rent"),
        Probe("What does Priya do for a living?", "Priya runs"),
    ),
)
PROBE_SETS = (ADA, MARCUS, PRIYA)
