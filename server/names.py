"""What a player may be called: the one check of a display name, and the key that compares names.

:func:`check_name` turns what someone typed into the name everybody will see, or raises
:class:`NameRefused` with a plain reason. It refuses, in this order:

- **invisible characters**: controls, format characters (U+200B, U+202E, …), every
  Default_Ignorable_Code_Point of Unicode (U+3164 HANGUL FILLER, U+115F, U+FFA0, variation
  selectors, tags, …), private-use, unassigned and surrogate code points, line and paragraph
  separators, and characters that draw nothing (U+2800 BRAILLE PATTERN BLANK, U+1D159). A text
  or emoji variation selector (U+FE0E/U+FE0F) is kept right after a symbol or digit, where it
  only picks how an emoji is drawn;
- **blank names**: a name needs a letter, digit, punctuation mark or symbol (after NFKC), not
  only spaces or marks;
- **piled-up combining marks** (UTS #39 §5.4): no name begins with a mark, and no letter carries
  more than :data:`MAX_MARKS` marks, or the same mark twice in a row (counted after NFD);
- **mixed-script look-alikes** (UTS #39's confusables data, through ``confusable_homoglyphs``):
  a name in several scripts where a letter of one looks like a letter of another, such as
  ``аdmin`` with a Cyrillic ``а``. Scripts that are written together (Latin with Han, Hiragana
  and Katakana, with Han and Hangul, or with Han and Bopomofo: UTS #39's "highly restrictive"
  sets) are one script here, so Japanese, Korean and Chinese names pass;
- **letters and digits outside UTS #39's identifier profile** (Identifier_Status=Allowed: the
  union of ICU's recommended and inclusion sets, through PyICU): after NFKC, every letter, mark
  and digit of a name must be one Unicode recommends for identifiers, which leaves out small
  capitals (``ᴀᴅᴍɪɴ``, which have no confusable mapping to fold them onto ``admin``), obsolete
  and technical letters (``ԁ`` KOMI DE, ``ǀ`` DENTAL CLICK) and the like, while every living
  script's letters pass (accented Latin, Cyrillic, Greek, Han, Kana, Hangul, Devanagari, …).
  Spaces, punctuation and symbols (emoji) are not letters and keep the rules above;
- **the house bots' names**: every ``engine.bots`` name alone or with a number (``greedy``,
  ``greedy-1``, ``Random 7``, as house bots and tournament bots are named ``NAME-<n>``), and
  anything starting with ``bot:`` or ``bot-`` (the way a bot is named in an entry or an id);
- **a player id's look** (``p_`` and 16 hex digits): the API takes a player's id or name alike.

The name kept is NFC with every run of spaces made one ASCII space and the ends trimmed
(RFC 8266's nickname rule). :func:`name_key` is the form two names are compared in: it is
stored with every player, and a unique constraint on it makes a human's name unique on the
server (``server.store.models.Player``, docs/SERVER.md "Accounts"). Two names that **look**
alike have one key (issue 32): the key is UTS #39's confusable skeleton (ICU's
``SpoofChecker.getSkeleton``) of the case-folded name, so ``admin``, ``ADMİN``, ``admın``,
``adrnin``, ``аdmin`` and ``асе``/``ace`` are one name each. A name whose key is longer than
:data:`MAX_KEY_LENGTH` (NFKC can make one character eighteen) is refused.

The key depends on Unicode's data as ICU has it: :data:`KEY_VERSION` names it, the database
records the version its keys were made with, and a server that starts with another one
recomputes them (``server.store.name_keys``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache

import icu  # PyICU: ICU's UTS #39 implementation (SpoofChecker)
from confusable_homoglyphs import categories

from engine.bots import BOT_PREFIX, bot_names

MAX_LENGTH = 100
MAX_KEY_LENGTH = 300  # characters of name_key(name): the stored column's size
MAX_MARKS = 4  # combining marks on one letter; UTS #39 §5.4 suggests refusing more than four

# Default_Ignorable_Code_Point (Unicode 15.1, DerivedCoreProperties.txt): drawn as nothing.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
BLANK_LOOKING = frozenset({"\u2800", "\U0001d159"})  # BRAILLE PATTERN BLANK, MUSICAL SYMBOL NULL NOTEHEAD
EMOJI_STYLE = frozenset({"\ufe0e", "\ufe0f"})  # text / emoji presentation selectors
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
VISIBLE_CATEGORY_CLASSES = frozenset("LNPS")  # letters, numbers, punctuation, symbols
MARK_CATEGORIES = frozenset({"Mn", "Me"})
NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED", "Unknown"})  # digits, spaces, signs, marks
WRITTEN_TOGETHER: tuple[frozenset[str], ...] = (  # UTS #39 "highly restrictive"
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
)
DASHES = re.compile(r"[\u2010-\u2015\u2212\u2E3A\u2E3B\uFE58\uFE63\uFF0D]")  # NFKC leaves most of these


KEY_RULES = 2  # this module's own steps around the skeleton (bump it when they change)
KEY_VERSION = f"uts39 unicode {icu.UNICODE_VERSION} icu {icu.ICU_VERSION} rules {KEY_RULES}"
"""What a stored key was made with: the database keeps it, and keys made with another are recomputed."""
_SPOOF = icu.SpoofChecker()  # only its skeleton and sets are used: thread-safe once made (ICU's docs)
ANY_CASE = 0  # getSkeleton's type argument (USPOOF_ANY_CASE, the one UTS #39 defines)
DOT_ON_SOFT_DOTTED = re.compile(r"([ij])\u0307")  # the dot of İ, folded: an i shows its own dot already


@cache
def allowed_characters() -> icu.UnicodeSet:
    """UTS #39's Identifier_Status=Allowed: ICU's recommended set with its inclusion set."""
    allowed = icu.UnicodeSet(_SPOOF.getRecommendedUnicodeSet())
    allowed.addAll(_SPOOF.getInclusionUnicodeSet())
    allowed.freeze()
    return allowed


class NameRefused(ValueError):
    """A name nobody may take, with the reason in plain words (the service answers 400 ``malformed``)."""


def check_name(raw: str) -> str:
    """The name as it will be shown (NFC, spaces collapsed, trimmed), or :class:`NameRefused`."""
    if not isinstance(raw, str):
        raise NameRefused("a name must be text")
    text = unicodedata.normalize("NFC", raw)
    _refuse_hidden(text)
    name = " ".join(text.split())
    if not 0 < len(name) <= MAX_LENGTH:
        raise NameRefused(f"a name must be 1-{MAX_LENGTH} characters long, not counting spaces at the ends")
    _refuse_blank(name)
    _refuse_piled_marks(name)
    _refuse_mixed_script_lookalikes(name)
    _refuse_unrecommended(name)
    _refuse_reserved(name)
    if len(name_key(name)) > MAX_KEY_LENGTH:
        raise NameRefused(f"a name must stay under {MAX_KEY_LENGTH} characters once compatibility forms are expanded")
    return name


def folded(name: str) -> str:
    """NFKC, case-folded (then NFKC again, as Unicode's NFKC_Casefold), emoji style selectors
    dropped, spaces collapsed and trimmed: ``"Ａda"``, ``"ADA"`` and ``" ada "`` are ``"ada"``."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join("".join(c for c in text if c not in EMOJI_STYLE).split())


def _skeleton(text: str) -> str:
    """UTS #39's skeleton (ICU's), the dot of a folded ``İ`` dropped, and ``i`` written ``l``.

    Why ``i`` is ``l``: the skeleton takes a capital ``I`` to ``l`` (they are drawn alike), and a
    key blind to case takes ``I`` to ``i`` first: so ``paypaI`` (a capital I) would pass beside
    ``paypal``. Only with ``i`` and ``l`` one letter in the key is it blind to case and to
    look-alikes both (``раураӏ``, whose Cyrillic palochka UTS #39 draws as ``i``, is ``paypal``
    too). The price: names that differ only by i against l (``Ali``, ``All``) are one name.
    """
    try:
        skeleton = _SPOOF.getSkeleton(ANY_CASE, text)
    except (UnicodeError, icu.ICUError):  # a lone surrogate: no name has one, so it matches none
        return text
    return DOT_ON_SOFT_DOTTED.sub(r"\1", skeleton).replace("i", "l")


def name_key(name: str) -> str:
    """The form in which two names are the same name: :func:`folded`, then its UTS #39 skeleton
    (:func:`_skeleton`), folded again, until nothing changes (the skeleton of ``0`` is a capital
    ``O``, whose fold is ``o``).

    ``"Ａda"``, ``"ADA"`` and ``" ada "`` have the key ``"ada"``; ``admin``, ``ADMİN``, ``admın``,
    ``adrnin`` and ``аdmin`` (Cyrillic а) have one key, ``0scar`` and ``oscar`` another. The key
    is for comparing only, never shown.
    """
    key = folded(name)
    for _ in range(8):  # two or three rounds in practice
        again = folded(_skeleton(key))
        if again == key:
            break
        key = again
    return key


def describe(char: str) -> str:
    """``U+3164 HANGUL FILLER``: a character named so a reader can tell which one it is."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'an unnamed character')}"


def is_default_ignorable(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def _refuse_hidden(text: str) -> None:
    previous = ""
    for char in text:
        hidden = unicodedata.category(char) in HIDDEN_CATEGORIES or is_default_ignorable(char) or char in BLANK_LOOKING
        if hidden and not (char in EMOJI_STYLE and _takes_emoji_style(previous)):
            raise NameRefused(f"a name cannot contain invisible or blank-looking characters (it has {describe(char)})")
        previous = char


def _takes_emoji_style(char: str) -> bool:
    """A symbol or a keycap's digit, ``#`` or ``*``: a character an emoji style selector may follow."""
    return char != "" and (unicodedata.category(char).startswith("S") or char in "0123456789#*")


def _refuse_blank(name: str) -> None:
    folded = unicodedata.normalize("NFKC", name)
    if not any(unicodedata.category(c)[0] in VISIBLE_CATEGORY_CLASSES and not c.isspace() for c in folded):
        raise NameRefused("a name needs a letter, digit or sign that shows, not only spaces or marks")


def _refuse_piled_marks(name: str) -> None:
    decomposed = unicodedata.normalize("NFD", name)
    if unicodedata.category(decomposed[0]) in MARK_CATEGORIES:
        raise NameRefused(f"a name cannot begin with a combining mark ({describe(decomposed[0])})")
    base, run, previous = decomposed[0], 0, ""
    for char in decomposed:
        if unicodedata.category(char) not in MARK_CATEGORIES:
            base, run, previous = char, 0, char
            continue
        run += 1
        if run > MAX_MARKS:
            raise NameRefused(f"a name cannot pile more than {MAX_MARKS} combining marks on one letter ({base!r})")
        if char == previous:
            raise NameRefused(f"a name cannot repeat a combining mark on one letter ({describe(char)} on {base!r})")
        previous = char


def scripts_of(name: str) -> Counter[str]:
    """How many of ``name``'s characters each script has (Unicode's Scripts.txt), Common and Inherited left out."""
    return Counter(a for a in map(categories.alias, name) if a not in NEUTRAL_SCRIPTS)


def _refuse_mixed_script_lookalikes(name: str) -> None:
    """A letter of a rarer script that looks like a letter of the name's main script (the usual spoof:
    a few letters of a name swapped for look-alikes). With two scripts equally used, both are main."""
    counts = scripts_of(name)
    scripts = set(counts)
    if len(scripts) < 2 or any(scripts <= together for together in WRITTEN_TOGETHER):
        return
    # Speed: its data (a 900 kB JSON file) is parsed on import, 2% of `unoduo serve`'s start; few names mix scripts.
    from confusable_homoglyphs import confusables

    most = max(counts.values())
    for main in sorted(s for s, n in counts.items() if n == most):
        found = confusables.is_confusable(name, greedy=True, preferred_aliases=[main]) or []
        for hit in found:
            if hit["alias"] in scripts:
                char: str = hit["character"]
                raise NameRefused(
                    f"a name cannot mix scripts with look-alike letters: {char!r} ({describe(char)}) looks like "
                    f"a {main.title()} letter; write the name in one script"
                )


def _refuse_unrecommended(name: str) -> None:
    """A letter, mark or digit outside UTS #39's identifier profile (after NFKC, which maps
    fullwidth and other compatibility forms onto the recommended ones)."""
    allowed = allowed_characters()
    for char in unicodedata.normalize("NFKC", name):
        if unicodedata.category(char)[0] in "LMN" and char not in EMOJI_STYLE and not allowed.contains(char):
            raise NameRefused(
                f"a name cannot use {describe(char)}: it is not among the letters and digits Unicode recommends "
                "for names (UTS #39), as it can pass for another letter or is rarely written; use the usual letter"
            )


@cache
def _reserved_pattern() -> re.Pattern[str]:
    bots = "|".join(re.escape(name) for name in bot_names())
    return re.compile(rf"(?:{bots})(?:[-_ ]?[0-9]+)?|{re.escape(BOT_PREFIX)}.*|bot-.*", re.DOTALL)


@cache
def _reserved_look_pattern() -> re.Pattern[str]:
    """:func:`_reserved_pattern` as keys are (``rand0m-1`` looks like ``random-1``)."""

    def either(texts: list[str]) -> str:
        return "|".join(re.escape(t) for t in sorted(set(texts), key=len, reverse=True))

    bots = either([name_key(name) for name in bot_names()])
    seps = either([name_key(f"a{c}a")[1:-1] for c in "-_ "])
    digits = either([name_key(d) for d in "0123456789"])
    prefixes = either([name_key(BOT_PREFIX), name_key("bot-")])
    return re.compile(rf"(?:{bots})(?:(?:{seps})?(?:{digits})+)?|(?:{prefixes}).*", re.DOTALL)


def is_reserved(name: str) -> bool:
    """True if ``name`` (folded, or as keys compare) is a house bot's name or looks like one."""
    return (
        _reserved_pattern().fullmatch(DASHES.sub("-", folded(name))) is not None
        or _reserved_look_pattern().fullmatch(name_key(name)) is not None
    )


PLAYER_ID_LOOK = re.compile(r"p_[0-9a-f]{16}")  # server.store.players.new_player_id


def _refuse_reserved(name: str) -> None:
    if PLAYER_ID_LOOK.fullmatch(folded(name)):
        raise NameRefused(f"{name!r} looks like a player's id (the API takes both); choose another name")
    if is_reserved(name):
        raise NameRefused(
            f"{name!r} is kept for the house bots (their names are {', '.join(bot_names())}, alone or with a "
            "number, and bot:… or bot-…); choose another name"
        )
