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

# `\w` leaves out combining marks, which would cut Indic and some Hebrew/Thai words into pieces,
# so a word character is also one of these: the combining marks (categories Mn, Mc, Me) of the
# Basic Multilingual Plane, which holds nearly all of them, as Python 3.11's Unicode 14.0 lists
# them. Written out rather than found by scanning 65,536 code points at import; test_text.py
# compares it with `unicodedata` and prints the new text when a newer Unicode adds marks.
_COMBINING_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1-\u05c2\u05c4-\u05c5\u05c7\u0610-\u061a"
    "\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7-\u06e8\u06ea-\u06ed\u0711\u0730-\u074a"
    "\u07a6-\u07b0\u07eb-\u07f3\u07fd\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d"
    "\u0859-\u085b\u0898-\u089f\u08ca-\u08e1\u08e3-\u0903\u093a-\u093c\u093e-\u094f\u0951-\u0957"
    "\u0962-\u0963\u0981-\u0983\u09bc\u09be-\u09c4\u09c7-\u09c8\u09cb-\u09cd\u09d7\u09e2-\u09e3\u09fe"
    "\u0a01-\u0a03\u0a3c\u0a3e-\u0a42\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a83"
    "\u0abc\u0abe-\u0ac5\u0ac7-\u0ac9\u0acb-\u0acd\u0ae2-\u0ae3\u0afa-\u0aff\u0b01-\u0b03\u0b3c"
    "\u0b3e-\u0b44\u0b47-\u0b48\u0b4b-\u0b4d\u0b55-\u0b57\u0b62-\u0b63\u0b82\u0bbe-\u0bc2"
    "\u0bc6-\u0bc8\u0bca-\u0bcd\u0bd7\u0c00-\u0c04\u0c3c\u0c3e-\u0c44\u0c46-\u0c48\u0c4a-\u0c4d"
    "\u0c55-\u0c56\u0c62-\u0c63\u0c81-\u0c83\u0cbc\u0cbe-\u0cc4\u0cc6-\u0cc8\u0cca-\u0ccd"
    "\u0cd5-\u0cd6\u0ce2-\u0ce3\u0d00-\u0d03\u0d3b-\u0d3c\u0d3e-\u0d44\u0d46-\u0d48\u0d4a-\u0d4d"
    "\u0d57\u0d62-\u0d63\u0d81-\u0d83\u0dca\u0dcf-\u0dd4\u0dd6\u0dd8-\u0ddf\u0df2-\u0df3\u0e31"
    "\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd\u0f18-\u0f19\u0f35\u0f37\u0f39"
    "\u0f3e-\u0f3f\u0f71-\u0f84\u0f86-\u0f87\u0f8d-\u0f97\u0f99-\u0fbc\u0fc6\u102b-\u103e"
    "\u1056-\u1059\u105e-\u1060\u1062-\u1064\u1067-\u106d\u1071-\u1074\u1082-\u108d\u108f"
    "\u109a-\u109d\u135d-\u135f\u1712-\u1715\u1732-\u1734\u1752-\u1753\u1772-\u1773\u17b4-\u17d3"
    "\u17dd\u180b-\u180d\u180f\u1885-\u1886\u18a9\u1920-\u192b\u1930-\u193b\u1a17-\u1a1b\u1a55-\u1a5e"
    "\u1a60-\u1a7c\u1a7f\u1ab0-\u1ace\u1b00-\u1b04\u1b34-\u1b44\u1b6b-\u1b73\u1b80-\u1b82"
    "\u1ba1-\u1bad\u1be6-\u1bf3\u1c24-\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce8\u1ced\u1cf4\u1cf7-\u1cf9"
    "\u1dc0-\u1dff\u20d0-\u20f0\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u302a-\u302f\u3099-\u309a"
    "\ua66f-\ua672\ua674-\ua67d\ua69e-\ua69f\ua6f0-\ua6f1\ua802\ua806\ua80b\ua823-\ua827\ua82c"
    "\ua880-\ua881\ua8b4-\ua8c5\ua8e0-\ua8f1\ua8ff\ua926-\ua92d\ua947-\ua953\ua980-\ua983"
    "\ua9b3-\ua9c0\ua9e5\uaa29-\uaa36\uaa43\uaa4c-\uaa4d\uaa7b-\uaa7d\uaab0\uaab2-\uaab4\uaab7-\uaab8"
    "\uaabe-\uaabf\uaac1\uaaeb-\uaaef\uaaf5-\uaaf6\uabe3-\uabea\uabec-\uabed\ufb1e\ufe00-\ufe0f"
    "\ufe20-\ufe2f"
)


_WORD_CHAR = rf"(?:[^\W_]|[{_COMBINING_MARKS}])"
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

# Words that deny what they stand by: the claim verifier's and the duplicate rule's. Chat often
# drops the apostrophe, hence "dont" and friends; "...n't" forms with it are caught by their
# ending (`is_negator`).
_NEGATOR_TEXT = """
    not no never cannot stopped quit former formerly
    dont doesnt didnt isnt wasnt arent werent havent hasnt cant wont
"""
NEGATORS: frozenset[str] = frozenset(_NEGATOR_TEXT.split())


def is_negator(token: str) -> bool:
    """Whether a token of `tokens` denies: "not", "never", "former", "don't", "dont", ..."""
    return token in NEGATORS or token.endswith("n't")


def normalize(text: str) -> str:
    """NFKC, casefolded, typographic apostrophes unified, whitespace collapsed and trimmed."""
    # Casefolding can undo NFKC (U+01F0 folds to "j" plus a combining caron), so normalise
    # again after folding.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _WHITESPACE.sub(" ", folded.translate(_APOSTROPHES)).strip()


def one_line(text: str | None, max_chars: int) -> str:
    """A name someone else chose (a client's, a model's) as one short line: every unprintable
    character (newlines, escapes, bidi overrides, line separators) becomes a space, whitespace is
    collapsed and trimmed, and the rest is cut at `max_chars`. Such a name is stored and shown in
    listings, terminals and logs, where a newline or an escape sequence could forge a line."""
    printable = "".join(char if char.isprintable() else " " for char in text or "")
    return " ".join(printable.split())[:max_chars].rstrip()


def tokens(text: str) -> list[str]:
    """The words of `normalize(text)` in order; see the module docstring for the rules."""
    words = _TOKEN.findall(normalize(text))
    return [piece for word in words for piece in _unspaced_pairs(word[:-2] if word.endswith("'s") else word)]


def as_written(term: str, text: str) -> str:
    """`term` (one of `tokens(text)`) as `text` writes it: "Odile", not "odile"; the term itself
    when no word of the text is exactly it."""
    for match in _TOKEN.finditer(text):
        word = match.group(0)
        if term in (plain := normalize(word), plain.removesuffix("'s")):
            return word.removesuffix("'s").removesuffix("\u2019s")
    return term


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


def log_safe(text: str) -> str:
    """`text` with every unprintable character written as its escape (a newline as \\n), so a value
    a client or a token file supplies cannot start a forged line in the log or a listing."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
