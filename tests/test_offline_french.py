"""The offline model asked in French: which tool, with which arguments, and in which
language it answers. None of these requests is a `tao tour --lang fr` demo
(tao/stage_verbs.py: DEMOS_FR), so they test the rules, not the demo sentences.
"""

from __future__ import annotations

import json

import pytest

from shared.providers import OfflineProvider, Tool
from shared.providers.offline import words
from shared.providers.offline.writing import TEXT
from tao.repo import load_stage
from tao.stage_verbs import DEMOS_FR

JSON_PROTOCOL = load_stage("06", "loop").build_agent_system()  # what stages 04-06 send
KIT_TOOLS = tuple(load_stage("07", "tools").TOOLS)  # now, wordcount, calculator


def ask(text):
    return [{"role": "user", "content": text}]


def after_its_tool(model, request: str, result: str) -> list[dict]:
    """`request`, the one tool call the offline model answers it with, and `result` back."""
    first = model.call(ask(request), "", KIT_TOOLS)
    call = first.tool_calls[0]
    return ask(request) + [
        {"role": "assistant", "content": first.text,
         "tool_calls": [{"id": call.id, "name": call.name, "args": call.args}]},
        {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result}]


def calls_of(reply):
    return [(c.name, c.args) for c in reply.tool_calls]


FRENCH_REQUESTS = [  # (request, the calls it must make: tool and arguments)
    ("Il est quelle heure ?", [("now", {})]),  # the question word last
    ("Donne-moi l'heure, s'il te plaît.", [("now", {})]),  # an elision: l' + heure
    ("Quelle est la date d’aujourd’hui ?", [("now", {})]),  # typographic apostrophes
    ("Quel jour sommes-nous ?", [("now", {})]),
    ("Compte les mots de « un deux trois quatre »",  # guillemets, their inner spaces
     [("wordcount", {"text": "un deux trois quatre"})]),
    ("Combien de mots y a-t-il dans 'l'élève écoute le maître' ?",  # accents, an elision
     [("wordcount", {"text": "l'élève écoute le maître"})]),           # inside the quote
    ("Compte les mots dans : le chat dort sur le tapis",  # no quotes: the words after
     [("wordcount", {"text": "le chat dort sur le tapis"})]),
    ("Combien font 7 fois 8 ?", [("calculator", {"expression": "7 * 8"})]),
    ("Combien font 6 multiplié par 7 ?", [("calculator", {"expression": "6 * 7"})]),
    ("Multiplie 12 par 34", [("calculator", {"expression": "12 * 34"})]),  # the verb first
    ("Divise 100 par 8", [("calculator", {"expression": "100 / 8"})]),
    ("Combien fait 144 divisé par 12 ?", [("calculator", {"expression": "144 / 12"})]),
    ("Ajoute 15 à 27", [("calculator", {"expression": "27 + 15"})]),  # read right to left
    ("Soustrais 8 de 50", [("calculator", {"expression": "50 - 8"})]),
    ("Quel est le carré de 12 ?", [("calculator", {"expression": "12 ** 2"})]),
    ("Combien font 9 au carré ?", [("calculator", {"expression": "9 ** 2"})]),
    ("Calcule 2 puissance 10", [("calculator", {"expression": "2 ** 10"})]),
    ("Calcule 100 moins 37 plus 5", [("calculator", {"expression": "100 - 37 + 5"})]),
    ("Calcule 3 × 4", [("calculator", {"expression": "3 * 4"})]),
    ("Il est quelle heure, puis combien de mots dans 'à la claire fontaine' ?",  # two asks
     [("now", {}), ("wordcount", {"text": "à la claire fontaine"})]),
]


def test_none_of_these_requests_is_a_tour_demo():
    demos = " ".join(" ".join(args) + stdin for args, stdin in DEMOS_FR.values())
    assert not [request for request, _ in FRENCH_REQUESTS if request in demos]


@pytest.mark.parametrize(("request_", "expected"), FRENCH_REQUESTS,
                         ids=[r for r, _ in FRENCH_REQUESTS])
def test_a_french_request_calls_the_right_tool_natively(request_, expected):
    reply = OfflineProvider().call(ask(request_), "", KIT_TOOLS)
    assert calls_of(reply) == expected
    assert words.language(reply.text) == "fr", reply.text  # "Je vais utiliser ..."


@pytest.mark.parametrize(("request_", "expected"), FRENCH_REQUESTS[::3],
                         ids=[r for r, _ in FRENCH_REQUESTS[::3]])
def test_a_french_request_is_one_json_line_in_the_text_protocol(request_, expected):
    line = "".join(OfflineProvider().stream(ask(request_), JSON_PROTOCOL))
    assert json.loads(line) == {"tool": expected[0][0], "args": expected[0][1]}


def test_the_issues_examples():
    # issue 25: these got English answers and no tool, or the calculator on "4823"
    model = OfflineProvider()
    assert calls_of(model.call(ask("Quelle heure est-il ?"), "", KIT_TOOLS)) == [("now", {})]
    counted = model.call(ask("Combien de mots dans 'le petit renard brun' ?"), "", KIT_TOOLS)
    assert calls_of(counted) == [("wordcount", {"text": "le petit renard brun"})]
    assert load_stage("07", "tools").wordcount(counted.tool_calls[0].args) == "4"
    worked = model.call(ask("Calcule 4823 fois 1979"), "", KIT_TOOLS)
    assert calls_of(worked) == [("calculator", {"expression": "4823 * 1979"})]


def answer_after(request, tool, result, tools=KIT_TOOLS):
    """The model's reply once `tool` has answered `result` to `request`."""
    model = OfflineProvider()
    first = model.call(ask(request), "", tools)
    messages = ask(request) + [
        {"role": "assistant", "content": first.text,
         "tool_calls": [{"id": c.id, "name": c.name, "args": c.args} for c in first.tool_calls]},
        *({"role": "tool", "tool_call_id": c.id, "name": c.name, "content": result}
          for c in first.tool_calls if c.name == tool)]
    return model.call(messages, "", tools).text


@pytest.mark.parametrize(("request_", "tool", "result"), [
    ("Combien font 7 fois 8 ?", "calculator", "56"),
    ("Compte les mots de « un deux trois »", "wordcount", "3"),
    ("Il est quelle heure ?", "now", "2026-05-01T09:30:00+00:00"),
])
def test_the_answer_uses_the_result_and_is_written_in_french(request_, tool, result):
    told = answer_after(request_, tool, result)
    assert result in told and words.language(told) == "fr", told


def test_a_call_that_fails_twice_is_told_as_failed_in_french():
    model, request = OfflineProvider(), "Quel est le carré de 12 ?"
    messages = ask(request)
    for _ in range(2):  # a failed call is tried once more, as a real model would
        reply = model.call(messages, "", KIT_TOOLS)
        call = reply.tool_calls[0]
        messages += [{"role": "assistant", "content": reply.text, "tool_calls": [
            {"id": call.id, "name": call.name, "args": call.args}]},
            {"role": "tool", "tool_call_id": call.id, "name": call.name,
             "content": "Error: CalcError: something odd"}]
    told = model.call(messages, "", KIT_TOOLS)
    assert not told.tool_calls and "something odd" in told.text
    assert words.language(told.text) == "fr", told.text


def test_the_same_requests_in_english_are_answered_in_english():
    told = answer_after("What is 7 times 8?", "calculator", "56")
    assert "56" in told and words.language(told) == "en", told


def test_small_talk_questions_and_summaries_follow_the_language_of_the_request():
    model = OfflineProvider()
    chat = model.call(ask("Bonjour, qui es-tu ?"), "", KIT_TOOLS).text
    assert all(tool.name in chat for tool in KIT_TOOLS), chat  # it says what it can use
    lacking = model.call(ask("Compte les mots"), "", KIT_TOOLS)  # no text given: it asks
    assert not lacking.tool_calls
    assert words.language(chat) == "fr" and words.language(lacking.text) == "fr"
    assert "wordcount" in lacking.text  # the tool it would use, named as it is
    english = model.call(ask("Count the words"), "", KIT_TOOLS).text
    assert words.language(english) == "en" and english != lacking.text


def test_the_language_is_that_of_the_latest_user_message_that_tells_one():
    model = OfflineProvider()
    history = [*ask("Bonjour !"), {"role": "assistant", "content": "..."}]
    # "12 * 3" tells no language: the conversation's French goes on
    assert words.language(model.call(history + ask("12 * 3"), "", KIT_TOOLS).text) == "fr"
    switched = model.call(history + ask("What time is it?"), "", KIT_TOOLS).text
    assert words.language(switched) == "en"


def test_a_summary_at_the_iteration_cap_is_french_after_a_french_request():
    model = OfflineProvider()
    request = "Il est quelle heure, et combien font 12 / 0 ?"
    first = model.call(ask(request), "", KIT_TOOLS)
    messages = ask(request) + [
        {"role": "assistant", "content": first.text,
         "tool_calls": [{"id": c.id, "name": c.name, "args": c.args} for c in first.tool_calls]},
        {"role": "tool", "tool_call_id": first.tool_calls[0].id, "name": "now",
         "content": "2026-05-01T09:30"},
        {"role": "tool", "tool_call_id": first.tool_calls[1].id, "name": "calculator",
         "content": "Error: CalcError: division by zero"}]
    summary = model.call(messages, "Summarise what was done.", KIT_TOOLS,
                         tool_choice="none").text
    assert "2026-05-01T09:30" in summary and "division by zero" in summary
    assert words.language(summary) == "fr", summary


@pytest.mark.parametrize("asked", ["Qu'a répondu l'outil wordcount ?",
                                   "Quel était le résultat ?"])
def test_asked_in_french_what_a_tool_said_before_it_tells_it_again(asked):
    model = OfflineProvider()
    history = after_its_tool(model, "Compte les mots de « un deux trois »", "3") + [
        {"role": "assistant", "content": "Ce texte compte 3 mots."}]  # stage 08 keeps these
    told = model.call(history + ask(asked), "", KIT_TOOLS)
    assert not told.tool_calls and "3" in told.text and "un deux trois" in told.text
    assert words.language(told.text) == "fr", told.text


def test_a_summary_with_nothing_failed_names_the_request_and_each_tool_once():
    model = OfflineProvider()
    request = "Il est quelle heure ?"
    messages = after_its_tool(model, request, "2026-05-01T09:30")
    summary = model.call(messages, "Summarise what was done.", KIT_TOOLS,
                         tool_choice="none").text
    assert request in summary and "now → 2026-05-01T09:30" in summary  # one call: no count
    assert words.language(summary) == "fr", summary


@pytest.mark.parametrize("text", ["dis 'a b' puis", "dis “a b” puis", "dis ‘a b’ puis",
                                  "dis « a b » puis"])
def test_a_quote_is_blanked_whole_whatever_its_marks(text):
    blanked = words.unquoted(text)
    assert len(blanked) == len(text) and blanked.split() == ["dis", "puis"], blanked


def test_importing_the_offline_model_leaves_the_rules_for_the_first_reply():
    # the offline model's word patterns (both languages') compile on its first reply, not
    # when it is built. A fresh
    # interpreter is the point here: this process has long imported everything.
    import subprocess
    import sys

    from helpers import ROOT, clean_env

    probe = ("import sys, shared.providers.offline; print(sorted(m for m in sys.modules "
             "if m.startswith('shared.providers.offline.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, env=clean_env(), timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['shared.providers.offline.quirks']"], done.stdout


def test_a_tool_the_kit_does_not_have_is_found_by_its_french_words():
    weather = Tool("get_weather", "Get the current weather for a city.",
                   {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]}, lambda args: "18")
    reply = OfflineProvider().call(ask("Quelle est la météo à 'Lyon' ?"), "", (weather,))
    assert calls_of(reply) == [("get_weather", {"city": "Lyon"})]


@pytest.mark.parametrize(("text", "expected"), [
    ("l'heure", ["l'", "heure"]),                  # an elision is a word of its own
    ("l’heure", ["l’", "heure"]),                  # with the typographic apostrophe too
    ("qu'est-ce jusqu'à", ["qu'", "est", "ce", "jusqu'", "à"]),
    ("aujourd'hui", ["aujourd'hui"]),              # not an elision: one word
    ("élève à côté", ["élève", "à", "côté"]),      # accents do not split a word
    ("what's don't", ["what's", "don't"]),         # English contractions stay whole
])
def test_words_are_unicode_and_elisions_split(text, expected):
    assert words.WORD.findall(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Quelle heure est-il ?", "fr"),
    ("Combien de mots dans 'the quick brown fox' ?", "fr"),  # quoted words are data
    ("How many words are in 'le petit renard brun'?", "en"),
    ("Calcule 3 fois 4", "fr"),
    ("What is 3 times 4?", "en"),
    ("12 * 3", None),                                        # nothing tells
])
def test_the_language_of_a_message(text, expected):
    assert words.language(text) == expected


def test_every_sentence_the_model_writes_exists_in_both_languages():
    assert set(TEXT) == {"en", "fr"} and set(TEXT["fr"]) == set(TEXT["en"])
    for key, english in TEXT["en"].items():  # the same blanks to fill in both
        assert sorted(_fields(TEXT["fr"][key])) == sorted(_fields(english)), key


def _fields(template: str) -> list[str]:
    import string

    return [name for _, name, _, _ in string.Formatter().parse(template) if name]
