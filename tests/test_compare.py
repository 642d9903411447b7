"""`tao compare`: the task set, the grading (against runs whose right answer is known),
the outputs, and a recorded comparison replayed to the same numbers.

What a learner reads in the grades, each held by a test below:
- a right run passes every grade: one well-formed call, the right tool, the right
  arguments, a right answer;
- the wrong tool, the wrong arguments, a call written wrong (coached, or left as the
  answer) and a guess with no call each show in their own grade;
- an argument is compared without spaces or case (`17*23` holds `17 * 23`);
- a call where none was needed, even to a tool that does not exist, is an unneeded call,
  and the answer built on it is not right;
- each failure is filed under its kind, which names its fix: broken arguments, an unknown
  tool, a missing argument (in either protocol), a call left as the answer;
- a run stopped at the iteration cap is never a right answer, whatever its message holds;
- a recorded comparison replays to the same numbers, and stops at the first change.
"""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest
from helpers import run_tao

from shared.providers import OfflineProvider, Reply, ScriptedProvider, ToolCall, build_provider
from shared.providers.replay import Recorder, ReplayProvider
from tao import compare

KINDS = {"no_tool", "one_call", "two_calls", "chained", "trap_json", "trap_unknown_tool",
         "trap_missing_arg"}


def test_the_task_set_covers_every_kind_and_names_only_real_tools():
    tasks = compare.load_tasks()
    assert len(tasks) >= 30 and len({t.id for t in tasks}) == len(tasks)
    assert {t.kind for t in tasks} == KINDS
    for protocol in compare.PROTOCOLS:
        loop = compare.load_protocol(protocol)
        for task in tasks:
            for tool in task.tools + list(task.args):
                # private on purpose: the grader's own test of a tool name, checked on every task
                assert compare._is_tool(tool, loop), (task.id, tool, protocol)
            assert set(task.args) <= set(task.tools), task.id


def test_both_protocols_get_the_same_tools():
    text, native = (compare.load_protocol(p) for p in ("text", "native"))
    assert sorted(text.TOOLS) == sorted(t.name for t in native.TOOLS)
    assert {"search", "lookup"} <= set(text.TOOLS)
    assert text.TOOLS["now"]({}) == compare.FROZEN_NOW  # runs replay: the clock stands still
    assert text.TOOLS["search"]({"query": "x", "seconds": 30}).startswith("(stand-in")


TASK = compare.Task("t", "one_call", "What is 17 * 23?", ["calculator"],
                    {"calculator": {"expression": ["17", "23"]}}, ["391"])
RIGHT_TEXT = ['{"tool": "calculator", "args": {"expression": "17*23"}}', "It is 391."]
RIGHT_NATIVE = [Reply("", [ToolCall("c1", "calculator", {"expression": "17 * 23"})],
                      "tool_use"), Reply("It is 391.")]


def graded(protocol: str, replies, task=TASK) -> compare.Result:
    """`task` through `protocol`'s loop, the model scripted."""
    return compare.run_task(task, protocol, compare.load_protocol(protocol),
                            ScriptedProvider(replies))


@pytest.mark.parametrize("protocol, replies", [("text", RIGHT_TEXT), ("native", RIGHT_NATIVE)])
def test_a_right_run_passes_every_grade(protocol, replies):
    result = graded(protocol, replies)
    assert (result.right_tool, result.right_args, result.answer_ok) == (True, True, True)
    assert result.errors == [] and result.attempts == 1 and result.malformed == 0
    assert result.iterations == 2


# (model replies, what the grades must say): each a way to be wrong
@pytest.mark.parametrize("replies, expect", [
    # the wrong tool, then an answer that is right anyway: the tool grade catches it
    (['{"tool": "wordcount", "args": {"text": "17 * 23"}}', "It is 391."],
     {"right_tool": False, "missed_call": True, "answer_ok": True}),
    # the right tool, with the wrong numbers
    (['{"tool": "calculator", "args": {"expression": "17 * 32"}}', "It is 544."],
     {"right_tool": True, "right_args": False, "answer_ok": False}),
    # fenced twice (coached), then right: two malformed calls, one well-formed
    (["```json\n" + RIGHT_TEXT[0] + "\n```", "```json\n" + RIGHT_TEXT[0] + "\n```",
      *RIGHT_TEXT], {"malformed": 2, "attempts": 3, "right_args": True}),
    # fenced past the coaching: the call became the answer
    (["```json\n" + RIGHT_TEXT[0] + "\n```"] * 3,
     {"right_tool": False, "answer_ok": False, "malformed": 3}),
    # a guess, no call
    (["It is about 400."], {"missed_call": True, "answer_ok": False, "attempts": 0}),
])
def test_each_way_of_being_wrong_shows_in_its_grade(replies, expect):
    result = graded("text", replies)
    assert {key: getattr(result, key) for key in expect} == expect, result


def test_a_call_where_none_was_needed_is_counted_and_the_answer_is_not_right():
    task = compare.Task("t", "trap_missing_arg", "Count the words in my essay.")
    result = graded("native", [Reply("", [ToolCall("c1", "wordcount", {"text": "my essay"})],
                                     "tool_use"), Reply("2 words.")], task)
    assert result.unneeded_call and not result.answer_ok and "unneeded_call" in result.errors


def test_broken_native_arguments_and_an_unknown_tool_are_errors_by_kind():
    replies = [Reply("", [ToolCall("c1", "calculator", {}, "the arguments were not valid "
                                   "JSON"), ToolCall("c2", "weather", {})], "tool_use"),
               Reply("", [ToolCall("c3", "calculator", {"expression": "17*23"})], "tool_use"),
               Reply("391")]
    result = graded("native", replies)
    assert sorted(result.errors) == ["broken_args", "unknown_tool"]
    assert result.malformed == 1 and result.right_args and result.answer_ok
    assert all(kind in compare.FIXES for kind in result.errors)


def test_a_call_to_a_tool_that_does_not_exist_is_an_unneeded_call():
    # a greeting needs no tool: a call to a tool the registry lacks is still a call
    task = compare.Task("t", "no_tool", "Hello! Who are you?", answer=["tao"])
    for protocol, call in (("text", '{"tool": "weather", "args": {}}'),
                           ("native", Reply("", [ToolCall("c1", "weather", {})], "tool_use"))):
        result = graded(protocol, [call, "I am tao."], task)
        assert result.unneeded_call and not result.answer_ok, protocol
        assert not result.right_tool and {"unneeded_call", "unknown_tool"} <= set(result.errors)


@pytest.mark.parametrize("protocol, replies", [
    ("text", ['{"tool": "calculator", "args": {}}', "I could not work it out."]),
    ("native", [Reply("", [ToolCall("c1", "calculator", {})], "tool_use"),
                Reply("I could not work it out.")]),
])
def test_a_call_missing_an_argument_is_filed_as_missing_arg(protocol, replies):
    result = graded(protocol, replies)
    assert result.errors.count("missing_arg") == 1 and "tool_error" not in result.errors
    assert "missing_arg" in compare.FIXES  # the table names the fix for it


def test_a_right_answer_after_the_iteration_cap_is_not_right():
    # the cap's message ("no answer after 10 iterations") holds "10", the task's answer
    task = compare.Task("t", "one_call", "What is 2 * 5?", ["calculator"],
                        {"calculator": {"expression": ["2", "5"]}}, ["10"])
    looping = ['{"tool": "calculator", "args": {"expression": "2 * 5"}}'] * 12
    result = graded("text", looping, task)
    assert result.answer.startswith("Stopped:") and "10" in result.answer
    assert not result.answer_ok and "iteration_cap" in result.errors


def test_arguments_are_compared_without_spaces_or_case():
    task = compare.Task("t", "one_call", "Search for llamas.", ["search"],
                        {"search": {"query": ["llama"]}}, [])
    call = '{"tool": "search", "args": {"query": "LLAMA facts"}}'
    assert graded("text", [call, "Llamas are camelids."], task).right_args
    other = '{"tool": "search", "args": {"query": "alpaca facts"}}'
    assert not graded("text", [other, "Alpacas."], task).right_args


def test_offline_quirks_break_the_text_protocol_where_native_calls_have_no_format():
    tasks = compare.load_tasks()
    for quirk in ("fenced", "prose"):
        summary = compare.summarise(compare.compare(
            build_provider("offline", quirk=quirk), ["text", "native"], tasks))
        text, native = summary["text"], summary["native"]
        assert text["well_formed"] < text["calls"] and text["errors"]["near_miss"] > 0
        assert native["well_formed"] == native["calls"] and "near_miss" not in native["errors"]
        assert text["iterations"] > native["iterations"]  # coaching costs a model call


def test_a_recorded_comparison_replays_to_the_same_numbers(tmp_path):
    tasks = compare.load_tasks()[:8]
    recording = tmp_path / "compare.json"
    live = compare.compare(Recorder(build_provider("offline", quirk="fenced"), recording),
                           ["text", "native"], tasks)
    again = compare.compare(ReplayProvider.from_recording(str(recording)),
                            ["text", "native"], tasks)
    strip = lambda rows: [{**vars(r), "seconds": 0} for r in rows]  # noqa: E731
    assert strip(again) == strip(live)


def test_json_and_html_outputs(tmp_path):
    report = tmp_path / "report.html"
    out = run_tao("compare", "--json", "--html", str(report))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data["summary"]) == {"text", "native"}
    assert len(data["results"]) == 2 * data["tasks"]
    for protocol, summary in data["summary"].items():  # the kinds add up to the whole
        cells = [cells[protocol].split("/") for cells in data["by_kind"].values()]
        assert sum(int(right) for right, _ in cells) == summary["answer_ok"]
        assert sum(int(runs) for _, runs in cells) == data["tasks"]
    page = report.read_text()
    svg = ElementTree.fromstring(page[page.index("<svg"):page.index("</svg>") + 6])
    bars = [e for e in svg.iter() if e.tag.endswith("rect") and e.find("{*}title") is not None]
    assert len(bars) == 4 * 2  # four measures, two protocols
    assert all(0 <= float(bar.get("height")) <= 200 for bar in bars)
    assert "by kind of task" in page
    assert not re.search(r"(src|href)\s*=\s*['\"]?https?:", page)  # opens with no network


def test_the_table_names_a_fix_for_each_failure_kind_seen():
    out = run_tao("compare", "--quirk", "fenced", COLUMNS="200")
    assert out.returncode == 0, out.stderr
    assert "well-formed calls" in out.stdout and "near_miss" in out.stdout
    assert "near-miss coaching" in out.stdout


def test_a_protocol_that_does_not_exist_is_one_line():
    out = run_tao("compare", "--protocols", "texty")
    assert out.returncode == 2 and "no protocol" in out.stderr and "Traceback" not in out.stderr


REAL_TABLE = ("tao compare --provider replay:tests/recordings/local_smollm2_kinds.json "
              "--tasks tests/recordings/local_smollm2_kinds.toml "
              "--protocols text,native,constrained --markdown")


def test_stage_07_readme_tables_are_what_tao_compare_prints_now():
    """The README's "Text or native? Measured" tables, each run again (the offline model
    is deterministic, its clock frozen): a change to a loop, a quirk or a task that moves
    a number fails here until `tao compare` regenerates the table."""
    from helpers import ROOT, with_twins

    tasks = compare.load_tasks()
    clean = compare.summarise(compare.compare(build_provider("offline"), ["text", "native"],
                                              tasks))
    quirks = compare.quirk_summaries(tasks, ["text", "native"])
    # the real model's table: the command in its marker, run again on the recording
    again = run_tao(*REAL_TABLE.split()[1:])
    assert again.returncode == 0, again.stderr
    tables = {"tao compare --markdown": compare.markdown(clean),
              "tao compare --quirk all": compare.quirk_markdown(quirks),
              REAL_TABLE: again.stdout.strip()}
    real = len(compare.load_tasks(ROOT / REAL_TABLE.split("--tasks ")[1].split()[0]))
    tasks_said = {"README.md": "{} tasks", "README.fr.md": "{} tâches"}
    folder = ROOT / "stages" / "07_native_tools"
    # the README shows the offline table; MEASURED.md, one link away, the other two
    for path, measured in zip(with_twins([folder / "README.md"]),
                              with_twins([folder / "MEASURED.md"]), strict=True):
        readme, said = path.read_text(encoding="utf-8"), tasks_said[path.name]
        pages = readme + measured.read_text(encoding="utf-8")
        blocks = dict(re.findall(r"<!-- (tao compare [^>]*?) -->\n(.*?)\n<!-- end -->", pages,
                                 flags=re.S))
        assert blocks == tables, f"stage 07's {path.name}, {measured.name}: regenerate the tables"
        assert said.format(len(tasks)) in readme, f"{path.name}: say {said.format(len(tasks))}"
        assert f"]({measured.name})" in readme, f"{path.name} should link {measured.name}"
        after = pages.split(REAL_TABLE)[1][:1500]  # the words that say what the table shows
        assert said.format(real) in after and "SmolLM2-135M" in after, (
            f"{path.name}: after the real model's table, say {said.format(real)} of SmolLM2-135M")


EXAMPLES_TABLE = ("tao compare --provider replay:tests/recordings/local_smollm2_examples.json "
                  "--tasks tests/recordings/local_smollm2_examples.toml "
                  "--protocols text,examples,native,constrained,constrained+examples --markdown")


def test_stage_06_readme_examples_table_is_the_recorded_run_replayed_now():
    """Stage 06's "Worked examples" table is SmolLM2-135M's recorded run (regenerate.py
    examples), replayed: the command in its marker, run again, prints it; and in that run
    the examples column holds a whole round trip the text column lacks: the right tool,
    called with the right arguments, its real result, and a right answer from it."""
    from helpers import ROOT, with_twins

    again = run_tao(*EXAMPLES_TABLE.split()[1:])
    assert again.returncode == 0, again.stderr
    for path in with_twins([ROOT / "stages" / "06_tool_registry" / "README.md"]):
        blocks = dict(re.findall(r"<!-- (tao compare [^>]*?) -->\n(.*?)\n<!-- end -->",
                                 path.read_text(encoding="utf-8"), flags=re.S))
        assert blocks.get(EXAMPLES_TABLE) == again.stdout.strip(), (
            f"stage 06's {path.name}: put `{EXAMPLES_TABLE}`'s table back in its marker")
    name, tasks, protocols = next(run for run in REAL_RUNS if "examples" in run[0])
    folder = ROOT / "tests" / "recordings"
    results = compare.compare(ReplayProvider.from_recording(str(folder / name)), protocols,
                              compare.load_tasks(folder / tasks))

    def round_trips(protocol):
        return [r.task for r in results if r.protocol == protocol and r.calls
                and r.right_tool and r.right_args and r.answer_ok]
    assert round_trips("examples") and not round_trips("text"), (
        "the table's lesson, examples: a right round trip where there was none")


def test_tao_compare_record_then_replay_gives_the_same_json(tmp_path):
    recording = tmp_path / "run.json"
    first = run_tao("compare", "--quirk", "prose", "--json", "--record", str(recording))
    again = run_tao("compare", "--provider", f"replay:{recording}", "--json")
    assert first.returncode == again.returncode == 0, again.stderr
    live, replayed = json.loads(first.stdout), json.loads(again.stdout)
    assert "recorded from offline" in replayed["provider"]
    for data in (live, replayed):
        for summary in data["summary"].values():
            summary.pop("seconds")
        for row in data["results"]:
            row.pop("seconds")
    assert replayed["summary"] == live["summary"] and replayed["results"] == live["results"]


def test_a_replay_that_no_longer_matches_stops_the_comparison(tmp_path):
    recording = tmp_path / "run.json"
    assert run_tao("compare", "--json", "--record", str(recording)).returncode == 0
    out = run_tao("compare", "--provider", f"replay:{recording}", "--protocols", "native")
    assert out.returncode == 2 and "request 1 differs" in out.stderr  # not 32 wrong rows


def test_a_task_file_with_a_mistake_is_one_line(tmp_path):
    tasks = tmp_path / "tasks.toml"
    tasks.write_text('[[task]]\nid = "x"\nkind = "one_call"\nprompt = "hi"\ntool = "now"\n')
    out = run_tao("compare", "--tasks", str(tasks))
    assert out.returncode == 2 and "[[task]]" in out.stderr and out.stdout == ""


def test_a_hostile_tool_name_is_graded_not_crashed_on():
    replies = ['{"tool": {"name": "calculator"}, "args": {}}', "It is 391."]
    result = graded("text", replies)
    assert result.missed_call and not result.right_tool and result.answer_ok


REAL_RUNS = [  # (recording, its tasks, its protocols), all in tests/recordings/
    # SmolLM2-135M through --provider local, in this process
    ("local_smollm2.json", "local_smollm2_tasks.toml", ["text", "native"]),
    ("local_smollm2_kinds.json", "local_smollm2_kinds.toml", ["text", "native", "constrained"]),
    ("local_smollm2_examples.json", "local_smollm2_examples.toml",
     ["text", "examples", "native", "constrained", "constrained+examples"]),
    # the same model behind llama-cpp-python's OpenAI-compatible server, --provider openai
    ("llama_cpp_server_compare.json", "local_smollm2_tasks.toml", ["text", "native"]),
]


@pytest.mark.parametrize(("name", "tasks", "protocols"), REAL_RUNS)
def test_a_recorded_run_of_a_real_model_replays_through_the_loops(name, tasks, protocols):
    """Runs of a real model, recorded: output no one here wrote. The loops must still
    send exactly what they sent then, and the model's words must be what gets graded; a
    reply cut off at the token limit is no right answer."""
    from helpers import ROOT

    folder = ROOT / "tests" / "recordings"
    recording = folder / name
    said = [entry["text"] for entry in json.loads(recording.read_text())]
    tasks = compare.load_tasks(folder / tasks)
    results = compare.compare(ReplayProvider.from_recording(str(recording)), protocols, tasks)
    assert len(results) == len(tasks) * len(protocols)
    for result in results:
        assert any(text and text.strip()[:40] in result.answer for text in said), result
        if "cut_off" in result.errors:
            assert not result.answer_ok


# ---------------------------------------------------------------- constrained


FOUR = "tests/recordings/local_smollm2_tasks.toml"


class HeldToGrammar(OfflineProvider):
    """The local model's stand-in: keeps the grammar it was built with, counts its calls
    (the offline model answers them)."""

    name = "local"

    def __init__(self, model=None, *, grammar=None):
        super().__init__()
        self.grammar, self.calls = grammar, 0

    def turn(self, *args, **kwargs):
        self.calls += 1
        yield from super().turn(*args, **kwargs)


@pytest.fixture
def local_stand_in(monkeypatch):
    """`--provider local`'s model, as compare builds it, replaced by HeldToGrammar."""
    built, real = [], compare.build_provider

    def build(name, model=None, **kwargs):
        if name != "local":
            return real(name, model, **kwargs)
        built.append(HeldToGrammar(model, **kwargs))
        return built[-1]
    monkeypatch.setattr(compare, "build_provider", build)
    return built


def test_constrained_is_stage_06_on_the_local_model_held_to_the_registrys_grammar(
        local_stand_in, tmp_path):
    out = run_tao("compare", "--protocols", "text,constrained", "--tasks", FOUR, "--json",
                  "--record", str(tmp_path / "run.json"))
    assert out.returncode == 0, out.stderr
    [held] = local_stand_in
    named = re.findall(r'"\\"tool\\"" ws ":" ws "\\"(\w+)\\""', held.grammar)
    assert sorted(named) == sorted(compare.load_protocol("text").TOOLS)  # compare's registry
    summary = json.loads(out.stdout)["summary"]
    assert summary["constrained"]["runs"] == 4
    # every call of the constrained runs, and only those, went to the grammar's model
    assert held.calls == summary["constrained"]["iterations"] > 0
    # one recording holds both models' calls, in order: it replays to the same numbers
    again = run_tao("compare", "--provider", f"replay:{tmp_path / 'run.json'}", "--protocols",
                    "text,constrained", "--tasks", FOUR, "--json")
    assert again.returncode == 0, again.stderr
    replayed = json.loads(again.stdout)["summary"]
    for data in (summary, replayed):
        for protocol in data.values():
            protocol.pop("seconds")
    assert replayed == summary


def test_without_a_local_model_constrained_is_one_line_and_the_others_still_run(tmp_path):
    missing = str(tmp_path / "no-such-model.gguf")
    out = run_tao("compare", "--protocols", "text,native,constrained", "--tasks", FOUR,
                  "--json", TAO_LOCAL_MODEL=missing)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("\n") == 1 and "constrained" in out.stderr, out.stderr
    assert set(json.loads(out.stdout)["summary"]) == {"text", "native"}
    alone = run_tao("compare", "--protocols", "constrained", "--tasks", FOUR,
                    TAO_LOCAL_MODEL=missing)
    assert alone.returncode == 2 and "Traceback" not in alone.stderr


def test_each_fix_sends_the_learner_where_that_tool_choice_is_used():
    # "tool_choice="required" (stage 07)" sent learners to a stage that never sets it
    from helpers import ROOT

    from tao.i18n import MESSAGES

    checked = 0
    for key, entry in MESSAGES.items():
        for value, where in re.findall(r'tool_choice="(\w+)" [^()]*\(([^)]*)\)',
                                       entry["en"] if key.startswith("compare.fix.") else ""):
            stage = re.search(r"stage (\d\d)", where)
            exercise = re.search(r"exercise (\d+)", where)
            assert stage or exercise, f"{key}: say where tool_choice={value!r} is used"
            if stage:
                code = "".join(p.read_text(encoding="utf-8") for p in
                               ROOT.glob(f"stages/{stage.group(1)}_*/*.py"))
                assert f'tool_choice="{value}"' in code, f"{key}: stage {stage.group(1)}"
            if exercise:
                (solution,) = ROOT.glob(f"exercises/solutions/e{int(exercise.group(1)):02}_*.py")
                assert f'"{value}"' in solution.read_text(encoding="utf-8"), key
            checked += 1
    assert checked >= 2


CHAINS = {"README.md": r"chains a second call[^(]*\(([^)]*)\)",
          "README.fr.md": r"n'enchaîne un second appel[^(]*\(([^)]*)\)"}


def test_stage_07_readme_names_the_offline_models_wrong_answers_and_the_chain_it_gets_right():
    # it once said the offline model "does not chain calls", while stage 06 shows it chaining
    from helpers import ROOT, with_twins

    tasks = compare.load_tasks()
    results = compare.compare(build_provider("offline"), ["text", "native"], tasks)
    wrong = {r.task for r in results if not r.answer_ok}
    chained_right = {r.task for r in results if r.kind == "chained" and r.answer_ok}
    assert wrong and chained_right, "the paragraph needs both to say anything"
    for path in with_twins([ROOT / "stages" / "07_native_tools" / "README.md"]):
        text = path.read_text(encoding="utf-8")
        named = set(re.findall(r"`([\w-]+)`", text)) & {task.id for task in tasks}
        assert wrong <= named, f"{path.name} leaves out wrong answers: {sorted(wrong - named)}"
        chain = re.search(CHAINS[path.name], " ".join(text.split()))
        assert chain, f"{path.name} should say when the offline model chains a call"
        assert set(re.findall(r"`([\w-]+)`", chain.group(1))) == chained_right


# ---------------------------------------------------------------- issue 32: nothing written
# that nobody asked for, one line for every mistake, before the run


def test_html_writes_over_nothing_but_its_own_report_and_says_so_before_the_run(tmp_path):
    notes = tmp_path / "notes.html"
    notes.write_text("<p>my notes</p>")
    out = run_tao("compare", "--html", str(notes))
    assert out.returncode == 2 and "--html" in out.stderr and out.stdout == "", out.stderr
    assert notes.read_text() == "<p>my notes</p>"
    for wrong in (tmp_path / "report.txt", tmp_path / "no" / "report.html"):
        out = run_tao("compare", "--html", str(wrong))
        assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    report = tmp_path / "report.html"
    for _ in range(2):  # its own report, written again
        assert run_tao("compare", "--html", str(report)).returncode == 0
    assert "<svg" in report.read_text()


def test_a_model_name_and_a_task_kind_are_shown_as_they_are_never_as_markup(tmp_path):
    tasks = tmp_path / "tasks.toml"
    tasks.write_text('[[task]]\nid = "x"\nkind = "[bold]odd[/nothing]"\nprompt = "hi"\n')
    recording = tmp_path / "run.json"
    assert run_tao("compare", "--tasks", str(tasks), "--record", str(recording)).returncode == 0
    entries = json.loads(recording.read_text())
    entries[0]["request"]["model"] = "[/x] \x1b[2J"
    recording.write_text(json.dumps(entries))
    out = run_tao("compare", "--tasks", str(tasks), "--provider", f"replay:{recording}",
                  COLUMNS="200")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "[bold]odd[/nothing]" in out.stdout and "[/x] \\x1b[2J" in out.stdout
    assert "\x1b" not in out.stdout


def test_replay_with_no_file_names_what_to_give_not_tao_script():
    for out in (run_tao("compare", "--provider", "replay:"),
                run_tao("compare", TAO_PROVIDER="replay:")):
        assert out.returncode == 2 and "TAO_SCRIPT" not in out.stderr, out.stderr
        assert "replay:FILE" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("content", "says"), [
    (b'[[task]]\nid = "x"\nkind = "one_call"\nprompt = "caf\xe9"\n', "UTF-8"),  # Latin-1
    (b'[[task]]\nid = "x"\nkind = "one_call"\nprompt = ["a", "list"]\n', "prompt"),
    (b'[[task]]\nid = "x"\nkind = "one_call"\nprompt = "hi"\ntools = "now"\n', "tools"),
    (b'[[task]]\nid = "x"\nkind = "one_call"\nprompt = "hi"\nargs = {now = 3}\n', "args"),
    (b'task = 3\n', "[[task]]"),
])
def test_a_task_file_of_the_wrong_encoding_or_shape_is_one_line(content, says, tmp_path):
    tasks = tmp_path / "tasks.toml"
    tasks.write_bytes(content)
    out = run_tao("compare", "--tasks", str(tasks))
    assert out.returncode == 2 and says in out.stderr and out.stdout == "", out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["--runs", "0"], ["--runs", "-2"], ["--protocols", ","],
                                  ["--protocols", " "]])
def test_nothing_to_run_is_one_line_not_an_empty_table(args):
    out = run_tao("compare", *args)
    assert out.returncode == 2 and out.stdout == "", out.stdout
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_reader_that_stops_reading_ends_compare_quietly():
    """`tao compare --json | head -1`: the pipe closes early; no BrokenPipeError."""
    import subprocess
    import sys

    from helpers import ROOT, clean_env

    process = subprocess.Popen([sys.executable, "-m", "tao", "compare", "--runs", "3",
                                "--json"], cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        process.stdout.readline()
        process.stdout.close()  # as `head -1` does
        err = process.stderr.read().decode()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in err and "BrokenPipeError" not in err and "ignored" not in err, err



@pytest.mark.parametrize("option", ["--html", "--record"])
def test_a_full_disk_is_one_line_and_leaves_no_half_file(option, tmp_path):
    import subprocess
    import sys

    from helpers import ROOT, clean_env, file_limit

    target = tmp_path / ("report.html" if option == "--html" else "run.json")
    out = subprocess.run([sys.executable, "-m", "tao", "compare", option, str(target)],
                         cwd=ROOT, env=clean_env(), capture_output=True, text=True,
                         timeout=120, preexec_fn=file_limit(3000))
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "File too large" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    if option == "--html":
        assert not target.exists() and not list(tmp_path.iterdir())  # no half page, no .part
    else:
        json.loads(target.read_text())  # the calls written before the disk filled up


# ---------------------------------------------------------------- examples


class Listening(ScriptedProvider):
    """The scripted model, keeping the messages of every request it answers."""

    def __init__(self, replies):
        super().__init__(replies)
        self.requests = []

    def turn(self, messages, *args, **kwargs):
        self.requests.append(messages)
        yield from super().turn(messages, *args, **kwargs)


TIME = compare.Task("time", "one_call", "What time is it right now?", ["now"], {}, ["03:04"])


def test_examples_is_stage_06_with_the_examples_in_front_of_every_request():
    model = Listening(RIGHT_TEXT)
    result = compare.run_task(TASK, "examples", compare.load_protocol("examples"), model,
                              compare.examples_for("examples", compare.load_protocol("text")))
    assert (result.right_tool, result.right_args, result.answer_ok) == (True, True, True)
    assert result.calls == [{"name": "calculator", "args": {"expression": "17*23"}}], (
        "the examples' calls are no calls of the run")
    for messages in model.requests:
        examples = [m for m in messages if m.get("example")]
        assert examples and messages[:len(examples)] == examples
        assert messages[len(examples)]["content"] == TASK.prompt
    assert not compare.examples_for("text", compare.load_protocol("text"))


def test_an_answer_copied_from_an_example_is_graded_wrong():
    """The leak the examples bring: the model answers with the example's clock reading
    instead of calling `now`. The examples' clock is not the tasks', so it shows."""
    loop = compare.load_protocol("examples")
    examples = compare.examples_for("examples", loop)
    copied = next(m["content"] for m in examples if m["role"] == "assistant"
                  and compare.EXAMPLE_NOW in m["content"])
    result = compare.run_task(TIME, "examples", loop, ScriptedProvider([copied]), examples)
    assert result.missed_call and not result.answer_ok
    right = compare.run_task(TIME, "examples", loop, ScriptedProvider(
        ['{"tool": "now", "args": {}}', f"It is {compare.FROZEN_NOW}."]), examples)
    assert right.right_tool and right.answer_ok


def test_offline_the_examples_cost_tokens_and_mislead_nothing():
    summary = compare.summarise(compare.compare(build_provider("offline"),
                                                ["text", "examples"], compare.load_tasks()))
    text, examples = summary["text"], summary["examples"]
    assert examples["tokens_in"] > text["tokens_in"]  # sent with every request
    for key in ("calls", "well_formed", "right_tool", "right_args", "answer_ok", "errors"):
        assert examples[key] == text[key], key


def test_the_examples_column_records_replays_and_shows_in_every_output(tmp_path):
    recording, report = tmp_path / "run.json", tmp_path / "report.html"
    first = run_tao("compare", "--protocols", "text,examples", "--tasks", FOUR, "--json",
                    "--record", str(recording), "--html", str(report))
    again = run_tao("compare", "--provider", f"replay:{recording}", "--protocols",
                    "text,examples", "--tasks", FOUR, "--json")
    assert first.returncode == again.returncode == 0, again.stderr
    live, replayed = json.loads(first.stdout), json.loads(again.stdout)
    for data in (live, replayed):
        for summary in data["summary"].values():
            summary.pop("seconds")
    assert replayed["summary"] == live["summary"] and set(live["summary"]) == {
        "text", "examples"}
    assert "<th>examples</th>" in report.read_text()
    table = run_tao("compare", "--protocols", "text,examples", "--tasks", FOUR, "--markdown")
    assert table.stdout.startswith("| | text | examples |")


def test_constrained_examples_go_to_the_held_model_with_the_examples_in_front(
        local_stand_in, monkeypatch):
    seen = []
    monkeypatch.setattr(HeldToGrammar, "turn", lambda self, messages, *args, **kwargs: (
        seen.append(messages) or OfflineProvider.turn(self, messages, *args, **kwargs)))
    out = run_tao("compare", "--protocols", "constrained,constrained+examples", "--tasks",
                  FOUR, "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)["summary"]
    assert len(seen) == sum(s["iterations"] for s in summary.values())
    with_examples = [m for m in seen if m[0].get("example")]
    assert len(with_examples) == summary["constrained+examples"]["iterations"] > 0


def test_without_a_local_model_both_held_protocols_are_left_out_in_one_line(tmp_path):
    out = run_tao("compare", "--protocols", "examples,constrained,constrained+examples",
                  "--tasks", FOUR, "--json", TAO_LOCAL_MODEL=str(tmp_path / "none.gguf"))
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("\n") == 1 and "constrained, constrained+examples" in out.stderr
    assert set(json.loads(out.stdout)["summary"]) == {"examples"}
