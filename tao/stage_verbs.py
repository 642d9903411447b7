"""Stage verbs of `tao`: list, run, tour, diff, doctor."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
from pathlib import Path

from rich.table import Table
from rich.text import Text

from shared.printable import visible

from .exercise_screen import show_list
from .exercise_state import current, load, statuses
from .i18n import language, text
from .repo import ROOT, CLIError, find_stage, stages

# What `tao tour` types into each stage (arguments, then lines on stdin).
DEMOS = {
    "01": (["What is an agent loop?"], ""),
    "02": ([], "Hello! I'm learning how agents work.\nWhat did I just tell you?\n"),
    "03": ([], "Who are you?\n"),
    "04": ([], "What time is it?\n"),
    "05": ([], "What time is it?\nHow many words are in 'the quick brown fox'?\n"),
    "06": ([], "How many words are in 'to be or not to be'?\nWhat is 12 * (3 + 4)?\n"),
    "07": ([], "What time is it, and how many words are in "
               "'the quick brown fox jumps over the lazy dog'?\n"),
    "08": (["--budget", "300"], "What time is it?\nHow many words are in 'to be or not to be'?\n"
                                "What is 12 * (3 + 4)?\n"),
    "09": (["--max-iterations", "1"], "What time is it, and what is 12 / 0?\n"),
    "10": ([], "What time is it? Also fetch 'example.org' and search the web for 'agent loops', "
               "1 second each.\n"),
    "11": ([], "List the files, then find 'TODO'.\n"
               "Replace 'TODO: strip' by 'TODO (later): strip' in 'wordfreq.py'\n"
               "Read '../secret.txt'\n"),
    "12": ([], "Run 'python3 -m unittest 2>&1 | tail -1'\nRun 'cat /etc/shadow; ls /root'\n"),
    "13": (["--mode", "auto-edit"], "Replace 'TODO: strip' by 'TODO (later): strip' in "
                                    "'wordfreq.py'\nRun 'python3 -m unittest 2>&1 | tail -1'\n"
                                    "/mode auto\nRun 'python3 -m unittest 2>&1 | tail -1'\n"),
    "14": (["--quirk", "gullible"], "Read README.md\nRead notes/build.log\n"),
}
# The same demos in French (`tao tour --lang fr`): the offline model answers in French,
# the stages' own lines stay English (they are the code a learner diffs).
DEMOS_FR = {
    "01": (["Qu'est-ce qu'une boucle d'agent ?"], ""),
    "02": ([], "Bonjour ! J'apprends comment marchent les agents.\n"
               "Qu'est-ce que je viens de vous dire ?\n"),
    "03": ([], "Qui êtes-vous ?\n"),
    "04": ([], "Quelle heure est-il ?\n"),
    "05": ([], "Quelle heure est-il ?\nCombien de mots dans 'le vif renard brun' ?\n"),
    "06": ([], "Combien de mots dans 'être ou ne pas être' ?\nCalcule 4823 fois 1979\n"),
    "07": ([], "Quelle heure est-il, et combien de mots dans "
               "'le vif renard brun saute par-dessus le chien paresseux' ?\n"),
    "08": (["--budget", "300"], "Quelle heure est-il ?\nCombien de mots dans "
                                "'être ou ne pas être' ?\nCombien font 12 * (3 + 4) ?\n"),
    "09": (["--max-iterations", "1"], "Quelle heure est-il, et combien font 12 / 0 ?\n"),
    "10": ([], "Quelle heure est-il ? Récupère aussi 'example.org' et cherche 'boucles d'agent' "
               "sur le web, 1 seconde chacun.\n"),
    "11": ([], "Liste les fichiers, puis cherche 'TODO'.\n"
               "Remplace 'TODO: strip' par 'TODO (plus tard): strip' dans 'wordfreq.py'\n"
               "Montre le fichier '../secret.txt'\n"),
    "12": ([], "Exécute 'python3 -m unittest 2>&1 | tail -1'\nExécute 'ls ~'\n"),
    "13": (["--mode", "auto-edit"], "Remplace 'TODO: strip' par 'TODO (plus tard): strip' "
                                    "dans 'wordfreq.py'\nExécute 'python3 -m unittest 2>&1 | "
                                    "tail -1'\n/mode auto\nExécute 'python3 -m unittest 2>&1 "
                                    "| tail -1'\n"),
    "14": (["--quirk", "gullible"], "Montre le fichier 'README.md'\n"
                                    "Montre le fichier 'notes/build.log'\n"),
}
# Each stage's title and what it teaches, in French (in English: its main.py docstring)
SUMMARIES_FR = {
    "01": ("une requête, une réponse", "Le plus petit programme utile face à un modèle : "
           "envoyer un message, afficher la réponse."),
    "02": ("la boucle de conversation", "Une boucle lit une ligne, l'envoie avec tout "
           "l'historique et affiche la réponse au fil de son arrivée."),
    "03": ("le prompt système", "Un personnage et des consignes, envoyés comme prompt système "
           "avec chaque requête."),
    "04": ("un appel d'outil sur une ligne de JSON", "Le prompt système enseigne un protocole : "
           "pour utiliser un outil, répondre par une ligne de JSON."),
    "05": ("la boucle ReAct", "Chaque résultat d'outil retourne au modèle, qui réfléchit de "
           "nouveau, jusqu'à ce qu'il réponde en texte simple."),
    "06": ("un registre d'outils", "Plusieurs outils (`now`, `wordcount`, `calculator`) vivent "
           "dans un registre, tools.py, et la liste d'outils du prompt système en est tirée."),
    "07": ("les appels d'outils natifs", "Le même agent sur les API d'outils des fournisseurs : "
           "les outils partent avec leur JSON Schema, les appels reviennent à part, plusieurs par "
           "réponse, et le texte s'affiche de nouveau en direct."),
    "08": ("mémoire et budget de contexte", "L'historique garde les appels d'outils et leurs "
           "résultats de chaque tour, et chaque requête est réduite à un budget de jetons, tour "
           "par tour, en commençant par le plus ancien."),
    "09": ("les raisons d'arrêt comme données", "Chaque tour finit par une raison sur laquelle "
           "le code peut agir, et la limite d'itérations se termine par un résumé honnête, pas "
           "par des excuses."),
    "10": ("des outils en parallèle", "Quand une réponse demande plusieurs appels qui ne font "
           "que lire, ils tournent en même temps avec asyncio, chacun avec un délai maximal, et "
           "leurs résultats reviennent dans l'ordre des appels."),
    "11": ("les fichiers de l'espace de travail", "L'agent travaille sur de vrais fichiers dans "
           "un seul dossier, l'espace de travail : il les liste, les lit, y cherche, les écrit et "
           "les modifie, et chaque chemin est vérifié une fois résolu."),
    "12": ("un shell confiné", "L'agent reçoit un shell : `run` lance une commande dans "
           "l'espace de travail, derrière un mur que tient le système d'exploitation "
           "(bubblewrap, sinon Landlock), sans réseau ni clés, avec des limites et un délai."),
    "13": ("l'approbation et un journal d'audit", "Avant chaque appel, une table du risque et "
           "du mode choisi par l'utilisateur dit : autoriser, refuser ou demander, et un "
           "approbateur répond ; chaque appel, la décision et son auteur vont dans un journal "
           "chaîné par empreintes."),
    "14": ("un exercice d'attaque par injection", "Chaque observation arrive au modèle marquée "
           "de sa provenance, et `tao drill` cache des attaques dans l'exemple puis dit quelle "
           "couche a arrêté chacune."),
}


def demo(number: str, lang: str = "en") -> tuple[list[str], str]:
    """What `tao tour` types into stage `number`, in `lang`: (arguments, stdin)."""
    return (DEMOS_FR if lang == "fr" else DEMOS).get(number, ([], ""))



def stage_summary(folder: Path, lang: str = "en") -> tuple[str, str]:
    """(title, one line on what it teaches) from the first lines of the stage's docstring
    (in French, from SUMMARIES_FR)."""
    if lang == "fr" and folder.name[:2] in SUMMARIES_FR:
        return SUMMARIES_FR[folder.name[:2]]
    doc = ast.get_docstring(ast.parse((folder / "main.py").read_text(encoding="utf-8"))) or ""
    lines = [line.strip() for line in doc.splitlines()]
    title = lines[0].split(":", 1)[-1].strip().rstrip(".") if lines else folder.name
    body = " ".join(lines[2:]).split(". ")[0].strip() if len(lines) > 2 else ""
    return title, body.rstrip(".") + "." if body else ""


# ---------------------------------------------------------------- verbs


def cmd_list(args, console) -> int:
    """The stages and what each teaches, then the exercises with their status."""
    lang = language()
    table = Table(title=text("list.title", lang), title_justify="left")
    number_column, *columns = text("list.columns", lang).split("|")
    table.add_column(number_column, style="bold")
    for column in columns:
        table.add_column(column)
    for number, folder in stages().items():
        title, teaches = stage_summary(folder, lang)
        table.add_row(number, Text(title), Text(teaches))
    console.print(table)
    console.print(Text(text("list.run", lang), "dim"))
    console.print()
    exercises = load()
    known = statuses(exercises)  # from the last checks: nothing runs here
    show_list(console, exercises, known, current(exercises, known))
    console.print(Text(text("list.check", lang), "dim"))
    return 0


def stage_command(folder: Path, extra: list[str]) -> list[str]:
    """The command line that runs a stage's main.py with this Python."""
    return [sys.executable, str(folder / "main.py"), *extra]


def cmd_run(args, console) -> int:
    """Run one stage interactively; arguments after `--` go to it."""
    folder = find_stage(args.stage)
    extra = [a for a in args.args if a != "--"]
    # Ctrl-C belongs to the stage (it cancels a reply there): tao itself lets it pass.
    # A Python-level handler, unlike SIG_IGN, is not inherited by the stage's process.
    previous = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        return subprocess.call(stage_command(folder, extra), cwd=ROOT)
    finally:
        signal.signal(signal.SIGINT, previous)


def cmd_tour(args, console) -> int:
    """Run every stage with its demo input; a provider that cannot work stops it up front."""
    from shared.providers import PROVIDERS, ProviderError, build_provider

    provider = (args.provider or "offline").strip().lower()
    if provider not in PROVIDERS:  # said once here, not once per stage
        raise CLIError(text("error.unknown_provider", provider=repr(provider),
                            choices=", ".join(PROVIDERS)))
    try:  # a missing key or a bad setting would fail every stage the same way
        build_provider(provider, os.environ.get("TAO_MODEL") or None)
    except ProviderError as exc:
        raise CLIError(str(exc)) from None
    lang = args.lang or language()
    results = []
    for number, folder in stages().items():
        title, teaches = stage_summary(folder, lang)
        console.rule(Text(text("tour.stage", lang, number=number, title=title), "bold"))
        if teaches:
            console.print(Text(teaches, "dim"))
        demo_args, demo_input = demo(number, lang)
        done = subprocess.run(stage_command(folder, ["--provider", provider, *demo_args]),
                              input=demo_input, text=True, cwd=ROOT)
        results.append((number, title, done.returncode))
    console.rule()
    failed = [(n, t, rc) for n, t, rc in results if rc]
    for number, title, code in failed:
        console.print(Text(text("tour.exited", lang, number=number, title=title, code=code),
                           "bold red"))
    console.print(Text(text("tour.done", lang, ok=len(results) - len(failed),
                            total=len(results)), "bold"))
    return 1 if failed else 0


class _Checklist:
    """`tao doctor`'s lines: `ok` or `fix` with what to do; counts the problems."""

    def __init__(self, console):
        self.console, self.problems = console, 0

    def line(self, ok: bool, what: str, fix: str = "") -> None:
        """One line: a mark, what was checked, and the fix when it is not ok."""
        self.problems += not ok
        marks = text("doctor.ok"), text("doctor.fix")
        width = max(map(len, marks)) + 2  # the checks line up in either language
        mark = Text(marks[0].ljust(width), "green") if ok else Text(marks[1].ljust(width),
                                                                     "bold red")
        # a provider's or model's name may come from outside (TAO_MODEL): shown as it is
        self.console.print(mark + Text(visible(what))
                           + (Text(f" → {visible(fix)}", "yellow") if fix else Text()))


def cmd_doctor(args, console) -> int:
    """Which provider, key, server and model would answer, one line each, with the fix."""
    from shared.providers import KEY_VARS, ProviderError, build_provider, choose_provider

    check = _Checklist(console)
    name, why = choose_provider(args.provider)
    check.line(True, text("doctor.provider", name=name, why=why))
    for provider_name, var in KEY_VARS.items():
        present = bool(os.environ.get(var))
        needed = name == provider_name and not (
            provider_name == "openai" and os.environ.get("OPENAI_BASE_URL"))
        check.line(present or not needed,
                   text("doctor.key_set" if present else "doctor.key_unset", var=var),
                   "" if present or not needed else text("doctor.key_fix", var=var))
    try:
        # a check, not a conversation: no retries (the offline and local models need none)
        quick = {} if name in ("offline", "local") else {"max_retries": 0}
        provider = build_provider(name, args.model or os.environ.get("TAO_MODEL") or None,
                                  **quick)
    except ProviderError as exc:
        check.line(False, str(exc))
        return 1
    if name.startswith("replay:"):  # a recording answers: no key, no server, no model file
        check.line(True, text("doctor.replay", model=provider.describe()))
        return 0
    if name == "offline":
        check.line(True, text("doctor.offline", model=provider.describe()))
    elif name != "local":
        _check_server(check, provider, name, ProviderError)
    _check_local(check, name == "local", args.model or os.environ.get("TAO_MODEL") or None)
    return 1 if check.problems else 0


def _check_local(check: _Checklist, chosen: bool, model: str | None) -> None:
    """The local model (--provider local): llama.cpp's bindings, and which file, how big.
    Missing, it is a problem only when it was chosen; loading it is not a check's job."""
    from importlib.metadata import PackageNotFoundError, version

    from shared.providers import ProviderError
    from shared.providers.local import INSTALL, model_file

    try:
        bindings = f"llama-cpp-python {version('llama-cpp-python')}"
    except PackageNotFoundError:
        bindings = ""
    try:
        path = model_file(model if chosen else None)
    except ProviderError as exc:
        path, why = None, str(exc).removeprefix("local: ")
    if bindings and path is not None:
        size = path.stat().st_size / 2**20
        check.line(True, text("doctor.local_ok", file=path.name, size=f"{size:.0f}",
                              path=path, bindings=bindings))
    elif not chosen and not bindings and path is None:
        check.line(True, text("doctor.local_absent", install=INSTALL))
    else:
        missing = why if path is None else text("doctor.no_bindings")
        fix = (text("doctor.install_fix", install=INSTALL)
               if not bindings or "not installed" in missing  # `why`: the provider's English
               else text("doctor.model_file_fix"))
        check.line(False, text("doctor.local_problem", problem=missing), fix)


def _check_server(check: _Checklist, provider, name: str, error: type) -> None:
    """Does the server answer, and does it know the model? (endpoint only: no credentials)"""
    where = provider.endpoint  # scheme://host:port: no user, password or query string
    try:
        exists = provider.model_available()
    except error as exc:
        check.line(False, text("doctor.no_answer", where=where), str(exc))
        return
    check.line(True, text("doctor.answers", where=where))
    fix = (f"ollama pull {provider.model}" if name == "ollama" else text("doctor.model_fix"))
    check.line(exists, text("doctor.model_exists" if exists else "doctor.model_missing",
                            model=provider.model), "" if exists else fix)


