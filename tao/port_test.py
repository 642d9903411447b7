"""`tao port-test N [--seed S] -- COMMAND...`: is a program a right port of stage N, in any
language?

    uv run tao port-test 05 -- node ports/javascript/05_react_loop.mjs
    uv run tao port-test 07 --seed 4242 -- uv run stages/07_native_tools/main.py

The fake API (tao/fake_api: the one the kit's own tests talk to, which checks every
request body against the documented shapes) listens on 127.0.0.1, on free ports, one for
each API. ANTHROPIC_BASE_URL and OPENAI_BASE_URL point at it, with fake keys, and
TAO_MODEL names a model drawn at random. COMMAND runs once per case of the stage's
contract (port_contract.py), with the case's lines on its standard input; the fake answers
each request with the case's next scripted reply, in the API the program chose. Then each
case is held to the contract (port_check.py), and one line says the first difference, or
that it passed. Exit 0 only when every case passes. The values are drawn from a seed,
printed with the result: `--seed` runs the same cases again. Every program started is
stopped (its whole process group), and the servers are shut down, however the run ends.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from shared.printable import visible

from .i18n import text
from .port_check import files_difference, history_difference, neutral, request_difference
from .port_contract import Contract, Pattern, draw, expected_requests, fill, load_contract
from .port_contract import scripted as scripted_replies
from .repo import CLIError, find_stage

FAKE_KEY = "port-test-fake-key"  # no real key ever reaches the program
# what the caller's shell may set that would point the program elsewhere
CLEARED = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL",
           "OLLAMA_BASE_URL", "TAO_PROVIDER", "TAO_MODEL", "TAO_SCRIPT", "TAO_SHOW_WIRE",
           "TAO_OFFLINE_QUIRK", "TAO_OFFLINE_DELAY", "FORCE_COLOR")
MORE = 3  # refusals queued after a case's replies: a program that asks again is told no


@dataclass
class Ran:
    """What a program did: its exit code (None if it had to be stopped), its output."""

    code: int | None
    out: str
    err: str
    limit: float = 0.0  # the seconds it was given

    def last_words(self) -> str:
        """The last line the program wrote on stderr, for a failure's line."""
        lines = [line for line in self.err.splitlines() if line.strip()]
        return lines[-1][:160] if lines else ""


def cmd_port_test(args, console) -> int:
    """`tao port-test`: run COMMAND through every case of stage N's contract."""
    contract = load_contract(find_stage(args.stage))
    command = args.command[1:] if args.command[:1] == ["--"] else list(args.command)
    if not command:
        raise CLIError(text("port.no_command", stage=contract.stage))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    console.print(text("port.header", stage=contract.stage, about=contract.about, seed=seed,
                       cases=len(contract.cases)), highlight=False, markup=False, soft_wrap=True)
    from .fake_api import stop_servers

    passed = 0
    try:
        for n, case in enumerate(contract.cases, 1):
            problem = run_case(contract, case, random.Random(f"{seed}/{n}"), command, args)
            passed += problem is None
            line = "port.passed" if problem is None else "port.failed"
            said = text(line, n=n, name=case.get("name", ""), problem=problem)
            console.print(visible(said), highlight=False, markup=False, soft_wrap=True)
    finally:
        stop_servers()  # no port stays open, however the run ended
    again = " ".join(["tao", "port-test", contract.stage, "--seed", str(seed), "--", *command])
    console.print(text("port.summary", passed=passed, total=len(contract.cases), again=again),
                  highlight=False, markup=False, soft_wrap=True)
    return 0 if passed == len(contract.cases) else 1


def run_case(contract: Contract, case: dict, rng: random.Random, command: list[str],
             options) -> str | None:
    """Run one case; the first difference from the contract, or None if it passed."""
    from .fake_api import FakeAPI, anthropic_stream, invalid_request, openai_stream

    values = draw(rng)
    with tempfile.TemporaryDirectory(prefix="tao-port-test-") as scratch:
        workspace = Path(scratch) / "workspace"
        workspace.mkdir()
        for name, content in fill(contract.workspace, values).items():
            (workspace / name).write_text(content, encoding="utf-8")
        values["workspace"] = str(workspace)
        streams = {"anthropic": anthropic_stream, "openai": openai_stream}
        with FakeAPI("anthropic") as anthropic, FakeAPI("openai") as openai:
            fakes = {"anthropic": anthropic, "openai": openai}
            for kind, fake in fakes.items():
                replies = scripted_replies(case, values, kind)
                fake.queue(*(as_stream(streams[kind], reply) for reply in replies))
                fake.queue(*[invalid_request(kind, text("port.one_more", n=len(replies)))]
                           * MORE)
            start = datetime.now(UTC)
            ran = run_program([*command, *fill(contract.argv, values)], stdin_of(case, values),
                              program_env(values, fakes, options.api), options.timeout)
            window = (start, datetime.now(UTC))
        return difference(contract, case, values, fakes, ran, window, workspace)


def as_stream(build, reply):
    """A scripted reply as the API's own event stream, its text in word-sized pieces."""
    pieces = [reply.text[i:i + 12] for i in range(0, len(reply.text), 12)]
    calls = [(call_id, name, [json.dumps(args, ensure_ascii=False)])
             for call_id, name, args in reply.calls]
    return build(pieces, calls)


def stdin_of(case: dict, values: dict) -> str:
    """What the program reads: the case's lines, one each, then the end of input."""
    return "".join(f"{line}\n" for line in fill(case.get("typed", []), values))


def program_env(values: dict, fakes: dict, api: str) -> dict:
    """The program's environment: the caller's, pointed at the fake APIs with fake keys."""
    env = {key: value for key, value in os.environ.items() if key not in CLEARED}
    env.update(TAO_MODEL=values["model"], NO_COLOR="1", COLUMNS="200")
    if api in ("both", "anthropic"):
        env.update(ANTHROPIC_API_KEY=FAKE_KEY, ANTHROPIC_BASE_URL=fakes["anthropic"].base_url)
    if api in ("both", "openai"):
        env.update(OPENAI_API_KEY=FAKE_KEY, OPENAI_BASE_URL=fakes["openai"].base_url)
    return env


def run_program(argv: list[str], stdin: str, env: dict, timeout: float) -> Ran:
    """Run `argv` once, in a process group of its own; stop the whole group if it runs
    past `timeout` seconds, or if tao itself is interrupted."""
    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env, start_new_session=True)
    except OSError as exc:
        raise CLIError(text("port.cannot_run", program=argv[0], why=exc.strerror)) from None
    try:
        out, err = process.communicate(stdin.encode("utf-8"), timeout=timeout)
        code = process.returncode
    except subprocess.TimeoutExpired:
        stop(process)
        out, err = process.communicate()
        code = None
    except BaseException:  # Ctrl-C in tao: the program goes too
        stop(process)
        process.wait()
        raise
    return Ran(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timeout)


def stop(process: subprocess.Popen) -> None:
    """Stop a program and whatever it started (its process group: it leads one)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        process.kill()


def difference(contract: Contract, case: dict, values: dict, fakes: dict, ran: Ran,
               window: tuple, workspace: Path) -> str | None:
    """The first way a run differs from the contract (requests, output, exit, files)."""
    used = [kind for kind, fake in fakes.items() if fake.requests]
    if len(used) > 1:
        return text("port.both_apis")
    if not used:
        return text("port.no_request", code=ran.code, said=ran.last_words())
    problem = requests_difference(contract, case, values, fakes[used[0]], used[0], window)
    if problem:
        return problem
    if ran.code is None:
        return text("port.timeout", seconds=f"{ran.limit:g}")
    for shown in fill(case.get("prints", []), values):
        if not Pattern(shown, loose=True).found_in(ran.out, window):
            return text("port.not_printed", want=shown, said=ran.last_words())
    if ran.code != case.get("exit", 0):
        return text("port.exit", want=case.get("exit", 0), got=ran.code, said=ran.last_words())
    return files_difference(case, workspace, values, window, fill)


def requests_difference(contract: Contract, case: dict, values: dict, fake, kind: str,
                        window: tuple) -> str | None:
    """The first request that differs from what the contract prescribes, and how."""
    expected = expected_requests(contract, case, values, kind)
    first_system = None
    for n, (body, problem) in enumerate(zip(fake.requests, fake.problems, strict=True), 1):
        if n > len(expected):
            return text("port.extra_request", n=n, total=len(expected))
        try:
            system, messages, tools = neutral(body, kind)
        except (KeyError, TypeError, AttributeError):
            return text("port.at_request", n=n, problem=problem or text("port.unreadable"))
        first_system = system if first_system is None else first_system
        found = (history_difference(expected[n - 1], messages, window)
                 or request_difference(contract, body, tools, system, first_system)
                 or (text("port.model", want=values["model"], got=body.get("model"))
                     if body.get("model") != values["model"] else None)
                 or (text("port.refused", why=problem) if problem else None))
        if found:
            return text("port.at_request", n=n, problem=found)
    if len(fake.requests) < len(expected):
        return text("port.too_few", sent=len(fake.requests), total=len(expected))
    return None
