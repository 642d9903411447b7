"""The wire view's own logic (shared/wire/__init__.py, body.py) in process: the questions
the surviving mutants of benchmarks/mutation.py asked. Which TAO_SHOW_WIRE values turn it
on, and to which API? Is a body that carries stop sequences shown for both APIs? Which
keyword arguments stay out of the body? Is the wrapped provider's hook put back?"""

from __future__ import annotations

from shared.providers.base import Options


def test_a_stop_sequence_is_shown_in_the_body_either_api_would_send():
    # stage 06 streams with stop=("<tool_result",): --show-wire openai with the offline
    # model built this body on a stand-in without the setting that gates stop
    from shared.wire.body import would_send

    hi = [{"role": "user", "content": "hi"}]
    assert would_send("openai", hi, options=Options(stop=("<tool_result",)))["stop"] == [
        "<tool_result"]
    assert would_send("anthropic", hi, options=Options(stop=("<tool_result",)))[
        "stop_sequences"] == ["<tool_result"]
