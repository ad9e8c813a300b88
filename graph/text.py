"""Text handling shared by recall, claim verification and the dream generator.

Every function here is total: any string (empty, odd unicode, megabytes long) gives a result,
never an error, because the text comes straight from people and documents.

Tokenisation decisions, so every caller splits words the same way:
- a token is a run of unicode letters and digits (combining marks included, so Devanagari or
  accented words stay whole); everything else separates tokens;
- apostrophe contractions stay one token ("don't", "i'm", "o'brien") because splitting them
  would turn "don't" into a bare "don" and hide the negation from the verifier;
- a trailing "'s" is dropped ("acme's" -> "acme", "it's" -> "it") so a possessive matches the
  plain name; nothing else is stemmed;
- Chinese and Japanese are written without spaces, so a run of Han or kana characters is read
  as its overlapping pairs ("公园里跑步" -> "公园", "园里", "里跑", "跑步"), the usual way to
  index these scripts without a dictionary; a lone character stays one token.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata


def _mark_class() -> str:
    # `\w` leaves out combining marks, which would cut Indic and some Hebrew/Thai words into
    # pieces. The BMP holds nearly all of them and scanning it costs a few milliseconds once.
    ranges: list[str] = []
    start = previous = -2
    for code in range(0x10000):
        if not unicodedata.category(chr(code)).startswith("M"):
            continue
        if code != previous + 1:
            if start >= 0:
                ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(previous))}")
            start = code
        previous = code
    ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(previous))}")
    return "".join(ranges)


_WORD_CHAR = rf"(?:[^\W_]|[{_mark_class()}])"
_TOKEN = re.compile(rf"[^\W_]{_WORD_CHAR}*(?:'{_WORD_CHAR}+)*")
# Hiragana, katakana, CJK extension A, unified and compatibility ideographs, and the
# supplementary ideograph planes (extensions B and later).
_UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]+")
_WHITESPACE = re.compile(r"\s+")
# NFKC keeps typographic apostrophes as they are; unifying them makes "don\u2019t" == "don't".
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Compact on purpose: only words that carry no topic. Negations are here too, because salience
# is about topic; `tokens` keeps them, so the verifier still sees every "not".
_STOP_WORDS_TEXT = """
    a an the and or but nor not no never so if then than as because while until
    at by for from in into of off on onto out over to up with about after before under again
    also just only very too some any all each both few more most other such own same
    this that these those there here what which who whom whose when where why how
    i me my mine myself we us our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves
    am is are was were be been being have has had having do does did doing done
    will would shall should can could may might must cannot let get got
    i'm i've i'll i'd you're you've you'll you'd we're we've we'll we'd
    they're they've they'll they'd he'd he'll she'd she'll
    don't doesn't didn't isn't aren't wasn't weren't haven't hasn't hadn't
    won't wouldn't can't couldn't shouldn't mustn't
    yes yeah ok okay really now still ever
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_WORDS_TEXT.split())


def normalize(text: str) -> str:
    """NFKC, casefolded, typographic apostrophes unified, whitespace collapsed and trimmed."""
    # Casefolding can undo NFKC (U+01F0 folds to "j" plus a combining caron), so normalise
    # again after folding.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _WHITESPACE.sub(" ", folded.translate(_APOSTROPHES)).strip()


def tokens(text: str) -> list[str]:
    """The words of `normalize(text)` in order; see the module docstring for the rules."""
    words = _TOKEN.findall(normalize(text))
    return [piece for word in words for piece in _unspaced_pairs(word[:-2] if word.endswith("'s") else word)]


def _unspaced_pairs(word: str) -> list[str]:
    """The word as it is, or, where it holds Han or kana, those runs as overlapping pairs."""
    if _UNSPACED.search(word) is None:
        return [word]
    pieces: list[str] = []
    position = 0
    for run in _UNSPACED.finditer(word):
        pieces.append(word[position : run.start()])
        chars = run.group()
        pieces.extend([chars] if len(chars) == 1 else [chars[i : i + 2] for i in range(len(chars) - 1)])
        position = run.end()
    pieces.append(word[position:])
    return [piece for piece in pieces if piece]


def _is_salient(word: str) -> bool:
    if word in STOP_WORDS:
        return False
    # Short words are mostly noise ("ok", "re"), but two-digit numbers and years are not, nor
    # the character pairs Chinese and Japanese are read as.
    return len(word) >= 3 or (word.isdigit() and len(word) >= 2) or _UNSPACED.fullmatch(word) is not None


def salient_terms(text: str) -> list[str]:
    """Tokens worth matching on: no stop words, no short words, each once, in order."""
    return list(dict.fromkeys(word for word in tokens(text) if _is_salient(word)))


# Lucene's limit is 1,024 clauses per query; the rest of each query (profile, status) uses a few.
QUERY_CHAR_BUDGET = 600


def fulltext_query(text: str, max_terms: int = 32) -> str | None:
    """A Lucene query that can only ever mean "any of these words", or None if none remain.

    Only letters and digits survive, so nothing the person typed (quotes, wildcards, fuzzy or
    boost markers, field prefixes, ranges, boolean operators) reaches the query parser as
    syntax. Lucene keywords survive as words, lowercased: the parser only treats the uppercase
    forms as operators. Stop words are dropped when other words remain, because with OR
    semantics they would match nearly every document.
    """
    if max_terms < 1:
        raise ValueError(f"max_terms must be at least 1, got {max_terms}")
    # Apostrophes are not Lucene syntax, but splitting on them keeps the output plain alnum.
    words = [part for word in tokens(text) for part in word.split("'") if part]
    terms = list(dict.fromkeys(words))
    meaningful = [term for term in terms if term not in STOP_WORDS]
    chosen = _within_budget((meaningful or terms)[:max_terms])
    return " ".join(chosen) if chosen else None


def _within_budget(terms: list[str]) -> list[str]:
    """The terms, cut to `QUERY_CHAR_BUDGET` characters in all. Lucene's analyzer splits a
    run of Chinese or Japanese (written without spaces) into one token per character, and a
    query of more than 1,024 tokens is refused; a word never yields more tokens than it has
    characters, so this bound keeps any text searchable."""
    kept: list[str] = []
    left = QUERY_CHAR_BUDGET
    for term in terms:
        if left <= 0:
            break
        kept.append(term[:left])
        left -= len(kept[-1])
    return kept


def fulltext_clause(field: str, text: str, max_terms: int = 32) -> str | None:
    """`field:(t1 t2 ...)` for `fulltext_query(text)`, or None when nothing is searchable.

    The field name comes from code, never from the person, so a bad one is a programming error.
    """
    if _FIELD_NAME.fullmatch(field) is None:
        raise ValueError(f"not a plain field name: {field!r}")
    query = fulltext_query(text, max_terms)
    return None if query is None else f"{field}:({query})"


def profile_key(profile_id: str) -> str:
    """A lowercase alphanumeric token standing for a profile inside fulltext indexes.

    Hashing makes any profile id (hyphens, unicode, emails) one analyzer-proof token, and the
    leading letter keeps analyzers from treating an all-digit hash prefix as a number.
    """
    return "p" + hashlib.sha256(profile_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]
