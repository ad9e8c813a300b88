"""Where a sentence says a claim's predicate: a cue lemma near the object (`senses.CUES`), or
a construction that says it without one ("a nurse at X", "back on the Kindle", "oat milk, not
dairy", "knitted a jumper").

A cue counts in the object's clause or within `CUE_REACH` words of it, in its sentence; with
an evidence span, a cue anywhere inside the span counts and is preferred to one outside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from graph.memory import senses
from graph.memory.mood import mood_word
from graph.memory.sentences import Focus, Fragment, Word
from graph.memory.stance import is_possessive

CUE_REACH = 8
_AFTERTHOUGHT_WORDS = 6
_ARTICLES = frozenset({"a", "an", "the", "my", "our", "some", "this", "that"})
_TIME_OF_GOALS = frozenset({"year", "yr", "month", "summer", "spring", "autumn", "winter", "week"})


def _before(fragment: Fragment, first: int, prepositions: frozenset[str]) -> int | None:
    """A preposition right before the object, or before an article right before it."""
    words = fragment.words
    for position in (first - 1, first - 2):
        if position < 0 or words[position].sentence != words[first].sentence:
            return None
        if words[position].base in prepositions:
            return position
        if words[position].base not in _ARTICLES:
            return None
    return None


def _employment(fragment: Fragment, focus: Focus) -> int | None:
    """Employment said by a role or a stay: "a nurse at X", "as a designer at X", "been at X",
    "first day at X"."""
    words = fragment.words
    at = _before(fragment, focus.first, frozenset({"at", "for", "with"}))
    if at is None:
        return None
    sentence = fragment.sentence_range(focus.first)
    if at > 0 and words[at - 1].is_("year", "month", "week", "decade"):
        # "Two years with Alder Trust": time served there.
        return at - 1
    for position in range(max(sentence.start, at - 6), at):
        word = words[position]
        if word.base in {"a", "an", "as"} or (word.is_("be") and position == at - 1):
            return position
        if word.base == "first" and position + 1 < at and words[position + 1].is_("day", "week", "month"):
            return position
    return None


def _tool(fragment: Fragment, focus: Focus) -> int | None:
    """A tool said by where things happen in it or what it is for: "back on the Kindle", "moved
    into Notion", "goes through Monzo", "neovim user", "ynab for budgeting"."""
    words = fragment.words
    after = focus.last + 1
    if after < len(words) and words[after].is_("user"):
        return after
    if after + 1 < len(words) and words[after].base == "for" and words[after + 1].full.endswith("ing"):
        # What it is for: "ynab for budgeting", "Strava for tracking rides".
        return after
    found = _before(fragment, focus.first, frozenset({"on", "in", "into", "through", "with", "via"}))
    return found if found is not None else _switched_to(fragment, focus)


def _switched_to(fragment: Fragment, focus: Focus) -> int | None:
    """What something was given up for: "ditched Spotify for Apple Music", "moved over to Arc"."""
    words = fragment.words
    to = _before(fragment, focus.first, frozenset({"to", "for"}))
    if to is None:
        return None
    changes = senses.SWITCHING | senses.ENDING_VERBS
    return next((p for p in fragment.clause_range(to) if p < to and words[p].is_(*changes)), None)


def _project(fragment: Fragment, focus: Focus) -> int | None:
    """A project said by being on it or at it: "still on the payments rewrite", "restoring an
    old Vespa", "plugging away at the book", "Mine: the overhaul"."""
    words = fragment.words
    found = _before(fragment, focus.first, frozenset({"on", "in"}))
    if found is not None:
        return found
    for position in range(max(0, focus.first - 4), focus.first):
        word = words[position]
        if word.sentence != words[focus.first].sentence:
            continue
        if word.full.endswith("ing") and word.known and not word.is_("be", "go"):
            return position
        if word.base == "mine":
            return position
    return None


def _contrast(fragment: Fragment, focus: Focus) -> int | None:
    """A choice said by what it is instead of: "oat milk not dairy", "Paperbacks for me, never
    e-readers", "Thursday, not Tuesday", "window seat, every time"."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.last)
    for position in range(focus.last + 1, min(focus.last + 5, sentence.stop - 1)):
        word = words[position]
        if word.full in senses.NEGATORS or word.full in {"instead", "rather"}:
            return position
        if word.base == "every" and words[position + 1].is_("time"):
            return position
    return None


def _leading_denial(fragment: Fragment, focus: Focus) -> int | None:
    """A correction said by denying the old value first: "Not 2014 - we married in 2015", "No,
    Thursday": a sentence opening with a negated short value, the object in a later clause."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.first)
    opening = fragment.clause_range(sentence.start)
    if words[sentence.start].base not in {"not", "no"} or len(opening) > 4 or focus.first in opening:
        return None
    return sentence.start


def _doer(fragment: Fragment, focus: Focus) -> int | None:
    """A skill said by being one who does it: "I'm a decent swimmer", "been a welder for ten
    years". The object's activity found as its doer noun after "a", with "be" before that."""
    words = fragment.words
    if focus.first != focus.last or words[focus.first].base.endswith("ing"):
        return None
    sentence = fragment.sentence_range(focus.first)
    for article in range(focus.first - 1, max(sentence.start, focus.first - 4) - 1, -1):
        if words[article].base in {"a", "an"}:
            before = words[max(sentence.start, article - 2) : article]
            return article if any(word.is_("be") for word in before) else None
    return None


def _done_skill(fragment: Fragment, focus: Focus) -> int | None:
    """An activity said as done ("Knitted a jumper"): doing it shows the skill."""
    word = fragment.words[focus.first]
    return focus.first if word.full.endswith("ed") and len(word.lemmas) > 1 else None


def _goal_time(fragment: Fragment, focus: Focus) -> int | None:
    """A goal set for a time: "learn Japanese this year", "get fit by next summer"."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.first)
    for position in range(sentence.start, sentence.stop - 1):
        if words[position].base in {"this", "next", "by"} and words[position + 1].is_(*_TIME_OF_GOALS):
            return position
    return None


def _wished(fragment: Fragment, focus: Focus) -> int | None:
    """A goal said as a wish, a maybe or a future before it in its sentence ("Maybe one day
    I'll learn Spanish", "I should get a dog")."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.first)
    for position in range(focus.first - 1, sentence.start - 1, -1):
        if mood_word(words, position) is not None or words[position].full.endswith("'ll"):
            return position
    return None


def _companion(fragment: Fragment, focus: Focus) -> int | None:
    """Time spent with the person: "lunch with Lena", "Tom and I"."""
    words = fragment.words
    found = _before(fragment, focus.first, frozenset({"with"}))
    if found is not None:
        return found
    after = focus.last + 2
    if (
        after < len(words)
        and words[focus.last + 1].base == "and"
        and words[after].base in senses.SPEAKER_SUBJECTS
    ):
        return after
    return None


def _ranked(fragment: Fragment, focus: Focus) -> int | None:
    """A choice written as a ranking: "dark chocolate > milk", "sparkling > still"."""
    words = fragment.words
    after = focus.last + 1
    if after < len(words) and ">" in fragment.text[words[focus.last].end : words[after].start]:
        return after
    return None


def _kind_of_person(fragment: Fragment, focus: Focus) -> int | None:
    """A taste said as a kind of person: "a beach person", "dog people", "Arsenal fan"."""
    after = focus.last + 1
    if after < len(fragment.words) and fragment.words[after].base in senses.KIND_OF_PERSON:
        return after
    return None


def _liking_idiom(fragment: Fragment, focus: Focus) -> int | None:
    """A liking said by a negated idiom before the object: "can't say no to a good ramen",
    "could never live without coffee"."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.first)
    for position in range(sentence.start, focus.first):
        if not (words[position].full in senses.NEGATORS or words[position].full.endswith("n't")):
            continue
        following = tuple(word.base for word in words[position + 1 : position + 3])
        if any(following[: len(idiom)] == idiom for idiom in senses.LIKING_IDIOMS):
            return position
    return None


def _birth_noun(fragment: Fragment, focus: Focus) -> int | None:
    """A birth said by what the person was as a baby: "a 1991 baby", "Leap-year baby here"."""
    words = fragment.words
    after = focus.last + 1
    if after < len(words) and words[after].base in senses.BIRTH_NOUNS:
        return after
    # "Leap-year baby here: 29 February 1996": a kind of baby the speaker was, before the date
    # in its sentence; "my baby", "the kid" are someone.
    return next(
        (
            p
            for p in range(fragment.sentence_range(focus.first).start + 1, focus.first)
            if words[p].base in senses.BIRTH_NOUNS and words[p - 1].base not in senses.DETERMINERS
        ),
        None,
    )


def _age_reached(fragment: Fragment, focus: Focus) -> int | None:
    """A birthday said by an age reached on a day: "turns 30 on 9 May", "would have been 90 on
    12 March". Only of a day without a year: the year of a birthday party is not the birth's."""
    words = fragment.words
    stop = min(focus.last + 2, fragment.sentence_range(focus.last).stop)
    if any(len(word.base) == 4 and word.base.isdigit() for word in words[focus.first : stop]):
        return None
    for position in range(fragment.clause_range(focus.first).start + 1, focus.first):
        age = words[position].base.isdigit() or words[position].base in senses.NUMBER_WORDS
        if age and words[position - 1].is_("turn", "be"):
            between = words[position + 1 : focus.first]
            if all(word.base in {"on", "the", "of"} for word in between):
                return position
    return None


def _speakers_relation(words: Sequence[Word], position: int) -> bool:
    """A relation noun counts when the speaker owns it ("my stepson", "our daughter"); a verb
    ("married", "dating") says it by itself."""
    word = words[position]
    if word.lemmas.isdisjoint(senses.PERSON_NOUNS):
        return True
    opens = position == 0 or words[position - 1].sentence != word.sentence
    if (
        (word.capitalised or opens)
        and not is_possessive(words, position)
        and (opens or not words[position - 1].noun)
    ):
        # "Mum (Rosa) turned seventy", "hubby (Rafe) cooked", "Stepdaughter's got her test": a
        # kinship word used as a name, or bare at the start, is the speaker's own.
        return True
    return relation_owner(words, position) in senses.SPEAKER_POSSESSIVES


def relation_owner(words: Sequence[Word], position: int) -> str | None:
    """Whose relation the noun at `position` is: the nearest owner before it within three words
    ("my brother's wife" is the brother's, "my older brother" the speaker's), None if none."""
    for earlier in range(position - 1, max(-1, position - 4), -1):
        word = words[earlier]
        if word.sentence != words[position].sentence:
            return None
        if word.base in senses.SPEAKER_POSSESSIVES:
            return word.base
        if is_possessive(words, earlier) or word.base in {"his", "her", "their", "your"}:
            return word.written
    return None


def others_relation(fragment: Fragment, focus: Focus) -> str | None:
    """Whose relation the object's relation noun (or the one right before it) is, when it is
    someone else's ("Noor's wife", "Sam's stepdaughter", "my friend's son Arlo"); None when it
    is the speaker's or no relation is named there."""
    words = fragment.words
    # The noun right before a name is its relation too: "my friend's son Arlo" is the friend's.
    for position in range(max(0, focus.first - 1), focus.last + 1):
        if words[position].lemmas.isdisjoint(senses.PERSON_NOUNS):
            continue
        owner = relation_owner(words, position)
        if owner is not None and owner not in senses.SPEAKER_POSSESSIVES:
            return owner
    return None


def _own_relation(fragment: Fragment, focus: Focus) -> int | None:
    """A relation said by the object's own relation noun ("my wife Noor", "Noor, my wife",
    "Stepdaughter's got her test"), when it is the speaker's."""
    words = fragment.words
    return next(
        (
            p
            for p in range(focus.first, focus.last + 1)
            if not words[p].lemmas.isdisjoint(senses.PERSON_NOUNS) and _speakers_relation(words, p)
        ),
        None,
    )


_CONSTRUCTIONS: dict[str, tuple[Callable[[Fragment, Focus], int | None], ...]] = {
    "works_at": (_employment,),
    "uses": (_tool,),
    "works_on": (_project,),
    "prefers": (_contrast, _ranked, _kind_of_person),
    "likes": (_liking_idiom, _kind_of_person),
    "corrected": (_contrast, _leading_denial),
    "has_skill": (_done_skill, _doer),
    "has_goal": (_goal_time, _wished),
    "knows": (_companion,),
    "born_on": (_birth_noun, _age_reached),
    "relationship_to": (_own_relation,),
}


def _lemma_cues(fragment: Fragment, focus: Focus, cues: frozenset[str]) -> list[int]:
    words = fragment.words
    sentence = fragment.sentence_range(focus.first)
    clause = fragment.clause_range(focus.first)
    return [
        position
        for position in sentence
        if not focus.holds(position)
        and (position in clause or abs(position - focus.first) <= CUE_REACH)
        and not words[position].lemmas.isdisjoint(cues)
        and not _not_a_cue(words, position)
    ]


def _lead_in_cues(fragment: Fragment, focus: Focus, cues: frozenset[str]) -> list[int]:
    """Cues in the sentence right before a short subject-less one holding the date ("Since we
    said goodbye to Grandpa. 17 Oct 2022."): the date is given after the event is named."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.first)
    if sentence.start == 0 or len(sentence) > _AFTERTHOUGHT_WORDS:
        return []
    if any(_subject_word(words[p]) for p in sentence):
        return []
    return [p for p in fragment.sentence_range(sentence.start - 1) if not words[p].lemmas.isdisjoint(cues)]


def _own_event(words: Sequence[Word], cue: int, focus: Focus) -> bool:
    """Whether a date's cue is said of that date: no subject of another clause stands between
    them ("born in 1972 and we moved south on 3 April 1980")."""
    low, high = sorted((cue, focus.first))
    return not any(
        _subject_word(words[p]) and words[p].base not in senses.SPEAKER_POSSESSIVES
        for p in range(low + 1, high)
    )


def _afterthought_cues(fragment: Fragment, focus: Focus, cues: frozenset[str]) -> list[int]:
    """Cues in a short subject-less sentence right after the object's ("Pottery class again.
    Best part of my week."): diary speech often says the predicate as an afterthought."""
    words = fragment.words
    following = fragment.sentence_range(focus.last).stop
    if following >= len(words):
        return []
    sentence = fragment.sentence_range(following)
    if len(sentence) > _AFTERTHOUGHT_WORDS or any(_subject_word(words[p]) for p in sentence):
        return []
    return [p for p in sentence if not words[p].lemmas.isdisjoint(cues)]


def _subject_word(word: Word) -> bool:
    return word.base in senses.SPEAKER_SUBJECTS or word.base in senses.OTHER_PRONOUNS


def _not_a_cue(words: Sequence[Word], position: int) -> bool:
    """Cue words in a sense that says something else: "meant to" (an intention), "birthday
    party" (the party's day, as a funeral's is not the death's)."""
    following = words[position + 1] if position + 1 < len(words) else None
    if following is None:
        return False
    if words[position].is_("birthday", "bday") and following.is_(*senses.OCCASIONS):
        return True
    return words[position].is_("mean") and following.base == "to"


def find_cue(
    fragment: Fragment, focus: Focus, predicate: str, cues: frozenset[str], span: range | None
) -> int | None:
    """Where the predicate is said for the object at `focus`; None when the sentence does not."""
    for construction in _CONSTRUCTIONS.get(predicate, ()):
        found = construction(fragment, focus)
        if found is not None:
            return found
    # A word saying the opposite ("I hate olives") says the predicate too, denied.
    cues = cues | senses.DENIALS.get(predicate, frozenset())
    candidates = _lemma_cues(fragment, focus, cues) + _afterthought_cues(fragment, focus, cues)
    if predicate == "knows":
        # The person doing something to or with the speaker ("texted me", "my friend"); an "I"
        # alone ("I read an article by Ken") says nothing of knowing them.
        sentence = fragment.sentence_range(focus.first)
        candidates += [p for p in sentence if fragment.words[p].base in senses.SPEAKER_OBJECTS]
    if predicate == "relationship_to":
        candidates = [p for p in candidates if _speakers_relation(fragment.words, p)]
    if predicate in senses.DATED:
        candidates = [p for p in candidates if _own_event(fragment.words, p, focus)]
        candidates += _lead_in_cues(fragment, focus, cues)
    if span is not None:
        # The host vouches that the span says the claim: a cue anywhere in it counts, and when
        # the span holds the object, a cue outside it belongs to other words.
        in_span = [p for p in span if not focus.holds(p) and not fragment.words[p].lemmas.isdisjoint(cues)]
        kept = [p for p in candidates if p in span] + in_span
        candidates = kept if focus.first in span and focus.last in span else kept or candidates
    if not candidates:
        return None
    # The nearest, and of two equally near the one before the object.
    return min(candidates, key=lambda position: (abs(position - focus.first), position > focus.first))
