# Don't change the tests! They tell you when exercises/e12_fallback_chain.py is done.
import json

import pytest
from exercise_support import need

from shared.providers import FallbackProvider, OfflineProvider, ProviderError
from tao.repo import load_stage


@pytest.fixture
def bogus_first(monkeypatch, tmp_path):
    """TAO_FALLBACK="scripted, offline", where the scripted model has no reply at all: it
    fails on its first call, before any text, as a server that cannot be reached does."""
    script = tmp_path / "empty.json"
    script.write_text(json.dumps([]))
    monkeypatch.setenv("TAO_SCRIPT", str(script))
    monkeypatch.setenv("TAO_FALLBACK", " scripted ,offline, ")


def get_provider(ex):
    return need(ex, "get_provider", "name", "model")


def test_the_chain_answers_when_the_first_provider_fails(ex, bogus_first):
    provider = get_provider(ex)()
    assert isinstance(provider, FallbackProvider), (
        f"TAO_FALLBACK names two providers: expected a FallbackProvider, got {provider!r}")
    names = [type(p).__name__ for p in provider.providers]
    assert names == ["ScriptedProvider", "OfflineProvider"], (
        f"build the providers in the order TAO_FALLBACK names them; got {names}")
    loop = load_stage("07", "loop")
    answer = loop.agent_step("What time is it?", [], provider, loop.build_agent_system())
    assert "the now tool" in answer, f"the offline model should have answered: {answer!r}"
    assert provider.providers[0].calls, "the bogus provider is tried first"


def test_one_name_is_that_provider_alone(ex, monkeypatch):
    monkeypatch.setenv("TAO_FALLBACK", "offline")
    provider = get_provider(ex)()
    assert isinstance(provider, OfflineProvider), (
        f"a chain of one is just that provider, got {provider!r}")


def test_commas_alone_separate_the_names(ex, monkeypatch):
    monkeypatch.setenv("TAO_FALLBACK", "offline,offline")
    provider = get_provider(ex)()
    assert isinstance(provider, FallbackProvider) and len(provider.providers) == 2, (
        f"TAO_FALLBACK=offline,offline names two providers, with no space needed: expected "
        f"a FallbackProvider over two, got {provider!r}")


def test_an_explicit_name_wins_over_the_chain(ex, bogus_first):
    provider = get_provider(ex)("offline")
    assert isinstance(provider, OfflineProvider), (
        "get_provider('offline') is an explicit choice: TAO_FALLBACK does not apply")


def test_no_chain_means_the_usual_provider(ex, monkeypatch):
    monkeypatch.delenv("TAO_FALLBACK", raising=False)
    assert isinstance(get_provider(ex)(), OfflineProvider), (
        "without TAO_FALLBACK (and with no key) the usual choice is the offline model")


def test_the_model_asked_for_reaches_every_provider(ex, monkeypatch):
    monkeypatch.delenv("TAO_MODEL", raising=False)
    for chain, name in (("offline, offline", None), ("offline", None), (None, None),
                        ("offline, scripted", "offline")):
        if chain is None:
            monkeypatch.delenv("TAO_FALLBACK", raising=False)
        else:
            monkeypatch.setenv("TAO_FALLBACK", chain)
        provider = get_provider(ex)(name, "tiny-model")
        built = getattr(provider, "providers", [provider])
        models = [getattr(p, "model", None) for p in built]
        assert models == ["tiny-model"] * len(built), (
            f"get_provider({name!r}, 'tiny-model') with TAO_FALLBACK={chain!r}: every provider "
            f"built should be for the model asked for, passed on as build_provider(name, "
            f"model) does; their models are {models}")


@pytest.mark.parametrize(("chain", "named"), [("offline, bogus", "'bogus'"),
                                              (" , ", "TAO_FALLBACK")])
def test_a_bad_chain_is_an_error_that_names_the_problem(ex, monkeypatch, chain, named):
    monkeypatch.setenv("TAO_FALLBACK", chain)
    try:
        provider = get_provider(ex)()
    except ProviderError as exc:
        assert named in str(exc), (
            f"TAO_FALLBACK={chain!r}: the error should name {named}; it says {exc}")
    else:
        pytest.fail(f"TAO_FALLBACK={chain!r} should be a ProviderError naming {named}, "
                    f"not {provider!r}", pytrace=False)

