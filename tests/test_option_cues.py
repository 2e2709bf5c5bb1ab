"""Nothing in the wording of the options tells right from wrong: a student who has not read the
lesson gains nothing by looking for a word, a clause, a length or a phrase of the lesson.

Every single-choice option of every exercise is one sample. A cue is any word, or any feature of
form (a colon, a dash, a parenthesis, a code span, the length...). Each test plays a strategy a
student could use without the lesson and checks it does no better than chance.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import pytest

from conftest import ROOT
from graders import exercises

# The example: "porque" in 18 of 31 wrong options and in none of the 10 right ones.
MAX_RATE_GAP = 0.35
# A strategy "pick the only option with (without) X" may hit by chance; it must not beat its misses.
MAX_LUCKY_HITS = 2
# Longest run of words an option may share with the lesson's text.
MAX_ECHO_WORDS = 4


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFC", text.lower())
    return re.sub(r"[`*_“”\"'()\[\]{}.,:;!?—–-]", " ", text)


def words(text: str) -> list[str]:
    return [w for w in _plain(text).split() if w]


def _form(text: str) -> dict[str, bool]:
    """Features of form, each a yes/no a student could spot at a glance."""
    return {
        "form:dois-pontos": ":" in text,
        "form:ponto-e-virgula": ";" in text,
        "form:travessao": "—" in text,
        "form:parenteses": "(" in text,
        "form:codigo": "`" in text,
        "form:dois-codigos": text.count("`") >= 4,
        "form:aspas": "“" in text or '"' in text,
        "form:virgulas-3+": text.count(",") >= 3,
        "form:numero": bool(re.search(r"\d", text)),
        "form:nao": bool(re.search(r"\bnão\b", text.lower())),
        "form:nunca-nada-nenhum": bool(re.search(r"\b(nunca|nada|nenhum|nenhuma)\b", text.lower())),
        "form:sempre-todo": bool(re.search(r"\b(sempre|todo|toda|todos|todas)\b", text.lower())),
        "form:porque": bool(re.search(r"\bporque\b|\bpois\b|\bjá que\b", text.lower())),
    }


def features(text: str) -> set[str]:
    found = {f"palavra:{w}" for w in words(text)}
    return found | {name for name, present in _form(text).items() if present}


def single_choice_questions() -> list[dict]:
    return [q for e in exercises.EXERCISE_IDS for q in exercises.questions(e) if q.get("type") != "multiple"]


QUESTIONS = single_choice_questions()


def _options():
    right = [o for q in QUESTIONS for o in q["options"] if o.get("correct")]
    wrong = [o for q in QUESTIONS for o in q["options"] if not o.get("correct")]
    return right, wrong


def test_there_is_enough_to_measure():
    right, wrong = _options()
    assert len(QUESTIONS) >= 10 and len(right) == len(QUESTIONS) and len(wrong) >= 2 * len(right)


def test_no_word_or_form_is_much_commoner_in_right_options_than_in_wrong_ones():
    right, wrong = _options()
    in_right = Counter(f for o in right for f in features(o["text"]))
    in_wrong = Counter(f for o in wrong for f in features(o["text"]))
    gaps = {}
    for feature in set(in_right) | set(in_wrong):
        if in_right[feature] + in_wrong[feature] < 3:
            continue  # one or two uses cannot be a cue across questions
        gap = in_right[feature] / len(right) - in_wrong[feature] / len(wrong)
        if abs(gap) > MAX_RATE_GAP:
            gaps[feature] = (f"{in_right[feature]}/{len(right)} certas", f"{in_wrong[feature]}/{len(wrong)} erradas")
    assert not gaps, gaps


def test_picking_the_odd_one_out_does_not_beat_chance():
    """'The only option with X' or 'the only option without X', for every word and form: never a cue."""
    scores: dict[tuple[str, str], list[int]] = {}
    for q in QUESTIONS:
        found = [features(o["text"]) for o in q["options"]]
        every = set().union(*found)
        for feature in every:
            having = [i for i, f in enumerate(found) if feature in f]
            for rule, picked in (("só ela tem", having), ("só ela não tem", [i for i in range(len(found)) if i not in having])):
                if len(picked) == 1:
                    hit = bool(q["options"][picked[0]].get("correct"))
                    score = scores.setdefault((feature, rule), [0, 0])
                    score[0 if hit else 1] += 1
    cues = {k: v for k, v in scores.items() if v[0] > MAX_LUCKY_HITS and v[0] > v[1]}
    assert not cues, {f"{rule} {feature}": f"acerta {h}, erra {m}" for (feature, rule), (h, m) in cues.items()}


def test_length_gives_nothing_away():
    longest = shortest = 0
    ranks = []
    for q in QUESTIONS:
        sizes = sorted(len(o["text"]) for o in q["options"])
        right = len(next(o for o in q["options"] if o.get("correct"))["text"])
        longest += right == sizes[-1]
        shortest += right == sizes[0]
        ranks.append(sizes.index(right) / (len(sizes) - 1))
    assert longest <= len(QUESTIONS) * 0.4 and shortest <= len(QUESTIONS) * 0.4, (longest, shortest)
    assert 0.3 <= sum(ranks) / len(ranks) <= 0.7, ranks


def test_the_option_closest_to_the_prompt_is_not_the_answer():
    """Options that repeat the prompt's words (a field's name, its translation) are not the right ones."""
    hits = misses = 0
    for q in QUESTIONS:
        prompt = {w[:5] for w in words(q["prompt"]) if len(w) >= 4}
        overlap = [len(prompt & {w[:5] for w in words(o["text"]) if len(w) >= 4}) for o in q["options"]]
        best = [i for i, n in enumerate(overlap) if n == max(overlap)]
        if len(best) == 1:
            if q["options"][best[0]].get("correct"):
                hits += 1
            else:
                misses += 1
    assert hits <= max(MAX_LUCKY_HITS, misses), (hits, misses)


def _lesson_words() -> list[str]:
    text = (ROOT / "docs" / "licao-2.md").read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", " ", text, flags=re.S)  # prose only: code is quoted on purpose
    return words(text)


def _longest_shared_run(option: list[str], lesson_runs: set[tuple[str, ...]], limit: int) -> int:
    for size in range(limit, 0, -1):
        if any(tuple(option[i:i + size]) in lesson_runs for i in range(len(option) - size + 1)):
            return size
    return 0


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["id"])
def test_right_options_are_not_the_lessons_own_words(question):
    """The answer is a consequence in fresh words, not a phrase to recognise from the lesson."""
    lesson = _lesson_words()
    runs = {tuple(lesson[i:i + n]) for n in range(1, MAX_ECHO_WORDS + 2) for i in range(len(lesson) - n + 1)}
    for option in question["options"]:
        if option.get("correct"):
            shared = _longest_shared_run(words(option["text"]), runs, MAX_ECHO_WORDS + 1)
            assert shared <= MAX_ECHO_WORDS, (question["id"], option["id"], shared)


def test_wrong_feedback_never_quotes_the_right_option():
    """Feedback on a wrong pick says what is wrong with it, not which option is right."""
    for q in QUESTIONS:
        right = next(o for o in q["options"] if o.get("correct"))
        target = words(right["text"])
        runs = {tuple(target[i:i + 5]) for i in range(len(target) - 4)}
        for o in q["options"]:
            if not o.get("correct"):
                said = words(o["feedback"])
                assert not any(tuple(said[i:i + 5]) in runs for i in range(len(said) - 4)), (q["id"], o["id"])
