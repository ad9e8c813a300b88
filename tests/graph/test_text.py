"""Shared text handling: normalisation, tokens, salience, safe fulltext queries, profile keys."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from graph.text import (
    _COMBINING_MARKS,
    _TOKEN,
    QUERY_CHAR_BUDGET,
    STOP_WORDS,
    fulltext_clause,
    fulltext_query,
    normalize,
    one_line,
    profile_key,
    salient_terms,
    tokens,
)

pytestmark = pytest.mark.unit

LUCENE_SPECIALS = ["&&", "||", *'+-!(){}[]^"~*?:\\/']
LUCENE_KEYWORDS = ["AND", "OR", "NOT", "TO"]
NASTY_INPUTS = [
    'title:"foo bar"~2',
    "cats AND dogs OR NOT birds",
    "[a TO z]",
    "{1 TO 9}",
    "foo* b?r ^4 boost^2",
    "+must -mustnot",
    "a && b || c",
    "!important",
    "/regex.*/",
    "path\\to\\file",
    "(unbalanced",
    "unbalanced)",
    '"unterminated',
    "field:value:other",
    "*",
    "?",
    "~",
    "AND",
    "NOT NOT NOT",
    "TO",
    "",
    "   ",
    "\u0000\u0001\u0007",
    "\ud800 lone surrogate",
    "emoji \U0001f600 and ZWJ \u200d",
    "OR(AND)NOT[TO]",
    "x" * 10_000,
]
PLAIN_QUERY = re.compile(r"[a-z0-9]+( [a-z0-9]+)*")


def _assert_plain(query: str | None) -> None:
    if query is None:
        return
    assert PLAIN_QUERY.fullmatch(query), query
    assert not set(query.split()) & set(LUCENE_KEYWORDS)


def test_normalize_folds_compatibility_forms_case_and_whitespace() -> None:
    assert normalize("  \uff26\uff55\uff4c\uff4c\u00a0WIDTH\t\n \ufb01le  ") == "full width file"
    assert normalize("Straße") == "strasse"
    assert normalize("don\u2019t") == "don't"
    assert normalize("") == ""


@pytest.mark.parametrize(
    ("name", "max_chars", "line"),
    [
        ("llama3.1:8b", 40, "llama3.1:8b"),
        ("evil\n2026 ERROR forged\x1b[31m<script>", 40, "evil 2026 ERROR forged [31m<script>"),
        ("a\u2028b\u202ec\x9bd\u200be", 40, "a b c d e"),  # line separator, bidi override, C1, zero-width
        ("  café  模型\t", 40, "café 模型"),
        ("\x00\x1b", 40, ""),
        (None, 40, ""),
        ("z" * 50, 40, "z" * 40),
        ("x" * 7 + "\n\n" + "y" * 50, 8, "x" * 7),  # cut just after a space: nothing trails
    ],
)
def test_one_line_keeps_printable_words_on_one_short_line(
    name: str | None, max_chars: int, line: str
) -> None:
    assert one_line(name, max_chars) == line


def test_tokens_keep_order_contractions_and_unicode_words() -> None:
    words = ["i", "don't", "work", "at", "acme", "corp", "really"]
    assert tokens("I don't work at ACME-Corp, really!") == words
    assert tokens("I\u2019m O'Brien") == ["i'm", "o'brien"]
    assert tokens("naïve café 東京 हिन्दी") == ["naïve", "café", "東京", "हिन्दी"]


def test_tokens_drop_possessive_s_so_names_match() -> None:
    words = ["acme", "office", "it", "the", "students", "lounge"]
    assert tokens("Acme's office; it's the students' lounge") == words


def test_tokens_of_punctuation_or_empty_text_are_empty() -> None:
    assert tokens("") == []
    assert tokens("--- ... !!! '' _ __") == []


def test_stop_words_cover_pronouns_auxiliaries_and_connectives() -> None:
    assert {"i", "you", "they", "is", "was", "have", "and", "or", "not", "the"} <= STOP_WORDS
    assert all(word == normalize(word) for word in STOP_WORDS)


def test_tokens_keep_negations_even_though_they_are_stop_words() -> None:
    assert tokens("not never no don't") == ["not", "never", "no", "don't"]


def test_salient_terms_drop_stop_and_short_words_but_keep_numbers() -> None:
    assert salient_terms("I was born in 1990 in the UK, on day 12 of 3") == ["born", "1990", "day", "12"]


def test_salient_terms_are_deduplicated_in_first_seen_order() -> None:
    assert salient_terms("Jazz, more jazz, JAZZ and blues") == ["jazz", "blues"]


def test_fulltext_query_keeps_only_plain_words_joined_for_or_search() -> None:
    assert fulltext_query('title:"Rust" AND (async)~ runtimes*') == "title rust async runtimes"


@pytest.mark.parametrize("text", NASTY_INPUTS)
def test_fulltext_query_neutralises_nasty_inputs(text: str) -> None:
    _assert_plain(fulltext_query(text))
    clause = fulltext_clause("text", text)
    assert clause is None or re.fullmatch(r"text:\([a-z0-9 ]+\)", clause), clause


def test_fulltext_query_neutralises_every_special_and_keyword_in_random_mixes() -> None:
    rng = random.Random(20240521)
    pieces = [*LUCENE_SPECIALS, *LUCENE_KEYWORDS, "foo", "Bar", "42", " ", "  "]
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        _assert_plain(fulltext_query(text))


def test_fulltext_query_lowercases_lucene_keywords_into_plain_terms() -> None:
    assert fulltext_query("AND OR NOT TO") == "and or not to"
    assert fulltext_query("NOT jazz") == "jazz"


def test_fulltext_query_is_none_when_nothing_searchable_remains() -> None:
    for text in ["", "   ", '+-&&||!(){}[]^"~*?:\\/', "\u0000"]:
        assert fulltext_query(text) is None
        assert fulltext_clause("text", text) is None


def test_fulltext_query_caps_and_deduplicates_terms() -> None:
    text = " ".join(f"word{i}" for i in range(100)) + " word0 word1"
    query = fulltext_query(text, max_terms=5)
    assert query == "word0 word1 word2 word3 word4"
    assert fulltext_query(text) is not None
    assert len((fulltext_query(text) or "").split()) == 32


def test_fulltext_query_rejects_a_non_positive_term_limit() -> None:
    with pytest.raises(ValueError, match="max_terms"):
        fulltext_query("jazz", max_terms=0)


def test_fulltext_query_splits_apostrophes_out_of_terms() -> None:
    assert fulltext_query("O'Brien's rock'n'roll") == "o brien rock n roll"


def test_fulltext_clause_wraps_terms_for_one_field() -> None:
    assert fulltext_clause("text", "Jazz & blues!") == "text:(jazz blues)"


def test_fulltext_clause_refuses_a_field_name_that_is_not_plain() -> None:
    with pytest.raises(ValueError, match="field"):
        fulltext_clause("text:(x) OR other", "jazz")


def test_profile_key_is_one_stable_lowercase_token_per_profile() -> None:
    key = profile_key("alice@example.com")
    assert re.fullmatch(r"p[0-9a-f]{24}", key)
    assert key == profile_key("alice@example.com")
    assert key != profile_key("bob@example.com")
    assert tokens(key) == [key]
    assert fulltext_query(key) == key


def test_profile_key_accepts_any_string() -> None:
    for profile_id in ["", "\ud800", "ü-ñ 名前", "x" * 100_000]:
        assert re.fullmatch(r"p[0-9a-f]{24}", profile_key(profile_id))


def test_chinese_is_read_as_character_pairs_so_any_length_stays_a_short_query() -> None:
    chinese = "我每天早上在公园里跑步然后去街角的咖啡店喝一杯热拿铁" * 50
    assert tokens("在公园里跑步") == ["在公", "公园", "园里", "里跑", "跑步"]
    assert tokens("去東京タワー, ok") == ["去東", "東京", "京タ", "タワ", "ワー", "ok"]
    assert "公园" in salient_terms(chinese)
    query = fulltext_query(chinese)
    assert query is not None and all(len(term) == 2 for term in query.split()) and len(query.split()) <= 32


def test_a_query_never_holds_more_characters_than_lucene_can_take_as_tokens() -> None:
    long_words = " ".join(f"{letter * 40}" for letter in "abcdefghijklmnopqrstuvwxyz")
    query = fulltext_query(long_words)
    assert query is not None and len(query.replace(" ", "")) == QUERY_CHAR_BUDGET
    assert query.split()[0] == "a" * 40


def _scanned_mark_ranges() -> str:
    """The class body graph/text.py built at import before the marks were written out: every
    combining mark of the Basic Multilingual Plane, found by scanning it (code kept as it was)."""
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


def _marks_of(char_class: str) -> set[int]:
    pattern = re.compile(f"[{char_class}]")
    return {code for code in range(0x10000) if pattern.fullmatch(chr(code))}


@pytest.mark.unit
def test_the_written_out_marks_are_those_unicodedata_lists() -> None:
    scanned = _scanned_mark_ranges()
    assert _marks_of(_COMBINING_MARKS) == _marks_of(scanned), (
        f"Unicode {unicodedata.unidata_version} lists other combining marks; write these into "
        f"graph/text.py: {scanned.encode('unicode_escape').decode()}"
    )


@pytest.mark.unit
def test_tokens_split_as_with_the_scanned_marks() -> None:
    word_char = rf"(?:[^\W_]|[{_scanned_mark_ranges()}])"
    scanned = re.compile(rf"[^\W_]{word_char}*(?:'{word_char}+)*")
    # Every BMP code point, plus marks and others beyond it (which separate words), inside a
    # word, after an apostrophe and at the start of a word.
    beyond = [0x10000, 0x101FD, 0x11000, 0x11001, 0x1D165, 0x1D167, 0x1E944, 0x1F600, 0xE0100, 0x10FFFF]
    for code in [*range(0x10000), *beyond]:
        text = f"a{chr(code)}b o'{chr(code)} {chr(code)}c"
        assert _TOKEN.findall(text) == scanned.findall(text), hex(code)


@pytest.mark.unit
def test_tokens_keep_marks_inside_words_and_split_at_marks_beyond_the_bmp() -> None:
    assert _TOKEN.findall("हिन्दी ไทย שָׁלוֹם e\u0301te\u0301") == ["हिन्दी", "ไทย", "שָׁלוֹם", "e\u0301te\u0301"]
    assert _TOKEN.findall("\u0301abc") == ["abc"]  # a word starts with a letter or digit, not a mark
    assert _TOKEN.findall("a\U0001d167b") == ["a", "b"]  # musical combining mark: beyond the BMP
    assert _TOKEN.findall("don't o'\u0301") == ["don't", "o'\u0301"]
