"""The words the sentence verifier reads by: what says a predicate, who a sentence is about,
and what makes a statement denied, hedged, wished, reported, past or future.

Everything is a lemma (see `sentences.lemmas_of`), so "joined", "joining" and "joins" are one
entry. Words are grouped by what they do in a sentence, not by the sentences they came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(*texts: str) -> tuple[tuple[str, ...], ...]:
    """Phrases as tuples of words, to compare with the words that follow a given one."""
    return tuple(tuple(text.split()) for text in texts)


# --- who -----------------------------------------------------------------------------------

# The speaker as the one doing or being ("i" is also the base of i'm, i've, i'd, i'll).
SPEAKER_SUBJECTS = _words("i im ive id we")
SPEAKER_WORDS = _words("i im ive id me my mine myself we us our ours ourselves")
SPEAKER_POSSESSIVES = _words("my our")
SPEAKER_OBJECTS = _words("me my mine myself us our ours ourselves")
OTHER_PRONOUNS = _words(
    "he she they his her their someone somebody everyone everybody nobody people you your"
)
# Words before a noun that make it a phrase of its own ("the barista", "his boss").
DETERMINERS = _words("the a an this that these those his her their its your my our")
# Before an adjective that describes the noun after it rather than anyone: "a vegetarian
# lasagne", "lots of left-handed people", "many vegan options".
DESCRIBING = _words("a an the some this that these those of many few several most other")
# After one of these a noun is what it governs, not who acts: "lunch with Sam".
PREPOSITIONS = _words("with w to at from for by of in on into about near without")
# Pronouns that never stand as a subject.
OBJECT_PRONOUNS = _words("him them")
# Words opening a clause whose subject is its own: a subject is not looked for before them.
CONNECTIVES = _words("and since because so then while as which who that when where")
# Nouns naming a person (or a pet) in someone's life: "my sister", "Dad", "her boss".
PERSON_NOUNS = _words(
    """
    sister brother sibling mom mum mother mama mommy dad father papa daddy parent wife husband
    partner spouse son daughter kid child baby boy girl friend bestie buddy pal boss manager
    colleague coworker teammate neighbour neighbor roommate flatmate housemate cousin aunt uncle
    niece nephew grandma grandpa grandmother grandfather granny nan nana gran grandparent
    girlfriend boyfriend fiance fiancee ex teacher doctor therapist coach mentor client landlord
    family bf gf hubby dog cat puppy pup sis bro stepson stepdaughter stepmum stepmom stepdad
    stepfather stepmother stepbrother stepsister stepchild stepkid team crew class group grandad
    granddad gramps grandson granddaughter grandchild godmother godfather godson goddaughter twin
    missus mummy nanna
    """
)
# Words for one relation that people use interchangeably: a claim's "grandfather Walter" is
# the text's "Grandad (Walter)". Pet names and formal names, never one relation for another.
_KIN = (
    "mum mom mother mama mommy mummy",
    "dad father papa daddy",
    "grandad granddad grandpa grandfather gramps",
    "gran granny grandma grandmother nan nana nanna",
    "husband hubby",
    "wife missus",
    "brother bro",
    "sister sis",
    "boyfriend bf",
    "girlfriend gf",
    "child kid",
    "grandchild grandkid",
    "stepmum stepmom stepmother",
    "stepdad stepfather",
    "stepchild stepkid",
    "fiance fiancee",
)
KIN: Mapping[str, frozenset[str]] = MappingProxyType(
    {word: group for group in map(_words, _KIN) for word in group}
)
# Words a reporter uses: "my boss says I'm great at Excel" is the boss's word, not the speaker's.
REPORTING = _words(
    "say tell think reckon claim insist mention believe swear joke hear accord apparently post write "
    "announce report rumour"
)
# The speaker agreeing with what was reported: "my wife says I'm obsessed, and she's right".
AGREEING = _words("right true fair guilty agree")
# Nouns of people by what they do: "the receptionist thought...", "the teacher says...".
AGENT_ENDINGS = ("ist", "er", "or", "ian", "ant")
# Verbs of thinking: "I don't think I like jazz" negates the thinking, which hedges the rest.
COGNITIVE = _words("think believe know guess feel reckon suppose expect sure certain")
# Words that open speech without being anyone: "Hi, I'm Daniel".
INTERJECTIONS = _words("hi hello hey oh ok okay lol yeah yes well so um hmm wow ugh thanks ah")

# --- how -----------------------------------------------------------------------------------

NEGATORS = _words(
    "not no never cannot nor neither nope nah dont doesnt didnt isnt wasnt arent werent havent "
    "hasnt cant wont wouldnt couldnt shouldnt aint zero nearly almost"
)
# What follows a negator in phrases that deny nothing ("not only", "no doubt", "can't wait",
# "not gonna lie", "can't get enough"), as the bases of the next one or two words.
# Phrases whose negation says a liking: "can't get enough of", "can't say no to", "could
# never live without", "you can't beat".
LIKING_IDIOMS = _phrases("get enough", "get tired", "say no", "live without", "resist", "beat", "stop")
NOT_DENIALS = LIKING_IDIOMS + _phrases(
    "only",
    "just",
    "doubt",
    "wonder",
    "wait",
    "gonna lie",
    "going to lie",
    "to mention",
    "always",
    "every",
)
# Words between a negator and the verb it negates that change nothing ("don't really think",
# "not gonna pretend").
FILLERS = _words("really even actually honestly just quite gonna going to be")
# What a negator disowns before a clause of its own: "not gonna pretend I...", "can't say
# I...", "not that I...", "it's not like I...". The clause after it is what is not said.
DISOWNING = _words("pretend say claim that like")
# Said of something wished, planned, considered or doubted: not an assertion of it.
WISHES = _words("want wanna hope wish dream aspire crave tempt")
PLANS = _words("plan intend aim goal resolution consider apply interview offer")
HEDGES = _words("maybe perhaps possibly might could should would probably someday eventually if unless")
# Something being learned or tried is not yet had: "Learning Python at the moment".
UNDER_WAY = _words("learning trying practising practicing attempting")
# "Switched from Chrome": what is switched from no longer holds.
SWITCHING = _words("switch move migrate change convert")
# "I think I'm allergic": what the speaker believes, not what they state.
BELIEFS = _words("think guess suppose reckon believe assume")
# A speaker answering their own question ("Do I want to go back to uni? Honestly, yes."): the
# words that may come before the answer, the answers, and what makes one no answer at all
# ("Yeah right", "No idea"). "Should I...?" deliberates; its answer is a plan, not a fact.
ANSWER_FILLERS = _words("honestly well oh um hmm sadly unfortunately obviously frankly truthfully and")
YES_ANSWERS = _words("yes yep yeah yup yea absolutely definitely totally certainly every daily always")
NO_ANSWERS = _words("no nope nah")
IRONIC_AFTER_YES = _words("right sure")
NOT_AN_ANSWER = _words("idea clue doubt")
DELIBERATING = _words("should shall")
QUESTION_OPENERS = _words(
    "should shall do does did is are am was were can could would will have has what how why where "
    "when who which whether"
)

# Set phrases of irony: opening a sentence ("Oh sure, I work at NASA.") or tagged after it
# ("I love Mondays. Said no one ever."). A lone "oh" or "sure" agrees; these mock.
IRONIC_OPENERS = _phrases("oh sure", "oh great", "oh joy", "yeah right", "as if", "just what i needed")
IRONIC_TAGS = _phrases("said no one ever", "said nobody ever", "yeah right", "not")

# --- when ----------------------------------------------------------------------------------

# Said of something that held and no longer does.
ENDED = _words("anymore formerly former previously ex")
ENDING_VERBS = _words("quit stop leave resign retire fire ditch finish complete sell cancel uninstall")
# After an ending verb, these introduce what comes next, not what ended: "left for Acme",
# "ditched Spotify for Apple Music", "quit to join Brightline".
NEXT_AFTER_ENDING = _words("for to into")
ENDING_PREDICATES = frozenset({"works_at", "works_on", "uses"})
# Predicates of a moment, not a state: "was born" is not "held in the past".
EVENTS = frozenset({"born_on", "died_on", "corrected"})
# "I'll always pick the stairs" is a habit, not a future.
HABITUAL = _words("always never usually normally")
FUTURE = _words("will shall gonna tomorrow soon upcoming")
FUTURE_AFTER_NEXT = _words("day week weekend month year semester term spring summer autumn fall winter")
# Verbs of a state that held while said in the past tense ("I worked at Acme"), unlike events
# whose result stays ("I joined Acme").
STATES = _words("work be use like love enjoy live run want hope wish dream")
# Predicates a past occasion proves now: "ran into Declan" says one knows him.
OUTLASTING = frozenset({"knows"})
# "start Monday", "starting next week": a start still to come.
# A time of life that is over: what was done "as a kid" held in the past.
LIFE_STAGES = _words("kid child teen teenager student toddler youngster boy girl baby")
# Verbs of beginning something that may last: "learned to swim as a kid" can still swim.
BEGINNINGS = _words("learn start begin pick take teach")
START_VERBS = _words("start starts starting begin begins beginning")
AFTER_START = _words(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri "
    "tomorrow next soon"
)

# --- taken back ----------------------------------------------------------------------------

# A later clause that opens like a correction ("well", "actually no", "scratch that")...
TAKE_BACK_OPENERS = _phrases(
    "well",
    "actually",
    "scratch",
    "wait",
    "or",
    "i mean",
    "correction",
    "sorry",
    "just kidding",
    "jk",
    "kidding",
    "nah",
    "nope",
    "not really",
    "lol",
    "no",
)
# ...and says the earlier words no longer hold: one of these, a negator, or a past "did".
TAKE_BACK_SIGNS = _words("kidding joking jk scratch wait anymore now forgotten")
PAST_AUXILIARIES = _words("did was were could had used")
# A next sentence that opens by dropping it: "Goal was to learn Japanese. Dropped it."
DROPPING = _words("drop abandon cancel scrap ditch shelve quit stop")

# --- what ----------------------------------------------------------------------------------

# A predicate is said by one of its lemmas anywhere in the object's sentence.
CUES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "works_at": _words(
            """work job employ employer employee join hire start intern internship career colleague
            coworker boss team role position teach lecture shift onboarding onboard promote promotion
            salary staff contract contractor quit leave resign fire retire freelance company firm
            manager startup apply application interview offer"""
        ),
        "identity_is": _words("name call go identify pronoun be"),
        "born_on": _words("bear born birthday birth birthdate bday b dob"),
        "died_on": _words("die dead death pass passing lose d kill goodbye rip"),
        "likes": _words(
            """like love enjoy adore favorite favourite fav fave fan into obsess obsessed addict
            addicted hooked crazy mad fond passion passionate dig appreciate keen enough tired
            thing best hobby live beat pleasure treat stand bear sucker weakness"""
        ),
        "prefers": _words(
            "prefer preference rather instead over than favorite favourite better choose pick always"
        ),
        "uses": _words(
            """use run switch install rely swear stick write code edit track manage drive ride
            phone laptop computer app tool editor setup stack"""
        ),
        "knows": _words(
            """know meet friend call name text message chat talk colleague coworker neighbour
            neighbor mentor buddy pal date hang lunch coffee dinner visit introduce bump run see
            catch invite help hug ask tell thank email ring phone"""
        ),
        "has_skill": _words(
            """can skill skilled expert fluent speak proficient experience experienced good great
            decent certified know play code program learn teach master native train qualified
            license licensed able handy nature pass confident comfortable"""
        ),
        "works_on": _words(
            """work project build develop maintain write contribute hack ship design research lead
            launch thesis own restore fix renovate"""
        ),
        "has_goal": WISHES
        | PLANS
        | _words("try save train learn someday eventually will gonna going bucket determined sign interest"),
        "relationship_to": PERSON_NOUNS | _words("married marry date dating engaged wed"),
        "corrected": _words(
            """actually correction correct wrong mistake meant mean instead rather fix typo scratch
            earlier sorry oops whoops"""
        ),
    }
)
# Lemmas that, said of the object, deny the predicate outright ("I hate jazz").
DENIALS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "likes": _words("hate dislike detest loathe despise"),
        "prefers": _words("hate dislike"),
        "has_skill": _words("hopeless terrible rubbish useless awful bad crap"),
    }
)
# Predicates of a choice between things, and the words before the thing not chosen ("tea over
# coffee", "rather than fly", "instead of the bus").
CHOICES = frozenset({"prefers"})
PASSED_OVER = _words("over than instead")
# A word right after the object that makes it a taste: "a beach person", "dog people".
KIND_OF_PERSON = _words("person people fan lover guy girl gal")
# Predicates whose object is a person: mentioning them with the speaker involved says enough,
# and "my sister Anna" is the speaker's relation, not someone else speaking.
PERSON_OBJECTS = frozenset({"knows", "relationship_to"})
# Predicates that name what the words do ("a correction"): only a word of theirs says it, so an
# evidence span without one does not stand for it.
SPEECH_ACTS = frozenset({"corrected"})
# Predicates whose object is the date of an event: the predicate's word must say it of that
# date, in its clause with no other subject between ("born in 1972 and we moved on 3 April").
DATED = frozenset({"born_on", "died_on"})
# Predicates an evidence span stands for only with a word of theirs in it: a correction is
# said by a word of correcting, and a bare date beside a death is most often another event's
# ("the funeral was on 9 April"). A birth date stays vouched for by its span: people give their
# own without a word of birth ("DOB 3/4/88", "another trip round the sun on 12 May").
UNVOUCHED = SPEECH_ACTS | {"died_on"}
# Ages in words: "turned five on 3 November".
NUMBER_WORDS = _words(
    """one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred"""
)
# Occasions held for a birthday, on a day of their own: "her birthday party is on the 9th".
OCCASIONS = _words("party drinks dinner celebration bash do lunch meal")
# Said right after a year or a feast, these say a birth: "a 1991 baby", "leap-year baby".
BIRTH_NOUNS = _words("baby kid")
# Verbs giving the value a correction replaces: "I said Leeds but meant Bradford".
SAYING = _words("say write tell type put")
# Words after a value that go on to replace it: "at 3, sorry, 4", "Dublin - no, Galway".
REPLACING = _words("sorry no mean meant actually")

# Predicates whose claims are about wishes and plans: a hedge is what they state.
WISHFUL = frozenset({"has_goal"})
# Company-name endings a person rarely says: "Acme Corp" is found as "Acme".
ORG_SUFFIXES = _words("inc corp corporation ltd llc co gmbh plc company group")
