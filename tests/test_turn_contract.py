"""The one contract every provider keeps: turn() yields text deltas, reasoning deltas,
then one Reply; call() and stream() check it in the same place, the same way."""

from __future__ import annotations

import pytest

from shared.providers import FallbackProvider, Provider, ProviderError, Reasoning, Reply

# ---------------------------------------------------------------- the turn contract


class Canned(Provider):
    """A provider whose turn() yields exactly the given items (then raises `fail`)."""

    name = "canned"

    def __init__(self, items, fail=None):
        self.items, self.fail = items, fail

    def turn(self, messages, system, tools, options=None):
        """The items, then the failure if there is one."""
        yield from self.items
        if self.fail is not None:
            raise self.fail


def both_entry_points(provider):
    """What call() and stream() each do with the same turn: (outcome, outcome)."""
    outcomes = []
    for run in (lambda: provider.call([]).text, lambda: "".join(provider.stream([]))):
        try:
            outcomes.append(("ok", run()))
        except ProviderError as exc:
            outcomes.append(("error", str(exc), exc.partial))
    return outcomes


@pytest.mark.parametrize(("items", "expected"), [
    (["a", "b", Reply("ab")], ("ok", "ab")),
    (["a", "b"], ("error", "canned: the reply ended without a result", "ab")),
    (["a", 42, Reply("a")], ("error", "canned: turn() yielded int, not text or a Reply", "a")),
    ([b"bytes", Reply("")], ("error", "canned: turn() yielded bytes, not text or a Reply", "")),
])
def test_call_and_stream_check_the_turn_contract_the_same_way(items, expected):
    assert both_entry_points(Canned(items)) == [expected, expected]


def test_a_provider_error_mid_turn_carries_the_text_already_shown():
    provider = Canned(["Once", " upon"], fail=ProviderError("canned: the line dropped"))
    assert both_entry_points(provider) == [("error", "canned: the line dropped", "Once upon")]*2


def test_reasoning_deltas_reach_only_their_callback():
    items = [Reasoning("thinking..."), "Hi", Reasoning(" more"), "!", Reply("Hi!")]
    text, thoughts = [], []
    reply = Canned(items).call([], "", (), text.append, on_reasoning_delta=thoughts.append)
    assert (reply.text, text, thoughts) == ("Hi!", ["Hi", "!"], ["thinking...", " more"])
    assert list(Canned(items).stream([])) == ["Hi", "!"]


def test_a_notice_goes_to_its_callback_or_else_to_stderr_as_one_line(capsys):
    provider, seen = Canned([]), []
    provider.notice("overloaded (529): retrying in 2 s, attempt 2 of 3")
    assert capsys.readouterr().err == (
        "note: overloaded (529): retrying in 2 s, attempt 2 of 3\n")
    provider.on_notice = seen.append
    provider.notice("x")
    assert seen == ["x"] and capsys.readouterr().err == ""


def test_a_fallback_passes_its_providers_notes_on():
    class Noisy(Canned):
        def turn(self, messages, system, tools, options=None):
            """Announce a retry, then answer."""
            self.notice("overloaded (529): retrying in 1 s, attempt 2 of 3")
            yield from super().turn(messages, system, tools)

    fallback, seen = FallbackProvider([Noisy(["ok", Reply("ok")])]), []
    fallback.on_notice = seen.append
    assert fallback.call([]).text == "ok"
    assert seen == ["overloaded (529): retrying in 1 s, attempt 2 of 3"]
