"""Prompt caching, shown on the wire: Anthropic's automatic caching reads the part of a
request that the request before it already sent, once that part is long enough.

The real API is not here, so `CachingAPI` plays its documented rule on top of the fake:
with a top-level `cache_control`, a request is cached up to its last block; the next
request reads from the cache the blocks it starts with that the previous request held
(from 1,024 tokens; below that nothing is cached, and nothing is said). What the tests
check is the kit's side: the field is sent, the kit's requests keep their front
unchanged while a conversation grows (which is what a cache can reuse), `--show-wire`
shows the counts the API reports, and stage 08's snip changes the front.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from fake_api import SSE, FakeAPI, anthropic_stream
from helpers import load_stage

from shared.providers.anthropic_provider import AnthropicProvider
from shared.trace import Trace, make_console
from shared.wire import WireTap

pytestmark = pytest.mark.sdk  # the real anthropic SDK at work

LOOP07 = load_stage("07", "loop")
CONTEXT08 = load_stage("08", "context")
MINIMUM = 1024  # the smallest cacheable prefix, in tokens, for many Claude models
KEY = "sk-test-cache-0123456789"
UNCACHED = 4  # tokens a request holds outside its last block (the fake's guess)


def blocks(body: dict) -> list[str]:
    """A request as the API caches it: tools, then system, then each message's blocks."""
    out = [json.dumps(t, sort_keys=True) for t in body.get("tools", [])]
    out += [json.dumps(b, sort_keys=True) for b in body.get("system", [])]
    for m in body["messages"]:
        content = m["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [m["role"] + json.dumps(b, sort_keys=True) for b in content]
    return out


def tokens(parts: list[str]) -> int:
    return sum(len(p) for p in parts) // 4  # the kit's estimate: four characters a token


class CachingAPI(FakeAPI):
    """The fake API, reporting cache writes and reads the way automatic caching does."""

    def next_response(self, body: dict, headers):
        response = super().next_response(body, headers)
        if not isinstance(response, SSE) or "cache_control" not in body:
            return response  # no top-level cache_control: the API caches nothing
        now = blocks(body)
        before = blocks(self.requests[-2]) if len(self.requests) > 1 else []
        hit = before if before and now[:len(before)] == before else []
        read = tokens(hit) if tokens(hit) >= MINIMUM else 0
        written = tokens(now) - read if tokens(now) >= MINIMUM else 0
        usage = response.events[0][1]["message"]["usage"]
        # what follows the last block is never cached: the API counts a few tokens there
        usage.update(input_tokens=tokens(now) - read - written + UNCACHED,
                     cache_read_input_tokens=read, cache_creation_input_tokens=written)
        return response


def cache_reads(shown: str) -> list[int]:
    """The cache_read_input_tokens counts the wire view showed (events and usage)."""
    return [int(n) for n in re.findall(r"cache_read_input_tokens (\d+)", shown)]


def words(n: int) -> str:
    return " ".join(f"word{i}" for i in range(n))


def test_a_growing_turn_reads_the_one_before_it_from_the_cache_on_the_wire():
    text = words(900)  # about 2,000 tokens: over the minimum
    question = f"How many words are in '{text}'?"
    count = json.dumps({"text": text})
    with CachingAPI("anthropic") as api:
        api.queue(anthropic_stream(["Counting."], tools=[("toolu_01", "wordcount", [count])]),
                  anthropic_stream(["900 words."]))
        screen = io.StringIO()
        trace = Trace(make_console(file=screen, width=100))
        model = AnthropicProvider(api_key=KEY, base_url=api.base_url)
        answer = LOOP07.agent_step(question, [], WireTap(model, trace.console),
                                   LOOP07.build_agent_system(), trace)
    assert answer == "900 words." and api.violations == []
    first, second = api.requests
    assert first["cache_control"] == second["cache_control"] == {"type": "ephemeral"}, (
        "every request asks for automatic caching with one top-level cache_control")
    assert blocks(second)[:len(blocks(first))] == blocks(first), (
        "iteration 2 must start with all of iteration 1's request, unchanged: that front "
        "is what the cache holds")
    shown = screen.getvalue()
    written, read = tokens(blocks(first)), tokens(blocks(first))
    assert f"cache_creation_input_tokens {written}" in shown, (
        "--show-wire shows the first request written to the cache")
    assert f"cache_read_input_tokens {read}" in shown, (
        "--show-wire shows the second request reading the first one back from the cache")
    assert '"cache_control"' in shown, "the body shown carries the cache field"


def test_below_the_minimum_nothing_is_cached_and_the_wire_shows_no_counts():
    with CachingAPI("anthropic") as api:
        api.queue(anthropic_stream(["I am tao."]), anthropic_stream(["Still tao."]))
        screen = io.StringIO()
        trace = Trace(make_console(file=screen, width=100))
        tap = WireTap(AnthropicProvider(api_key=KEY, base_url=api.base_url), trace.console)
        history = [{"role": "user", "content": "Who are you?"}]
        reply = tap.call(history, "You are tao.")
        tap.call(history + [reply.assistant_message(),
                            {"role": "user", "content": "And now?"}], "You are tao.")
    assert all(body["cache_control"] == {"type": "ephemeral"} for body in api.requests)
    assert set(cache_reads(screen.getvalue())) == {0}, (
        "a short conversation is below the cacheable minimum: the API reads and writes "
        "nothing, says 0, and raises no error")
    assert "cache_creation_input_tokens 0" in screen.getvalue()


def long_history(turns: int) -> list[dict]:
    """Finished turns of about 600 tokens each: a question and a long answer."""
    out = []
    for n in range(turns):
        out += [{"role": "user", "content": f"Tell me about part {n}."},
                {"role": "assistant", "content": f"Part {n}: " + words(250)}]
    return out


@pytest.mark.parametrize("budget,hit", [(100_000, True), (2_200, False)])
def test_stage08s_snip_changes_the_front_and_the_cache_misses(budget, hit):
    history = long_history(4)
    first = CONTEXT08.prepare(history + [{"role": "user", "content": "Next?"}], budget)
    grown = history + [{"role": "user", "content": "Next?"},
                       {"role": "assistant", "content": "Part 4: " + words(250)},
                       {"role": "user", "content": "And then?"}]
    second = CONTEXT08.prepare(grown, budget)
    with CachingAPI("anthropic") as api:
        api.queue(anthropic_stream(["ok"]), anthropic_stream(["ok"]))
        screen = io.StringIO()
        tap = WireTap(AnthropicProvider(api_key=KEY, base_url=api.base_url),
                      make_console(file=screen, width=100))
        tap.call(first, "You are tao.")
        tap.call(second, "You are tao.")
    assert api.violations == []
    starts_alike = second[:len(first)] == first
    assert starts_alike is hit, (
        "without a snip the next request starts with the last one; a snip cuts its front")
    assert (max(cache_reads(screen.getvalue())) > 0) is hit, (
        "a request whose front changed reads nothing from the cache: it is written anew")


@pytest.mark.parametrize("cache,refused", [
    ({"type": "ephemeral"}, False), ({"type": "ephemeral", "ttl": "1h"}, False),
    ({"type": "persistent"}, True), ({"type": "ephemeral", "ttl": "1d"}, True), ("yes", True)])
def test_the_fake_takes_a_top_level_cache_control_only_in_the_documented_shape(cache, refused):
    from fake_api import check_anthropic

    body = {"model": "claude-fake", "max_tokens": 10, "stream": True, "cache_control": cache,
            "messages": [{"role": "user", "content": "hi"}]}
    problem = check_anthropic(body, {"x-api-key": KEY, "anthropic-version": "2023-06-01"})
    assert bool(problem) is refused, problem


LOOP08 = load_stage("08", "loop")


class Notes:
    """A trace that keeps only the notes (stage 08's `context: ~N of B tokens` line)."""

    def __init__(self):
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def test_stage08s_real_count_still_counts_a_request_that_was_cached():
    text = words(900)
    with CachingAPI("anthropic") as api:
        api.queue(anthropic_stream(["Counting."], tools=[
                      ("toolu_01", "wordcount", [json.dumps({"text": text})])]),
                  anthropic_stream(["900 words."]))
        notes = Notes()
        LOOP08.agent_step(f"How many words are in '{text}'?", [],
                          AnthropicProvider(api_key=KEY, base_url=api.base_url),
                          LOOP08.build_agent_system(), notes)
    first_size = tokens(blocks(api.requests[0]))
    said = [int(re.search(r"~(\d+) of", n).group(1)) for n in notes.notes if "context:" in n]
    assert said[1] >= first_size, (
        f"the second request holds all of the first ({first_size} tokens) and more, but "
        f"stage 08 estimated it at {said[1]}: the cached part was not counted")
