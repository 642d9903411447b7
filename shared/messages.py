"""tao's own words in English and French: one table, one lookup.

`text(id, **parts)` is message `id` in the language tao speaks, `language()`: TAO_LANG
(`en` or `fr`) if set, else the locale (the first of LC_ALL, LC_MESSAGES, LANG that is
set: one starting with `fr` is French), else English; anything else is English too. A
message with no French text falls back to its English one (tests/test_messages.py fails
while one is missing, so the table stays complete). Commands, file names and code
identifiers stay English in both languages: they are what the learner types.

Only the `tao` command speaks through this table. The stages print English, since a
learner diffs them, and the offline model answers in the language it is asked in
(shared/providers/offline/writing.py).
"""

from __future__ import annotations

import os

LANGUAGES = ("en", "fr")
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX order: the first one set decides

MESSAGES = {
    # tao tour
    "tour.stage": {"en": "stage {number}: {title}", "fr": "étape {number} : {title}"},
    "tour.exited": {"en": "stage {number} ({title}) exited with {code}",
                    "fr": "l'étape {number} ({title}) s'est arrêtée avec le code {code}"},
    "tour.done": {
        "en": "tour done: {ok} of {total} stages ran cleanly. Next: open "
              "stages/01_single_call/main.py, or see what a stage changed with `tao diff 02`.",
        "fr": "visite terminée : {ok} étapes sur {total} se sont déroulées sans erreur. "
              "Ensuite : ouvrez stages/01_single_call/main.py, ou regardez ce qu'une étape a "
              "changé avec `tao diff 02`."},
    # tao list
    "list.title": {"en": "tao stages", "fr": "les étapes de tao"},
    "list.columns": {"en": "#|stage|what it teaches", "fr": "#|étape|ce qu'elle enseigne"},
    "list.run": {"en": "run one: tao run NN · see what changed: tao diff NN",
                 "fr": "en lancer une : tao run NN · voir ce qui a changé : tao diff NN"},
    "list.check": {"en": "check the current one: tao check · one by number: tao check N · "
                         "every one: tao check --all",
                   "fr": "vérifier l'exercice en cours : tao check · un exercice par son "
                         "numéro : tao check N · tous : tao check --all"},
    # the exercises: progress, rows, status names
    "progress": {"en": "Progress: [", "fr": "Progression : ["},
    "row.stage": {"en": "  stage {stage} · {status}", "fr": "  étape {stage} · {status}"},
    "table.columns": {"en": "file|stage|status|what you build",
                      "fr": "fichier|étape|état|ce que vous construisez"},
    "status.done": {"en": "done", "fr": "réussi"},
    "status.failing": {"en": "failing", "fr": "en échec"},
    "status.timeout": {"en": "timeout", "fr": "trop long"},
    "status.not attempted": {"en": "not attempted", "fr": "pas commencé"},
    "status.edited": {"en": "edited", "fr": "modifié"},
    "status.missing": {"en": "missing", "fr": "manquant"},
    # tao check
    "check.checking": {"en": "checking {what}…", "fr": "vérification de {what}…"},
    "check.every": {"en": "every exercise", "fr": "tous les exercices"},
    "check.passed": {"en": "✓ Exercise {number} ({title}) is done!",
                     "fr": "✓ L'exercice {number} ({title}) est réussi !"},
    "focus.all_done": {
        "en": "All exercises done! `tao solution N` shows the reference answers to compare "
              "with yours.",
        "fr": "Tous les exercices sont réussis ! `tao solution N` montre les solutions de "
              "référence, à comparer avec les vôtres."},
    "focus.head": {"en": "Exercise {number} ({title}, stage {stage})",
                   "fr": "Exercice {number} ({title}, étape {stage})"},
    "focus.done": {"en": "{head} is done.", "fr": "{head} : réussi."},
    "focus.next": {"en": "Next: {head}. Open {file}, read its docstring, and replace the "
                         "NotImplementedError.",
                   "fr": "Suivant : {head}. Ouvrez {file}, lisez sa docstring (en anglais) et "
                         "remplacez le NotImplementedError."},
    "focus.task": {"en": "The task: {task}", "fr": "Ce que demande l'exercice : {task}"},
    "focus.edited": {"en": "{head} changed since its last check: `tao check` runs it.",
                     "fr": "{head} a changé depuis sa dernière vérification : `tao check` la "
                           "relance."},
    "focus.failing": {"en": "{head} is not passing yet.{test}",
                      "fr": "{head} ne passe pas encore.{test}"},
    "focus.says": {"en": " `{test}` says:", "fr": " `{test}` dit :"},
    "focus.edit": {"en": "Edit {file}.", "fr": "Modifiez {file}."},
    "focus.stuck": {"en": "Stuck? `tao hint`. Re-check with `tao check`, or let `tao watch` "
                          "re-check on every save.",
                    "fr": "Bloqué ? `tao hint`. Vérifiez de nouveau avec `tao check`, ou "
                          "laissez `tao watch` vérifier à chaque enregistrement."},
    # tao watch (its keys stay the same letters in both languages)
    "watch.keys": {"en": "watching {file} · h hint · l list · n next exercise · r reset · q quit",
                   "fr": "surveillance de {file} · h indice · l liste · n exercice suivant · "
                         "r réinitialiser · q quitter"},
    "watch.list_keys": {
        "en": "↑/↓ or j/k move · Enter picks · or type a number, then Enter · l closes the list",
        "fr": "↑/↓ ou j/k pour se déplacer · Entrée pour choisir · ou tapez un numéro, puis "
              "Entrée · l ferme la liste"},
    "watch.picking": {"en": " · picking {number}…", "fr": " · choix du {number}…"},
    "watch.hint": {"en": "Hint for exercise {number}:", "fr": "Indice pour l'exercice {number} :"},
    "watch.next": {"en": "Press n for the next exercise.",
                   "fr": "Appuyez sur n pour l'exercice suivant."},
    "watch.no_such": {"en": "no exercise {number}: choose 1 to {total}",
                      "fr": "pas d'exercice {number} : choisissez de 1 à {total}"},
    "watch.all_done": {"en": "every exercise is done: nothing to reset",
                       "fr": "tous les exercices sont réussis : rien à réinitialiser"},
    "watch.is_stub": {"en": "{file} is already the original stub",
                      "fr": "{file} est déjà le squelette d'origine"},
    "watch.reset_ask": {
        "en": "Reset {file} to its stub? Your changes will be lost. Press y to reset, any "
              "other key to keep them.",
        "fr": "Remettre {file} dans son état d'origine ? Vos modifications seront perdues. "
              "Appuyez sur y pour réinitialiser, sur toute autre touche pour les garder."},
    "watch.kept": {"en": "{file} is left as it is", "fr": "{file} reste tel quel"},
    "watch.reset": {"en": "{file} is the stub again",
                    "fr": "{file} est de nouveau le squelette d'origine"},
    # tao hint
    "hint.head": {"en": "Hint for exercise {number}: {title} (stage {stage})",
                  "fr": "Indice pour l'exercice {number} : {title} (étape {stage})"},
    # the command itself
    "interrupted": {"en": "interrupted", "fr": "interrompu"},
    # tao book: the site's own labels and notices ({...} filled in by the book)
    "book.book": {"en": "tao, the book",
                  "fr": "tao, le livre"},
    "book.stages": {"en": "Stages",
                    "fr": "Étapes"},
    "book.exercises": {"en": "Exercises",
                       "fr": "Exercices"},
    "book.compare": {"en": "Text or native?",
                     "fr": "Texte ou natif ?"},
    "book.previous": {"en": "← previous: {stage}",
                      "fr": "← précédente : {stage}"},
    "book.next": {"en": "next: {stage} →",
                  "fr": "suivante : {stage} →"},
    "book.code": {"en": "The code",
                  "fr": "Le code"},
    "book.changed": {"en": "What changed since {prev}",
                     "fr": "Ce qui a changé depuis {prev}"},
    "book.changed_files": {"en": "changed files",
                           "fr": "fichiers modifiés"},
    "book.code_lines": {"en": "code: +{added} −{removed} lines",
                        "fr": "code : +{added} −{removed} lignes"},
    "book.readme_diff": {"en": "the README's changes",
                         "fr": "les changements du README"},
    "book.first": {"en": "The first stage: nothing comes before it.",
                   "fr": "La première étape : rien ne la précède."},
    "book.identical": {"en": "No file changed.",
                       "fr": "Aucun fichier n'a changé."},
    "book.transcript": {"en": "What you should see",
                        "fr": "Ce que vous devriez voir"},
    "book.transcript_note": {"en": "The tour's demo, replayed on a recorded script ({file}): "
                                   "what the terminal shows.",
                             "fr": "La démo du tour, rejouée sur un script enregistré ({file}) "
                                   ": ce qu'affiche le terminal."},
    "book.no_transcript": {"en": "No golden transcript for this stage yet.",
                           "fr": "Pas encore de transcription de référence pour cette étape."},
    "book.untranslated": {"en": "This page is not translated yet: here is the English text.",
                          "fr": "Cette page n'est pas encore traduite : voici le texte anglais."},
    "book.stage": {"en": "stage {n}",
                   "fr": "étape {n}"},
    "book.hint": {"en": "Hint {n}",
                  "fr": "Indice {n}"},
    "book.more_hint": {"en": "Hint {n}: one more rung",
                       "fr": "Indice {n} : un cran de plus"},
    "book.stub": {"en": "The stub",
                  "fr": "L'exercice à compléter"},
    "book.solution": {"en": "The solution (open it once yours passes)",
                      "fr": "La solution (à ouvrir une fois la vôtre réussie)"},
    "book.map": {"en": "The stage map",
                 "fr": "Le plan des étapes"},
    "book.run": {"en": "How to run the kit",
                 "fr": "Lancer le kit"},
    "book.measured": {"en": "Measured on the offline model, now",
                      "fr": "Mesuré sur le modèle hors ligne, maintenant"},
    "book.recorded": {"en": "Replayed from a recording of a real small model (SmolLM2-135M, "
                            "tests/recordings)",
                      "fr": "Rejoué depuis l'enregistrement d'un vrai petit modèle "
                            "(SmolLM2-135M, tests/recordings)"},
    "book.built": {"en": "Built from the repository by {command}.",
                   "fr": "Construit depuis le dépôt par {command}."},
}


def language(env=None) -> str:
    """"fr" or "en": TAO_LANG if set, else the locale, else English."""
    env = os.environ if env is None else env
    chosen = (env.get("TAO_LANG") or "").strip()
    if not chosen:
        chosen = next((env[var] for var in LOCALE_VARS if env.get(var)), "")
    return "fr" if chosen.lower().startswith("fr") else "en"


def text(message_id: str, lang: str | None = None, **parts) -> str:
    """Message `message_id` in `lang` (default: `language()`), its parts filled in; the
    English text when that language has none."""
    entry = MESSAGES[message_id]
    return (entry.get(lang or language()) or entry["en"]).format(**parts)
