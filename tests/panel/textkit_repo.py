"""A small repository shaped like a real one (src layout, a 340-line module with ~1,000 mutation sites,
the repository's own tests), whose last commit is a one-line fix with its regression test: what
`prism panel build` meets on a real bug-fix commit (issue 22: boltons' `singularize('glass')`)."""

INFLECT = '''\
"""Inflection and small text helpers: plurals, singulars, ordinals, case and word counts."""

import re

_UNCOUNTABLE = {"sheep", "fish", "series", "species", "news", "rice", "information", "equipment"}
_IRREGULAR = {
    "person": "people",
    "man": "men",
    "woman": "women",
    "child": "children",
    "tooth": "teeth",
    "foot": "feet",
    "mouse": "mice",
    "goose": "geese",
}
_IRREGULAR_PLURALS = {plural: single for single, plural in _IRREGULAR.items()}
_WORD = re.compile(r"[A-Za-z']+")


def _match_case(model, word):
    """`word` in the case of `model` (upper, title or lower)."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def pluralize(word):
    """The plural of an English noun."""
    if not word:
        return word
    lower = word.lower()
    if lower in _UNCOUNTABLE:
        return word
    if lower in _IRREGULAR:
        return _match_case(word, _IRREGULAR[lower])
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return word + _match_case(word[-1:], "es")
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return word[:-1] + _match_case(word[-1:], "ies")
    if lower.endswith("fe") and len(lower) > 3:
        return word[:-2] + _match_case(word[-1:], "ves")
    if lower.endswith("f") and not lower.endswith("ff") and len(lower) > 2:
        return word[:-1] + _match_case(word[-1:], "ves")
    return word + _match_case(word[-1:], "s")


def singularize(word):
    """The singular of an English plural noun."""
    if not word:
        return word
    lower = word.lower()
    if lower in _UNCOUNTABLE:
        return word
    if lower in _IRREGULAR_PLURALS:
        return _match_case(word, _IRREGULAR_PLURALS[lower])
    if lower.endswith("ies") and len(lower) > 4:
        return word[:-3] + _match_case(word[-1:], "y")
    if lower.endswith("ves") and len(lower) > 4:
        return word[:-3] + _match_case(word[-1:], "f")
    if lower.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if lower.endswith("s") and len(lower) > 2:
        return word[:-1]
    return word


def ordinal(number):
    """`1st`, `2nd`, `3rd`, `4th`, ... `11th`, `12th`, `13th`, `21st`."""
    n = int(number)
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def plural_phrase(count, word):
    """`1 glass`, `2 glasses`, `no glasses`."""
    if count == 0:
        return "no " + pluralize(word)
    if count == 1 or count == -1:
        return f"{count} {word}"
    return f"{count} {pluralize(word)}"


def words(text):
    """The words of `text`, apostrophes kept."""
    return _WORD.findall(text or "")


def word_count(text):
    return len(words(text))


def capitalize_words(text, minor=("a", "an", "the", "of", "and", "or", "in", "on")):
    """Title case that leaves minor words lower, except the first and the last."""
    parts = text.split()
    out = []
    for i, part in enumerate(parts):
        if 0 < i < len(parts) - 1 and part.lower() in minor:
            out.append(part.lower())
        else:
            out.append(part[:1].upper() + part[1:].lower())
    return " ".join(out)


def snake_case(text):
    """`HelloWorld` and `hello world` -> `hello_world`."""
    out = []
    previous = ""
    for ch in text.strip():
        if ch.isupper() and previous and (previous.islower() or previous.isdigit()):
            out.append("_")
        if ch in " -.":
            if out and out[-1] != "_":
                out.append("_")
        else:
            out.append(ch.lower())
        previous = ch
    return "".join(out).strip("_")


def camel_case(text, upper_first=False):
    """`hello_world` -> `helloWorld` (`HelloWorld` with `upper_first`)."""
    parts = [p for p in re.split(r"[_\\s-]+", text.strip()) if p]
    if not parts:
        return ""
    first = parts[0].lower()
    if upper_first:
        first = first[:1].upper() + first[1:]
    return first + "".join(p[:1].upper() + p[1:].lower() for p in parts[1:])


def truncate(text, width, ellipsis="..."):
    """`text` cut to at most `width` characters, ending in `ellipsis` when cut."""
    if width <= 0:
        return ""
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return ellipsis[:width]
    return text[: width - len(ellipsis)].rstrip() + ellipsis


def pad_center(text, width, fill=" "):
    if len(text) >= width:
        return text
    left = (width - len(text)) // 2
    right = width - len(text) - left
    return fill * left + text + fill * right


def strip_prefix(text, prefix):
    if prefix and text.startswith(prefix):
        return text[len(prefix):]
    return text


def strip_suffix(text, suffix):
    if suffix and text.endswith(suffix):
        return text[: len(text) - len(suffix)]
    return text


def count_vowels(text):
    return sum(1 for ch in text.lower() if ch in "aeiou")


def syllables(word):
    """A rough syllable count: groups of vowels, a silent final e, at least one."""
    word = word.lower().strip()
    if not word:
        return 0
    count = 0
    previous_vowel = False
    for ch in word:
        vowel = ch in "aeiouy"
        if vowel and not previous_vowel:
            count += 1
        previous_vowel = vowel
    if word.endswith("e") and not word.endswith("le") and count > 1:
        count -= 1
    return max(count, 1)


def is_palindrome(text):
    letters = [ch.lower() for ch in text if ch.isalnum()]
    return letters == letters[::-1]


def initials(name, dots=True):
    parts = [p for p in name.replace("-", " ").split() if p]
    letters = [p[0].upper() for p in parts]
    if dots:
        return "".join(letter + "." for letter in letters)
    return "".join(letters)


def join_words(items, conjunction="and", oxford=True):
    """`a`, `a and b`, `a, b, and c`."""
    items = [str(i) for i in items]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return f"{items[0]} {conjunction} {items[1]}"
    head = ", ".join(items[:-1])
    comma = "," if oxford else ""
    return f"{head}{comma} {conjunction} {items[-1]}"


def split_sentences(text):
    out = []
    current = []
    for ch in text:
        current.append(ch)
        if ch in ".!?":
            sentence = "".join(current).strip()
            if sentence:
                out.append(sentence)
            current = []
    rest = "".join(current).strip()
    if rest:
        out.append(rest)
    return out


def wrap(text, width):
    """Greedy line wrapping at `width` (a longer word gets a line of its own)."""
    lines = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line = line + " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def most_common_word(text, ignore=()):
    counts = {}
    for w in words(text):
        w = w.lower()
        if w in ignore:
            continue
        counts[w] = counts.get(w, 0) + 1
    if not counts:
        return None
    best = max(counts.values())
    return min(w for w, n in counts.items() if n == best)


def roman(number):
    """Roman numerals for 1..3999."""
    if number < 1 or number > 3999:
        raise ValueError("out of range")
    out = []
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)


def from_roman(text):
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    previous = 0
    for ch in reversed(text.upper()):
        value = values[ch]
        if value < previous:
            total -= value
        else:
            total += value
            previous = value
    return total


def number_words(n):
    """English words for 0..999."""
    ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
            "nineteen"]
    tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    if n < 0 or n > 999:
        raise ValueError("out of range")
    if n < 20:
        return ones[n]
    if n < 100:
        rest = n % 10
        return tens[n // 10] + ("-" + ones[rest] if rest else "")
    rest = n % 100
    head = ones[n // 100] + " hundred"
    return head + (" and " + number_words(rest) if rest else "")


class Inflector:
    """Inflection with a project's own uncountable words."""

    def __init__(self, uncountable=(), irregular=None):
        self.uncountable = {w.lower() for w in uncountable}
        self.irregular = dict(irregular or {})

    def plural(self, word):
        if word.lower() in self.uncountable:
            return word
        if word.lower() in self.irregular:
            return _match_case(word, self.irregular[word.lower()])
        return pluralize(word)

    def singular(self, word):
        if word.lower() in self.uncountable:
            return word
        for single, plural in self.irregular.items():
            if plural == word.lower():
                return _match_case(word, single)
        return singularize(word)

    def phrase(self, count, word):
        if count == 1:
            return f"{count} {self.singular(word)}"
        return f"{count} {self.plural(self.singular(word))}"

    def tally(self, items):
        """`{"glass": 2}` from `["glasses", "glass"]`."""
        out = {}
        for item in items:
            key = self.singular(item.lower())
            out[key] = out.get(key, 0) + 1
        return out
'''

BUG_LINE = '    if lower.endswith("s") and len(lower) > 2:\n'
FIX_LINE = '    if lower.endswith("s") and not lower.endswith("ss") and len(lower) > 2:\n'
FIXED = INFLECT.replace(BUG_LINE, FIX_LINE)
assert FIXED != INFLECT

PYPROJECT = """\
[project]
name = "textkit"
version = "0.1"

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]
"""

# The repository's own tests (before the fix): real calls of its functions and methods.
OWN_TESTS = """\
from textkit import inflect
from textkit.inflect import Inflector, ordinal, pluralize, singularize


def test_plurals():
    assert pluralize("box") == "boxes"
    assert pluralize("city") == "cities"
    assert pluralize("knife") == "knives"
    assert pluralize("Person") == "People"


def test_singulars():
    assert singularize("boxes") == "box"
    assert singularize("dogs") == "dog"
    assert singularize("cities") == "city"


def test_ordinals():
    assert ordinal(1) == "1st"
    assert ordinal(12) == "12th"
    assert ordinal(23) == "23rd"


def test_inflector():
    i = Inflector(uncountable=["data"])
    assert i.plural("data") == "data"
    assert i.tally(["cats", "cat"]) == {"cat": 2}
    assert inflect.join_words(["a", "b", "c"]) == "a, b, and c"
"""

# The fix's regression test: a function and a method of a class, with keyword arguments.
REGRESSION = """\
from textkit.inflect import Inflector, singularize


def test_words_ending_in_double_s_stay_singular():
    assert singularize("glass") == "glass"
    assert singularize("Boss") == "Boss"
    assert singularize("cats") == "cat"
    assert Inflector(uncountable=["sheep"]).singular("address") == "address"
    assert Inflector().phrase(1, "grass") == "1 grass"
"""
