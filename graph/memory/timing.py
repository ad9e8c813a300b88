"""When a statement holds, and whether a later clause takes it back: ended ("used to", "no
longer", "quit my job at"), past (a state verb in the past tense, "until June"), future ("next
month", "will", "start Monday"), or current. Pure functions over `sentences.Fragment`, as in
`stance`.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.memory import senses
from graph.memory.sentences import Focus, Fragment, Word
from graph.memory.stance import Time, has_form, is_negator, next_is, phrase


def _is_past_state(words: Sequence[Word], position: int) -> bool:
    word = words[position]
    if not has_form(word, "VBD", word.lemmas & senses.STATES):
        return False
    # "I've worked here for years" is perfect, and holds now; so is "always wanted to".
    return not any(earlier.is_("have", "always") for earlier in words[max(0, position - 2) : position])


def _ending(words: Sequence[Word], position: int, focus: Focus, predicate: str) -> tuple[Time, str] | None:
    """An ending verb said of the object ("quit my job at Acme", "Finished the renovation"):
    before the object only with no other verb or a preposition of what comes next between
    ("left Acme to join Brightline", "ditched Spotify for Apple Music" end Acme and Spotify)."""
    word = words[position]
    given_up = word.is_("give") and next_is(words, position, "up")
    if predicate not in senses.ENDING_PREDICATES or not (given_up or word.is_(*senses.ENDING_VERBS)):
        return None
    between = words[position + 1 + given_up : focus.first]
    # A gerund goes on saying what ended: "stopped using Facebook".
    if any(
        w.base in senses.NEXT_AFTER_ENDING or (w.verb and not w.noun and not w.full.endswith("ing"))
        for w in between
    ):
        return None
    return Time.ENDED, word.written


def _life_stage(words: Sequence[Word], position: int) -> bool:
    """ "a kid", "a teenager", "a student" at `position`."""
    return (
        position + 1 < len(words)
        and words[position].base in {"a", "an"}
        and words[position + 1].is_(*senses.LIFE_STAGES)
    )


def _begun(words: Sequence[Word], position: int) -> bool:
    """A beginning before `position` in its sentence ("learned to swim as a kid"): what began
    then may hold now."""
    sentence = words[position].sentence
    return any(
        word.sentence == sentence and word.is_(*senses.BEGINNINGS)
        for word in words[max(0, position - 6) : position]
    )


def _time_marker(words: Sequence[Word], position: int) -> tuple[Time, str] | None:
    word = words[position]
    if word.base == "used" and next_is(words, position, "to"):
        if position > 0 and words[position - 1].is_("be", "get"):
            return None
        return Time.ENDED, "used to"
    if word.base == "no" and next_is(words, position, "longer", "more"):
        return Time.ENDED, phrase(words, position, position + 1)
    if word.base in senses.ENDED:
        return Time.ENDED, word.written
    if word.full in senses.START_VERBS and next_is(words, position, *senses.AFTER_START):
        return Time.FUTURE, phrase(words, position, position + 1)
    if word.base in {"until", "till"}:
        return Time.PAST, phrase(words, position, position + 1)
    if word.base == "as" and _life_stage(words, position + 1) and not _begun(words, position):
        # "Spoke decent German as a kid": said of a time of life that is over.
        return Time.PAST, phrase(words, position, position + 2)
    if (
        (word.base in senses.FUTURE or word.full.endswith("'ll"))
        and not next_is(words, position, *senses.HABITUAL)
        and not next_is(words, position, *senses.DISOWNING, *senses.REPORTING)
    ):
        # "Not gonna pretend I...", "I'll admit": the future is the saying's, not the claim's.
        return Time.FUTURE, word.written
    if word.base in {"going", "about"} and next_is(words, position, "to"):
        return Time.FUTURE, phrase(words, position, position + 1)
    if (
        word.base == "next"
        and position + 1 < len(words)
        and words[position + 1].is_(*senses.FUTURE_AFTER_NEXT)
    ):
        return Time.FUTURE, phrase(words, position, position + 1)
    return None


def _switched_from(fragment: Fragment, focus: Focus) -> tuple[Time, str] | None:
    """What was switched from is over: "Switched from Chrome to Firefox"."""
    words = fragment.words
    before = focus.first - 1
    if before < 1 or words[before].base != "from":
        return None
    clause = fragment.clause_range(focus.first)
    switch = next((p for p in clause if p < before and words[p].is_(*senses.SWITCHING)), None)
    return None if switch is None else (Time.ENDED, phrase(words, switch, before))


def time(fragment: Fragment, focus: Focus, predicate: str) -> tuple[Time, str]:
    """When the statement holds: markers anywhere in its clause (and a following 'until' or
    'start Monday' clause); a state verb in the past tense only before the object ("I worked at Acme")."""
    words = fragment.words
    clause = fragment.clause_range(focus.anchor)
    end = fragment.clause_range(focus.last).stop
    if (
        end < len(words)
        and words[end].sentence == words[focus.last].sentence
        and (words[end].base in {"until", "till", "anymore"} or words[end].full in senses.START_VERBS)
    ):
        end = fragment.clause_range(end).stop
    found = _switched_from(fragment, focus)
    lasting = predicate not in senses.EVENTS | senses.OUTLASTING
    for position in range(clause.start, end):
        marker = _time_marker(words, position) or _ending(words, position, focus, predicate)
        if marker is None and lasting and position < focus.first and _is_past_state(words, position):
            marker = Time.PAST, words[position].written
        if marker is not None and (found is None or marker[0] is Time.ENDED):
            found = marker
    if found is not None and found[0] is not Time.ENDED and _named_relation(fragment, focus, predicate):
        # "My wife Noor is away till Friday", "mum's 70 next week": the time is the clause's
        # event; a relation named by a noun holds until a word ends it ("my ex", "late").
        return Time.CURRENT, ""
    return found or (Time.CURRENT, "")


def _named_relation(fragment: Fragment, focus: Focus, predicate: str) -> bool:
    return (
        predicate in senses.PERSON_OBJECTS
        and focus.cue is not None
        and not fragment.words[focus.cue].lemmas.isdisjoint(senses.PERSON_NOUNS)
    )


# --- taken back ------------------------------------------------------------------------------


def taken_back(fragment: Fragment, focus: Focus) -> str | None:
    """Words of a later clause that take the statement back ("just kidding", "well, I did",
    "scratch that", "actually no"), up to the end of the next sentence: one that opens with a
    correction and says the earlier words no longer hold."""
    words = fragment.words
    said = words[focus.anchor].lemmas
    position = fragment.clause_range(focus.end).stop
    limit_sentence = words[focus.last].sentence + 1
    while position < len(words) and words[position].sentence <= limit_sentence:
        clause = fragment.clause_range(position)
        opener = tuple(word.base for word in words[clause.start : clause.start + 2])
        later_sentence = words[clause.start].sentence > words[focus.last].sentence
        dropped = later_sentence and words[clause.start].is_(*senses.DROPPING)
        if dropped or any(opener[: len(start)] == start for start in senses.TAKE_BACK_OPENERS):
            rest = range(clause.start, fragment.sentence_range(clause.start).stop)
            sign = next((p for p in rest if _takes_back(words, p, said)), None)
            if sign is not None:
                return phrase(words, clause.start, min(sign, clause.start + 5))
        position = clause.stop
    return None


def _takes_back(words: Sequence[Word], position: int, said: frozenset[str]) -> bool:
    word = words[position]
    if word.base in senses.TAKE_BACK_SIGNS or is_negator(words, position):
        return True
    # "well, I did", "well, worked", "well, I could": the same statement put in the past.
    return word.full in senses.PAST_AUXILIARIES or (
        not said.isdisjoint(word.lemmas) and has_form(word, "VBD")
    )


def replaced(fragment: Fragment, focus: Focus) -> str | None:
    """Words marking the object as the value a correction replaces, not the correction: said
    in a clause of the speaker's earlier words ("I said Tuesday", "Earlier I told you she lives
    in Bristol"), or right before a word that replaces it ("at 3, sorry, 4")."""
    words = fragment.words
    for position in fragment.clause_range(focus.first):
        if position >= focus.first:
            break
        opens = position == 0 or words[position - 1].sentence != words[position].sentence
        by_speaker = opens or words[position - 1].base in senses.SPEAKER_SUBJECTS
        if words[position].is_(*senses.SAYING) and by_speaker:
            return words[position].written
    after = focus.last + 1
    sentence = fragment.sentence_range(focus.last)
    if after + 1 < sentence.stop and words[after].base == "i" and next_is(words, after, "mean"):
        # "at 3, I mean 4"; an "I" that goes on to say something else replaces nothing.
        return words[after].written
    if after + 1 < sentence.stop and words[after].base in senses.REPLACING:
        return words[after].written
    return None
