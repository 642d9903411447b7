"""Record this folder's runs of real models again (needs `uv sync --extra local`).

    uv run python tests/recordings/regenerate.py server     # minutes
    uv run python tests/recordings/regenerate.py drill      # minutes
    uv run python tests/recordings/regenerate.py local      # an hour, on 2 shared cores
    uv run python tests/recordings/regenerate.py local-all  # the 32 tasks: hours
    uv run python tests/recordings/regenerate.py examples   # an hour, on 2 shared cores

`server`: llama-cpp-python's OpenAI-compatible server (started on 127.0.0.1 and a free
port, stopped by its pid: tests/real_servers/servers.py), through `--provider openai`:
stage 07 with two questions (llama_cpp_server_stage07.json) and `tao compare` on the four
tasks of local_smollm2_tasks.toml (llama_cpp_server_compare.json).
`drill`: the same server, through `tao drill --provider openai`: every attack planted in
stage 14's sample, in mode ask (drill_smollm2/: one recording per attack, and the
scorecard the drill printed, scorecard.json).
`examples`: `--provider local` with all five protocols of `tao compare` (worked examples,
and the grammar with them, added) on the ten tasks of local_smollm2_examples.toml
(-> local_smollm2_examples.json): stage 06's README table. Under load 6-9 on 2 cores a call
took about 40 s, so the whole set (`examples-all`) would take hours; it was not recorded.
The file was made in two runs (the seven kinds, then the three one-call tasks) and
joined, the first run's session kept: `examples` records the ten in one run.
`local`: `--provider local` (SmolLM2-135M in this process) with all three protocols on
one task of each kind (local_smollm2_kinds.toml -> local_smollm2_kinds.json): stage 07's
README table comes from it. `local-all`: the same over the whole task set
(local_smollm2_all.json; under load here a call took minutes, so it was not recorded).

Each file is checked after it is written: its size, and that it holds no key, no header
and no path of this machine (paths are given relative to the repository's root). Review
the diff; test_replay.py and test_compare.py replay them in the ordinary suite.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "real_servers"))
sys.path.insert(0, str(ROOT / "tests"))

FOUR = "tests/recordings/local_smollm2_tasks.toml"
KINDS = "tests/recordings/local_smollm2_kinds.toml"  # one task of each kind
EVERY_PROTOCOL = ("text", "examples", "native", "constrained", "constrained+examples")
STAGE07_INPUT = "What is 17 * 23?\nHow many words are in 'the quick brown fox'?\n\n"
MODEL = "smollm2"  # llama-cpp-python's server answers with its one model, whatever the name
MACHINE = re.compile(r"/(?:tmp|root|home|Users|work)/|[A-Za-z]:\\\\|sk-[A-Za-z0-9]{6,}|"
                     r"authorization|x-api-key", re.IGNORECASE)


def run(command: list[str], stdin: str = "", **env) -> None:
    """Run a stage or tao from the repository's root, as a learner would; fail loudly."""
    from helpers import clean_env

    done = subprocess.run(command, input=stdin, text=True, capture_output=True, cwd=ROOT,
                          env=clean_env(**env))
    if done.returncode:
        sys.exit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-1500:]}")


def checked(name: str) -> None:
    """Say the size of the recording `name`; stop if it holds anything of this machine's."""
    path = HERE / name
    text = path.read_text(encoding="utf-8")
    found = MACHINE.search(text)
    if found:
        sys.exit(f"{name} holds {found.group()!r}: it must not be committed")
    print(f"{name}: {path.stat().st_size / 1024:.0f} KiB, nothing of this machine's in it")


@contextmanager
def llama_server():
    """llama-cpp-python's server on 127.0.0.1 and a free port: the environment that points
    `--provider openai` at it. Stopped by its pid at the end."""
    from servers import free_port, start, stop

    from shared.providers.local import model_file

    port = free_port()
    log = HERE / ".server.log"
    process, live = start("llama-cpp-python's server", [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model_file(env={})),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--seed", "1234",
        "--verbose", "False"], port, log)
    try:
        yield {"OPENAI_BASE_URL": live.base_url, "TAO_MODEL": MODEL}
    finally:
        stop(process)
        log.unlink(missing_ok=True)


def server() -> None:
    """Stage 07 and tao compare through llama-cpp-python's server."""
    with llama_server() as via:
        run([sys.executable, "stages/07_native_tools/main.py", "--provider", "openai",
             "--record", "tests/recordings/llama_cpp_server_stage07.json"],
            STAGE07_INPUT, **via)
        run([sys.executable, "-m", "tao", "compare", "--provider", "openai",
             "--tasks", FOUR, "--record", "tests/recordings/llama_cpp_server_compare.json",
             "--json"], **via)
    for name in ("llama_cpp_server_stage07.json", "llama_cpp_server_compare.json"):
        checked(name)


def drill() -> None:
    """tao drill through llama-cpp-python's server: each attack's recording, and the
    scorecard, which test_injection_drill.py holds the replay to."""
    from helpers import clean_env

    folder = HERE / "drill_smollm2"
    with llama_server() as via:
        done = subprocess.run([sys.executable, "-m", "tao", "drill", "--provider", "openai",
                               "--record", str(folder.relative_to(ROOT)), "--json"],
                              text=True, capture_output=True, cwd=ROOT, env=clean_env(**via))
    if done.returncode not in (0, 1) or not done.stdout.startswith("{"):
        sys.exit(f"tao drill exited {done.returncode}: {done.stderr[-1500:]}")
    scorecard = json.loads(done.stdout)
    (folder / "scorecard.json").write_text(json.dumps(scorecard, indent=1) + "\n",
                                           encoding="utf-8")
    for path in sorted(folder.glob("*.json")):
        checked(str(path.relative_to(HERE)))
    for result in scorecard["attacks"]:
        print(f"  {result['attack']}: {result['stopped_by']} ({result['call']})")


def local(tasks: str | None = KINDS,
          name: str = "local_smollm2_kinds.json") -> None:
    """Three protocols on the local model: one task of each kind (None: every task)."""
    run([sys.executable, "-m", "tao", "compare", "--provider", "local", "--protocols",
         "text,native,constrained", *(["--tasks", tasks] if tasks else []),
         "--record", f"tests/recordings/{name}", "--json"])
    checked(name)


def examples(tasks: str | None = "tests/recordings/local_smollm2_examples.toml",
             name: str = "local_smollm2_examples.json") -> None:
    """Every protocol, worked examples among them, on the local model: stage 06's README
    table (one task of each kind and three one-call tasks; None: every task)."""
    run([sys.executable, "-m", "tao", "compare", "--provider", "local", "--protocols",
         ",".join(EVERY_PROTOCOL), *(["--tasks", tasks] if tasks else []),
         "--record", f"tests/recordings/{name}", "--json"])
    checked(name)


if __name__ == "__main__":
    asked = sys.argv[1:] or ["server"]
    for what in asked:
        {"server": server, "drill": drill, "local": local, "examples": examples,
         "local-all": lambda: local(None, "local_smollm2_all.json"),
         "examples-all": lambda: examples(None, "local_smollm2_examples_all.json")}[what]()
